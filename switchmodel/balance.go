package switchmodel

import (
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// LoadBalancing is how a switch chooses among the equal-cost ports toward a destination.
type LoadBalancing uint8

// Load-balancing schemes.
const (
	// ECMP hashes the 5-tuple (salted per switch): every packet of a flow takes one path, and
	// flows whose hashes collide share a link however idle the others are.
	ECMP LoadBalancing = iota
	// Spray sends each packet to an equal-cost port drawn uniformly at random (random packet
	// spraying, Dixit et al., INFOCOM 2013; the oblivious spraying of UEC): the load evens out
	// packet by packet, and a flow's packets arrive out of order when the paths' queues differ.
	Spray
	// Flowlet keeps a flow on its port while its packets come closer together than
	// FlowletGap and sends the first packet after a longer gap to a port drawn at random
	// (LetFlow: Vanini et al., NSDI 2017, which picks flowlets' paths at random; flowlets:
	// Kandula et al., FLARE, CCR 2007). The state is a table indexed by the 5-tuple hash,
	// as the hardware's flowlet tables are, so two flows that share an entry share a flowlet.
	Flowlet
	// Adaptive sends each packet to the equal-cost port that will have sent what it holds
	// soonest (the frame in service and the bytes queued), ties broken at random: the per-packet adaptive routing of AI-fabric switches
	// (NVIDIA Spectrum-X, Broadcom's dynamic load balancing), seen from one switch.
	Adaptive
)

// flowletSlots is the flowlet table's size per switch, a power of two indexed by the hash's
// low bits: 4096 entries, chosen here (neither paper fixes one), far more than the flows
// that cross one switch in the bundled scenarios, so that entries are seldom shared.
const flowletSlots = 1 << 12

// flowletSlot is one flowlet table entry: when it last saw a packet and the port it chose.
type flowletSlot struct {
	last sim.Time
	port int32 // -1: unused
}

// balancer is a switch's choice among equal-cost ports under Spray, Flowlet or Adaptive.
type balancer struct {
	mode     LoadBalancing
	gap      sim.Time
	rng      *rand.Rand
	flowlets []flowletSlot // Flowlet only
}

func newBalancer(cfg *Config) *balancer {
	if cfg.LoadBalancing == ECMP {
		return nil
	}
	b := &balancer{mode: cfg.LoadBalancing, gap: cfg.FlowletGap, rng: cfg.BalanceRand}
	if b.mode == Flowlet {
		b.flowlets = make([]flowletSlot, flowletSlots)
		for i := range b.flowlets {
			b.flowlets[i].port = -1
		}
	}
	return b
}

// choose picks p's egress port among its equal-cost ports at now, or -1 when there is none.
func (sw *Switch) choose(now sim.Time, t topology.Table, p *topology.Packet) int {
	ports := sw.fwd.Candidates(t, p)
	switch len(ports) {
	case 0:
		return -1
	case 1:
		return int(ports[0])
	}
	b := sw.lb
	switch b.mode {
	case Spray:
		return int(ports[b.rng.IntN(len(ports))])
	case Adaptive:
		return sw.shortest(now, ports)
	}
	slot := &b.flowlets[p.Hash&(flowletSlots-1)]
	if slot.port < 0 || now-slot.last > b.gap || !slices.Contains(ports, slot.port) {
		slot.port = ports[b.rng.IntN(len(ports))]
	}
	slot.last = now
	return int(slot.port)
}

// shortest is the port of ports that would finish what it holds soonest, the rest of the
// frame in service and every class's queue at its line rate, ties broken uniformly at random
// (reservoir sampling over the tied ports).
func (sw *Switch) shortest(now sim.Time, ports []int32) int {
	best, ties := int32(-1), 0
	var least sim.Time
	for _, q := range ports {
		pt := sw.Ports[q]
		n := max(pt.busyUntil-now, 0) + pt.Wire.Params.Rate.TxTime(pt.queuedBytes())
		switch {
		case best < 0 || n < least:
			best, least, ties = q, n, 1
		case n == least:
			ties++
			if sw.lb.rng.IntN(ties) == 0 {
				best = q
			}
		}
	}
	return int(best)
}

// queuedBytes is the bytes waiting in the port's egress queues, every class.
func (pt *Port) queuedBytes() int64 {
	var n int64
	for c := pt.backlog; c != 0; c &= c - 1 {
		n += pt.Queues[bits.TrailingZeros8(c)].Bytes
	}
	return n
}
