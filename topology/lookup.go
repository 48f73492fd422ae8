package topology

// The per-packet side of the route tables: a switch's lookups (Next, Pick, Ahead, Out), a
// host's port, and the ECMP hash. routing.go builds the tables.

import "fmt"

// Next returns the equal-cost ports of switch at toward destination host d in table t. The
// slice is shared: do not modify it.
func (r *Routes) Next(at NodeID, t Table, d NodeID) []int32 { return r.fwd[at].Next(t, d) }

// Forwarding is switch at's tables (nil for a host), for the switch to keep at hand.
func (r *Routes) Forwarding(at NodeID) *Forwarding { return r.fwd[at] }

// Next returns the switch's equal-cost ports toward destination host d in table t. The
// slice is shared: do not modify it.
func (fw *Forwarding) Next(t Table, d NodeID) []int32 {
	e := fw.entry(t, d)
	if e&singlePort != 0 {
		return fw.single[e&^singlePort]
	}
	return fw.groups[e]
}

// Pick chooses one of the switch's equal-cost ports toward d by the packet's 5-tuple hash,
// salted per switch, or -1 when there is none.
func (fw *Forwarding) Pick(t Table, d NodeID, hash uint32) int {
	e := fw.entry(t, d)
	if e&singlePort != 0 {
		return int(e &^ singlePort)
	}
	return fw.pickGroup(e, hash)
}

// pickGroup is Pick's choice in group g.
func (fw *Forwarding) pickGroup(g uint16, hash uint32) int {
	ports := fw.groups[g]
	switch len(ports) {
	case 0:
		return -1
	case 1:
		return int(ports[0])
	}
	return int(ports[mix32(hash^fw.salt)%uint32(len(ports))])
}

// Ahead looks up, for a frame about to be sent to this switch, the port the switch will
// forward it on, and keeps it in the frame for Out. The sender has the frame at hand, and
// the lookup's cache miss on the switch's row overlaps the sender's own work, instead of
// standing in the path of the frame's arrival, where each step waits for the one before.
// The table is the one the switch will use (a layer-3 switch routes a cross-subnet frame).
func (fw *Forwarding) Ahead(p *Packet) {
	e := fw.entry(tableFor(p.CrossSubnet, p.Routed || fw.router), p.Dst)
	if e&singlePort != 0 {
		p.ahead = e&^singlePort + 1
		return
	}
	p.ahead = uint16(fw.pickGroup(e, p.Hash) + 1)
}

// Out is Pick for a frame that arrived, in table t: the port Ahead found, if the sender
// looked it up, else the lookup.
func (fw *Forwarding) Out(t Table, p *Packet) int {
	if a := p.ahead; a != 0 {
		p.ahead = 0
		return int(a) - 1
	}
	return fw.Pick(t, p.Dst, p.Hash)
}

// Candidates is, for a frame that arrived, its equal-cost ports in table t, for a switch that
// chooses among them itself (per packet or per flowlet, not by the hash); any port the
// sender looked up ahead is dropped. The slice is shared: do not modify it.
func (fw *Forwarding) Candidates(t Table, p *Packet) []int32 {
	p.ahead = 0
	return fw.Next(t, p.Dst)
}

// Pick chooses one of the equal-cost ports by the packet's 5-tuple hash, salted per node.
// It returns -1 when there is none. A host picks its port toward d (HostPort: its one port,
// or with several, by plane and scale-up domain) if the node behind it can take the packet
// on toward d.
func (r *Routes) Pick(at NodeID, t Table, d NodeID, hash uint32) int {
	if fw := r.fwd[at]; fw != nil {
		return fw.Pick(t, d, hash)
	}
	return r.hostPort(at, t, d)
}

func (r *Routes) hostPort(h NodeID, t Table, d NodeID) int { return r.hostPortPXN(h, t, d, r.PXN) }

func (r *Routes) hostPortPXN(h NodeID, t Table, d NodeID, pxn bool) int {
	ports := r.nw.Nodes[h].Ports
	if len(ports) == 0 {
		return -1
	}
	pi := r.HostPortPXN(h, d, PairKey(h, d), pxn)
	if pi < 0 {
		return -1
	}
	peer := ports[pi].Peer
	if peer == d {
		return pi
	}
	if r.nw.Nodes[peer].Type == Host {
		return -1
	}
	if t == Unrouted && r.nw.Nodes[peer].Router() {
		t = Routed // the packet is routed on arrival there
	}
	if len(r.fwd[peer].Next(t, d)) == 0 {
		return -1
	}
	return pi
}

