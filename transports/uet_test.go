package transports

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/internal/transcript"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// TestNSCCTranscript runs testdata/uet_nscc.txt: NSCC's window stepped by ACKs, NACKs and
// delay samples, with no engine.
//
//	nscc rate=… base=… network=… [trimming=true] [target=…]
//	                          a flow of line rate rate (Gb/s) and base RTT base in a network of
//	                          RTT network: prints the scaling factors and constants
//	sample raw=… [ecn=true] [n=…]
//	                          n RTT samples of raw (update_delay): prints the average delay
//	ack at=… delay=… bytes=… [ecn=true]
//	                          an ACK reporting bytes newly received, with its delay: prints
//	                          the rule that ran, inc and cwnd
//	nack at=… bytes=…         a NACK of a packet of bytes
func TestNSCCTranscript(t *testing.T) {
	var c nscc
	rules := func() [6]int64 { return [6]int64{c.fair, c.prop, c.fast, c.md, c.qa, c.nacks} }
	names := [6]string{"fair", "proportional", "fast", "decrease", "quick-adapt", "nack"}
	show := func(before [6]int64) string {
		var ran []string
		for k, n := range rules() {
			if n > before[k] {
				ran = append(ran, names[k])
			}
		}
		if len(ran) == 0 {
			ran = append(ran, "none")
		}
		return fmt.Sprintf("%s inc=%d cwnd=%d", strings.Join(ran, "+"), c.inc, c.cwnd)
	}
	transcript.Run(t, "testdata/uet_nscc.txt", func(cmd *transcript.Command) string {
		switch cmd.Name {
		case "nscc":
			cfg := UETConfig{MTU: 4096, QAGate: 3, Trimming: cmd.Has("trimming"), TargetQDelay: 0}
			if cmd.Has("target") {
				cfg.TargetQDelay = cmd.Time("target")
			}
			c.init(&cfg, sim.Rate(cmd.Int("rate"))*sim.Gbps, cmd.Time("base"), cmd.Time("network"), 4096+frames.UETHeaderBytes)
			p := c.p
			return fmt.Sprintf("target=%v alpha=%.7f fi=%.1f eta=%.1f fi_scale=%.4f adjust=%dB/%v qa=%.0fps cwnd=%d maxwnd=%d",
				p.target, p.alpha, p.fi, p.eta, p.fiScale, p.adjustBytes, p.adjustPeriod, p.qaThreshold, c.cwnd, c.maxwnd)
		case "sample":
			n := int64(1)
			if cmd.Has("n") {
				n = cmd.Int("n")
			}
			for range n {
				c.updateDelay(cmd.Time("raw"), true, cmd.Has("ecn"))
			}
			return fmt.Sprintf("avg_delay=%.2fus", float64(c.avgDelay)/float64(sim.Microsecond))
		case "ack":
			before := rules()
			c.received(cmd.Int("bytes"))
			c.onAck(cmd.Time("at"), cmd.Has("ecn"), cmd.Time("delay"), cmd.Int("bytes"))
			return show(before)
		case "nack":
			before := rules()
			c.inflight += cmd.Int("bytes")
			c.onNack(cmd.Time("at"), cmd.Int("bytes"))
			return show(before) + fmt.Sprintf(" avg_delay=%.2fus", float64(c.avgDelay)/float64(sim.Microsecond))
		}
		t.Fatalf("%s: unknown command %s", cmd.Pos, cmd.Name)
		return ""
	})
}

// uetPair is a UET sender and receiver on NICs that never transmit (busy), so that a test
// takes their frames from the control queues and from emit.
type uetPair struct {
	eng      *sim.Engine
	reg      *Registry
	s        *UETSender
	r        *UETReceiver
	rcvNIC   *NIC
	sent     map[uint32]*topology.Packet // the latest copy of each PSN sent
	controls []*topology.Packet          // the receiver's ACKs and NACKs not yet fed back
}

func newUETPair(size int64, cfg UETConfig, base sim.Time) *uetPair {
	eng := sim.NewEngine()
	reg := NewRegistry(eng, &topology.Pool{})
	wire := &topology.Wire{Params: topology.LinkParams{Rate: 100 * sim.Gbps}}
	src := &NIC{reg: reg, eng: eng, pool: reg.pool, busy: true, Wire: wire, ID: 0, IP: 0x0a000001, TTL: 64}
	dst := &NIC{reg: reg, eng: eng, pool: reg.pool, busy: true, Wire: wire, ID: 1, IP: 0x0a000002, TTL: 64}
	i := reg.Add(&Flow{ID: 1, Src: 0, Dst: 1, Size: size, Transport: "uet"})
	if cfg.RTO == 0 {
		cfg.RTO = UETDefaultRTO(base)
	}
	s, r := reg.newUET(i, src, dst, false, cfg)
	reg.senders[i], reg.receivers[i] = s, r
	reg.SetPath(i, pathOfRTT(&cfg, wire.Params.Rate, base))
	s.Handle(0, opStart, nil)
	return &uetPair{eng: eng, reg: reg, s: s, r: r, rcvNIC: dst, sent: map[uint32]*topology.Packet{}}
}

