package results

import (
	"fmt"
	"image/color"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFabricTiers: hosts (the flows' ends) are tier 0, each switch its hops from the nearest
// host; a link's two directions are one edge at the busier one's utilisation; a paused
// sending port marks its own end.
func TestFabricTiers(t *testing.T) {
	v := &Variant{Name: "v", SimTimeUS: 100,
		Links: []Link{{From: "h1", To: "leaf1", Utilization: 0.2}, {From: "leaf1", To: "h1", Utilization: 0.6},
			{From: "leaf1", To: "spine1", Utilization: 0.5}, {From: "spine1", To: "leaf2", Utilization: 0.5},
			{From: "leaf2", To: "h10", Utilization: 0.95}, {From: "h2", To: "leaf1", Utilization: 0.1}},
		PerFlow:  []Flow{{ID: 1, Src: "h1", Dst: "h10"}, {ID: 2, Src: "h2", Dst: "h10"}},
		PFCPorts: []PFCPort{{Node: "spine1", Peer: "leaf2", PausedUS: 40}},
	}
	f, why, err := fabricFigure(v)
	require.NoError(t, err)
	require.Empty(t, why)
	d := f.fabric
	tiers := map[string]int{}
	for _, n := range d.nodes {
		tiers[n.name] = n.tier
	}
	require.Equal(t, map[string]int{"h1": 0, "h2": 0, "h10": 0, "leaf1": 1, "leaf2": 1, "spine1": 2}, tiers)
	require.Len(t, d.edges, 5, "h1-leaf1's two directions are one link")
	for _, e := range d.edges {
		a, b := d.nodes[e.a].name, d.nodes[e.b].name
		switch {
		case a == "h1" && b == "leaf1" || a == "leaf1" && b == "h1":
			require.Equal(t, 0.6, e.util, "the busier direction")
		case a == "spine1" && b == "leaf2":
			require.Equal(t, 40.0, e.pausedA)
		case a == "leaf2" && b == "spine1":
			require.Equal(t, 40.0, e.pausedB)
		}
	}
	require.True(t, naturalLess("h2", "h10"))
	_, why, _ = fabricFigure(&Variant{})
	require.Equal(t, "no link carried a frame", why)
}

// TestFabricScaleUpUnderItsGPUs (issue 38, point 5): an AI cluster's scale-up switches are
// drawn one row under the GPUs, each at the mean place of its own domain's GPUs, so a server
// is seen joined; the rail leaves keep their tier above.
func TestFabricScaleUpUnderItsGPUs(t *testing.T) {
	var links []Link
	var flows []Flow
	for s := 1; s <= 2; s++ {
		for g := 1; g <= 2; g++ {
			gpu := fmt.Sprintf("s%dg%d", s, g)
			links = append(links, Link{From: gpu, To: fmt.Sprintf("nv%d", s), Utilization: 0.1},
				Link{From: gpu, To: fmt.Sprintf("leaf1r%d", g), Utilization: 0.5})
			flows = append(flows, Flow{ID: len(flows) + 1, Src: gpu, Dst: "s1g1"})
		}
	}
	v := &Variant{Name: "v", SimTimeUS: 10, Links: links, PerFlow: flows,
		LinkGroups: []LinkGroup{{Kind: "scaleup", Index: 1}, {Kind: "scaleup", Index: 2}}}
	f, _, err := fabricFigure(v)
	require.NoError(t, err)
	at := map[string]fabricNode{}
	for _, n := range f.fabric.nodes {
		at[n.name] = n
	}
	require.Equal(t, -1, at["nv1"].tier)
	require.Equal(t, -1, at["nv2"].tier)
	require.Equal(t, 1, at["leaf1r1"].tier)
	require.InDelta(t, (at["s1g1"].x+at["s1g2"].x)/2, at["nv1"].x, 1e-12, "nv1 under server 1's GPUs")
	require.InDelta(t, (at["s2g1"].x+at["s2g2"].x)/2, at["nv2"].x, 1e-12, "nv2 under server 2's GPUs")
	require.Contains(t, f.Caption, "scale-up switches (nvD) are drawn under")
	_, _, ymin, _ := f.fabric.DataRange()
	require.Equal(t, -1.6, ymin)

	v.LinkGroups = nil // a fabric that only names a switch nv1 keeps it in its tier
	f, _, err = fabricFigure(v)
	require.NoError(t, err)
	for _, n := range f.fabric.nodes {
		if n.name == "nv1" {
			require.Equal(t, 1, n.tier)
		}
	}
}

// TestFabricDropMarks: each link end carries the packets its drop places lost, every reason
// summed (2 + 3 at leaf1's port to spine1, 7 at spine1's end of the same link); a place on a
// link that carried no frame adds that link, so no drop goes unmarked.
func TestFabricDropMarks(t *testing.T) {
	v := &Variant{Name: "v", SimTimeUS: 100,
		Links:   []Link{{From: "h1", To: "leaf1", Utilization: 0.5}, {From: "leaf1", To: "spine1", Utilization: 0.5}},
		PerFlow: []Flow{{ID: 1, Src: "h1", Dst: "h2"}},
		DropPlaces: []DropPlace{{Node: "leaf1", Port: 2, Peer: "spine1", Reason: "buffer", Packets: 2},
			{Node: "leaf1", Port: 2, Peer: "spine1", Reason: "random_loss", Packets: 3},
			{Node: "spine1", Port: 1, Peer: "leaf1", Reason: "headroom", Packets: 7},
			{Node: "spine1", Port: 2, Peer: "leaf2", Reason: "link_down", Packets: 11}},
	}
	f, _, err := fabricFigure(v)
	require.NoError(t, err)
	d := f.fabric
	got := map[string]int64{}
	var total int64
	for _, e := range d.edges {
		a, b := d.nodes[e.a].name, d.nodes[e.b].name
		got[a+">"+b] += e.dropsA
		got[b+">"+a] += e.dropsB
		total += e.dropsA + e.dropsB
	}
	require.EqualValues(t, 5, got["leaf1>spine1"])
	require.EqualValues(t, 7, got["spine1>leaf1"])
	require.EqualValues(t, 11, got["spine1>leaf2"], "the link that carried nothing is drawn for its drops")
	require.EqualValues(t, 0, got["leaf2>spine1"])
	require.EqualValues(t, DropPlacesByReason(v.DropPlaces).Sum(), total, "every drop is marked once")
	require.Contains(t, f.Caption, "drops.csv")
}

// TestFabricStormSource: a storm's source is ringed and its link banded, the others not,
// and the legend names the storm with its class and time; with more than maxDrawnHosts
// hosts, the node the source is collapsed into carries the mark.
func TestFabricStormSource(t *testing.T) {
	v := &Variant{Name: "v", SimTimeUS: 10000,
		Links:   []Link{{From: "a", To: "sw1", Utilization: 0.5}, {From: "sw1", To: "sw2", Utilization: 0.5}, {From: "x", To: "sw2", Utilization: 0.01}},
		PerFlow: []Flow{{ID: 1, Src: "a", Dst: "x"}},
		Storms:  []Storm{{Node: "x", Priority: 3, FromUS: 50, UntilUS: 3000}},
	}
	f, _, err := fabricFigure(v)
	require.NoError(t, err)
	d := f.fabric
	for _, n := range d.nodes {
		require.Equal(t, n.name == "x", n.storm, n.name)
	}
	for _, e := range d.edges {
		ends := d.nodes[e.a].name + "-" + d.nodes[e.b].name
		require.Equal(t, ends == "sw2-x" || ends == "x-sw2", e.storm, ends)
	}
	require.Contains(t, f.LegendLabels(), "PFC storm from x, prio 3, 50.00 to 3000.00 us")

	v.Links, v.PerFlow = nil, nil
	for h := 1; h <= maxDrawnHosts+2; h++ {
		v.Links = append(v.Links, Link{From: fmt.Sprintf("h%d", h), To: "sw1", Utilization: 0.1})
		v.PerFlow = append(v.PerFlow, Flow{ID: h, Src: fmt.Sprintf("h%d", h), Dst: "h1"})
	}
	v.Storms[0].Node = "h7"
	f, _, err = fabricFigure(v)
	require.NoError(t, err)
	storms := 0
	for _, n := range f.fabric.nodes {
		if n.storm {
			storms++
			require.Equal(t, fmt.Sprintf("%d hosts", maxDrawnHosts+2), n.name)
		}
	}
	require.Equal(t, 1, storms)
}

// TestFabricGroups: with the cluster's groups, each tier is ordered by plane (planes side
// by side: plane 1's leaves left of plane 2's whatever their names), a GPU and its rail leaf
// take the rail's colour, a switch of a domain goes under the GPUs, and the legend names the
// servers, each rail and the planes.
func TestFabricGroups(t *testing.T) {
	var links []Link
	var groups []NodeGroup
	var flows []Flow
	for s := 1; s <= 2; s++ {
		for g := 1; g <= 2; g++ {
			gpu := fmt.Sprintf("s%dg%d", s, g)
			for p := 1; p <= 2; p++ {
				links = append(links, Link{From: gpu, To: fmt.Sprintf("p%dleaf1r%d", p, g), Utilization: 0.5})
			}
			links = append(links, Link{From: gpu, To: fmt.Sprintf("sw%d", s), Utilization: 0.1})
			groups = append(groups, NodeGroup{Node: gpu, Server: s, Rail: g, Domain: s})
			flows = append(flows, Flow{ID: len(flows) + 1, Src: gpu, Dst: "s1g1"})
		}
		groups = append(groups, NodeGroup{Node: fmt.Sprintf("sw%d", s), Domain: s})
	}
	for p := 1; p <= 2; p++ {
		for g := 1; g <= 2; g++ {
			groups = append(groups, NodeGroup{Node: fmt.Sprintf("p%dleaf1r%d", p, g), Rail: g, Plane: p})
		}
	}
	v := &Variant{Name: "v", SimTimeUS: 10, Links: links, PerFlow: flows, NodeGroups: groups}
	f, _, err := fabricFigure(v)
	require.NoError(t, err)
	at := map[string]fabricNode{}
	for _, n := range f.fabric.nodes {
		at[n.name] = n
	}
	require.Less(t, at["p1leaf1r2"].x, at["p2leaf1r1"].x, "plane 1 left of plane 2")
	require.Equal(t, -1, at["sw1"].tier, "a switch of a domain is the scale-up switch, whatever its name")
	require.Equal(t, railColour(2), nodeStyle(at["s2g2"]).Color)
	require.Equal(t, railColour(2), nodeStyle(at["p2leaf1r2"]).Color)
	require.NotEqual(t, railColour(1), railColour(2))
	require.Equal(t, &fabricGroups{servers: 2, rails: 2, planes: 2}, f.fabric.groups)
	legend := f.LegendLabels()
	for _, want := range []string{"a server's GPUs (and its scale-up switch)", "rail 1 (GPU 1 of each server, its leaf)", "rail 2 (GPU 2 of each server, its leaf)", "planes, side by side"} {
		require.Contains(t, legend, want)
	}
	for r := 1; r <= len(railPalette); r++ {
		require.NotEqual(t, color.RGBA{0, 0, 0, 255}, railColour(r), "no rail is black, as switches are")
	}
}
