package transports_test

import (
	"fmt"
	"testing"

	"github.com/fabricsim/fabricsim/ecn"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports"
	"github.com/stretchr/testify/require"
)

// The expectations of the persistent queue pair's tests are closed forms on the frame
// arithmetic of harness_test.go: a message's packets leave back to back (or paced at the
// congestion control's rate) and each arrives its serialization plus the link delay after it
// leaves; a message completes when its last packet arrives, and the requester learns it when
// the ACK that packet asks for arrives.

// callAt is a test event: a function run at its time.
type callAt func(now sim.Time)

func (c callAt) Handle(now sim.Time, _ int, _ any) { c(now) }

// completion is one message's completion as a registry callback reported it.
type completion struct {
	flow int32
	msg  int64
	at   sim.Time
}

// persistentQP opens a persistent RoCE v2 queue pair from h1 to h2 starting at start and
// records the registry's per-message callbacks.
func persistentQP(h *harness, cfg transports.RoCEConfig, start sim.Time) (i int32, done, acked *[]completion) {
	done, acked = &[]completion{}, &[]completion{}
	h.reg.OnMessage = func(i int32, msg int64, now sim.Time) { *done = append(*done, completion{i, msg, now}) }
	h.reg.OnAcked = func(i int32, msg int64, now sim.Time) { *acked = append(*acked, completion{i, msg, now}) }
	f := &transports.Flow{Src: h.h1, Dst: h.h2, Start: start, Persistent: true}
	return h.add(f, cfg), done, acked
}

// post posts a message of bytes on flow i at time at.
func (h *harness) post(i int32, at sim.Time, bytes int64) {
	h.eng.At(at, callAt(func(sim.Time) {
		_, err := h.reg.Post(i, bytes)
		require.NoError(h.t, err)
	}), 0, nil)
}

// train is the packets of messages sizes in order, their wire bytes and which one ends a
// message.
type train struct {
	wire, payload []int64
	first, last   []bool
	msg           []int
}

func trainOf(mtu int, sizes ...int64) train {
	var tr train
	for k, size := range sizes {
		m := segment(size, mtu)
		for j := 0; j < m.n; j++ {
			tr.wire = append(tr.wire, m.wire[j])
			tr.payload = append(tr.payload, m.payload[j])
			tr.first = append(tr.first, j == 0)
			tr.last = append(tr.last, j == m.n-1)
			tr.msg = append(tr.msg, k)
		}
	}
	return tr
}

