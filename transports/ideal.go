package transports

import (
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// PathHop is one hop of a flow's path as the ideal times see it: the rate and propagation
// delay of the link the hop leaves by, and the forwarding latency of the switch it leaves
// (0 at the source host).
type PathHop struct {
	Rate    sim.Rate
	Delay   sim.Time
	Latency sim.Time
}

// PacketTrain is how a transport cuts a message into packets, for Pipeline: their number N,
// each one's wire bytes Wire(k) (headers, padding to the minimum frame, preamble and gap
// included), the first of the run of alike packets (Pipeline's uniformFrom; -1: none), and
// the receiving NIC's time after the last bit (iWARP's nic_delay).
type PacketTrain struct {
	N           int64
	Wire        func(k int64) int64
	UniformFrom int64
	After       sim.Time
}

// Through is when the train's message is delivered at the end of path hs, its first packet
// leaving at t0, the source paced at pace if above 0 (Pipeline).
func (t PacketTrain) Through(hs []PathHop, t0 sim.Time, pace sim.Rate) sim.Time {
	return Pipeline(hs, t0, t.N, pace, t.UniformFrom, t.Wire).Plus(t.After)
}

// Train is a RoCE message's packets: the first carries the RETH, the last the rest.
func (c RoCEConfig) Train(size int64) PacketTrain {
	mtu := int64(c.MTU)
	n := max((size+mtu-1)/mtu, 1)
	middle := frames.RoCEWireBytes(c.Version, mtu, false)
	return PacketTrain{N: n, UniformFrom: 1, Wire: func(k int64) int64 {
		switch {
		case k == 0:
			return frames.RoCEWireBytes(c.Version, min(mtu, size), true)
		case k == n-1:
			return frames.RoCEWireBytes(c.Version, size-k*mtu, false)
		}
		return middle
	}}
}

// Train is a UET message's packets: full ones of the MTU's payload, then the rest.
func (c UETConfig) Train(size int64) PacketTrain {
	mtu := int64(c.MTU)
	n := max((size+mtu-1)/mtu, 1)
	full := c.WireBytes(mtu)
	return PacketTrain{N: n, UniformFrom: 0, Wire: func(k int64) int64 {
		if k == n-1 {
			return c.WireBytes(size - k*mtu)
		}
		return full
	}}
}

// Train is an iWARP message's FPDUs (no handshake): every segment but the last alike, unless
// MPA markers make their lengths vary; the receiving NIC adds its nic_delay.
func (c IWARPConfig) Train(size int64) PacketTrain {
	fr := c.Frames(size)
	uniform := int64(0)
	if c.Markers {
		uniform = -1
	}
	return PacketTrain{N: fr.Segments(), UniformFrom: uniform, Wire: fr.SegmentWire, After: c.NICDelay}
}

// Pipeline is when the last bit of the last of n packets reaches the end of path hs, the
// first leaving the source at t0: each packet is serialized at every hop after it has fully
// arrived (store and forward), behind the previous packet, then propagates; the source is
// paced at rate pace if it is > 0. wire(k) is packet k's wire bytes. The recurrence
// leave_i(k) = max(arrive_i(k), leave_i(k-1)) + tx_i(k) is exact for this model. Packets
// uniformFrom..n-2 are all alike (uniformFrom < 0: no such run), so once one of them advances
// every hop by the same period, every later one does too (by induction on the recurrence):
// the run is then skipped in one step, which makes the cost independent of the flow size.
// Its sums saturate at sim.Never: a whole large flow at a slow rate may take longer than
// sim.Time holds, and is then never done.
func Pipeline(hs []PathHop, t0 sim.Time, n int64, pace sim.Rate, uniformFrom int64, wire func(int64) int64) sim.Time {
	leave := make([]sim.Time, len(hs))
	prev := make([]sim.Time, len(hs))
	paced, arrive := t0, t0
	for k := int64(0); k < n; k++ {
		w := wire(k)
		copy(prev, leave)
		t := max(paced, leave[0])
		for i := range hs {
			if i > 0 {
				t = max(arrive.Plus(hs[i].Latency), leave[i])
			}
			leave[i] = t.Plus(hs[i].Rate.TxTime(w))
			arrive = leave[i].Plus(hs[i].Delay)
		}
		if pace > 0 {
			paced = (leave[0] - hs[0].Rate.TxTime(w)).Plus(pace.TxTime(w))
		}
		if uniformFrom >= 0 && k >= uniformFrom && k > 0 && k < n-2 {
			if period, steady := uniformAdvance(prev, leave); steady {
				skip := sim.Time(n - 2 - k) // packets of the run left, each one period later
				gone := period.Times(int64(skip))
				for i := range leave {
					leave[i] = leave[i].Plus(gone)
				}
				arrive, paced = arrive.Plus(gone), paced.Plus(gone)
				k = n - 2
			}
		}
	}
	return arrive
}

// uniformAdvance reports whether every hop moved on by the same time from prev to cur.
func uniformAdvance(prev, cur []sim.Time) (sim.Time, bool) {
	d := cur[0] - prev[0]
	for i := range cur {
		if cur[i]-prev[i] != d {
			return 0, false
		}
	}
	return d, true
}

// Path is what a flow's transport is told of its route on the empty fabric: the hops out
// (Fwd) and back (Back, nil when the reverse path is unknown). Each transport computes its
// ideal times, round trips and bandwidth-delay products from it (IdealFCT, RTT, HPCCBaseRTT,
// BDPCap), with its own packets.
type Path struct {
	Fwd, Back []PathHop
	// NetworkRTT is the longest unloaded round trip among the flows of the transport on the
	// fabric (UETConfig.RTT of each UET flow's path: uet-htsim main_uec.cpp's
	// network_max_unloaded_rtt, which scales NSCC); 0: the flow's own.
	NetworkRTT sim.Time
}

// SetPath gives flow i its path before it starts, and its transport derives from it what it
// needs of the path: for a RoCE queue pair, IRN's BDP cap (from IRNParams.BDPCapBytes, or
// auto), HPCC's base RTT unless configured, Swift's hops (the switches on the route out),
// NSCC's RTT; for a UET flow, its base RTT and the network's, its default retransmit timeout
// and what its congestion control reads (UETSender.setPath).
func (r *Registry) SetPath(i int32, p Path) {
	if u, ok := r.senders[i].(*UETSender); ok {
		if rv, ok := r.receivers[i].(*UETReceiver); ok {
			u.setPath(rv, p)
		}
		return
	}
	s, ok := r.senders[i].(*RoCESender)
	if !ok {
		return
	}
	if ir, ok := s.rec.(*irnSender); ok {
		ir.p.BDPCap = s.cfg.BDPCap(p, s.cfg.IRN.BDPCapBytes)
	}
	if c, ok := s.cc.(pathUser); ok {
		c.setPath(s, p)
	}
}

// BDPCapOf is IRN flow i's BDP cap in packets, 0 for a flow without IRN (or uncapped).
func (r *Registry) BDPCapOf(i int32) int {
	if s, ok := r.senders[i].(*RoCESender); ok {
		if ir, ok := s.rec.(*irnSender); ok {
			return ir.p.BDPCap
		}
	}
	return 0
}

// Bottleneck is the slowest link out.
func (p Path) Bottleneck() sim.Rate {
	b := p.Fwd[0].Rate
	for _, h := range p.Fwd {
		b = min(b, h.Rate)
	}
	return b
}

// RoundTrip is a data packet of data wire bytes out and an acknowledgement of ack bytes back,
// store and forward at every hop (Pipeline); 0 when the reverse path is unknown.
func (p Path) RoundTrip(data, ack int64) sim.Time {
	if p.Back == nil {
		return 0
	}
	return Pipeline(p.Back, Pipeline(p.Fwd, 0, 1, 0, -1, oneSize(data)), 1, 0, -1, oneSize(ack))
}

// oneSize is a train's wire function whose packets all have w bytes.
func oneSize(w int64) func(int64) int64 { return func(int64) int64 { return w } }

// IdealFCT is a RoCE message's completion time alone on the empty fabric along p: its packets
// through the store-and-forward pipeline at line rate, or paced at pace if above 0.
func (c RoCEConfig) IdealFCT(p Path, size int64, pace sim.Rate) sim.Time {
	return c.Train(size).Through(p.Fwd, 0, pace)
}

// fullWire is a full data packet's and an ACK's wire bytes, each with HPCC's INT header when
// the queue pair runs HPCC.
func (c RoCEConfig) fullWire() (data, ack int64) {
	data, ack = frames.RoCEWireBytes(c.Version, int64(c.MTU), false), frames.RoCEAckWireBytes(c.Version)
	if _, ok := c.CC.(*HPCCParams); ok {
		data, ack = data+topology.INTHeader, ack+topology.INTHeader // both carry HPCC's telemetry
	}
	return data, ack
}

// HPCCBaseRTT is HPCC's T along p: one full data packet out and its ACK back, each with its
// INT header, store and forward at every hop, with propagation and switch latencies; 0 when
// the reverse path is unknown.
func (c RoCEConfig) HPCCBaseRTT(p Path) sim.Time {
	data := frames.RoCEWireBytes(c.Version, int64(c.MTU), false) + topology.INTHeader
	ack := frames.RoCEAckWireBytes(c.Version) + topology.INTHeader
	return p.RoundTrip(data, ack)
}

// BDPCap is IRN's BDP cap in packets along p: bytes over a full packet's wire bytes, rounded
// up; or, when bytes is 0 (auto), the packets that fill p's bottleneck until the first one's
// acknowledgement is back on the empty fabric (a full data packet out, store and forward at
// every hop, and an ACK back when the reverse path is known), divided by a full packet's time
// at the bottleneck, rounded up, plus ack_interval - 1, since the responder acknowledges a
// packet only with the last of its coalesced ACK's packets.
func (c RoCEConfig) BDPCap(p Path, bytes int64) int {
	full, ack := c.fullWire()
	if bytes > 0 {
		return int((bytes + full - 1) / full)
	}
	rtt := Pipeline(p.Fwd, 0, 1, 0, -1, oneSize(full))
	if p.Back != nil {
		rtt = Pipeline(p.Back, rtt, 1, 0, -1, oneSize(ack))
	}
	tx := p.Bottleneck().TxTime(full)
	return int(rtt.Plus(tx-1)/tx) + c.AckInterval - 1
}

// IdealFCT is a UET message's completion time alone on the empty fabric along p: its packets
// through the store-and-forward pipeline at line rate, or paced at pace if above 0.
func (c UETConfig) IdealFCT(p Path, size int64, pace sim.Rate) sim.Time {
	return c.Train(size).Through(p.Fwd, 0, pace)
}

// RTT is a UET flow's unloaded round trip along p: a full data packet out and an ACK back,
// store and forward at every hop; 0 when the reverse path is unknown.
func (c UETConfig) RTT(p Path) sim.Time {
	return p.RoundTrip(c.WireBytes(int64(c.MTU)), frames.UETAckWireBytes())
}

// IdealFCT is an iWARP message's completion time alone on the empty fabric along p: with a
// handshake, the SYN, the SYN-ACK (on the reverse path), the ACK and MPA Request back to back,
// and the MPA Reply, each handed to TCP the NIC's delay after it arrives; then the FPDUs
// through the store-and-forward pipeline at line rate (or paced at pace), and the NIC's delay
// for the last. It does not model slow start: a flow that the congestion window holds back
// shows it as a slowdown above 1, the cost of TCP on an empty fabric. With a handshake and no
// known reverse path it is 0.
func (c IWARPConfig) IdealFCT(p Path, size int64, pace sim.Rate) sim.Time {
	var t sim.Time
	if c.Handshake {
		if p.Back == nil {
			return 0
		}
		hs := c.Frames(size).Handshake()
		t = Pipeline(p.Fwd, t, 1, 0, -1, oneSize(hs[0])).Plus(c.NICDelay)
		t = Pipeline(p.Back, t, 1, 0, -1, oneSize(hs[1])).Plus(c.NICDelay)
		t = Pipeline(p.Fwd, t, 2, 0, -1, func(k int64) int64 { return hs[2+k] }).Plus(c.NICDelay)
		t = Pipeline(p.Back, t, 1, 0, -1, oneSize(hs[4])).Plus(c.NICDelay)
	}
	return c.Train(size).Through(p.Fwd, t, pace)
}
