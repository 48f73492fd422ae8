package scenarios

import (
	"fmt"
	"strconv"
	"strings"
)

// The presets, their params and the names and links they define. The topology builder must
// produce exactly these names and links; it can take them from NodeNames and TopologyLinks.
//
//	star:      switch sw; hosts h1..hN; links [hi, sw].
//	dumbbell:  switches swl, swr; hosts l1..lN (on swl), r1..rM (on swr);
//	           links [li, swl], [ri, swr], then the bottleneck [swl, swr].
//	leafspine: switches leaf1..leafL, spine1..spineS; hosts h1..h(L*H) rack by rack
//	           (h1..hH on leaf1); links [hi, leaf], then [leafi, spinej] for every pair.
//	fattree k: half = k/2; switches core1..core(half^2), agg1..agg(k*half), edge1..edge(k*half);
//	           hosts h1..h(k^3/4). Pod p (from 0) holds agg and edge p*half+1..(p+1)*half;
//	           edge e holds hosts (e-1)*half+1..e*half; every edge links every agg of its pod;
//	           the agg with index x (from 0) in its pod links core x*half+1..(x+1)*half
//	           (Al-Fares et al., SIGCOMM'08). Links [hi, edge], [edge, agg], [agg, core].
//	rail:      the names and links topology.Rail builds, in its order: per plane (names
//	           prefixed p<P> with planes > 1) leaf<T>r<R> stripe by stripe and spine1..;
//	           nv1.. (with scaleup); GPUs s<S>g<G> server by server (each followed by
//	           s<S>g<G>nic with pcie). Links [leaf, spine], then per GPU [gpu or its nic, leaf]
//	           per plane, [gpu, nv] (scaleup), with pcie [gpu, nic] first.
//
// In star and dumbbell every switch is layer 2 and all hosts share one subnet; in leafspine
// and fattree every switch is layer 3 with routing l3 (the default) and layer 2 with l2.

// presetOrder lists the presets as messages name them.
var presetOrder = []string{"star", "dumbbell", "leafspine", "fattree", "rail"}

// presetParams lists each preset's params, in the order messages name them.
var presetParams = map[string][]string{
	"star":      {"hosts", "link"},
	"dumbbell":  {"left", "right", "host_link", "bottleneck"},
	"leafspine": {"leaves", "spines", "hosts_per_leaf", "host_link", "fabric_link", "routing", "planes"},
	"fattree":   {"k", "link", "routing", "planes"},
	"rail": {"stripes", "servers_per_stripe", "gpus_per_server", "servers_per_scaleup", "spines", "planes",
		"nic_link", "fabric_link", "scaleup", "pcie", "routing"},
}

// maxNodes bounds the size of a topology, so that a typo (k: 1000) is an error and not an
// hour of building: 131072 nodes is far beyond what the simulator runs in reasonable time.
const maxNodes = 1 << 17

// paramProblem is the message for a param the preset does not have.
func paramProblem(preset, name string) string {
	params := presetParams[preset]
	return fmt.Sprintf("%s has no param %q%s (its params: %s)", preset, name, didYouMean(name, params), listOf(params))
}

// topoInfo answers questions about a resolved topology: which names it defines, of what type
// and layer, and which pairs of nodes are linked.
type topoInfo struct {
	t     *Topology
	nodes map[string]*Node       // explicit topologies
	links map[[2]string]struct{} // explicit topologies, both orders
	hosts []string               // explicit topologies, in file order
}

func newTopoInfo(t *Topology) *topoInfo {
	ti := &topoInfo{t: t}
	nodes, links := t.Nodes, t.Links
	built := builtNames(t)
	if built {
		nodes, links = builtNodes(*t) // named as explicit nodes are
	}
	if t.Preset == "" || built {
		ti.nodes = make(map[string]*Node, len(nodes))
		for i := range nodes {
			n := &nodes[i]
			if _, dup := ti.nodes[n.Name]; !dup {
				ti.nodes[n.Name] = n
				if n.Type == "host" {
					ti.hosts = append(ti.hosts, n.Name)
				}
			}
		}
		ti.links = make(map[[2]string]struct{}, 2*len(links))
		for _, l := range links {
			ti.links[l.Between] = struct{}{}
			ti.links[[2]string{l.Between[1], l.Between[0]}] = struct{}{}
		}
	}
	return ti
}