// TestPersistentRoCEMessages: three messages on one RoCE v2 queue pair with DCQCN and
// go-back-N: the first posted before the flow starts, the second while the first is in
// flight (it follows back to back), the third after the queue pair was idle (it leaves at
// once). PSNs run on across messages, each message is its own WRITE (First/Middle/Last, the
// RETH with its own DMA length), each message completes at its last packet's arrival, in
// order, and the ACKs count messages in their MSN.
func TestPersistentRoCEMessages(t *testing.T) {
	h := newHarness(t, defaultLink())
	cfg := defaultConfig()
	dcqcn := ecn.PaperParams()
	cfg.CC = (*transports.DCQCNParams)(&dcqcn)
	const start = 2 * sim.Microsecond
	sizes := []int64{10*mtu + 100, 3000, 500}
	i, done, acked := persistentQP(h, cfg, start)
	_, err := h.reg.Post(i, sizes[0]) // before the start: it waits for it
	require.NoError(t, err)
	tr := trainOf(mtu, sizes...)
	n1 := len(segment(sizes[0], mtu).wire)
	var txs []sim.Time
	for _, w := range tr.wire {
		txs = append(txs, tx(w, lineRate))
	}
	// The second message is posted while the first's third packet is on the wire: it
	// follows the first back to back.
	t2 := start + sum(txs[:2]) + txs[2]/2
	h.post(i, t2, sizes[1])
	// The third, long after the second has completed: the queue pair was idle.
	const t3 = 200 * sim.Microsecond
	h.post(i, t3, sizes[2])
	h.eng.At(t3, callAt(func(sim.Time) { require.NoError(t, h.reg.Close(i)) }), 1, nil)
	h.run()

	dep := append(backToBack(start, txs[:len(txs)-1]), t3) // the third message is one packet
	require.Equal(t, 1, len(segment(sizes[2], mtu).wire))
	data := h.at2.of(topology.KindData, i)
	require.Len(t, data, len(tr.wire))
	var wantDone []completion
	for k, a := range data {
		require.Equal(t, uint32(k), a.psn, "PSNs run on across messages")
		n := len(segment(sizes[tr.msg[k]], mtu).wire)
		want := uint8(topology.OpWriteMiddle)
		switch {
		case n == 1:
			want = topology.OpWriteOnly
		case tr.first[k]:
			want = topology.OpWriteFirst
		case tr.last[k]:
			want = topology.OpWriteLast
		}
		require.Equal(t, want, a.opcode, "packet %d", k)
		require.Equal(t, tr.first[k], a.reth, "RETH on each message's first packet")
		if a.reth {
			require.Equal(t, uint32(sizes[tr.msg[k]]), a.dmaLen, "the RETH names its own message")
		}
		require.Equal(t, tr.last[k], a.ackReq, "AckReq on each message's last packet")
		require.Equal(t, tr.payload[k], int64(a.payload))
		require.Equal(t, dep[k]+txs[k]+linkDly, a.at, "packet %d leaves at %v", k, dep[k])
		if tr.last[k] {
			wantDone = append(wantDone, completion{i, int64(tr.msg[k]), a.at})
		}
	}
	require.Equal(t, wantDone, *done, "each message completes as its last packet arrives, in order")
	// The requester's completion: the ACK the last packet asks for, sent at once on an idle
	// reverse link.
	var wantAcked []completion
	for _, c := range wantDone {
		wantAcked = append(wantAcked, completion{i, c.msg, ackArrival(c.at)})
	}
	require.Equal(t, wantAcked, *acked)
	var msns []uint32
	for _, a := range h.at1.of(topology.KindAck, i) {
		msns = append(msns, a.msn)
		if int(a.psn) == n1-1 {
			require.Equal(t, uint32(1), a.msn, "the ACK of the first message's last packet counts one message")
		}
	}
	require.Equal(t, uint32(3), msns[len(msns)-1], "the last ACK counts three messages")

	f := h.reg.Flows[i]
	require.Equal(t, transports.Completed, f.Status, "closed, and every message completed")
	require.Equal(t, wantDone[2].at, f.Finish, "the flow finishes with its last message")
	require.Equal(t, sizes[0]+sizes[1]+sizes[2], f.Size)
	require.Equal(t, f.Size, f.Delivered)
	require.Equal(t, int64(3), f.Posted)
	require.Equal(t, int64(3), f.Messages)
	require.Zero(t, f.Retransmitted)
	require.Equal(t, []sim.Time{wantDone[2].at}, h.doneAt, "the run's Done, once")
}

