package topology

import (
	"fmt"
	"math"
)

// Table selects which forwarding table a packet uses at a node.
type Table uint8

// Forwarding tables.
const (
	// Bridged: source and destination share a subnet, so the packet is bridged at layer 2
	// along shortest paths (layer-3 switches bridge between their ports in one subnet).
	Bridged Table = iota
	// Unrouted: a cross-subnet packet that has not reached a layer-3 switch yet; it is
	// bridged toward the nearest router on a shortest path that ends at its destination.
	Unrouted
	// Routed: a cross-subnet packet that a layer-3 switch has routed; static routes apply.
	Routed
	numTables
)

// TableFor is the table a packet uses at the next node it reaches.
func TableFor(p *Packet) Table { return tableFor(p.CrossSubnet, p.Routed) }

// tableFor is the table of a packet that crosses subnets or not, and has been routed or not.
func tableFor(crossSubnet, routed bool) Table {
	switch {
	case !crossSubnet:
		return Bridged
	case routed:
		return Routed
	default:
		return Unrouted
	}
}

// StaticRoute replaces the computed next hops of layer-3 switch At, for routed packets to
// destinations inside Dst, with the links to neighbour Via. Loops are allowed: that is how a
// routing-loop deadlock is studied; TTL ends them.
type StaticRoute struct {
	At  NodeID
	Dst Subnet
	Via NodeID
}

// Routes holds every switch's forwarding tables: for each table and destination host, the
// ports on shortest paths (equal-cost multipath). Hosts keep no table: a host with one port
// sends on it; a GPU with several chooses by HostPort, and relays by RelayPort (scaleup.go).
type Routes struct {
	// PXN (NCCL's PCI x NVLink, hosts.pxn): a GPU sends to another rail's GPU outside its
	// scale-up domain through the domain first (see HostPort); set before the run.
	PXN  bool
	nw   *Network
	fwd  []*Forwarding // by node; nil for hosts
	salt []uint32      // per-node ECMP hash salt, so switches in series do not polarize
}

// Forwarding is one switch's tables, laid out for the per-packet lookup: a row per table of
// 2-byte entries indexed by destination class, and the switch's few distinct ECMP groups
// (sets of equal-cost ports). The hosts that hang from one switch form a class: every other
// switch reaches them by the same ports, so it keeps one entry for them all, and their own
// switch keeps each one's entries apart, in the fabric's destination list (destination.own).
// An entry with the singlePort bit holds the one port itself, so the lookup reads the entry
// alone (on a large fabric, one cache miss instead of three); any other entry is the number of
// a group, which stays in cache. A switch keeps 2-6 bytes per class (per switch with hosts,
// on a leaf-spine), so a 10,000-host fabric's rows take a few megabytes. The Routed row is
// the Bridged one except at a switch with static routes.
type Forwarding struct {
	rows   [numTables][]uint16 // [table][class] -> singlePort | port, or a group; 0: no route
	dests  []destination       // by node, shared by every switch of the fabric
	id     NodeID              // this switch
	groups [][]int32           // group -> ports; groups[0] is empty
	single [][]int32           // port -> the group of that port alone, for Next
	salt   uint32
	router bool // the switch is a layer-3 switch
}

// destination is what a lookup needs to know of a destination node: the switch it hangs
// from (-1: a host routed on its own, or not a host) and its class, the row index at every
// other switch; at its own switch, its entries by table. Class 0 is no destination: every
// row's entry 0 is the empty group.
type destination struct {
	at    NodeID
	class int32
	own   [numTables]uint16
}

// entry is the switch's row entry toward destination node d in table t.
func (fw *Forwarding) entry(t Table, d NodeID) uint16 {
	ds := &fw.dests[d]
	if ds.at == fw.id {
		return ds.own[t]
	}
	return fw.rows[t][ds.class]
}

// singlePort marks a row entry that is a port, not a group number.
const singlePort = 1 << 15

// MaxTableEntries bounds switches x nodes, what the route tables would be with a row entry
// per switch and node (they are smaller: a row entry per switch and destination class, and
// 16 bytes per node in the destination list): beyond it a topology is refused rather than
// allowed to exhaust memory.
const MaxTableEntries = 1_000_000_000

// maxGroups is the number of distinct ECMP groups a switch can hold (a row entry without the
// singlePort bit).
const maxGroups = singlePort

const unreachable = math.MaxInt32