// indexed returns i when name is prefix followed by i in 1..n written without leading zeros.
func indexed(name, prefix string, n int) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok || rest == "" || rest[0] == '0' {
		return 0, false
	}
	i, err := strconv.Atoi(rest)
	if err != nil || i < 1 || i > n || strconv.Itoa(i) != rest {
		return 0, false
	}
	return i, true
}

// presetLayer is the layer of a preset's switches.
func (ti *topoInfo) presetLayer() int {
	if ti.t.Params.Routing == "l3" {
		return 3
	}
	return 2
}

// lookup returns the type ("host" or "switch") and, for switches, the layer of the named node.
func (ti *topoInfo) lookup(name string) (typ string, layer int, ok bool) {
	p := &ti.t.Params
	sw := func(ok bool, layer int) (string, int, bool) { return "switch", layer, ok }
	host := func(ok bool) (string, int, bool) { return "host", 0, ok }
	has := func(prefix string, n int) bool { _, ok := indexed(name, prefix, n); return ok }
	if ti.nodes != nil {
		n, ok := ti.nodes[name]
		if !ok {
			return "", 0, false
		}
		return n.Type, n.Layer, true
	}
	switch ti.t.Preset {
	case "star":
		if name == "sw" {
			return sw(true, 2)
		}
		return host(has("h", p.Hosts))
	case "dumbbell":
		if name == "swl" || name == "swr" {
			return sw(true, 2)
		}
		return host(has("l", p.Left) || has("r", p.Right))
	case "leafspine":
		if has("leaf", p.Leaves) || has("spine", p.Spines) {
			return sw(true, ti.presetLayer())
		}
		return host(has("h", p.Leaves*p.HostsPerLeaf))
	case "fattree":
		half := p.K / 2
		if has("core", half*half) || has("agg", p.K*half) || has("edge", p.K*half) {
			return sw(true, ti.presetLayer())
		}
		return host(has("h", p.K*p.K*p.K/4))
	}
	return "", 0, false
}

// linked reports whether some link joins a and b (in either order).
func (ti *topoInfo) linked(a, b string) bool {
	if ti.links != nil {
		_, ok := ti.links[[2]string{a, b}]
		return ok
	}
	if ti.isLinked(a, b) {
		return true
	}
	return ti.isLinked(b, a)
}

// isLinked checks one order: a the lower tier (host, edge, leaf, agg), b the upper.
func (ti *topoInfo) isLinked(a, b string) bool {
	p := &ti.t.Params
	switch ti.t.Preset {
	case "star":
		_, ok := indexed(a, "h", p.Hosts)
		return ok && b == "sw"
	case "dumbbell":
		if _, ok := indexed(a, "l", p.Left); ok {
			return b == "swl"
		}
		if _, ok := indexed(a, "r", p.Right); ok {
			return b == "swr"
		}
		return a == "swl" && b == "swr"
	case "leafspine":
		if h, ok := indexed(a, "h", p.Leaves*p.HostsPerLeaf); ok {
			l, ok := indexed(b, "leaf", p.Leaves)
			return ok && (h-1)/p.HostsPerLeaf+1 == l
		}
		if _, ok := indexed(a, "leaf", p.Leaves); ok {
			_, ok := indexed(b, "spine", p.Spines)
			return ok
		}
	case "fattree":
		half := p.K / 2
		if half == 0 {
			return false
		}
		if h, ok := indexed(a, "h", p.K*p.K*p.K/4); ok {
			e, ok := indexed(b, "edge", p.K*half)
			return ok && (h-1)/half+1 == e
		}
		if e, ok := indexed(a, "edge", p.K*half); ok {
			g, ok := indexed(b, "agg", p.K*half)
			return ok && (e-1)/half == (g-1)/half
		}
		if g, ok := indexed(a, "agg", p.K*half); ok {
			c, ok := indexed(b, "core", half*half)
			return ok && (c-1)/half == (g-1)%half
		}
	}
	return false
}