// TestPersistentRoCEDCQCNCarries: a CNP during the first message cuts DCQCN's rate (the
// paper's first cut: alpha starts at 1, R <- R (1 - alpha/2), line/2); the second message,
// posted after the first completed and before the rate-increase timer (55 us) fires, is
// paced at the cut rate; over a long idle the reaction point's timer keeps running, as the
// DCQCN authors' code and the paper's RP do (the timer is independent of sending; only the
// byte counter stops), so the third leaves at the rate that recovery reached.
func TestPersistentRoCEDCQCNCarries(t *testing.T) {
	h := newHarness(t, defaultLink())
	cfg := defaultConfig()
	dcqcn := ecn.PaperParams()
	dcqcn.NP = ecn.NPImmediateOnly // the CNP at the marked packet's arrival
	cfg.CC = (*transports.DCQCNParams)(&dcqcn)
	h.at2.mark = func(a arrival, seen int) bool { return a.kind == topology.KindData && a.psn == 2 && seen == 0 }
	sizes := []int64{8 * mtu, 4 * mtu, 2 * mtu}
	i, done, _ := persistentQP(h, cfg, 0)
	_, err := h.reg.Post(i, sizes[0])
	require.NoError(t, err)

	var rate2, rate3 sim.Rate
	var t2 sim.Time
	h.reg.OnMessage = func(_ int32, msg int64, now sim.Time) {
		*done = append(*done, completion{i, msg, now})
		if msg == 0 {
			t2 = now + 10*sim.Microsecond
			h.eng.At(t2, callAt(func(sim.Time) {
				rate2 = h.reg.DCQCNRate(i)
				_, err := h.reg.Post(i, sizes[1])
				require.NoError(t, err)
			}), 0, nil)
		}
	}
	cnps := func() []arrival { return h.at1.of(topology.KindCNP, i) }
	// The third message: seven rate-increase periods after the CNP and 20 us more, away from
	// the timer's ticks.
	var t3 sim.Time
	h.eng.At(5*sim.Microsecond, callAt(func(sim.Time) {
		require.Len(t, cnps(), 1)
		t3 = cnps()[0].at + 7*dcqcn.RateTimer + 20*sim.Microsecond
		h.eng.At(t3, callAt(func(sim.Time) {
			rate3 = h.reg.DCQCNRate(i)
			_, err := h.reg.Post(i, sizes[2])
			require.NoError(t, err)
		}), 0, nil)
	}), 0, nil)
	h.run()

	require.Len(t, *done, 3)
	tc := cnps()[0].at
	require.Equal(t, lineRate/2, rate2, "the first cut halves the rate; no timer tick before the second message")
	// The reaction point on its own, fed the same CNP and the timer's ticks through the idle.
	rp := ecn.NewReactionPoint(dcqcn, lineRate)
	rp.Start(0)
	rp.CNP(tc)
	for at := tc + dcqcn.RateTimer; at <= t3; at += dcqcn.RateTimer {
		if !rp.RateTimer(at) {
			break
		}
	}
	require.Equal(t, rp.Rate(), rate3, "the idle queue pair's rate recovered on its timer")
	require.Greater(t, rate3, rate2)
	require.Less(t, rate3, lineRate)

	data := h.at2.of(topology.KindData, i)
	n1, n2 := len(segment(sizes[0], mtu).wire), len(segment(sizes[1], mtu).wire)
	check := func(from, n int, at sim.Time, r sim.Rate, msg int64) {
		tr := trainOf(mtu, sizes[msg])
		for k := 0; k < n; k++ {
			require.Equal(t, at+tx(tr.wire[k], lineRate)+linkDly, data[from+k].at, "message %d packet %d", msg, k)
			at += tx(tr.wire[k], r) // paced at the rate: one packet per its wire bytes at r
		}
		require.Equal(t, data[from+n-1].at, (*done)[msg].at)
	}
	check(n1, n2, t2, rate2, 1)
	check(n1+n2, len(segment(sizes[2], mtu).wire), t3, rate3, 2)
}

// TestPersistentRoCELossRecovered: go-back-N over three messages posted at once; the first
// transmission of the second message's third packet is lost. The responder NAKs the gap at
// the next packet's arrival; the requester, idle by then, goes back at the NAK's arrival and
// sends from the lost packet on back to back, into the third message. The messages complete
// in order: the first unharmed, the second and third at their resent last packets.
func TestPersistentRoCELossRecovered(t *testing.T) {
	h := newHarness(t, defaultLink())
	cfg := defaultConfig()
	sizes := []int64{4 * mtu, 8 * mtu, 3 * mtu}
	n1 := len(segment(sizes[0], mtu).wire)
	lost := uint32(n1 + 2)
	h.at2.drop = func(a arrival, seen int) bool { return a.kind == topology.KindData && a.psn == lost && seen == 0 }
	i, done, _ := persistentQP(h, cfg, 0)
	for _, s := range sizes {
		_, err := h.reg.Post(i, s)
		require.NoError(t, err)
	}
	h.run()

	tr := trainOf(mtu, sizes...)
	var txs []sim.Time
	for _, w := range tr.wire {
		txs = append(txs, tx(w, lineRate))
	}
	dep := backToBack(0, txs)
	arr := func(k int, from sim.Time) sim.Time { return from + txs[k] + linkDly }
	nakAt := ackArrival(arr(int(lost)+1, dep[lost+1]))
	require.Greater(t, nakAt, dep[len(dep)-1]+txs[len(txs)-1], "the requester is idle when the NAK comes")
	resent := backToBack(nakAt, txs[lost:])
	end1, end2, end3 := n1-1, n1+len(segment(sizes[1], mtu).wire)-1, len(txs)-1
	want := []completion{
		{i, 0, arr(end1, dep[end1])},
		{i, 1, arr(end2, resent[end2-int(lost)])},
		{i, 2, arr(end3, resent[end3-int(lost)])},
	}
	require.Equal(t, want, *done)
	f := h.reg.Flows[i]
	require.Equal(t, int64(len(txs)-int(lost)), f.Retransmitted, "go back N: from the lost packet on")
	require.Equal(t, int64(1), f.NAKs)
	require.Equal(t, f.Size, f.Delivered)
	require.Equal(t, int64(3), f.Messages)
	require.Equal(t, transports.Pending, f.Status, "not closed: the queue pair stays open")
}

