package experiment

import (
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// warnShortTimeouts warns when a fixed retransmit timeout is below the base round trip of a
// flow's path (a full data packet out and an acknowledgement back on the empty fabric, store
// and forward at every hop): every packet would time out before its acknowledgement could
// come back, and the run would measure resends, not the fabric (RoCE over 1 s links with the
// default timeout, or transports.uet.rto: 1ps). IRN's RTO_low and RTO_high, UET's timeout
// derived from the path and TCP's adaptive RTO are not fixed in that way and are left alone.
// The longest round trip found per transport is named with the number of flows below it.
func (f *fabric) warnShortTimeouts() {
	type pair struct {
		src, dst  int32
		transport string
	}
	rtts := map[pair]sim.Time{}
	type finding struct {
		field   string
		timeout sim.Time
		flows   int
		longest sim.Time
	}
	found := map[string]*finding{}
	var order []string
	for i, fl := range f.reg.Flows {
		field, timeout, data, ack := f.fixedTimeout(fl.Transport)
		if timeout == 0 {
			continue
		}
		key := pair{int32(fl.Src), int32(fl.Dst), fl.Transport}
		rtt, seen := rtts[key]
		if !seen {
			if hops, loop, err := f.routes.Path(fl.Src, fl.Dst, f.reg.Hash(int32(i)), f.pathLimit()); err == nil && !loop {
				rtt = f.roundTrip(fl, int32(i), hops, data, ack)
			}
			rtts[key] = rtt
		}
		if rtt <= timeout {
			continue
		}
		g := found[field]
		if g == nil {
			g = &finding{field: field, timeout: timeout}
			found[field] = g
			order = append(order, field)
		}
		g.flows++
		g.longest = max(g.longest, rtt)
	}
	for _, field := range order {
		g := found[field]
		f.warnf("%s %v is below the base round trip of %d flow(s)' paths (up to %v: a full packet out and its acknowledgement back on the empty fabric): every packet times out before its acknowledgement can return, so the run measures resends, not the fabric; raise it above %v",
			g.field, g.timeout, g.flows, g.longest, g.longest)
	}
}

// fixedTimeout is the retransmit timeout transport uses whatever the path, with the field
// that sets it and its full data packet's and acknowledgement's wire bytes; 0 where it has
// none (IRN's timers, a derived UET timeout, TCP's adaptive RTO).
func (f *fabric) fixedTimeout(transport string) (field string, timeout sim.Time, data, ack int64) {
	switch transport {
	case "rocev1", "rocev2":
		rc := f.starter.configs[transport]
		if rc.IRN != nil {
			return "", 0, 0, 0
		}
		return "transports." + transport + ".retransmit_timeout", rc.RetransmitTimeout,
			frames.RoCEWireBytes(rc.Version, int64(rc.MTU), false), frames.RoCEAckWireBytes(rc.Version)
	case "uet":
		uc := f.starter.uc
		return "transports.uet.rto", uc.RTO, uc.WireBytes(int64(uc.MTU)), frames.UETAckWireBytes()
	}
	return "", 0, 0, 0
}

// roundTrip is flow i's round trip on the empty fabric: a data packet of data wire bytes
// along hops, its path, and an acknowledgement of ack bytes back along the reverse path,
// store and forward at every hop (pipeline); 0 when the reverse path is unknown.
func (f *fabric) roundTrip(fl *transports.Flow, i int32, hops []topology.Hop, data, ack int64) sim.Time {
	ackHash, _ := f.reg.AckHash(i)
	back, loop, err := f.routes.Path(fl.Dst, fl.Src, ackHash, f.pathLimit())
	if err != nil || loop {
		return 0
	}
	one := func(w int64) func(int64) int64 { return func(int64) int64 { return w } }
	return pipeline(f.pathHops(back), pipeline(f.pathHops(hops), 0, 1, 0, -1, one(data)), 1, 0, -1, one(ack))
}