// pathOfRTT is a path of one hop each way at rate whose unloaded round trip for cfg's flows
// (UETConfig.RTT) is rtt.
func pathOfRTT(cfg *UETConfig, rate sim.Rate, rtt sim.Time) Path {
	p := Path{Fwd: []PathHop{{Rate: rate}}, Back: []PathHop{{Rate: rate}}}
	p.Back[0].Delay = rtt - cfg.RTT(p)
	return p
}

// nscc is the sender's NSCC.
func (u *uetPair) nscc() *nscc { return &u.s.cc.(*uetNSCC).c }

func (u *uetPair) state() string {
	s := u.s
	return fmt.Sprintf("cum=%d next=%d inflight=%d cwnd=%d rtx=%d loss=%v", s.cum, s.highest, s.inflight, u.nscc().cwnd, s.rtxN, s.lossMode)
}

// TestUETTranscript runs testdata/uet_pds.txt: a UET sender and receiver stepped packet by
// packet (the network in between is the test: it delivers, reorders, marks or trims).
//
//	flow size=… [ack=…] [base=…]   a flow of size bytes (MTU 4096, REPS over 64 entropies),
//	                               the receiver acknowledging every ack bytes
//	send at=… [n=…]                the sender emits up to n packets its window allows
//	deliver psn=… at=… [ce=true] [trimmed=true]
//	                               the latest copy of psn reaches the receiver: the ACK or NACK
//	                               it sends, if any
//	feed at=…                      the receiver's ACKs and NACKs reach the sender
//	timeout at=…                   the retransmit timer's event runs
func TestUETTranscript(t *testing.T) {
	var u *uetPair
	transcript.Run(t, "testdata/uet_pds.txt", func(cmd *transcript.Command) string {
		switch cmd.Name {
		case "flow":
			cfg := UETConfig{MTU: 4096, AckBytes: 16384, Paths: 64, QAGate: 3, AckPriority: 7, SLEEK: true}
			if cmd.Has("ack") {
				cfg.AckBytes = cmd.Int("ack")
			}
			base := 12 * sim.Microsecond
			if cmd.Has("base") {
				base = cmd.Time("base")
			}
			u = newUETPair(cmd.Int("size"), cfg, base)
			return fmt.Sprintf("packets=%d rto=%v ", u.s.npkts, u.s.rto) + u.state()
		case "send":
			n := int64(1 << 30)
			if cmd.Has("n") {
				n = cmd.Int("n")
			}
			var out, ar []string
			k := 0
			for ; n > 0 && u.s.hasData(); n-- {
				p := u.s.emit(cmd.Time("at"))
				u.sent[p.PSN] = p
				out = append(out, fmt.Sprintf("psn=%d payload=%d ar=%v retx=%v", p.PSN, p.Payload, p.UET().AckReq, p.UET().Retx))
				if p.UET().AckReq {
					ar = append(ar, fmt.Sprint(p.PSN))
				}
				k++
			}
			if k > 5 { // a summary: the count, the PSN range, those asking for an ACK
				first, last := strings.Fields(out[0])[0], strings.Fields(out[k-1])[0]
				out = []string{fmt.Sprintf("sent=%d %s..%s ar=%s", k, first, strings.TrimPrefix(last, "psn="), strings.Join(ar, ","))}
			}
			return strings.Join(append(out, u.state()), "\n")
		case "deliver":
			var from, to int64
			if cmd.Has("from") {
				from, to = cmd.Int("from"), cmd.Int("to")
			} else {
				from = cmd.Int("psn")
				to = from
			}
			acks := len(u.controls)
			for psn := from; psn <= to; psn++ {
				q := *u.sent[uint32(psn)]
				if cmd.Has("ce") {
					q.ECN = topology.ECNCE
				}
				if cmd.Has("trimmed") {
					q.Trimmed, q.Payload = true, 0
				}
				u.r.onData(cmd.Time("at"), &q)
			}
			var out []string
			if from < to {
				out = append(out, fmt.Sprintf("acks=%d", u.rcvNIC.Control[7].Len+int32(len(u.controls)-acks)))
			}
			for c := range u.rcvNIC.Control {
				for u.rcvNIC.Control[c].Len > 0 {
					a := u.rcvNIC.Control[c].Pop(0)
					u.controls = append(u.controls, a)
					if a.Kind == topology.KindNak {
						out = append(out, fmt.Sprintf("nack psn=%d", a.PSN))
						continue
					}
					out = append(out, fmt.Sprintf("ack cum=%d psn=%d sack=%d/%#x recvd=%d ooo=%d ecn=%v class=%d", a.UET().CumPSN, a.PSN, a.UET().SACKBase, a.UET().SACKBitmap, a.UET().RecvdBytes, a.UET().OOO, a.UET().ECNEcho, a.Priority))
				}
			}
			u.rcvNIC.ctrlBacklog = 0
			if len(out) == 0 {
				out = append(out, "no ack")
			}
			return strings.Join(append(out, fmt.Sprintf("delivered=%d status=%v", u.r.flow.Delivered, u.r.flow.Status)), "\n")
		case "feed":
			for _, a := range u.controls {
				u.s.onControl(cmd.Time("at"), a)
			}
			u.controls = nil
			return u.state()
		case "timeout":
			u.s.timerFired(cmd.Time("at"))
			return fmt.Sprintf("timeouts=%d ", u.s.flow.Timeouts) + u.state()
		}
		t.Fatalf("%s: unknown command %s", cmd.Pos, cmd.Name)
		return ""
	})
}