// TestPersistentPostErrors: Post and Close refuse what a queue pair cannot take, naming it.
func TestPersistentPostErrors(t *testing.T) {
	h := newHarness(t, defaultLink())
	one := h.add(&transports.Flow{Src: h.h1, Dst: h.h2, Size: 100}, defaultConfig())
	_, err := h.reg.Post(one, 10)
	require.ErrorContains(t, err, "not persistent")
	i, _, _ := persistentQP(h, defaultConfig(), 0)
	_, err = h.reg.Post(i, -1)
	require.ErrorContains(t, err, "a message is 0 to 4294967295 bytes")
	_, err = h.reg.Post(i, 1<<32)
	require.ErrorContains(t, err, "32-bit DMA length")
	_, err = h.reg.Post(99, 1)
	require.ErrorContains(t, err, "there are 2 flows")
	require.NoError(t, h.reg.Close(i))
	_, err = h.reg.Post(i, 1)
	require.ErrorContains(t, err, "closed")
	h.run()
	require.Equal(t, transports.Completed, h.reg.Flows[i].Status, "closed with nothing posted: complete")
}

// TestPersistentPostAllocs: in steady state, posting messages on a persistent flow and
// running them to completion allocates nothing, on every transport (the packets come from
// the pool, a message's record sits in a ring that no longer grows).
func TestPersistentPostAllocs(t *testing.T) {
	roce := func(set func(*transports.RoCEConfig)) func(h *harness, f *transports.Flow) {
		return func(h *harness, f *transports.Flow) {
			cfg := defaultConfig()
			set(&cfg)
			h.add(f, cfg)
		}
	}
	uet := func(cc transports.UETCC) func(h *harness, f *transports.Flow) {
		return func(h *harness, f *transports.Flow) {
			cfg := uetConfig()
			cfg.CC, cfg.RTO = cc, 20*sim.Microsecond
			i := h.reg.Add(f)
			require.NoError(t, h.reg.StartUET(i, h.nic1, h.nic2, false, cfg))
			h.reg.SetPath(i, uetPathOfRTT(&cfg, 3*sim.Microsecond))
		}
	}
	for _, tc := range []struct {
		name string
		open func(h *harness, f *transports.Flow)
	}{
		{"RoCE v2, go-back-N, DCQCN", roce(func(c *transports.RoCEConfig) { p := ecn.PaperParams(); c.CC = (*transports.DCQCNParams)(&p) })},
		{"RoCE v2, IRN", roce(func(c *transports.RoCEConfig) {
			c.IRN = &transports.IRNParams{RTOLow: 100 * sim.Microsecond, RTOHigh: 320 * sim.Microsecond, RTOLowPackets: 3}
		})},
		{"RoCE v1, go-back-0", roce(func(c *transports.RoCEConfig) { c.Version, c.GoBack0 = 1, true })},
		{"UET, NSCC", uet(&transports.UETNSCC{})},
		{"UET, RCCC", uet(&transports.RCCC{})},
		{"UET, NSCC and RCCC", uet(&transports.RCCC{Window: &transports.UETNSCC{}})},
		{"iWARP", func(h *harness, f *transports.Flow) {
			i := h.reg.Add(f)
			require.NoError(t, h.reg.StartIWARP(i, h.nic1, h.nic2, false, iwarpConfig()))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, defaultLink())
			h.w12.Attach(h.nic2) // no taps: they record every frame
			h.w21.Attach(h.nic1)
			f := &transports.Flow{ID: 1, Src: h.h1, Dst: h.h2, Persistent: true}
			tc.open(h, f)
			step := func() {
				_, err := h.reg.Post(0, 6*mtu+17)
				require.NoError(t, err)
				_, err = h.reg.Post(0, 2*mtu)
				require.NoError(t, err)
				h.eng.Run(h.eng.Now() + 100*sim.Microsecond)
			}
			for k := 0; k < 20; k++ {
				step() // warm: the engine's heap, the rings, the pool's slabs
			}
			require.Zero(t, testing.AllocsPerRun(50, step))
			require.Equal(t, f.Posted, f.Messages)
			require.Equal(t, f.Size, f.Delivered)
		})
	}
}

