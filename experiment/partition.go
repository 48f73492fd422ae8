package experiment

import (
	"fmt"

	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// defaultWindow is the window of a fabric none of whose links between switches has a delay:
// it runs on one partition, and the window only sets where a run that ends when its last
// flow does stops (at the end of the window it ended in).
const defaultWindow = sim.Microsecond

// partitioning is how a fabric is cut for a parallel run (sim.Group): each node's partition,
// how many there are, and the window, the lookahead of conservative parallel simulation.
type partitioning struct {
	of     []int // by node id
	parts  int
	window sim.Time
}

// fabricWindow is the window of nw: the shortest positive delay of a link between two
// switches (a frame sent over it arrives no sooner), defaultWindow when there is none. It
// depends on the fabric alone, never on the number of partitions, so the windows, and where
// a run ends, are the same however many threads run it.
func fabricWindow(nw *topology.Network) sim.Time {
	w := sim.Never
	for _, l := range nw.Links {
		if nw.Nodes[l.A.Node].Type == topology.Switch && nw.Nodes[l.B.Node].Type == topology.Switch && l.Params.Delay > 0 {
			w = min(w, l.Params.Delay)
		}
	}
	if w == sim.Never {
		return defaultWindow
	}
	return w
}

// partition cuts nw into at most want partitions. A host goes with its switch, and the two
// ends of a link shorter than the window (a zero delay) stay together, so every link between
// two partitions is at least a window long. A GPU of a server with a scale-up switch goes
// with that switch and not with its fabric switches (rail leaves), where their links are a
// window long: a server is never cut, and the servers of one rail stripe, which share
// every rail leaf, can be cut apart (else a stripe is one unit, and a one-stripe cluster
// one partition). The units left (a switch with its hosts) are
// cut tier by tier (a tier is the hops from the nearest host), each tier's units in node
// order into want runs of about equal size: a leaf-spine's leaves in want groups and its
// spines in want groups, a fat-tree's pods together (their edge and aggregation switches
// are numbered pod by pod). There are at most topology.MaxPools partitions, one packet pool
// each.
func partition(nw *topology.Network, want int) partitioning {
	p := partitioning{of: make([]int, len(nw.Nodes)), parts: 1, window: fabricWindow(nw)}
	want = min(want, topology.MaxPools)
	if want <= 1 {
		return p
	}
	root := make([]int, len(nw.Nodes))
	for i := range root {
		root[i] = i
	}
	find := func(i int) int {
		for root[i] != i {
			root[i] = root[root[i]]
			i = root[i]
		}
		return i
	}
	inServer := serverHosts(nw)
	for _, l := range nw.Links {
		a, b := int(l.A.Node), int(l.B.Node)
		if l.Params.Delay < p.window || joinsHost(nw, inServer, a, b) || joinsHost(nw, inServer, b, a) {
			ra, rb := find(a), find(b)
			root[max(ra, rb)] = min(ra, rb)
		}
	}
	tier := tiers(nw)
	// A unit's tier is its nearest member's to a host: a server's (its GPUs and scale-up
	// switch) is 0, whichever of its nodes is numbered first.
	unitTier := make([]int, len(nw.Nodes))
	for i := range unitTier {
		unitTier[i] = -1
	}
	for i := range nw.Nodes {
		if r := find(i); unitTier[r] < 0 || tier[i] < unitTier[r] {
			unitTier[r] = tier[i]
		}
	}
	byTier := map[int][]int{}
	maxTier := 0
	for i := range nw.Nodes {
		if find(i) == i {
			byTier[unitTier[i]] = append(byTier[unitTier[i]], i)
			maxTier = max(maxTier, unitTier[i])
		}
	}
	units := 0
	part := make([]int, len(nw.Nodes))
	for t := 0; t <= maxTier; t++ {
		us := byTier[t]
		units += len(us)
		for k, u := range us {
			part[u] = k * want / len(us)
		}
	}
	if units < 2 {
		return p
	}
	// Number the partitions used 0, 1, ... (a tier of fewer units than partitions skips some).
	index := map[int]int{}
	for i := range nw.Nodes {
		k := part[find(i)]
		if _, ok := index[k]; !ok {
			index[k] = len(index)
		}
		p.of[i] = index[k]
	}
	p.parts = len(index)
	return p
}

// serverHosts reports, by node id, the hosts with a link to a scale-up switch: the GPUs of
// servers (topology.RoleScaleUp).
func serverHosts(nw *topology.Network) []bool {
	in := make([]bool, len(nw.Nodes))
	for _, l := range nw.Links {
		a, b := &nw.Nodes[l.A.Node], &nw.Nodes[l.B.Node]
		switch {
		case a.Type == topology.Host && b.Type == topology.Switch && b.Role == topology.RoleScaleUp:
			in[a.ID] = true
		case b.Type == topology.Host && a.Type == topology.Switch && a.Role == topology.RoleScaleUp:
			in[b.ID] = true
		}
	}
	return in
}

// joinsHost reports whether host h goes with node n, at the other end of a link at least
// a window long: a host goes with its switches, a server's GPU with its scale-up switch
// (and its NIC behind PCIe) but not with the fabric's switches.
func joinsHost(nw *topology.Network, inServer []bool, h, n int) bool {
	if nw.Nodes[h].Type != topology.Host {
		return false
	}
	return !inServer[h] || nw.Nodes[n].Type != topology.Switch || nw.Nodes[n].Role != topology.RoleFabric
}

// tiers is each node's hops from the nearest host (a host 0, its switch 1, ...); a node no
// host reaches is put in the last tier.
func tiers(nw *topology.Network) []int {
	t := make([]int, len(nw.Nodes))
	var queue []int
	for i := range nw.Nodes {
		t[i] = -1
		if nw.Nodes[i].Type == topology.Host {
			t[i] = 0
			queue = append(queue, i)
		}
	}
	far := 0
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for _, pt := range nw.Nodes[i].Ports {
			l := nw.Links[pt.Link]
			j := int(l.A.Node)
			if j == i {
				j = int(l.B.Node)
			}
			if t[j] < 0 {
				t[j] = t[i] + 1
				far = max(far, t[j])
				queue = append(queue, j)
			}
		}
	}
	for i := range t {
		if t[i] < 0 {
			t[i] = far + 1
		}
	}
	return t
}

// parallel is how the fabric was cut, for bench: asked threads, and why it has fewer
// partitions when it does.
func (f *fabric) parallel(asked int, captured, maxEvents bool) results.Parallel {
	p := results.Parallel{Threads: f.run.Threads(), Partitions: f.run.Parts(), WindowUS: f.parts.window.Microseconds(),
		Windows: f.run.Windows()}
	for i := range f.run.Parts() {
		p.Events = append(p.Events, f.run.Part(i).Executed())
	}
	switch {
	case asked <= p.Partitions:
	case captured:
		p.Reason = "packet captures run on one thread (a capture file takes its links' frames in order)"
	case maxEvents:
		p.Reason = "--max-events runs on one thread (it cuts the run at an exact event)"
	case p.Partitions == topology.MaxPools:
		p.Reason = fmt.Sprintf("a fabric is cut into at most %d partitions (a packet records its partition's pool in a byte)", topology.MaxPools)
	default:
		p.Reason = fmt.Sprintf("the fabric has %d partitions: a host stays with its switch (a server's GPUs with their scale-up switch) and links shorter than the %v window are not cut", p.Partitions, f.parts.window)
	}
	return p
}
