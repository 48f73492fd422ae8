package transports_test

import (
	"testing"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports"
	"github.com/stretchr/testify/require"
)

// openWindow is an initial window (segments) larger than the tests keep in flight.
const openWindow = 100

// persistentIWARP opens a persistent iWARP connection from h1 to h2 at time 0 with MPA
// markers and timestamps on (the stream offsets of later messages then depend on every
// earlier one) and an initial window of initCwnd segments.
func persistentIWARP(h *tcpHarness, initCwnd int) (i int32, cfg transports.IWARPConfig, done, acked *[]completion) {
	done, acked = &[]completion{}, &[]completion{}
	h.reg.OnMessage = func(i int32, msg int64, now sim.Time) { *done = append(*done, completion{i, msg, now}) }
	h.reg.OnAcked = func(i int32, msg int64, now sim.Time) { *acked = append(*acked, completion{i, msg, now}) }
	cfg = iwarpConfig()
	cfg.Markers, cfg.Timestamps, cfg.InitCwnd = true, true, initCwnd
	i = h.addIWARP(&transports.Flow{Src: h.h1, Dst: h.h2, Persistent: true}, cfg)
	return i, cfg, done, acked
}

// streamOf lays out messages of sizes one after another on one stream (layoutAt), and says
// which message each segment belongs to.
func streamOf(d int64, markers bool, sizes ...int64) (segs []fpduSeg, msg []int) {
	var pos int64
	for k, size := range sizes {
		for _, s := range layoutAt(&pos, size, d, markers) {
			segs = append(segs, s)
			msg = append(msg, k)
		}
	}
	return segs, msg
}

// TestPersistentIWARPMessages: three RDMA WRITEs on one iWARP connection, the second posted
// while the first is in flight, the third after idle. The stream runs on (sequence numbers
// contiguous, MPA markers every 512 bytes of the whole stream), each message ends with the
// DDP Last flag; each completes when its last segment reaches TCP (arrival plus the NIC's
// delay) and is acknowledged when the ACK that segment draws at once reaches the sender's
// TCP; the congestion window grown in slow start and the RTT estimate are kept over the idle
// time.
func TestPersistentIWARPMessages(t *testing.T) {
	h := newTCPHarness(t, defaultLink())
	i, cfg, done, acked := persistentIWARP(h, openWindow)
	d := cfg.DDPPayload()
	sizes := []int64{10*d + 333, 5*d + 7, 2 * d}
	_, err := h.reg.Post(i, sizes[0])
	require.NoError(t, err)
	segs, msg := streamOf(d, true, sizes...)
	var txs []sim.Time
	for _, s := range segs {
		txs = append(txs, tx(segFrame(s.tcp, true)+wireExtra, lineRate))
	}
	h.post(i, txs[0]+txs[1]/2, sizes[1])
	var kept, atPost transports.TCPStats
	h.eng.At(150*sim.Microsecond, callAt(func(sim.Time) { kept = h.stats(i) }), 0, nil)
	const t3 = 200 * sim.Microsecond
	h.eng.At(t3, callAt(func(sim.Time) {
		atPost = h.stats(i)
		_, err := h.reg.Post(i, sizes[2])
		require.NoError(t, err)
	}), 0, nil)
	h.run()

	n3 := len(layoutOf(sizes[2], d, true))
	dep := append(backToBack(0, txs[:len(txs)-n3]), backToBack(t3, txs[len(txs)-n3:])...)
	got := h.to2.fpdus()
	require.Len(t, got, len(segs))
	var pos int64
	var want []completion
	for k, a := range got {
		require.Equal(t, segs[k].d, int64(a.payload), "segment %d", k)
		require.Equal(t, segs[k].markers, int64(a.markers), "segment %d: markers by the stream's offset", k)
		require.Equal(t, got[0].seq+uint32(pos), a.seq, "the stream runs on across messages")
		pos += segs[k].tcp
		last := k == len(segs)-1 || msg[k+1] != msg[k]
		require.Equal(t, last, a.last, "DDP Last on each message's last segment")
		require.Equal(t, dep[k]+txs[k]+linkDly, a.at, "segment %d", k)
		if last {
			want = append(want, completion{i, int64(msg[k]), a.at + cfg.NICDelay})
		}
	}
	require.Equal(t, want, *done)
	ack := tx(segFrame(0, true)+wireExtra, lineRate) // a pure ACK with timestamps
	for k := range want {
		want[k].at += ack + linkDly + cfg.NICDelay
	}
	require.Equal(t, want, *acked)
	require.Equal(t, kept.Cwnd, atPost.Cwnd, "kept through the idle time")
	require.Equal(t, kept.SRTT, atPost.SRTT)
	require.NotZero(t, atPost.SRTT)
	f := h.reg.Flows[i]
	require.Equal(t, f.Size, f.Delivered)
	require.Equal(t, int64(3), f.Messages)
	require.Zero(t, f.Retransmitted)
}