// TestPersistentRoCERecoveries: a loss in the second of three messages posted at once, under
// each loss recovery. Go-back-N resends from the lost packet on; go-back-0 restarts the
// second message (the responder discards it and NAKs its first PSN), not the queue pair's
// first; IRN resends the lost packet alone. The first message completes unharmed, the others
// in order after the loss is repaired, each byte delivered once.
func TestPersistentRoCERecoveries(t *testing.T) {
	sizes := []int64{4 * mtu, 8 * mtu, 3 * mtu}
	n1, n2, n3 := 4, 8, 3
	total := n1 + n2 + n3
	lost := n1 + 2
	for _, tc := range []struct {
		name      string
		set       func(*transports.RoCEConfig)
		firstBack int // the first PSN sent again
		resent    int64
	}{
		{"go-back-N", func(*transports.RoCEConfig) {}, lost, int64(total - lost)},
		{"go-back-0", func(c *transports.RoCEConfig) { c.GoBack0 = true }, n1, int64(total - n1)},
		{"IRN", func(c *transports.RoCEConfig) {
			c.IRN = &transports.IRNParams{RTOLow: 100 * sim.Microsecond, RTOHigh: 320 * sim.Microsecond, RTOLowPackets: 3}
		}, lost, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, defaultLink())
			h.at2.drop = func(a arrival, seen int) bool {
				return a.kind == topology.KindData && a.psn == uint32(lost) && seen == 0
			}
			cfg := defaultConfig()
			tc.set(&cfg)
			i, done, acked := persistentQP(h, cfg, 0)
			for _, s := range sizes {
				_, err := h.reg.Post(i, s)
				require.NoError(t, err)
			}
			h.run()

			data := h.at2.of(topology.KindData, i)
			require.Len(t, data, total+int(tc.resent))
			require.Equal(t, uint32(tc.firstBack), data[total].psn, "the first PSN sent again")
			tr := trainOf(mtu, sizes...)
			var txs []sim.Time
			for _, w := range tr.wire {
				txs = append(txs, tx(w, lineRate))
			}
			dep := backToBack(0, txs)
			require.Equal(t, completion{i, 0, dep[n1-1] + txs[n1-1] + linkDly}, (*done)[0])
			require.Len(t, *done, 3)
			last := data[len(data)-1].at
			require.Less(t, (*done)[1].at, last+1, "the second message after the repair")
			require.Equal(t, last, (*done)[2].at, "the third at its last packet sent again, after the second")
			require.Equal(t, int64(1), (*done)[1].msg)
			require.Len(t, *acked, 3)
			f := h.reg.Flows[i]
			require.Equal(t, tc.resent, f.Retransmitted)
			require.Equal(t, f.Size, f.Delivered, "each byte counted once")
		})
	}
}

// TestPersistentRefusesASize: a persistent flow opened with bytes of its own is refused,
// naming the field, on every transport.
func TestPersistentRefusesASize(t *testing.T) {
	h := newHarness(t, defaultLink())
	f := &transports.Flow{ID: 1, Src: h.h1, Dst: h.h2, Size: 10, Persistent: true}
	i := h.reg.Add(f)
	require.ErrorContains(t, h.reg.StartRoCE(i, h.nic1, h.nic2, false, defaultConfig()), "persistent with a size of 10 bytes")
	require.Equal(t, transports.Failed, f.Status)
	g := &transports.Flow{ID: 2, Src: h.h1, Dst: h.h2, Size: 10, Persistent: true}
	require.ErrorContains(t, h.reg.StartUET(h.reg.Add(g), h.nic1, h.nic2, false, uetConfig()), "Registry.Post")
	k := &transports.Flow{ID: 3, Src: h.h1, Dst: h.h2, Size: 10, Persistent: true}
	require.ErrorContains(t, h.reg.StartIWARP(h.reg.Add(k), h.nic1, h.nic2, false, iwarpConfig()), "Registry.Post")
}

