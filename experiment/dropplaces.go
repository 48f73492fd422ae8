package experiment

import (
	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/topology"
)

// dropPlaces lists where the run lost packets (results.DropPlace): each switch port by
// reason, in switch and port order, then each NIC's unroutable frames, then each link
// direction's random and link-down losses at its sending end. They add up, by reason, to
// the variant's drops.by_reason.
func (f *fabric) dropPlaces() []results.DropPlace {
	var out []results.DropPlace
	place := func(node topology.NodeID, port int, peer topology.NodeID, reason string, n int64) {
		if n > 0 {
			out = append(out, results.DropPlace{Node: f.nw.Nodes[node].Name, Port: port + 1,
				Peer: f.nw.Nodes[peer].Name, Reason: reason, Packets: n})
		}
	}
	for _, sw := range f.switches {
		for _, pt := range sw.Ports {
			for r, n := range pt.Drops {
				place(sw.ID, pt.Index, pt.Wire.To, switchDropReasons[r], n)
			}
		}
	}
	for _, nic := range f.nicList {
		place(nic.ID, nic.Port, nic.Wire.To, "unroutable", nic.Misdelivered)
	}
	for _, pair := range f.wires {
		for _, w := range pair {
			place(w.From, w.FromPort, w.To, "random_loss", w.LostRandom)
			place(w.From, w.FromPort, w.To, "link_down", w.LostDown)
		}
	}
	return out
}
