package transports

import (
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// relayQueue is the data frames a GPU's NIC sends on for the other GPUs of its server (PXN)
// in one class: one requester on the NIC's schedule, served in turn with the NIC's own flows
// of that class (round robin), not ahead of them. With PXN, NCCL's network send connection
// is driven by the proxy of the GPU beside the NIC (NVIDIA/nccl src/transport/net.cc,
// sendSetup: ncclProxyConnect to the proxyRank that ncclTopoGetNetDev gives, from
// ncclTopoGetIntermediateRank in src/graph/paths.cc), which posts the data as RDMA writes on
// that NIC's queue pairs, and a NIC's transmit scheduler arbitrates between its send queues:
// it does not put one before the others. The relay
// holds what it cannot send yet without bound (NCCL's proxy buffers are bounded; not
// modelled).
type relayQueue struct {
	q    topology.Queue
	sl   schedSlot
	prio uint8
}

func (r *relayQueue) slot() *schedSlot                     { return &r.sl }
func (r *relayQueue) hasData() bool                        { return r.q.Len > 0 }
func (r *relayQueue) emit(now sim.Time) *topology.Packet   { return r.q.Pop(now) }
func (r *relayQueue) onControl(sim.Time, *topology.Packet) {}
func (r *relayQueue) stop()                                {}
func (r *relayQueue) class() uint8                         { return r.prio }
func (r *relayQueue) hash() uint32                         { return 0 }
func (r *relayQueue) rate() sim.Rate                       { return 0 }

// RelayQueue is the queue of the data frames the NIC relays for other GPUs in class c (PXN),
// nil while it has relayed none.
func (n *NIC) RelayQueue(c int) *topology.Queue {
	if r := n.relays[c]; r != nil {
		return &r.q
	}
	return nil
}

// relay sends on a frame that the scale-up switch brought to this GPU for another (PXN):
// a control frame (ACK, NAK, CNP) with the NIC's control frames of its class, a data frame
// on the class's relay queue, in turn with the NIC's own data.
func (n *NIC) relay(now sim.Time, p *topology.Packet) {
	n.Relayed++
	if p.Kind != topology.KindData {
		n.sendControl(now, p)
		return
	}
	r := n.relays[p.Priority]
	if r == nil {
		r = &relayQueue{prio: p.Priority}
		if n.depth != nil {
			r.q.LogTo(n.depth)
		}
		n.relays[p.Priority] = r
	}
	r.q.Push(now, p)
	n.schedule(now, r)
}