// TestPersistentCloseDeferred: in a Deferred registry (the ends in different partitions) a
// persistent flow closed before its last message completes is ended by its receiver, and one
// closed after by Settle; either way it is completed at its last message's completion.
func TestPersistentCloseDeferred(t *testing.T) {
	for _, closeAt := range []sim.Time{sim.Microsecond, 50 * sim.Microsecond} {
		h := newHarness(t, defaultLink())
		h.reg.Deferred = true
		i, done, _ := persistentQP(h, defaultConfig(), 0)
		_, err := h.reg.Post(i, 5*mtu)
		require.NoError(t, err)
		h.eng.At(closeAt, callAt(func(sim.Time) { require.NoError(t, h.reg.Close(i)) }), 0, nil)
		h.run()
		f := h.reg.Flows[i]
		require.Len(t, *done, 1)
		require.Equal(t, transports.Pending, f.Status, "a Deferred registry settles between windows")
		h.reg.Settle()
		require.Equal(t, transports.Completed, f.Status, "closed at %v", closeAt)
		require.Equal(t, (*done)[0].at, f.Finish)
		require.Len(t, h.doneAt, 1, "Done once")
	}
}

// TestPersistentRoCEEveryCC: a persistent queue pair runs under each congestion control:
// its messages complete in order, each byte delivered once, and what the congestion control
// holds when the second message is posted after an idle time is what it held when the first
// had been acknowledged (HPCC, TIMELY and Swift change only on ACKs; DCQCN's timers are
// TestPersistentRoCEDCQCNCarries').
func TestPersistentRoCEEveryCC(t *testing.T) {
	timely, swift := transports.DefaultTIMELYParams(), transports.DefaultSwiftParams()
	for _, tc := range []struct {
		name  string
		cc    transports.RoCECC
		state func(r *transports.Registry, i int32) string
	}{
		{"none", nil, func(*transports.Registry, int32) string { return "" }},
		{"HPCC", &transports.HPCCParams{Eta: 0.95, MaxStage: 5, BaseRTT: 4 * sim.Microsecond},
			func(r *transports.Registry, i int32) string {
				h := r.HPCCOf(i)
				return fmt.Sprint(h.Window(), h.U(), h.Rate())
			}},
		{"TIMELY", &timely, func(r *transports.Registry, i int32) string {
			x := r.TIMELYOf(i)
			return fmt.Sprint(x.Rate(), x.LastRTT(), x.Gradient())
		}},
		{"Swift", &swift, func(r *transports.Registry, i int32) string {
			x := r.SwiftOf(i)
			return fmt.Sprint(x.FabricCwnd(), x.EndpointCwnd(), x.RTT())
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, defaultLink())
			cfg := defaultConfig()
			cfg.CC = tc.cc
			i, done, acked := persistentQP(h, cfg, 0)
			sizes := []int64{20 * mtu, 7*mtu + 5}
			_, err := h.reg.Post(i, sizes[0])
			require.NoError(t, err)
			var after, atPost string
			h.eng.At(100*sim.Microsecond, callAt(func(sim.Time) { after = tc.state(h.reg, i) }), 0, nil)
			h.eng.At(200*sim.Microsecond, callAt(func(sim.Time) {
				atPost = tc.state(h.reg, i)
				_, err := h.reg.Post(i, sizes[1])
				require.NoError(t, err)
			}), 0, nil)
			h.run()
			require.Len(t, *done, 2)
			require.Less(t, (*done)[0].at, 100*sim.Microsecond)
			require.Less(t, (*acked)[0].at, 100*sim.Microsecond, "the first message acknowledged before the snapshot")
			require.Greater(t, (*done)[1].at, 200*sim.Microsecond)
			require.Equal(t, after, atPost, "kept through the idle time")
			f := h.reg.Flows[i]
			require.Equal(t, sizes[0]+sizes[1], f.Delivered)
			require.Zero(t, f.Retransmitted)
		})
	}
}
