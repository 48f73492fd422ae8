package scenarios

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
)

func presetScenario(t *testing.T, topology string, sets ...string) *Scenario {
	t.Helper()
	f, errs, _ := loadYAML(t, starScenario, append([]string{"topology=" + topology}, sets...)...)
	require.Empty(t, errs)
	return f.Scenario(0)
}

func TestPresetNames(t *testing.T) {
	sc := presetScenario(t, "{preset: star, params: {hosts: 3, link: {rate: 1Gbps}}}")
	require.Equal(t, []string{"sw", "h1", "h2", "h3"}, NodeNames(sc.Topology))
	require.Equal(t, []string{"h1", "h2", "h3"}, HostNames(sc.Topology))

	sc = presetScenario(t, "{preset: dumbbell, params: {left: 2, right: 1, host_link: {rate: 100Gbps}, bottleneck: {rate: 10Gbps, delay: 5us}}}",
		"traffic.0.flow.src=l1", "traffic.0.flow.dst=r1")
	require.Equal(t, []string{"swl", "swr", "l1", "l2", "r1"}, NodeNames(sc.Topology))
	require.Equal(t, Link{Between: [2]string{"swl", "swr"}, Rate: 10 * sim.Gbps, Delay: 5 * sim.Microsecond},
		TopologyLinks(sc.Topology)[3])

	sc = presetScenario(t, "{preset: leafspine, params: {leaves: 2, spines: 2, hosts_per_leaf: 2, host_link: {rate: 100Gbps}, fabric_link: {rate: 400Gbps}}}")
	require.Equal(t, []string{"leaf1", "leaf2", "spine1", "spine2", "h1", "h2", "h3", "h4"}, NodeNames(sc.Topology))
	require.Equal(t, "l3", sc.Topology.Params.Routing)
	links := TopologyLinks(sc.Topology)
	require.Len(t, links, 4+4)
	require.Equal(t, [2]string{"h3", "leaf2"}, links[2].Between, "hosts rack by rack")
	require.Equal(t, 400*sim.Gbps, links[7].Rate)

	sc = presetScenario(t, "{preset: fattree, params: {k: 4, link: {rate: 100Gbps}}}")
	names := NodeNames(sc.Topology)
	require.Len(t, names, 4+8+8+16)
	require.Equal(t, []string{"core1", "core4", "agg1", "agg8", "edge1", "edge8", "h1", "h16"},
		[]string{names[0], names[3], names[4], names[11], names[12], names[19], names[20], names[35]})
}

// TestPresetLinksAgree checks TopologyLinks against the validator's link test and the degree
// every preset node must have.
func TestPresetLinksAgree(t *testing.T) {
	for _, topo := range []string{
		"{preset: star, params: {hosts: 5, link: {rate: 1Gbps}}}",
		"{preset: dumbbell, params: {left: 3, right: 2, host_link: {rate: 1Gbps}, bottleneck: {rate: 1Gbps}}}",
		"{preset: leafspine, params: {leaves: 3, spines: 2, hosts_per_leaf: 4, host_link: {rate: 1Gbps}, fabric_link: {rate: 1Gbps}}}",
		"{preset: fattree, params: {k: 4, link: {rate: 1Gbps}}}",
		"{preset: fattree, params: {k: 6, link: {rate: 1Gbps}, routing: l2}}",
	} {
		sc := presetScenario(t, topo, "traffic=[{permutation: {size: 1MB, transport: rocev2}}]")
		ti := newTopoInfo(&sc.Topology)
		links := TopologyLinks(sc.Topology)
		degree := map[string]int{}
		seen := map[[2]string]bool{}
		for _, l := range links {
			require.True(t, ti.linked(l.Between[0], l.Between[1]), "%s: %v", topo, l.Between)
			require.True(t, ti.linked(l.Between[1], l.Between[0]), "%s: %v", topo, l.Between)
			require.False(t, seen[l.Between], "%s: duplicate %v", topo, l.Between)
			seen[l.Between] = true
			degree[l.Between[0]]++
			degree[l.Between[1]]++
		}
		// No pair outside the list is linked.
		names := NodeNames(sc.Topology)
		var pairs int
		for i, a := range names {
			for _, b := range names[i+1:] {
				if ti.linked(a, b) {
					pairs++
				}
			}
		}
		require.Equal(t, len(links), pairs, topo)
		for _, n := range names {
			typ, _, ok := ti.lookup(n)
			require.True(t, ok, n)
			require.Positive(t, degree[n], "%s: %s has no link", topo, n)
			if typ == "host" {
				require.Equal(t, 1, degree[n], "%s: host %s", topo, n)
			}
			if sc.Topology.Preset == "fattree" && typ == "switch" {
				require.Equal(t, sc.Topology.Params.K, degree[n], "%s: every fat-tree switch has k ports", n)
			}
		}
		require.Len(t, HostNames(sc.Topology), ti.hostCount(), topo)
	}
}