// TestUETConfigValidate: each bad value is refused with its name.
func TestUETConfigValidate(t *testing.T) {
	ok := UETConfig{MTU: 4096, AckBytes: 16384, Paths: 64, QAGate: 3, AckPriority: 7}
	require.NoError(t, ok.Validate())
	for _, c := range []struct {
		set  func(c *UETConfig)
		want string
	}{
		{func(c *UETConfig) { c.MTU = 0 }, "MTU 0"},
		{func(c *UETConfig) { c.AckBytes = 0 }, "ACK coalescing"},
		{func(c *UETConfig) { c.Paths = 48 }, "paths 48"},
		{func(c *UETConfig) { c.RTO = -1 }, "rto"},
		{func(c *UETConfig) { c.QAGate = 63 }, "gate 63"},
		{func(c *UETConfig) { c.AckPriority = 8 }, "ACK priority 8"},
		{func(c *UETConfig) { c.Entropy = 9 }, "entropy scheme 9"},
	} {
		cfg := ok
		c.set(&cfg)
		require.ErrorContains(t, cfg.Validate(), c.want)
	}
}

// TestUETHeaderSizes: a full data packet is its payload and 122 bytes on the wire (Ethernet
// 14, IPv4 20, UDP 8, PDS 12, SES 44, FCS 4, preamble and gap 20), an ACK a 78-byte frame
// (PDS ACK_CC 32), a NACK 58 bytes padded to 64.
func TestUETHeaderSizes(t *testing.T) {
	require.EqualValues(t, 4096+14+20+8+12+44+4+20, frames.UETWireBytes(4096, false))
	require.EqualValues(t, 4096+14+20+8+16+44+4+20, frames.UETWireBytes(4096, true), "a RUD_CC_REQ: the request CC state's 4 bytes more")
	require.EqualValues(t, 14+20+8+32+4+20, frames.UETAckWireBytes())
	n := topology.Packet{Kind: topology.KindNak}
	frames.UETStack(&n)
	n.Seal()
	require.EqualValues(t, 64, n.Frame)
}

// TestREPSRecyclesUnmarkedEntropies: REPS hands out the oldest fresh entropy an unmarked ACK
// returned, once; explores at random when there is none; ignores marked ones and NACKs; after
// a timeout with trimming it reuses the ring in turn for 10 ms, then explores 16 at random.
func TestREPSRecyclesUnmarkedEntropies(t *testing.T) {
	c := newEntropyChooser(EntropyREPS, 64, true, sim.Stream(1, "reps"))
	c.feedback(0, 5, pathGood)
	c.feedback(0, 9, pathECN)
	c.feedback(0, 7, pathGood)
	c.feedback(0, 11, pathNack)
	require.EqualValues(t, 5, c.next(0))
	require.EqualValues(t, 7, c.next(0))
	require.EqualValues(t, 2, c.Recycled)
	for range 100 {
		require.Less(t, c.next(0), uint16(64))
	}
	require.EqualValues(t, 100, c.Random)
	for ev := uint16(1); ev <= 10; ev++ { // ten into a ring of eight: 3..10 remain
		c.feedback(0, ev, pathGood)
	}
	require.EqualValues(t, 3, c.next(0), "the oldest fresh one")
	c.feedback(sim.Millisecond, 0, pathTimeout)
	require.True(t, c.frozen)
	var got []uint16
	for range 9 {
		got = append(got, c.next(2*sim.Millisecond))
	}
	require.Equal(t, []uint16{7, 8, 9, 10, 3, 4, 5, 6, 7}, got, "frozen: the ring in turn, from its start, fresh or not")
	c.next(sim.Millisecond + repsFreeze + 1)
	require.False(t, c.frozen)
	require.Equal(t, repsExploreNext-1, c.explore, "after the freeze, 16 explore (this was the first)")

	o := newEntropyChooser(EntropyOblivious, 8, false, sim.Stream(1, "obl"))
	seen := map[uint16]int{}
	for range 8 * 5 {
		seen[o.next(0)]++
	}
	require.Len(t, seen, 8)
	for ev, n := range seen {
		require.Equal(t, 5, n, "oblivious: each of the 8 once per pass (%d)", ev)
	}
}

