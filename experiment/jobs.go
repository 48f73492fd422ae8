package experiment

import (
	"github.com/fabricsim/fabricsim/jobs"
	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// jobsFabric is the fabric as the collectives' runtime sees it (jobs.Fabric).
type jobsFabric struct{ f *fabric }

// Engine is the engine of the whole fabric's events, run between windows.
func (a jobsFabric) Engine() *sim.Engine { return a.f.global }

// Partitions is the number of partitions.
func (a jobsFabric) Partitions() int { return a.f.parts.parts }

// Local is partition p's engine.
func (a jobsFabric) Local(p int) *sim.Engine { return a.f.run.Part(p) }

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

// Path is the path of collective c's flows from src to dst at hash 0 (with c's PXN): its slowest link, a full
// packet's latency through it beyond its first serialization (pipeline), a message's own
// packet train through it, and the links on it that no hash moves (certain).
func (a jobsFabric) Path(c *scenarios.Collective, src, dst string) (jobs.Path, bool) {
	f := a.f
	transport := c.Transport
	s, _ := f.nw.Lookup(src)
	d, _ := f.nw.Lookup(dst)
	pxn := f.routes.PXN
	if c.PXN != nil {
		pxn = *c.PXN
	}
	hops, loop, err := f.routes.PathPXN(s, d, 0, f.pathLimit(), pxn)
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
	p := jobs.Path{Rate: rate, Alpha: alpha, Alone: func(bytes int64) sim.Time {
		return f.starter.train(transport, bytes).Through(ph, 0, 0)
	}}
	for i := range hops {
		id, ok := f.certain(hops, i)
		if !ok {
			continue
		}
		p.Links = append(p.Links, jobs.PathLink{ID: id, Rate: ph[i].Rate, Around: func(bytes int64) (lead, tail sim.Time) {
			tr := f.starter.train(transport, bytes)
			one := func(w int64) func(int64) int64 { return func(int64) int64 { return w } }
			if i > 0 { // the first packet to the node before the link, and through it
				lead = transports.Pipeline(ph[:i], 0, 1, 0, -1, one(tr.Wire(0))).Plus(ph[i].Latency)
			}
			tail = ph[i].Delay.Plus(tr.After)
			if i+1 < len(ph) { // the last packet from the node after the link on
				tail = tail.Plus(ph[i+1].Latency).Plus(transports.Pipeline(ph[i+1:], 0, 1, 0, -1, one(tr.Wire(tr.N-1))))
			}
			return lead, tail
		}})
	}
	return p, true
}

// certain is the link hop i of hops crosses, numbered by direction (2 x its index, plus 1
// from its B end), when every frame between the path's two hosts crosses it, whatever its
// hash, spray or plane: a hop that leaves a host (the sender, or a GPU relaying for it, when
// it is the only GPU of its rail in the scale-up domain: with more, the scale-up switch
// hashes each frame to one of them), or the last, into the receiver, when that host has one
// way to the fabric besides its scale-up port, or the hop is its scale-up link.
func (f *fabric) certain(hops []topology.Hop, i int) (int32, bool) {
	h := hops[i]
	port := f.nw.Nodes[h.Node].Ports[h.Port]
	host := h.Node
	if i == len(hops)-1 {
		host = port.Peer
	}
	if f.nw.Nodes[host].Type != topology.Host {
		return 0, false
	}
	if i > 0 && host == h.Node {
		dst := f.nw.Nodes[hops[len(hops)-1].Node].Ports[hops[len(hops)-1].Port].Peer
		if len(f.routes.Next(hops[i-1].Node, topology.Bridged, dst)) > 1 {
			return 0, false // a relay the scale-up switch hashes each frame over, among several
		}
	}
	su := f.routes.ScaleUpPort(host)
	ways := len(f.nw.Nodes[host].Ports)
	if su >= 0 {
		ways--
	}
	atSU := (host == h.Node && h.Port == su) || (host != h.Node && f.nw.Nodes[h.Node].Role == topology.RoleScaleUp)
	if ways > 1 && !atSU {
		return 0, false
	}
	l := f.nw.Links[port.Link]
	id := 2 * int32(port.Link)
	if l.B.Node == h.Node && l.B.Port == h.Port {
		id++
	}
	return id, true
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
