package topology

import "fmt"

// MAC is an IEEE 802 48-bit MAC address.
type MAC [6]byte

func (m MAC) String() string {
	return fmt.Sprintf("%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5])
}

// macLocal is the first octet of every address fabricsim makes up: the locally administered
// bit set and the group bit clear (IEEE 802-2014 section 8.2.2), so no address collides with
// a vendor's.
const macLocal = 0x02

// MACPFC is the destination address of PFC frames: the reserved MAC Control multicast
// address 01-80-C2-00-00-01 (IEEE 802.3 annex 31B, used by IEEE 802.1Qbb).
var MACPFC = MAC{0x01, 0x80, 0xC2, 0x00, 0x00, 0x01}

// PortMAC is the MAC address of port `port` (from 0) of node n. A host has one NIC, so its
// address is its node's: 02:00:00 and the node id's low 24 bits. A switch port has its own
// address, as router interfaces do: 02, the port number counted from 1 in two octets, then
// the node id's low 24 bits. The addresses are a function of the topology alone, so
// captures are deterministic.
func (nw *Network) PortMAC(n NodeID, port int) MAC {
	m := HostMAC(n)
	if nw.Nodes[n].Type == Switch {
		m[1], m[2] = byte((port+1)>>8), byte(port+1)
	}
	return m
}

// HostMAC is the MAC address of host n's NIC (see PortMAC).
func HostMAC(n NodeID) MAC { return MAC{macLocal, 0, 0, byte(n >> 16), byte(n >> 8), byte(n)} }

// FrameMACs returns the destination and source MAC addresses a frame carrying p has while it
// crosses the link from port fromPort of node from, as real Ethernet and IP forwarding would
// set them. Every layer-3 hop rewrites the Ethernet header: a router that routes p (a layer-3
// switch receiving a packet bound for another subnet) sends it with its egress port's address
// as source and the next layer-3 hop's address as destination: the next router's ingress
// port, or the destination host. A host sends a packet for another subnet to its gateway, the
// ingress port of the first router on the path. Bridges (layer-2 switches, and layer-3
// switches bridging inside one subnet) rewrite nothing. ARP is not modelled: the addresses
// are known, not resolved.
//
// The addresses are worked out from the routes, not carried by the packet, so the
// simulation pays nothing for them unless a capture asks: the path is followed with p's
// ECMP hash from the link forward to the next layer-3 hop and, for a routed packet seen
// between bridges, from p's source to the link to find the last router (the first time the
// path crosses the link: a static-route loop through bridges may show an earlier router).
// Ports that ECMP failover picked instead of the computed one are not followed.
func (r *Routes) FrameMACs(from NodeID, fromPort int, p *Packet) (dst, src MAC) {
	nw := r.nw
	if p.EtherType == EtherTypeMACControl {
		return MACPFC, nw.PortMAC(from, fromPort)
	}
	link := nw.Nodes[from].Ports[fromPort]
	routes := p.CrossSubnet && nw.Nodes[from].Router()
	switch {
	case routes:
		src = nw.PortMAC(from, fromPort)
	case !p.Routed || !p.CrossSubnet:
		src = nw.PortMAC(p.Src, 0)
	default:
		src = r.lastRouter(from, fromPort, p)
	}
	// Forward: bridges pass the frame on until a node that consumes or routes it.
	routed := p.Routed || routes
	at, in := link.Peer, link.PeerPort
	for range nw.Nodes {
		n := &nw.Nodes[at]
		if n.Type == Host || (p.CrossSubnet && n.Router()) {
			return nw.PortMAC(at, in), src
		}
		t := Bridged
		if p.CrossSubnet {
			t = Unrouted
			if routed {
				t = Routed
			}
		}
		out := r.Pick(at, t, p.Dst, p.Hash)
		if out < 0 {
			break
		}
		at, in = n.Ports[out].Peer, n.Ports[out].PeerPort
	}
	return nw.PortMAC(p.Dst, 0), src // no path: address the destination
}

// lastRouter is the egress port address of the last router a routed packet crossed before
// the link from port fromPort of node `from` (a bridge): the path from p's source is followed
// to the link.
func (r *Routes) lastRouter(from NodeID, fromPort int, p *Packet) MAC {
	nw := r.nw
	at, last, lastPort, routed := p.Src, p.Src, 0, false
	for range 4 * len(nw.Nodes) {
		if nw.Nodes[at].Router() {
			routed = true
		}
		t := Unrouted
		if routed {
			t = Routed
		}
		out := r.Pick(at, t, p.Dst, p.Hash)
		if out < 0 {
			break
		}
		if nw.Nodes[at].Router() {
			last, lastPort = at, out
		}
		if at == from && out == fromPort && routed {
			return nw.PortMAC(last, lastPort)
		}
		at = nw.Nodes[at].Ports[out].Peer
		if at == p.Dst {
			break
		}
	}
	return nw.PortMAC(last, lastPort)
}
