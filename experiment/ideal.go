package experiment

import (
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/transports"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// packetTrain is how a transport cuts a message of size bytes into packets, for pipeline:
// their number, each one's wire bytes (headers, padding to the minimum frame, preamble and
// gap included), the first of the run of alike packets (pipeline's uniformFrom; -1: none),
// and the receiving NIC's time after the last bit (iWARP's nic_delay).
type packetTrain struct {
	n           int64
	wire        func(k int64) int64
	uniformFrom int64
	after       sim.Time
}

// through is when the train's message is delivered at the end of path hs, its first packet
// leaving at t0, the source paced at pace if above 0 (pipeline).
func (t packetTrain) through(hs []pathHop, t0 sim.Time, pace sim.Rate) sim.Time {
	return pipeline(hs, t0, t.n, pace, t.uniformFrom, t.wire).Plus(t.after)
}

// roceTrain is a RoCE message's packets: the first carries the RETH, the last the rest.
func roceTrain(rc transports.RoCEConfig, size int64) packetTrain {
	mtu := int64(rc.MTU)
	n := max((size+mtu-1)/mtu, 1)
	middle := frames.RoCEWireBytes(rc.Version, mtu, false)
	return packetTrain{n: n, uniformFrom: 1, wire: func(k int64) int64 {
		switch {
		case k == 0:
			return frames.RoCEWireBytes(rc.Version, min(mtu, size), true)
		case k == n-1:
			return frames.RoCEWireBytes(rc.Version, size-k*mtu, false)
		}
		return middle
	}}
}

// uetTrain is a UET message's packets: full ones of the MTU's payload, then the rest.
func uetTrain(uc transports.UETConfig, size int64) packetTrain {
	mtu := int64(uc.MTU)
	n := max((size+mtu-1)/mtu, 1)
	full := uc.WireBytes(mtu)
	return packetTrain{n: n, uniformFrom: 0, wire: func(k int64) int64 {
		if k == n-1 {
			return uc.WireBytes(size - k*mtu)
		}
		return full
	}}
}

// iwarpTrain is an iWARP message's FPDUs (no handshake): every segment but the last alike,
// unless MPA markers make their lengths vary.
func iwarpTrain(ic transports.IWARPConfig, size int64) packetTrain {
	fr := ic.Frames(size)
	uniform := int64(0)
	if ic.Markers {
		uniform = -1
	}
	return packetTrain{n: fr.Segments(), uniformFrom: uniform, wire: fr.SegmentWire, after: ic.NICDelay}
}

// train is the packet train of a message of size bytes on the named transport.
func (st *flowStarter) train(transport string, size int64) packetTrain {
	switch transport {
	case "uet":
		return uetTrain(st.uc, size)
	case "iwarp":
		return iwarpTrain(st.ic, size)
	}
	return roceTrain(st.configs[transport], size)
}
