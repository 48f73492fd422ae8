package experiment

import (
	"github.com/fabricsim/fabricsim/jobs"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/transports"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// jobsFabric is the fabric as the collectives' runtime sees it (jobs.Fabric).
type jobsFabric struct{ f *fabric }

// Engine is the engine of the whole fabric's events, run between windows.
func (a jobsFabric) Engine() *sim.Engine { return a.f.global }

// Partitions is the number of partitions.
func (a jobsFabric) Partitions() int { return a.f.parts.parts }

// Partition is host h's partition.
func (a jobsFabric) Partition(h string) int {
	id, _ := a.f.nw.Lookup(h)
	return a.f.parts.of[id]
}

// Settle ends the flows that ended in the window (the closed queue pairs among them).
func (a jobsFabric) Settle() { a.f.reg.Settle() }

// Post posts a message of bytes on queue pair qp.
func (a jobsFabric) Post(qp int32, bytes int64) (int64, error) { return a.f.reg.Post(qp, bytes) }

// Close says no message follows on queue pair qp.
func (a jobsFabric) Close(qp int32) error { return a.f.reg.Close(qp) }

// Path is the path of the flows from src to dst at hash 0: its slowest link, a full
// packet's latency through it beyond its first serialization (pipeline), and a message's
// own packet train through it.
func (a jobsFabric) Path(transport, src, dst string) (jobs.Path, bool) {
	f := a.f
	s, _ := f.nw.Lookup(src)
	d, _ := f.nw.Lookup(dst)
	hops, loop, err := f.routes.Path(s, d, 0, f.pathLimit())
	if err != nil || loop || len(hops) == 0 {
		return jobs.Path{}, false
	}
	ph := f.pathHops(hops)
	rate := ph[0].Rate
	for _, h := range ph {
		rate = min(rate, h.Rate)
	}
	full, _ := a.Frame(transport)
	alpha := transports.Pipeline(ph, 0, 1, 0, -1, func(int64) int64 { return full }) - ph[0].Rate.TxTime(full)
	return jobs.Path{Rate: rate, Alpha: alpha, Alone: func(bytes int64) sim.Time {
		return f.starter.train(transport, bytes).Through(ph, 0, 0)
	}}, true
}

// Frame is the transport's full packet: an iWARP segment after the first (which carries the
// MPA's and DDP's headers alike, but may hold a marker less), a UET or RoCE packet of the MTU.
func (a jobsFabric) Frame(transport string) (wire, payload int64) {
	st := &a.f.starter
	switch transport {
	case "iwarp":
		fr := st.ic.Frames(1 << 20)
		if fr.Segments() > 1 {
			return fr.SegmentWire(1), fr.SegmentPayload(1)
		}
		return fr.SegmentWire(0), fr.SegmentPayload(0)
	case "uet":
		mtu := int64(st.uc.MTU)
		return st.uc.WireBytes(mtu), mtu
	}
	rc := st.configs[transport]
	return frames.RoCEWireBytes(rc.Version, int64(rc.MTU), false), int64(rc.MTU)
}

// spread counts the servers and the rails the named GPUs are on (0, 0 for plain hosts).
func (f *fabric) spread(names []string) (servers, rails int) {
	seenS, seenR := map[int32]bool{}, map[int32]bool{}
	for _, name := range names {
		if id, ok := f.nw.Lookup(name); ok {
			if n := &f.nw.Nodes[id]; n.Server > 0 {
				seenS[n.Server], seenR[n.Rail] = true, true
			}
		}
	}
	return len(seenS), len(seenR)
}