// hostsHint describes the hosts of the topology for a message about an unknown host.
func (ti *topoInfo) hostsHint(name string) string {
	p := &ti.t.Params
	span := func(prefix string, n int) string {
		if n == 1 {
			return prefix + "1"
		}
		return fmt.Sprintf("%s1..%s%d", prefix, prefix, n)
	}
	switch ti.t.Preset {
	case "star":
		return "this star has hosts " + span("h", p.Hosts)
	case "dumbbell":
		return fmt.Sprintf("this dumbbell has hosts %s and %s", span("l", p.Left), span("r", p.Right))
	case "leafspine":
		return "this leafspine has hosts " + span("h", p.Leaves*p.HostsPerLeaf)
	case "fattree":
		return "this fattree has hosts " + span("h", p.K*p.K*p.K/4)
	case "rail":
		return fmt.Sprintf("this rail fabric has GPUs s<S>g<G>: servers S %s, GPUs G %s",
			span("", p.Stripes*p.ServersPerStripe), span("", p.GPUsPerServer))
	}
	hint := ""
	if s := suggest(name, ti.hosts); s != "" {
		hint = fmt.Sprintf("did you mean %q? ", s)
	}
	switch {
	case len(ti.hosts) == 0:
		return hint + "the topology has no hosts"
	case len(ti.hosts) <= 12:
		return hint + "hosts: " + listOf(ti.hosts)
	default:
		return fmt.Sprintf("%shosts: %s, ... (%d in all)", hint, listOf(ti.hosts[:10]), len(ti.hosts))
	}
}

// nodesHint is hostsHint for any node (links, faults and routes may name switches).
func (ti *topoInfo) nodesHint(name string) string {
	if ti.t.Preset != "" {
		names := NodeNames(*ti.t)
		if len(names) > 12 {
			return fmt.Sprintf("the %s preset names its nodes %s", ti.t.Preset, presetNaming(ti.t))
		}
		return "nodes: " + listOf(names)
	}
	names := NodeNames(*ti.t)
	hint := ""
	if s := suggest(name, names); s != "" {
		hint = fmt.Sprintf("did you mean %q? ", s)
	}
	if len(names) > 12 {
		return fmt.Sprintf("%snodes: %s, ... (%d in all)", hint, listOf(names[:10]), len(names))
	}
	return hint + "nodes: " + listOf(names)
}

func presetNaming(t *Topology) string {
	planes := ""
	if t.Params.Planes > 1 {
		planes = fmt.Sprintf(" (switches prefixed p1..p%d, one copy per plane)", t.Params.Planes)
	}
	switch t.Preset {
	case "leafspine":
		return "leaf1.., spine1.., h1.." + planes
	case "fattree":
		return "core1.., agg1.., edge1.., h1.." + planes
	case "dumbbell":
		return "swl, swr, l1.., r1.."
	case "rail":
		return "s<S>g<G> (GPUs), leaf<T>r<R>, spine<K> (p<P>-prefixed with planes), nv<D>, s<S>g<G>nic"
	}
	return "sw, h1.."
}

// hostCount is the number of hosts of the topology.
func (ti *topoInfo) hostCount() int {
	p := &ti.t.Params
	switch ti.t.Preset {
	case "star":
		return p.Hosts
	case "dumbbell":
		return p.Left + p.Right
	case "leafspine":
		return p.Leaves * p.HostsPerLeaf
	case "fattree":
		return p.K * p.K * p.K / 4
	case "rail":
		return p.Stripes * p.ServersPerStripe * p.GPUsPerServer
	}
	return len(ti.hosts)
}

