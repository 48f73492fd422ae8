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
// A timeout above roundTripBound, as every default on any fabric of microsecond links, is
// not checked flow by flow: that would cost a path each way for every pair of hosts.
func (f *fabric) warnShortTimeouts() {
	type check struct {
		field       string
		timeout     sim.Time
		data, ack   int64
		flows       int
		longest     sim.Time
		rtts        map[[2]topology.NodeID]sim.Time // by source and destination
		skip, found bool
	}
	checks := map[string]*check{}
	var order []*check
	for i, fl := range f.reg.Flows {
		c := checks[fl.Transport]
		if c == nil {
			c = &check{}
			c.field, c.timeout, c.data, c.ack = f.fixedTimeout(fl.Transport)
			c.skip = c.timeout == 0 || c.timeout >= f.roundTripBound(c.data, c.ack)
			c.rtts = map[[2]topology.NodeID]sim.Time{}
			checks[fl.Transport] = c
		}
		if c.skip {
			continue
		}
		key := [2]topology.NodeID{fl.Src, fl.Dst}
		rtt, seen := c.rtts[key]
		if !seen {
			if hops, loop, err := f.routes.PathPXN(fl.Src, fl.Dst, f.reg.Hash(int32(i)), f.pathLimit(), f.pxnOf(int32(i))); err == nil && !loop {
				rtt = f.roundTrip(fl, int32(i), hops, c.data, c.ack)
			}
			c.rtts[key] = rtt
		}
		if rtt <= c.timeout {
			continue
		}
		if !c.found {
			c.found = true
			order = append(order, c)
		}
		c.flows++
		c.longest = max(c.longest, rtt)
	}
	for _, c := range order {
		f.warnf("%s %v is below the base round trip of %d flow(s)' paths (up to %v: a full packet out and its acknowledgement back on the empty fabric): every packet times out before its acknowledgement can return, so the run measures resends, not the fabric; raise it above %v",
			c.field, c.timeout, c.flows, c.longest, c.longest)
	}
}

// roundTripBound is more than any flow's base round trip with data and ack wire bytes: a
// path that is no loop crosses each switch at most once, and a GPU's relay (PXN) adds at
// most two links, so it has at most switches + 3 links each way, each at most the longest
// delay, the slowest link's serialization of the frame and the longest switch latency.
func (f *fabric) roundTripBound(data, ack int64) sim.Time {
	var delay, latency sim.Time
	rate := sim.Rate(0)
	for _, l := range f.nw.Links {
		delay = max(delay, l.Params.Delay)
		if rate == 0 || l.Params.Rate < rate {
			rate = l.Params.Rate
		}
	}
	for _, sw := range f.switches {
		latency = max(latency, sw.Latency())
	}
	if rate == 0 {
		return 0
	}
	links := sim.Time(len(f.switches) + 3)
	return links * (2*(delay+latency) + rate.TxTime(data) + rate.TxTime(ack))
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
// store and forward at every hop (transports.Path.RoundTrip); 0 when the reverse path is
// unknown.
func (f *fabric) roundTrip(fl *transports.Flow, i int32, hops []topology.Hop, data, ack int64) sim.Time {
	return f.path(fl, i, hops).RoundTrip(data, ack)
}