// ComputeRoutes computes shortest-path ECMP tables for every destination host, the static
// routes on top. It errors on a static route that is not at a layer-3 switch or whose next
// hop is not a neighbour.
func ComputeRoutes(nw *Network, static []StaticRoute) (*Routes, error) {
	return computeRoutes(nw, static, true)
}

// computeRoutes is ComputeRoutes; shareAttached false computes every destination host on its
// own (the tests compare the two).
func computeRoutes(nw *Network, static []StaticRoute, shareAttached bool) (*Routes, error) {
	n := len(nw.Nodes)
	switches := n - len(nw.Hosts())
	if int64(switches)*int64(n) > MaxTableEntries {
		return nil, fmt.Errorf("the topology is too large to route: %d switches x %d nodes is more than %d route-table entries",
			switches, n, MaxTableEntries)
	}
	for _, s := range static {
		if !nw.Nodes[s.At].Router() {
			return nil, fmt.Errorf("static route at %s: it is not a layer-3 switch", nw.Nodes[s.At].Name)
		}
		if nw.Nodes[s.Via].Type == Host {
			return nil, fmt.Errorf("static route at %s via %s: %s is a host, and hosts do not forward",
				nw.Nodes[s.At].Name, nw.Nodes[s.Via].Name, nw.Nodes[s.Via].Name)
		}
		if _, ok := nw.LinkBetween(s.At, s.Via); !ok {
			return nil, fmt.Errorf("static route at %s via %s: %s is not a neighbour of %s",
				nw.Nodes[s.At].Name, nw.Nodes[s.Via].Name, nw.Nodes[s.Via].Name, nw.Nodes[s.At].Name)
		}
	}
	// The destination classes. Static routes tell hosts apart by address, not by the switch
	// they hang from (a /32 can single one out): with any, every host is a class of its own.
	sets := attachedSets(nw, shareAttached && len(static) == 0)
	classes := len(sets) + 1 // and class 0, no destination
	dests := make([]destination, n)
	for i := range dests {
		dests[i].at = -1
	}
	for c, set := range sets {
		for _, h := range set.hosts {
			dests[h] = destination{at: set.at, class: int32(c + 1)}
		}
	}
	r := &Routes{nw: nw, fwd: make([]*Forwarding, n), salt: make([]uint32, n)}
	index := make([]map[string]uint16, n) // per switch: a group's ports (as a key) -> its number
	for i := range r.fwd {
		r.salt[i] = mix32(uint32(i)*0x9e3779b9 + 0x7f4a7c15)
		if nw.Nodes[i].Type == Switch {
			fw := &Forwarding{dests: dests, id: NodeID(i), groups: [][]int32{nil}, salt: r.salt[i], router: nw.Nodes[i].Router()}
			fw.rows[Bridged] = make([]uint16, classes)
			fw.rows[Routed] = fw.rows[Bridged] // shared until a static route needs its own
			r.fwd[i] = fw
			index[i] = map[string]uint16{"": 0}
		}
	}
	routers := false
	for i := range nw.Nodes {
		routers = routers || nw.Nodes[i].Router()
	}
	// With no layer-3 switch a cross-subnet packet has no route anywhere: every switch
	// shares one empty Unrouted row.
	none := make([]uint16, classes)
	for _, fw := range r.fwd {
		if fw != nil {
			fw.rows[Unrouted] = none
			if routers {
				fw.rows[Unrouted] = make([]uint16, classes)
			}
		}
	}
	bridged := make([]int, n)  // hops to the destination, any switches
	unrouted := make([]int, n) // hops to the destination through at least one router
	var ports []int32
	swap := func(a, b NodeID) {
		bridged[a], bridged[b] = bridged[b], bridged[a]
		unrouted[a], unrouted[b] = unrouted[b], unrouted[a]
	}
	// Hosts on one switch are routed to alike: a host has one port, so swapping two hosts of
	// the same switch maps the network onto itself. The distances are computed once per
	// class, for its first host f, and every switch but theirs keeps one entry for the
	// class. At their own switch each host d has its entries, worked out from f's distances
	// with f and d swapped. On a leaf-spine that divides the work and the rows by the hosts
	// per leaf (building 10,240 hosts took 8.9 s, now 1.9 s).
	for c, set := range sets {
		f, at := set.hosts[0], set.at
		r.distances(f, bridged, unrouted)
		for i, fw := range r.fwd {
			if fw == nil || NodeID(i) == at {
				continue
			}
			b, u, err := r.entries(NodeID(i), f, bridged, unrouted, routers, index[i], &ports)
			if err != nil {
				return nil, err
			}
			fw.rows[Bridged][c+1] = b
			if routers {
				fw.rows[Unrouted][c+1] = u
			}
		}
		if at < 0 {
			continue
		}
		for _, d := range set.hosts {
			swap(f, d) // d's distances (f's own when d is f)
			b, u, err := r.entries(at, d, bridged, unrouted, routers, index[at], &ports)
			swap(f, d)
			if err != nil {
				return nil, err
			}
			dests[d].own = [numTables]uint16{Bridged: b, Routed: b, Unrouted: u}
		}
	}
	if err := r.scaleUpRelays(index, routers); err != nil {
		return nil, err
	}
	if err := r.applyStatic(static, index); err != nil {
		return nil, err
	}
	for i, fw := range r.fwd {
		if fw != nil {
			fw.compact(len(nw.Nodes[i].Ports))
		}
	}
	for d := range dests {
		if at := dests[d].at; at >= 0 {
			for t := range dests[d].own {
				dests[d].own[t] = r.fwd[at].compacted(dests[d].own[t])
			}
		}
	}
	return r, nil
}