func TestPresetReferences(t *testing.T) {
	fattree := "{preset: fattree, params: {k: 4, link: {rate: 100Gbps}}}"
	// Faults on preset links, in either order; routes on layer-3 preset switches.
	sc := presetScenario(t, fattree,
		"faults=[{link: [edge1, agg2], state: down}, {link: [agg1, edge2], loss: 0.1}, {link: [core1, agg3], drop_every: 10}]",
		"topology.routes=[{at: agg1, dst: 10.0.9.0/24, via: core2}]",
		"traffic.0.flow.dst=h16")
	require.Len(t, sc.Faults, 3)
	require.Len(t, sc.Topology.Routes, 1)

	for _, c := range []struct{ set, path, msg string }{
		{"faults=[{link: [edge1, agg3], state: down}]", "faults.0.link", "no link joins edge1 and agg3"},
		{"faults=[{link: [agg2, core1], state: down}]", "faults.0.link", "no link joins agg2 and core1"},
		{"faults=[{link: [h3, edge1], state: down}]", "faults.0.link", "no link joins h3 and edge1"},
		{"traffic.0.flow.dst=h17", "traffic.0.flow.dst", `unknown host "h17" (this fattree has hosts h1..h16)`},
		{"topology.routes=[{at: agg1, dst: 10.0.9.0/24, via: core3}]", "topology.routes.0.via", `"core3" is not a neighbour of "agg1"`},
		{"topology.routes=[{at: core9, dst: 10.0.9.0/24, via: agg1}]", "topology.routes.0.at", "core1.., agg1.., edge1.., h1.."},
		{"topology.params.routing=l2", "topology.params.routing", ""}, // placeholder: valid, see below
	} {
		_, errs, _ := loadYAML(t, starScenario, "topology="+fattree, c.set)
		if c.msg == "" {
			require.Empty(t, errs)
			continue
		}
		requireProblem(t, errs, c.path, c.msg)
	}
	_, errs, _ := loadYAML(t, starScenario, "topology="+fattree, "topology.params.routing=l2",
		"topology.routes=[{at: agg1, dst: 10.0.9.0/24, via: core2}]")
	requireProblem(t, errs, "topology.routes.0.at", "layer-2 switch")
}

func TestIndexed(t *testing.T) {
	for _, c := range []struct {
		name string
		n    int
		want int
		ok   bool
	}{
		{"h1", 3, 1, true}, {"h3", 3, 3, true}, {"h4", 3, 0, false}, {"h0", 3, 0, false},
		{"h01", 3, 0, false}, {"h", 3, 0, false}, {"h-1", 3, 0, false}, {"hx", 3, 0, false},
		{"x1", 3, 0, false}, {"h99999999999999999999", 3, 0, false},
	} {
		got, ok := indexed(c.name, "h", c.n)
		require.Equal(t, c.ok, ok, c.name)
		require.Equal(t, c.want, got, c.name)
	}
}

func ExampleNodeNames() {
	t := Topology{Preset: "leafspine", Params: PresetParams{Leaves: 2, Spines: 1, HostsPerLeaf: 2}}
	fmt.Println(NodeNames(t))
	// Output: [leaf1 leaf2 spine1 h1 h2 h3 h4]
}
