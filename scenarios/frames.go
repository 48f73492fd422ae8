package scenarios

import (
	"strings"

	"github.com/fabricsim/fabricsim/transports/frames"
)

// MaxFrameWire is the largest frame the scenario's traffic puts on a wire, preamble and IFG
// included: for RoCE the WRITE First packet of a full MTU (it carries the RETH), for UET a full packet, for iWARP a
// full TCP segment (the IP MTU plus Ethernet, FCS, preamble and IFG). Every traffic kind
// counts, by its transport (an item without one takes the variant's); with none known, a
// RoCE v2 frame. PFC sizing (headroom) and the refresh interval rest on it.
func (sc *Scenario) MaxFrameWire() int64 {
	var frame int64
	for _, t := range sc.Traffic {
		switch t.Transport() {
		case "rocev1":
			frame = max(frame, frames.RoCEWireBytes(1, int64(sc.Transports.RoCEv1.MTU), true))
		case "iwarp":
			c := sc.Transports.IWARP
			cfg := frames.IWARP{MTU: c.MTU, Markers: c.Markers, Timestamps: c.Timestamps, SACK: c.SACK}
			frame = max(frame, frames.NewIWARPFrames(cfg, 1<<30).SegmentWire(0))
		case "uet":
			frame = max(frame, frames.UETWireBytes(int64(sc.Transports.UET.MTU), strings.HasSuffix(sc.Transports.UET.CC, "rccc")))
		default:
			frame = max(frame, frames.RoCEWireBytes(2, int64(sc.Transports.RoCEv2.MTU), true))
		}
	}
	if frame == 0 {
		frame = frames.RoCEWireBytes(2, int64(sc.Transports.RoCEv2.MTU), true)
	}
	return frame
}

// Transport is the transport of the traffic item, "" when it has none.
func (t Traffic) Transport() string {
	switch {
	case t.Flow != nil:
		return t.Flow.Transport
	case t.Incast != nil:
		return t.Incast.Transport
	case t.Permutation != nil:
		return t.Permutation.Transport
	case t.Poisson != nil:
		return t.Poisson.Transport
	case t.AllToAll != nil:
		return t.AllToAll.Transport
	case t.Collective != nil:
		return t.Collective.Transport
	}
	return ""
}