// hostSet is hosts that hang from the same switch at (by their one port), or one host
// alone (at is -1).
type hostSet struct {
	at    NodeID
	hosts []NodeID
}

// attachedSets groups the network's hosts by the switch their one port leads to, in the
// order of each set's first host; a host with no port, more than one, or a link to another
// host is a set of its own, as is every host when share is false.
func attachedSets(nw *Network, share bool) []hostSet {
	var sets []hostSet
	of := map[NodeID]int{} // switch -> its set
	for _, h := range nw.Hosts() {
		ps := nw.Nodes[h].Ports
		if !share || len(ps) != 1 || nw.Nodes[ps[0].Peer].Type != Switch {
			sets = append(sets, hostSet{at: -1, hosts: []NodeID{h}})
			continue
		}
		sw := ps[0].Peer
		if i, ok := of[sw]; ok {
			sets[i].hosts = append(sets[i].hosts, h)
			continue
		}
		of[sw] = len(sets)
		sets = append(sets, hostSet{at: sw, hosts: []NodeID{h}})
	}
	return sets
}

// entries finds switch i's Bridged and Unrouted entries toward destination host d from the
// distances to it (Unrouted 0 when the network has no router).
func (r *Routes) entries(i, d NodeID, bridged, unrouted []int, routers bool, index map[string]uint16, buf *[]int32) (b, u uint16, err error) {
	nw := r.nw
	node := &nw.Nodes[i]
	fw := r.fwd[i]
	ports := r.hops((*buf)[:0], node, d, func(m NodeID) int { return bridged[m] }, bridged[i])
	if b, err = fw.group(index, ports); err != nil {
		return 0, 0, fmt.Errorf("switch %s: %w", node.Name, err)
	}
	if routers {
		ports = r.hops(ports[:0], node, d, func(m NodeID) int {
			if nw.Nodes[m].Router() {
				return bridged[m]
			}
			return unrouted[m]
		}, unrouted[i])
		if u, err = fw.group(index, ports); err != nil {
			return 0, 0, fmt.Errorf("switch %s: %w", node.Name, err)
		}
	}
	*buf = ports
	return b, u, nil
}

// compact rewrites the row entries of one-port groups as the port itself (singlePort), once
// the rows are final, for a switch with ports ports. (The entries a destination keeps for its
// own switch are rewritten by compacted.)
func (fw *Forwarding) compact(ports int) {
	fw.single = make([][]int32, ports)
	for p := range fw.single {
		fw.single[p] = []int32{int32(p)}
	}
	done := map[*uint16]bool{} // rows are shared: Routed with Bridged, Unrouted between switches
	for _, row := range fw.rows {
		if len(row) == 0 || done[&row[0]] {
			continue
		}
		done[&row[0]] = true
		for c, g := range row {
			row[c] = fw.compacted(g)
		}
	}
}

// compacted is entry g as compact leaves it: the port itself when g is a one-port group and
// the port fits the entry's 15 bits.
func (fw *Forwarding) compacted(g uint16) uint16 {
	if g&singlePort == 0 && len(fw.groups[g]) == 1 && len(fw.single) <= singlePort {
		return singlePort | uint16(fw.groups[g][0])
	}
	return g
}