// TestUETSendTimesStayAWindow: the send-time ring drops the transmissions that are no longer
// in flight as it goes, so a long flow that never times out keeps it at its first size.
func TestUETSendTimesStayAWindow(t *testing.T) {
	u := newUETPair(4096*10000, UETConfig{MTU: 4096, AckBytes: 4096, Paths: 64, QAGate: 3, SLEEK: true}, 12*sim.Microsecond)
	at := sim.Time(0)
	for k := 0; k < 10000; k++ {
		if u.s.hasData() {
			p := u.s.emit(at)
			u.r.onData(at, p)
			for c := range u.rcvNIC.Control {
				for u.rcvNIC.Control[c].Len > 0 {
					u.s.onControl(at, u.rcvNIC.Control[c].Pop(0))
				}
			}
			u.reg.pool.Drop(p)
		}
		at += 330 * sim.Nanosecond
	}
	require.Equal(t, Completed, u.r.flow.Status)
	require.Equal(t, 64, len(u.s.times), "send-time ring entries")
	require.Equal(t, 64, len(u.s.recs), "PSN ring entries")
}

// TestUETAsksForAnAckWhenTheWindowCloses: PSNs 0-3 leave without the ACK-request bit (the
// window has room after each); the receiver ACKs PSN 0 at once (a flow's first packet) and
// holds PSN 1, 4,156 of its 16,384 bytes. The ACK of 0 comes back to a window of three
// packets (maxwnd cut to 3 x 4,156 bytes): PSN 4 does not fit beside 1-3, and 1-3, 12,468
// bytes, would never draw an ACK by themselves. The sender sends an ACK_REQ (a PDS control
// packet in the ACK class) naming its newest PSN, once; the receiver answers at once with
// the cumulative PSN 2 and PSN 1 retired, marked as an ACK_REQ's answer, which gives no RTT
// sample. (Before, the sender waited for its retransmit timer: issue 35, point 5.)
func TestUETAsksForAnAckWhenTheWindowCloses(t *testing.T) {
	cfg := UETConfig{MTU: 4096, AckBytes: 16384, Paths: 64, QAGate: 3, AckPriority: 7, SLEEK: true}
	u := newUETPair(250000, cfg, 12*sim.Microsecond)
	full := int64(4096 + frames.UETHeaderBytes)
	var sent []*topology.Packet
	for range 4 {
		p := u.s.emit(0)
		require.False(t, p.UET().AckReq, "psn %d", p.PSN)
		sent = append(sent, p)
	}
	u.r.onData(1*sim.Microsecond, sent[0])
	u.r.onData(1*sim.Microsecond, sent[1])
	require.EqualValues(t, 1, u.rcvNIC.Control[7].Len, "the first packet's ACK; PSN 1's is held")
	ack := u.rcvNIC.Control[7].Pop(0)
	u.nscc().maxwnd, u.nscc().cwnd = 3*full, 3*full
	base := u.nscc().baseRTT
	u.s.onControl(13*sim.Microsecond, ack)
	require.False(t, u.s.hasData(), "PSN 4 does not fit")
	require.EqualValues(t, 1, u.s.nic.Control[7].Len, "one ACK_REQ")
	req := u.s.nic.Control[7].Pop(0)
	require.Equal(t, topology.KindCredit, req.Kind)
	require.True(t, req.UET().AckRequest)
	require.False(t, req.UET().CreditRequest)
	require.EqualValues(t, 3, req.PSN)
	require.EqualValues(t, 7, req.Priority)
	u.s.onControl(13*sim.Microsecond, ack) // the same ACK again: no second request
	require.Zero(t, u.s.nic.Control[7].Len)

	u.r.onRequest(14*sim.Microsecond, req)
	require.EqualValues(t, 1, u.rcvNIC.Control[7].Len, "answered at once")
	answer := u.rcvNIC.Control[7].Pop(0)
	require.True(t, answer.UET().AckRequest)
	require.EqualValues(t, 2, answer.UET().CumPSN)
	avg := u.nscc().avgDelay // the first ACK's sample: 13 - 12 us, by 0.0125
	u.s.onControl(40*sim.Microsecond, answer)
	require.EqualValues(t, 2, u.s.cum)
	require.Equal(t, base, u.nscc().baseRTT)
	require.Equal(t, avg, u.nscc().avgDelay, "no delay sample from the answer (27 us after PSN 1 left)")
}
