package experiment

import (
	"cmp"
	"slices"

	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// linkGroups sums the host links of each plane (with several), of each rail and of each
// scale-up domain (the rail preset), both directions of each link, over a run that ended at
// now; nil for a fabric with none of them.
func (f *fabric) linkGroups(now sim.Time) []results.LinkGroup {
	type key struct {
		kind  string
		index int32
	}
	var order []key
	sums := map[key]*results.LinkGroup{}
	busy := map[key]sim.Time{}
	add := func(k key, li int) {
		g := sums[k]
		if g == nil {
			g = &results.LinkGroup{Kind: k.kind, Index: int(k.index)}
			sums[k] = g
			order = append(order, k)
		}
		g.Links++
		for _, w := range f.wires[li] {
			g.WireBytes += w.Bytes()
			busy[k] += min(w.BusyTime(), now)
		}
	}
	for li, l := range f.nw.Links {
		h, s := &f.nw.Nodes[l.A.Node], &f.nw.Nodes[l.B.Node]
		if h.Type != topology.Host {
			h, s = s, h
		}
		if h.Type != topology.Host || s.Type != topology.Switch {
			continue
		}
		switch {
		case s.Role == topology.RoleScaleUp:
			add(key{"scaleup", s.Domain}, li)
			continue
		case s.Role == topology.RolePCIeNIC:
			continue // the GPU's PCIe link: its NIC's links are the rail's
		}
		if s.Plane > 0 && f.sc.Topology.Params.Planes > 1 {
			add(key{"plane", s.Plane}, li)
		}
		if h.Rail > 0 {
			add(key{"rail", h.Rail}, li)
		}
	}
	// The NIC links of GPUs behind a PCIe hop start at their NIC node.
	for li, l := range f.nw.Links {
		a, b := &f.nw.Nodes[l.A.Node], &f.nw.Nodes[l.B.Node]
		if b.Role == topology.RolePCIeNIC {
			a, b = b, a
		}
		if a.Role != topology.RolePCIeNIC || b.Type != topology.Switch {
			continue
		}
		gpu := &f.nw.Nodes[f.nw.Nodes[a.ID].Ports[0].Peer] // a NIC node's first link is its GPU's PCIe link
		if b.Plane > 0 && f.sc.Topology.Params.Planes > 1 {
			add(key{"plane", b.Plane}, li)
		}
		add(key{"rail", gpu.Rail}, li)
	}
	if len(order) == 0 {
		return nil
	}
	out := make([]results.LinkGroup, 0, len(order))
	rank := map[string]int{"plane": 0, "rail": 1, "scaleup": 2}
	for _, k := range order {
		g := sums[k]
		if now > 0 {
			g.Utilization = float64(busy[k]) / float64(2*int64(g.Links)) / float64(now)
		}
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b results.LinkGroup) int {
		return cmp.Or(cmp.Compare(rank[a.Kind], rank[b.Kind]), cmp.Compare(a.Index, b.Index))
	})
	return out
}