// TestPersistentIWARPWindowKept: a window grown in slow start over the first message is the
// window the second, posted after an idle time, starts with: its first cwnd segments leave
// back to back at once, and the next waits for an ACK.
func TestPersistentIWARPWindowKept(t *testing.T) {
	h := newTCPHarness(t, defaultLink())
	i, cfg, _, _ := persistentIWARP(h, 2)
	d := cfg.DDPPayload()
	_, err := h.reg.Post(i, 20*d)
	require.NoError(t, err)
	const t2 = 300 * sim.Microsecond
	var cwnd int
	var pos int64
	layoutAt(&pos, 20*d, d, true)
	h.eng.At(t2, callAt(func(sim.Time) {
		st := h.stats(i)
		require.Greater(t, st.Cwnd, float64(cfg.InitCwnd), "slow start grew the window")
		cwnd = int(st.Cwnd)
		_, err := h.reg.Post(i, int64(cwnd+5)*d)
		require.NoError(t, err)
	}), 0, nil)
	h.run()

	segs := layoutAt(&pos, int64(cwnd+5)*d, d, true)
	var txs []sim.Time
	for _, s := range segs {
		txs = append(txs, tx(segFrame(s.tcp, true)+wireExtra, lineRate))
	}
	dep := backToBack(t2, txs)
	got := h.to2.fpdus()[20:]
	require.Len(t, got, cwnd+5)
	for k := 0; k < cwnd; k++ {
		require.Equal(t, dep[k], got[k].sentAt, "segment %d of the window", k)
	}
	require.Greater(t, got[cwnd].sentAt, dep[cwnd], "the window is full: the next waits for an ACK")
	require.Equal(t, int64(2), h.reg.Flows[i].Messages)
}

// TestPersistentIWARPLossInOrder: the second message's second segment is lost once; SACK
// recovery resends it after three duplicate ACKs. The third message, all of whose segments
// came before the resend, completes with the second, after it, when the resend reaches TCP.
func TestPersistentIWARPLossInOrder(t *testing.T) {
	h := newTCPHarness(t, defaultLink())
	i, cfg, done, _ := persistentIWARP(h, openWindow)
	d := cfg.DDPPayload()
	sizes := []int64{3 * d, 5*d + 100, 3*d - 50}
	segs, _ := streamOf(d, true, sizes...)
	var lostSeq uint32
	h.to2.drop = func(a tcpArrival, seen int) bool {
		if a.mpa != topology.MPAFPDU {
			return false
		}
		if lostSeq == 0 {
			lostSeq = a.seq + uint32(segs[0].tcp+segs[1].tcp+segs[2].tcp+segs[3].tcp) // the 5th segment
		}
		return a.seq == lostSeq && seen == 0
	}
	for _, s := range sizes {
		_, err := h.reg.Post(i, s)
		require.NoError(t, err)
	}
	h.run()

	var txs []sim.Time
	for _, s := range segs {
		txs = append(txs, tx(segFrame(s.tcp, true)+wireExtra, lineRate))
	}
	dep := backToBack(0, txs)
	got := h.to2.fpdus()
	require.Len(t, got, len(segs)+1)
	resend := got[len(got)-1]
	require.Equal(t, lostSeq, resend.seq)
	require.False(t, resend.dropped)
	want := []completion{{i, 0, dep[2] + txs[2] + linkDly + cfg.NICDelay}, {i, 1, resend.at + cfg.NICDelay}, {i, 2, resend.at + cfg.NICDelay}}
	require.Equal(t, want, *done)
	f := h.reg.Flows[i]
	require.Equal(t, int64(1), f.Retransmitted)
	require.Equal(t, f.Size, f.Delivered)
	st := h.stats(i)
	require.Equal(t, int64(1), st.FastRecoveries, "three duplicate ACKs, not a timeout")
	require.Zero(t, st.Timeouts)
}
