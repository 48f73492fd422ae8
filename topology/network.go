package topology

import (
	"fmt"
	"sort"

	"github.com/fabricsim/fabricsim/sim"
)

// NodeID indexes Network.Nodes.
type NodeID int32

// NodeType says whether a node is a host or a switch.
type NodeType uint8

// Node types.
const (
	Host NodeType = iota
	Switch
)

func (t NodeType) String() string {
	if t == Host {
		return "host"
	}
	return "switch"
}

// Node is a host or a switch. Ports are numbered from 0 internally and from 1 in reports.
type Node struct {
	ID     NodeID
	Name   string
	Type   NodeType
	Layer  int    // switches: 2 bridges within a subnet, 3 also routes between subnets
	IP     IPv4   // hosts
	Subnet Subnet // hosts
	Ports  []Port
	// Server, Rail and Domain place a GPU of an AI-cluster preset (rail): its server, its
	// position in the server (which is its rail) and its scale-up domain, each from 1; a
	// scale-up switch has its Domain. All 0 elsewhere.
	Server, Rail, Domain int32
	// Plane is the plane (from 1) of a fabric switch of a multi-plane preset; 0 elsewhere.
	Plane int32
	// Role says what a switch stands for (RoleFabric but for scale-up switches and NICs
	// behind a PCIe hop).
	Role Role
}

// Role is what a switch stands for.
type Role uint8

// Switch roles.
const (
	RoleFabric  Role = iota // an Ethernet switch of the fabric
	RoleScaleUp             // a scale-up switch (NVSwitch): its links are lossless
	RolePCIeNIC             // a GPU's NIC behind a PCIe hop: lossless toward the GPU, as PCIe is
)

// Router reports whether n is a layer-3 switch.
func (n *Node) Router() bool { return n.Type == Switch && n.Layer == 3 }

// Port is one end of a link on a node.
type Port struct {
	Link     int    // index into Network.Links
	Peer     NodeID // the node at the other end
	PeerPort int    // the port index on the peer
}

// LinkParams are the physical properties of a link, the same in both directions.
type LinkParams struct {
	Rate  sim.Rate
	Delay sim.Time // propagation delay
	Loss  float64  // probability that a frame is lost, per frame, in each direction
}

// Link is a full-duplex link between port A.Port of node A.Node and port B.Port of node B.Node.
type Link struct {
	A, B   End
	Params LinkParams
}

// End is one end of a link.
type End struct {
	Node NodeID
	Port int
}

// Network is the fabric as data: nodes and links, addressed and ready for route computation.
type Network struct {
	Nodes  []Node
	Links  []Link
	byName map[string]NodeID
	// inSubnet counts the hosts of each subnet and ips holds every host's address, so that
	// adding a host takes constant time (a rail fabric has tens of thousands).
	inSubnet map[Subnet]int
	ips      map[IPv4]bool
}

// NewNetwork returns an empty network.
func NewNetwork() *Network {
	return &Network{byName: map[string]NodeID{}, inSubnet: map[Subnet]int{}, ips: map[IPv4]bool{}}
}

// AddHost adds a host in subnet s. ip 0 asks for the next free address of the subnet.
func (nw *Network) AddHost(name string, s Subnet, ip IPv4) (NodeID, error) {
	if ip == 0 {
		used := nw.inSubnet[s] // the hosts of the subnet so far
		var err error
		for {
			used++
			if ip, err = s.Host(used); err != nil {
				return 0, fmt.Errorf("host %s: %w", name, err)
			}
			if !nw.ipTaken(ip) {
				break
			}
		}
	} else if nw.ipTaken(ip) {
		return 0, fmt.Errorf("host %s: address %v is already in use", name, ip)
	}
	id, err := nw.add(Node{Name: name, Type: Host, IP: ip, Subnet: s})
	if err == nil {
		nw.inSubnet[s]++
		nw.ips[ip] = true
	}
	return id, err
}

func (nw *Network) ipTaken(ip IPv4) bool { return nw.ips[ip] }

// AddSwitch adds a switch of the given layer (2 or 3).
func (nw *Network) AddSwitch(name string, layer int) (NodeID, error) {
	if layer != 2 && layer != 3 {
		return 0, fmt.Errorf("switch %s: layer %d (allowed: 2, 3)", name, layer)
	}
	return nw.add(Node{Name: name, Type: Switch, Layer: layer})
}

func (nw *Network) add(n Node) (NodeID, error) {
	if _, dup := nw.byName[n.Name]; dup {
		return 0, fmt.Errorf("node %s is defined twice", n.Name)
	}
	n.ID = NodeID(len(nw.Nodes))
	nw.Nodes = append(nw.Nodes, n)
	nw.byName[n.Name] = n.ID
	return n.ID, nil
}

// Connect adds a full-duplex link between a and b.
func (nw *Network) Connect(a, b NodeID, p LinkParams) (int, error) {
	switch {
	case a == b:
		return 0, fmt.Errorf("link from %s to itself", nw.Nodes[a].Name)
	case p.Rate <= 0:
		return 0, fmt.Errorf("link %s-%s: rate must be positive", nw.Nodes[a].Name, nw.Nodes[b].Name)
	case p.Delay < 0:
		return 0, fmt.Errorf("link %s-%s: delay must not be negative", nw.Nodes[a].Name, nw.Nodes[b].Name)
	}
	li := len(nw.Links)
	na, nb := &nw.Nodes[a], &nw.Nodes[b]
	l := Link{A: End{a, len(na.Ports)}, B: End{b, len(nb.Ports)}, Params: p}
	na.Ports = append(na.Ports, Port{Link: li, Peer: b, PeerPort: l.B.Port})
	nb.Ports = append(nb.Ports, Port{Link: li, Peer: a, PeerPort: l.A.Port})
	nw.Links = append(nw.Links, l)
	return li, nil
}

// Lookup finds a node by name.
func (nw *Network) Lookup(name string) (NodeID, bool) {
	id, ok := nw.byName[name]
	return id, ok
}

// LinkBetween finds the first link between the named nodes, in either order.
func (nw *Network) LinkBetween(a, b NodeID) (int, bool) {
	for _, p := range nw.Nodes[a].Ports {
		if p.Peer == b {
			return p.Link, true
		}
	}
	return 0, false
}

// Hosts returns the host ids in id order.
func (nw *Network) Hosts() []NodeID {
	var hs []NodeID
	for i := range nw.Nodes {
		if nw.Nodes[i].Type == Host {
			hs = append(hs, NodeID(i))
		}
	}
	return hs
}

// PortName formats a port as "node:port" with ports numbered from 1.
func (nw *Network) PortName(n NodeID, port int) string {
	return fmt.Sprintf("%s:%d", nw.Nodes[n].Name, port+1)
}

// Names returns every node name, sorted.
func (nw *Network) Names() []string {
	names := make([]string, 0, len(nw.Nodes))
	for i := range nw.Nodes {
		names = append(names, nw.Nodes[i].Name)
	}
	sort.Strings(names)
	return names
}

// LaneOf is node id's lane (sim.Lane): the order of the events of one node at the same
// picosecond is its own, whichever partition of a parallel run it is in. Lane 0 is
// sim.Global.
func LaneOf(id NodeID) sim.Lane { return sim.Lane(id) + 1 }