// NodeNames returns the names of every node t defines, switches and hosts: for a preset in the
// order of the preset's table above (star: sw, h1..hN; dumbbell: swl, swr, l1.., r1..;
// leafspine: leaf1.., spine1.., h1..; fattree: core1.., agg1.., edge1.., h1..), for explicit
// nodes in file order.
func NodeNames(t Topology) []string {
	p := t.Params
	var names []string
	add := func(prefix string, n int) {
		for i := 1; i <= n; i++ {
			names = append(names, prefix+strconv.Itoa(i))
		}
	}
	switch t.Preset {
	case "":
		for _, n := range t.Nodes {
			names = append(names, n.Name)
		}
	case "star":
		names = append(names, "sw")
		add("h", p.Hosts)
	case "dumbbell":
		names = append(names, "swl", "swr")
		add("l", p.Left)
		add("r", p.Right)
	case "leafspine":
		add("leaf", p.Leaves)
		add("spine", p.Spines)
		add("h", p.Leaves*p.HostsPerLeaf)
	case "fattree":
		half := p.K / 2
		add("core", half*half)
		add("agg", p.K*half)
		add("edge", p.K*half)
		add("h", p.K*p.K*p.K/4)
	}
	if builtNames(&t) {
		names = names[:0]
		nodes, _ := builtNodes(t)
		for _, n := range nodes {
			names = append(names, n.Name)
		}
	}
	return names
}

// HostNames returns the names of t's hosts, in the order of NodeNames.
func HostNames(t Topology) []string {
	ti := newTopoInfo(&t)
	var hosts []string
	for _, n := range NodeNames(t) {
		if typ, _, _ := ti.lookup(n); typ == "host" {
			hosts = append(hosts, n)
		}
	}
	return hosts
}

// TopologyLinks returns every link of t: for explicit topologies t.Links, for presets the
// preset's links (see the table above) with the rates, delays and losses of its params.
func TopologyLinks(t Topology) []Link {
	if t.Preset == "" {
		return append([]Link(nil), t.Links...)
	}
	if builtNames(&t) {
		_, links := builtNodes(t)
		return links
	}
	p := t.Params
	var links []Link
	add := func(a, b string, s LinkSpec) {
		links = append(links, Link{Between: [2]string{a, b}, Rate: s.Rate, Delay: s.Delay, Loss: s.Loss})
	}
	name := func(prefix string, i int) string { return prefix + strconv.Itoa(i) }
	switch t.Preset {
	case "star":
		for i := 1; i <= p.Hosts; i++ {
			add(name("h", i), "sw", p.Link)
		}
	case "dumbbell":
		for i := 1; i <= p.Left; i++ {
			add(name("l", i), "swl", p.HostLink)
		}
		for i := 1; i <= p.Right; i++ {
			add(name("r", i), "swr", p.HostLink)
		}
		add("swl", "swr", p.Bottleneck)
	case "leafspine":
		for h := 1; h <= p.Leaves*p.HostsPerLeaf; h++ {
			add(name("h", h), name("leaf", (h-1)/p.HostsPerLeaf+1), p.HostLink)
		}
		for l := 1; l <= p.Leaves; l++ {
			for s := 1; s <= p.Spines; s++ {
				add(name("leaf", l), name("spine", s), p.FabricLink)
			}
		}
	case "fattree":
		half := p.K / 2
		for h := 1; h <= p.K*p.K*p.K/4; h++ {
			add(name("h", h), name("edge", (h-1)/half+1), p.Link)
		}
		for e := 1; e <= p.K*half; e++ {
			pod := (e - 1) / half
			for x := 0; x < half; x++ {
				add(name("edge", e), name("agg", pod*half+x+1), p.Link)
			}
		}
		for g := 1; g <= p.K*half; g++ {
			x := (g - 1) % half
			for c := x*half + 1; c <= (x+1)*half; c++ {
				add(name("agg", g), name("core", c), p.Link)
			}
		}
	}
	return links
}