// group is the number of the ECMP group of ports, added to the switch's groups if new.
func (fw *Forwarding) group(index map[string]uint16, ports []int32) (uint16, error) {
	var buf [64]byte
	key := groupKey(buf[:0], ports)
	if g, ok := index[string(key)]; ok { // a lookup by string(bytes) does not allocate
		return g, nil
	}
	if len(fw.groups) >= maxGroups {
		return 0, fmt.Errorf("more than %d distinct sets of equal-cost ports", maxGroups)
	}
	g := uint16(len(fw.groups))
	fw.groups = append(fw.groups, append([]int32(nil), ports...))
	index[string(key)] = g
	return g, nil
}

// groupKey appends the bytes of a port list, a map key, to b.
func groupKey(b []byte, ports []int32) []byte {
	for _, p := range ports {
		b = append(b, byte(p), byte(p>>8), byte(p>>16), byte(p>>24))
	}
	return b
}

// distances fills, for destination host d, the hop counts of every node along shortest paths
// (hosts other than d never forward).
func (r *Routes) distances(d NodeID, bridged, unrouted []int) {
	nw := r.nw
	for i := range bridged {
		bridged[i], unrouted[i] = unreachable, unreachable
	}
	bridged[d] = 0
	queue := []NodeID{d}
	for len(queue) > 0 {
		m := queue[0]
		queue = queue[1:]
		if m != d && nw.Nodes[m].Type == Host {
			continue // a host is a path's end, never its middle
		}
		for _, p := range nw.Nodes[m].Ports {
			if bridged[p.Peer] == unreachable {
				bridged[p.Peer] = bridged[m] + 1
				queue = append(queue, p.Peer)
			}
		}
	}
	// unrouted[n] = 1 + min over forwarding neighbours m of (router(m) ? bridged[m] :
	// unrouted[m]). Relax to a fixed point; each pass is O(links) and paths are short.
	for changed := true; changed; {
		changed = false
		for i := range nw.Nodes {
			for _, p := range nw.Nodes[i].Ports {
				m := p.Peer
				if nw.Nodes[m].Type == Host {
					continue // the destination is reached only once routed
				}
				c := unrouted[m]
				if nw.Nodes[m].Router() {
					c = bridged[m]
				}
				if c != unreachable && c+1 < unrouted[i] {
					unrouted[i] = c + 1
					changed = true
				}
			}
		}
	}
}

// hops appends to ports the ports of node toward neighbours whose cost is one less than the
// node's own.
func (r *Routes) hops(ports []int32, node *Node, d NodeID, cost func(NodeID) int, own int) []int32 {
	if own == unreachable {
		return ports
	}
	for pi, p := range node.Ports {
		if p.Peer != d && r.nw.Nodes[p.Peer].Type == Host {
			continue
		}
		if c := cost(p.Peer); c != unreachable && c == own-1 {
			ports = append(ports, int32(pi))
		}
	}
	return ports
}

// applyStatic overrides the Routed table: for each destination host, the longest matching
// static route at each switch decides.
func (r *Routes) applyStatic(static []StaticRoute, index []map[string]uint16) error {
	if len(static) == 0 {
		return nil
	}
	nw := r.nw
	copied := make([]bool, len(nw.Nodes))
	for _, d := range nw.Hosts() {
		ip := nw.Nodes[d].IP
		best := map[NodeID]StaticRoute{}
		for _, s := range static {
			if !s.Dst.Contains(ip) {
				continue
			}
			if b, ok := best[s.At]; !ok || s.Dst.Bits > b.Dst.Bits {
				best[s.At] = s
			}
		}
		for at, s := range best {
			fw := r.fwd[at]
			if !copied[at] {
				// The Routed table shares its row with Bridged until a static route
				// changes it; give it its own row before writing.
				fw.rows[Routed] = append([]uint16(nil), fw.rows[Bridged]...)
				copied[at] = true
			}
			var ports []int32
			for pi, p := range nw.Nodes[at].Ports {
				if p.Peer == s.Via {
					ports = append(ports, int32(pi))
				}
			}
			g, err := fw.group(index[at], ports)
			if err != nil {
				return fmt.Errorf("switch %s: %w", nw.Nodes[at].Name, err)
			}
			// With static routes every host is a class of its own (computeRoutes), so the
			// class entry is this host's at every switch, its own switch's included.
			fw.rows[Routed][fw.dests[d].class] = g
		}
	}
	return nil
}
