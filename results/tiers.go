package results

import (
	"slices"
	"sort"
	"strings"
)

// nodeTiers gives each node of v's links its tier, as the fabric drawing stacks them: 0
// for the flows' ends (the hosts), then each switch's hops from the nearest host through
// links that carried a frame (leaves or a fat-tree's edges 1, spines or aggregation 2,
// cores 3); a node no host reaches that way is put at 1.
func nodeTiers(v *Variant) map[string]int {
	adj := map[string][]string{}
	for _, l := range v.Links {
		adj[l.From] = append(adj[l.From], l.To)
		adj[l.To] = append(adj[l.To], l.From)
	}
	var hosts []string
	for _, f := range v.PerFlow {
		for _, h := range []string{f.Src, f.Dst} {
			if adj[h] != nil {
				hosts = append(hosts, h)
			}
		}
	}
	tier := hopsFrom(adj, hosts)
	for n := range adj {
		if _, seen := tier[n]; !seen {
			tier[n] = 1
		}
	}
	return tier
}

// tierNames names each tier of tiers: "hosts" for 0, else the names of its nodes without
// their numbers, each once in order, joined by "/" ("leaf", "spine", "swl/swr").
func tierNames(tiers map[string]int) map[int]string {
	var names []string
	for n := range tiers {
		names = append(names, n)
	}
	sort.Strings(names)
	sort.SliceStable(names, func(a, b int) bool { return naturalLess(names[a], names[b]) })
	parts := map[int][]string{}
	for _, n := range names {
		t := tiers[n]
		if t == 0 {
			continue
		}
		p := strings.TrimRight(n, "0123456789")
		if p == "" {
			p = n
		}
		if !slices.Contains(parts[t], p) {
			parts[t] = append(parts[t], p)
		}
	}
	out := map[int]string{0: "hosts"}
	for t, ps := range parts {
		out[t] = strings.Join(ps, "/")
	}
	return out
}