// mix32 is the MurmurHash3 32-bit finalizer: it spreads every input bit over the output.
func mix32(h uint32) uint32 {
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// FlowHash is the ECMP hash of an IP 5-tuple.
func FlowHash(src, dst IPv4, proto uint8, sport, dport uint16) uint32 {
	h := mix32(uint32(src) ^ 0x1b873593)
	h = mix32(h ^ uint32(dst))
	h = mix32(h ^ uint32(proto)<<16 ^ uint32(sport))
	return mix32(h ^ uint32(dport)*0xcc9e2d51)
}

// Hop is one link crossing of a path: the node it leaves from and the port.
type Hop struct {
	Node NodeID
	Port int
}

// PathError says why a path does not exist.
type PathError struct {
	Reason string
	Router NodeID // for RoCE v1: the first router on the IP path; -1 if none
}

func (e *PathError) Error() string { return e.Reason }

// Path follows the tables from host src to host dst as a packet with the given hash would,
// crossing subnets through routers. It stops after maxHops (a static-route loop) and returns
// the hops taken with loop=true.
func (r *Routes) Path(src, dst NodeID, hash uint32, maxHops int) (hops []Hop, loop bool, err error) {
	return r.PathPXN(src, dst, hash, maxHops, r.PXN)
}

// PathPXN is Path with PXN on or off at the source, whatever r.PXN says (a collective's pxn).
func (r *Routes) PathPXN(src, dst NodeID, hash uint32, maxHops int, pxn bool) (hops []Hop, loop bool, err error) {
	nw := r.nw
	p := Packet{CrossSubnet: nw.Nodes[src].Subnet != nw.Nodes[dst].Subnet || !nw.Nodes[src].Subnet.Contains(nw.Nodes[dst].IP)}
	at := src
	for len(hops) < maxHops {
		if at == dst {
			return hops, false, nil
		}
		if at != src && nw.Nodes[at].Type == Host {
			if port := r.RelayPort(at, src, dst); port >= 0 && len(hops) > 0 && nw.Nodes[hops[len(hops)-1].Node].Role == RoleScaleUp {
				hops = append(hops, Hop{at, port}) // a GPU relays onto its rail (PXN)
				at = nw.Nodes[at].Ports[port].Peer
				continue
			}
			return hops, false, &PathError{Router: -1, Reason: fmt.Sprintf("the route from %s to %s ends at host %s", nw.Nodes[src].Name, nw.Nodes[dst].Name, nw.Nodes[at].Name)}
		}
		if nw.Nodes[at].Router() && p.CrossSubnet {
			p.Routed = true
		}
		var port int
		if at == src && r.fwd[at] == nil {
			port = r.hostPortPXN(at, TableFor(&p), dst, pxn)
		} else {
			port = r.Pick(at, TableFor(&p), dst, hash)
		}
		if port < 0 {
			return hops, false, r.noPath(src, dst, at)
		}
		hops = append(hops, Hop{at, port})
		at = nw.Nodes[at].Ports[port].Peer
	}
	return hops, at != dst, nil
}

func (r *Routes) noPath(src, dst, at NodeID) error {
	nw := r.nw
	s, d := &nw.Nodes[src], &nw.Nodes[dst]
	if at != src {
		return &PathError{Router: -1, Reason: fmt.Sprintf("%s has no route to %s (%v)", nw.Nodes[at].Name, d.Name, d.IP)}
	}
	if s.Subnet != d.Subnet && r.hostPort(src, Bridged, dst) >= 0 {
		return &PathError{Router: -1, Reason: fmt.Sprintf("no layer-3 switch connects subnet %v of %s to subnet %v of %s", s.Subnet, s.Name, d.Subnet, d.Name)}
	}
	return &PathError{Router: -1, Reason: fmt.Sprintf("no path from %s to %s", s.Name, d.Name)}
}

// FirstRouter is the first layer-3 switch on the path a cross-subnet packet from src to dst
// would take, or -1 when none is reachable.
func (r *Routes) FirstRouter(src, dst NodeID, hash uint32) NodeID {
	at := src
	for i := 0; i < len(r.nw.Nodes); i++ {
		if r.nw.Nodes[at].Router() {
			return at
		}
		port := r.Pick(at, Unrouted, dst, hash)
		if port < 0 {
			return -1
		}
		at = r.nw.Nodes[at].Ports[port].Peer
	}
	return -1
}
