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
	for li := range f.nw.Links {
		m := f.linkMembership(li)
		if m.plane > 0 {
			add(key{"plane", m.plane}, li)
		}
		if m.rail > 0 {
			add(key{"rail", m.rail}, li)
		}
		if m.scaleup > 0 {
			add(key{"scaleup", m.scaleup}, li)
		}
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

// membership is the groups a link belongs to (0: none): the plane of a host's link to a
// plane's switch (with several planes), the rail of a GPU's NIC link, the scale-up domain of
// a GPU's link to its scale-up switch.
type membership struct{ plane, rail, scaleup int32 }

// linkMembership is link li's groups. A GPU behind a PCIe hop has its NIC node's link to the
// fabric in its rail (and plane); the PCIe link itself is in none.
func (f *fabric) linkMembership(li int) membership {
	l := &f.nw.Links[li]
	a, b := &f.nw.Nodes[l.A.Node], &f.nw.Nodes[l.B.Node]
	// a is the host end (a GPU, or the NIC node of a GPU behind a PCIe hop), b the switch it
	// reaches.
	hostEnd := func(n *topology.Node) bool { return n.Type == topology.Host || n.Role == topology.RolePCIeNIC }
	if hostEnd(b) && !hostEnd(a) {
		a, b = b, a
	}
	if !hostEnd(a) || b.Type != topology.Switch {
		return membership{}
	}
	var m membership
	switch {
	case b.Role == topology.RoleScaleUp:
		m.scaleup = b.Domain
		return m
	case b.Role == topology.RolePCIeNIC:
		return m // the GPU's PCIe link: its NIC's links are the rail's
	}
	if b.Plane > 0 && f.sc.Topology.Params.Planes > 1 {
		m.plane = b.Plane
	}
	gpu := a
	if a.Role == topology.RolePCIeNIC {
		gpu = &f.nw.Nodes[a.Ports[0].Peer] // a NIC node's first link is its GPU's PCIe link
	}
	m.rail = gpu.Rail
	return m
}

// nodeGroups places each node of an AI cluster in its groups, for the fabric drawing: a
// GPU's server, rail and scale-up domain, a scale-up switch's domain, a fabric switch's plane
// (with several) and, for a switch every GPU link of which comes from one rail (a rail
// leaf), that rail; nil for a fabric of none.
func (f *fabric) nodeGroups() []results.NodeGroup {
	var out []results.NodeGroup
	planes := f.sc.Topology.Params.Planes > 1
	for i := range f.nw.Nodes {
		n := &f.nw.Nodes[i]
		g := results.NodeGroup{Node: n.Name, Server: int(n.Server), Rail: int(n.Rail), Domain: int(n.Domain)}
		if planes {
			g.Plane = int(n.Plane)
		}
		if n.Type == topology.Switch && n.Role == topology.RoleFabric {
			g.Rail = f.railOf(n)
		}
		if g != (results.NodeGroup{Node: n.Name}) {
			out = append(out, g)
		}
	}
	return out
}

// railOf is the rail of every GPU whose link (or its NIC's, behind a PCIe hop) reaches
// switch n, when they are all of one rail; 0 otherwise (a spine, a switch of no GPU).
func (f *fabric) railOf(n *topology.Node) int {
	rail := int32(0)
	for _, p := range n.Ports {
		peer := &f.nw.Nodes[p.Peer]
		if peer.Role == topology.RolePCIeNIC {
			peer = &f.nw.Nodes[peer.Ports[0].Peer] // a NIC node's first link is its GPU's
		}
		if peer.Type != topology.Host || peer.Rail == 0 {
			continue
		}
		if rail != 0 && peer.Rail != rail {
			return 0
		}
		rail = peer.Rail
	}
	return int(rail)
}
