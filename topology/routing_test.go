package topology

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func id(t *testing.T, nw *Network, name string) NodeID { return mustNode(t, nw, name).ID }

func routes(t *testing.T, nw *Network, static ...StaticRoute) *Routes {
	t.Helper()
	r, err := ComputeRoutes(nw, static)
	require.NoError(t, err)
	return r
}

// packetBetween is a packet from src to dst as a transport would mark it.
func packetBetween(nw *Network, src, dst NodeID) Packet {
	s, d := &nw.Nodes[src], &nw.Nodes[dst]
	return Packet{Src: src, Dst: dst, SrcIP: s.IP, DstIP: d.IP, CrossSubnet: !s.Subnet.Contains(d.IP)}
}

// pathNodes is the node sequence of a path, ending with the node the last hop reaches.
func pathNodes(nw *Network, hops []Hop) []string {
	var out []string
	for _, h := range hops {
		out = append(out, nw.Nodes[h.Node].Name)
	}
	if n := len(hops); n > 0 {
		last := hops[n-1]
		out = append(out, nw.Nodes[nw.Nodes[last.Node].Ports[last.Port].Peer].Name)
	}
	return out
}

// checkPathLinks checks that each hop leaves from the node the previous hop reached.
func checkPathLinks(t *testing.T, nw *Network, src NodeID, hops []Hop) {
	t.Helper()
	at := src
	for _, h := range hops {
		require.Equal(t, at, h.Node)
		at = nw.Nodes[h.Node].Ports[h.Port].Peer
	}
}

func TestLeafSpineECMP(t *testing.T) {
	for _, tc := range []struct {
		routing string
		spines  int
	}{{RoutingL3, 1}, {RoutingL3, 4}, {RoutingL2, 3}} {
		t.Run(fmt.Sprintf("%s-%d", tc.routing, tc.spines), func(t *testing.T) {
			const leaves, perLeaf = 3, 2
			nw, err := LeafSpine(leaves, tc.spines, perLeaf, hostLink, fabricLink, tc.routing)
			require.NoError(t, err)
			r := routes(t, nw)
			leaf1 := id(t, nw, "leaf1")
			h1, local, remote := id(t, nw, "h1"), id(t, nw, "h2"), id(t, nw, fmt.Sprintf("h%d", 2*perLeaf+1))

			// At leaf1, a packet to a host of another rack has one port per spine.
			p := packetBetween(nw, h1, remote)
			p.Routed = nw.Nodes[leaf1].Router() && p.CrossSubnet // as the leaf marks it
			ports := r.Next(leaf1, TableFor(&p), remote)
			require.Len(t, ports, tc.spines)
			spines := map[string]bool{}
			for _, pi := range ports {
				peer := nw.Nodes[nw.Nodes[leaf1].Ports[pi].Peer]
				require.Equal(t, Switch, peer.Type)
				spines[peer.Name] = true
			}
			require.Len(t, spines, tc.spines, "each equal-cost port reaches a different spine")

			// To a host of its own rack, one port: the host's.
			q := packetBetween(nw, h1, local)
			require.False(t, q.CrossSubnet)
			ports = r.Next(leaf1, TableFor(&q), local)
			require.Len(t, ports, 1)
			require.Equal(t, local, nw.Nodes[leaf1].Ports[ports[0]].Peer)

			// A spine has one port to each remote host: the host's leaf.
			spine1 := id(t, nw, "spine1")
			ports = r.Next(spine1, Routed, remote)
			require.Len(t, ports, 1)
			require.Equal(t, id(t, nw, "leaf3"), nw.Nodes[spine1].Ports[ports[0]].Peer)
		})
	}
}

func TestPathHopCounts(t *testing.T) {
	ls3, err := LeafSpine(3, 2, 2, hostLink, fabricLink, RoutingL3)
	require.NoError(t, err)
	ls2, err := LeafSpine(3, 2, 2, hostLink, fabricLink, RoutingL2)
	require.NoError(t, err)
	ft, err := FatTree(4, hostLink, RoutingL3)
	require.NoError(t, err)
	star, err := Star(3, hostLink)
	require.NoError(t, err)
	tests := []struct {
		name     string
		nw       *Network
		src, dst string
		hops     int
	}{
		{"star", star, "h1", "h3", 2},
		{"leafspine l3 in a rack", ls3, "h1", "h2", 2},
		{"leafspine l3 across racks", ls3, "h1", "h5", 4},
		{"leafspine l2 in a rack", ls2, "h2", "h1", 2},
		{"leafspine l2 across racks", ls2, "h2", "h6", 4},
		{"fattree same edge", ft, "h1", "h2", 2},
		{"fattree same pod", ft, "h1", "h3", 4},     // edge1 and edge2 are pod 1
		{"fattree across pods", ft, "h1", "h16", 6}, // edge, agg, core, agg, edge
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := routes(t, tc.nw)
			src, dst := id(t, tc.nw, tc.src), id(t, tc.nw, tc.dst)
			for hash := uint32(0); hash < 64; hash++ {
				hops, loop, err := r.Path(src, dst, hash*0x9e3779b9, 32)
				require.NoError(t, err)
				require.False(t, loop)
				require.Len(t, hops, tc.hops, "%v", pathNodes(tc.nw, hops))
				checkPathLinks(t, tc.nw, src, hops)
				nodes := pathNodes(tc.nw, hops)
				require.Equal(t, tc.dst, nodes[len(nodes)-1])
				for _, n := range nodes[1 : len(nodes)-1] {
					require.Equal(t, Switch, mustNode(t, tc.nw, n).Type, "a host is never in the middle of a path")
				}
			}
		})
	}
}

func TestPathUsesEveryEqualCostSpine(t *testing.T) {
	const spines = 4
	nw, err := LeafSpine(2, spines, 1, hostLink, fabricLink, RoutingL3)
	require.NoError(t, err)
	r := routes(t, nw)
	h1, h2 := id(t, nw, "h1"), id(t, nw, "h2")
	used := map[string]int{}
	for sport := uint16(0); sport < 400; sport++ {
		hops, _, err := r.Path(h1, h2, FlowHash(nw.Nodes[h1].IP, nw.Nodes[h2].IP, IPProtoUDP, 49152+sport, UDPPortRoCEv2), 16)
		require.NoError(t, err)
		used[pathNodes(nw, hops)[2]]++
	}
	require.Len(t, used, spines)
}

// subnetsNet is h1 in 10.0.1.0/24 and h2 in 10.0.2.0/24 on one switch of the given layer,
// h3 in h1's subnet on it too, and optionally a router on a stick: r, a layer-3 switch
// hanging off sw.
func subnetsNet(t *testing.T, layer int, stick bool) *Network {
	nw := NewNetwork()
	sw, err := nw.AddSwitch("sw", layer)
	require.NoError(t, err)
	for _, h := range []struct{ name, subnet string }{{"h1", "10.0.1.0/24"}, {"h2", "10.0.2.0/24"}, {"h3", "10.0.1.0/24"}} {
		hid, err := nw.AddHost(h.name, subnet(h.subnet), 0)
		require.NoError(t, err)
		_, err = nw.Connect(hid, sw, hostLink)
		require.NoError(t, err)
	}
	if stick {
		r, err := nw.AddSwitch("r", 3)
		require.NoError(t, err)
		_, err = nw.Connect(sw, r, fabricLink)
		require.NoError(t, err)
	}
	return nw
}

func TestCrossSubnetNeedsARouter(t *testing.T) {
	tests := []struct {
		name        string
		layer       int
		stick       bool
		wantErr     string
		path        []string
		firstRouter string
	}{
		{"subnets meet at an L2 switch only", 2, false, "no layer-3 switch connects", nil, ""},
		{"subnets meet at an L3 switch", 3, false, "", []string{"h1", "sw", "h2"}, "sw"},
		{"router on a stick", 2, true, "", []string{"h1", "sw", "r", "sw", "h2"}, "r"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nw := subnetsNet(t, tc.layer, tc.stick)
			r := routes(t, nw)
			h1, h2, h3 := id(t, nw, "h1"), id(t, nw, "h2"), id(t, nw, "h3")

			// Same subnet: bridged, never through the router.
			hops, loop, err := r.Path(h1, h3, 1, 16)
			require.NoError(t, err)
			require.False(t, loop)
			require.Equal(t, []string{"h1", "sw", "h3"}, pathNodes(nw, hops))

			hops, loop, err = r.Path(h1, h2, 1, 16)
			first := r.FirstRouter(h1, h2, 1)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				var pe *PathError
				require.True(t, errors.As(err, &pe))
				require.Equal(t, NodeID(-1), pe.Router)
				require.Contains(t, pe.Error(), "10.0.1.0/24")
				require.Contains(t, pe.Error(), "10.0.2.0/24")
				require.Empty(t, hops)
				require.Equal(t, NodeID(-1), first)
				// It is not a lack of links: h1 can bridge to h2, but not route to it.
				require.Equal(t, 0, r.Pick(h1, Bridged, h2, 0))
				require.Equal(t, -1, r.Pick(h1, Unrouted, h2, 0))
				return
			}
			require.NoError(t, err)
			require.False(t, loop)
			require.Equal(t, tc.path, pathNodes(nw, hops))
			checkPathLinks(t, nw, h1, hops)
			require.Equal(t, id(t, nw, tc.firstRouter), first)
			// The way back is symmetric.
			back, _, err := r.Path(h2, h1, 1, 16)
			require.NoError(t, err)
			require.Len(t, back, len(tc.path)-1)
		})
	}
}

func TestPathNoLinks(t *testing.T) {
	nw := NewNetwork()
	a, _ := nw.AddHost("a", subnet("10.0.0.0/24"), 0)
	b, _ := nw.AddHost("b", subnet("10.0.0.0/24"), 0)
	sw, _ := nw.AddSwitch("sw", 2)
	_, err := nw.Connect(a, sw, hostLink)
	require.NoError(t, err)
	r := routes(t, nw)
	_, _, err = r.Path(a, b, 0, 8)
	require.ErrorContains(t, err, "no path from a to b")
	require.Equal(t, -1, r.Pick(a, Bridged, b, 0))
	require.Equal(t, -1, r.Pick(sw, Bridged, b, 0))
}

// triangle is routers r1, r2, r3 joined in a triangle; h1 (10.0.1.0/24) on r1, h2
// (10.0.2.0/24) and h3 (10.0.3.0/24) on r3.
func triangle(t *testing.T) *Network {
	nw := NewNetwork()
	for _, n := range []string{"r1", "r2", "r3"} {
		_, err := nw.AddSwitch(n, 3)
		require.NoError(t, err)
	}
	_, err := nw.AddSwitch("l2", 2)
	require.NoError(t, err)
	for _, h := range []struct{ name, subnet, at string }{{"h1", "10.0.1.0/24", "r1"}, {"h2", "10.0.2.0/24", "r3"}, {"h3", "10.0.3.0/24", "r3"}} {
		hid, err := nw.AddHost(h.name, subnet(h.subnet), 0)
		require.NoError(t, err)
		_, err = nw.Connect(hid, id(t, nw, h.at), hostLink)
		require.NoError(t, err)
	}
	for _, l := range [][2]string{{"r1", "r2"}, {"r2", "r3"}, {"r1", "r3"}, {"l2", "r1"}} {
		_, err := nw.Connect(id(t, nw, l[0]), id(t, nw, l[1]), fabricLink)
		require.NoError(t, err)
	}
	return nw
}

func TestStaticRoutes(t *testing.T) {
	nw := triangle(t)
	r1, r2, r3 := id(t, nw, "r1"), id(t, nw, "r2"), id(t, nw, "r3")
	tests := []struct {
		name   string
		static []StaticRoute
		// paths from h1 to h2 and to h3
		toH2, toH3 []string
	}{
		{"computed", nil,
			[]string{"h1", "r1", "r3", "h2"}, []string{"h1", "r1", "r3", "h3"}},
		{"detour for one subnet", []StaticRoute{{At: r1, Dst: subnet("10.0.2.0/24"), Via: r2}},
			[]string{"h1", "r1", "r2", "r3", "h2"}, []string{"h1", "r1", "r3", "h3"}},
		{"longest prefix wins, /24 listed after /16", []StaticRoute{
			{At: r1, Dst: subnet("10.0.0.0/16"), Via: r2},
			{At: r1, Dst: subnet("10.0.2.0/24"), Via: r3}},
			[]string{"h1", "r1", "r3", "h2"}, []string{"h1", "r1", "r2", "r3", "h3"}},
		{"longest prefix wins, /24 listed before /16", []StaticRoute{
			{At: r1, Dst: subnet("10.0.2.0/24"), Via: r3},
			{At: r1, Dst: subnet("10.0.0.0/16"), Via: r2}},
			[]string{"h1", "r1", "r3", "h2"}, []string{"h1", "r1", "r2", "r3", "h3"}},
		{"a default route", []StaticRoute{{At: r1, Dst: subnet("0.0.0.0/0"), Via: r2}},
			[]string{"h1", "r1", "r2", "r3", "h2"}, []string{"h1", "r1", "r2", "r3", "h3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := routes(t, nw, tc.static...)
			h1 := id(t, nw, "h1")
			for dst, want := range map[string][]string{"h2": tc.toH2, "h3": tc.toH3} {
				hops, loop, err := r.Path(h1, id(t, nw, dst), 7, 16)
				require.NoError(t, err)
				require.False(t, loop)
				require.Equal(t, want, pathNodes(nw, hops), "to %s", dst)
			}
			// Static routes change only the Routed table.
			h2 := id(t, nw, "h2")
			require.Equal(t, r.Next(r1, Bridged, h2), routes(t, nw).Next(r1, Bridged, h2))
			require.Equal(t, r.Next(r1, Unrouted, h2), routes(t, nw).Next(r1, Unrouted, h2))
		})
	}
}

func TestStaticRouteLoop(t *testing.T) {
	nw := triangle(t)
	r1, r2 := id(t, nw, "r1"), id(t, nw, "r2")
	dst := subnet("10.0.2.0/24")
	r := routes(t, nw, StaticRoute{At: r1, Dst: dst, Via: r2}, StaticRoute{At: r2, Dst: dst, Via: r1})
	h1, h2, h3 := id(t, nw, "h1"), id(t, nw, "h2"), id(t, nw, "h3")
	const maxHops = 9
	hops, loop, err := r.Path(h1, h2, 0, maxHops)
	require.NoError(t, err)
	require.True(t, loop)
	require.Len(t, hops, maxHops)
	nodes := pathNodes(nw, hops)
	for i := 1; i < len(nodes); i++ {
		want := "r1"
		if i%2 == 0 {
			want = "r2"
		}
		require.Equal(t, want, nodes[i], "hop %d of %v", i, nodes)
	}
	// Other subnets are not affected.
	hops, loop, err = r.Path(h1, h3, 0, maxHops)
	require.NoError(t, err)
	require.False(t, loop)
	require.Len(t, hops, 3)
}

func TestStaticRouteErrors(t *testing.T) {
	nw := triangle(t)
	r1, r3, l2, h1 := id(t, nw, "r1"), id(t, nw, "r3"), id(t, nw, "l2"), id(t, nw, "h1")
	dst := subnet("10.0.2.0/24")
	tests := []struct {
		name  string
		route StaticRoute
		msg   string
	}{
		{"at a layer-2 switch", StaticRoute{At: l2, Dst: dst, Via: r1}, "static route at l2: it is not a layer-3 switch"},
		{"at a host", StaticRoute{At: h1, Dst: dst, Via: r1}, "static route at h1: it is not a layer-3 switch"},
		{"layer-2 switch via a non-neighbour: the layer is checked first", StaticRoute{At: l2, Dst: dst, Via: r3}, "not a layer-3 switch"},
		{"router via a non-neighbour", StaticRoute{At: r3, Dst: dst, Via: l2}, "l2 is not a neighbour of r3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ComputeRoutes(nw, []StaticRoute{tc.route})
			require.ErrorContains(t, err, tc.msg)
			require.Nil(t, r)
		})
	}
}

func TestPickSpreadsOverEqualCostPorts(t *testing.T) {
	for _, spines := range []int{2, 4, 8} {
		t.Run(fmt.Sprint(spines), func(t *testing.T) {
			nw, err := LeafSpine(2, spines, 1, hostLink, fabricLink, RoutingL3)
			require.NoError(t, err)
			r := routes(t, nw)
			leaf1, h1, h2 := id(t, nw, "leaf1"), id(t, nw, "h1"), id(t, nw, "h2")
			ports := r.Next(leaf1, Routed, h2)
			require.Len(t, ports, spines)
			n := 1000 * spines
			count := map[int]int{}
			src, dst := nw.Nodes[h1].IP, nw.Nodes[h2].IP
			for i := 0; i < n; i++ {
				port := r.Pick(leaf1, Routed, h2, FlowHash(src, dst, IPProtoUDP, uint16(i), UDPPortRoCEv2))
				require.Contains(t, ports, int32(port))
				count[port]++
			}
			require.Len(t, count, spines)
			for port, c := range count {
				require.InDelta(t, 1000, c, 200, "port %d", port)
			}
		})
	}
}

func TestPickIsDeterministicPerHash(t *testing.T) {
	nw, err := LeafSpine(2, 4, 1, hostLink, fabricLink, RoutingL3)
	require.NoError(t, err)
	r1, r2 := routes(t, nw), routes(t, nw)
	leaf1, h2 := id(t, nw, "leaf1"), id(t, nw, "h2")
	for h := uint32(0); h < 100; h++ {
		require.Equal(t, r1.Pick(leaf1, Routed, h2, h), r2.Pick(leaf1, Routed, h2, h))
	}
	// One port: no hashing.
	spine1 := id(t, nw, "spine1")
	only := r1.Next(spine1, Routed, h2)
	require.Len(t, only, 1)
	for h := uint32(0); h < 10; h++ {
		require.Equal(t, int(only[0]), r1.Pick(spine1, Routed, h2, h*7919))
	}
}

func TestFlowHashUsesEveryField(t *testing.T) {
	base := FlowHash(ip("10.0.1.1"), ip("10.0.2.1"), IPProtoUDP, 50000, UDPPortRoCEv2)
	require.Equal(t, base, FlowHash(ip("10.0.1.1"), ip("10.0.2.1"), IPProtoUDP, 50000, UDPPortRoCEv2))
	for name, h := range map[string]uint32{
		"src":   FlowHash(ip("10.0.1.2"), ip("10.0.2.1"), IPProtoUDP, 50000, UDPPortRoCEv2),
		"dst":   FlowHash(ip("10.0.1.1"), ip("10.0.2.2"), IPProtoUDP, 50000, UDPPortRoCEv2),
		"proto": FlowHash(ip("10.0.1.1"), ip("10.0.2.1"), IPProtoTCP, 50000, UDPPortRoCEv2),
		"sport": FlowHash(ip("10.0.1.1"), ip("10.0.2.1"), IPProtoUDP, 50001, UDPPortRoCEv2),
		"dport": FlowHash(ip("10.0.1.1"), ip("10.0.2.1"), IPProtoUDP, 50000, 4792),
	} {
		require.NotEqual(t, base, h, name)
	}
}

func TestTableFor(t *testing.T) {
	require.Equal(t, Bridged, TableFor(&Packet{}))
	require.Equal(t, Bridged, TableFor(&Packet{Routed: true}))
	require.Equal(t, Unrouted, TableFor(&Packet{CrossSubnet: true}))
	require.Equal(t, Routed, TableFor(&Packet{CrossSubnet: true, Routed: true}))
}

// TestAheadIsThePickOfTheTableTheSwitchUses checks that the port a sender finds ahead for a
// switch is the one the switch would pick on arrival, for every switch, destination, kind of
// frame (bridged, cross-subnet before and after a router) and a spread of hashes, on a
// routed triangle with a static route (its own Routed table) and on an L2 leaf-spine.
func TestAheadIsThePickOfTheTableTheSwitchUses(t *testing.T) {
	ls, err := LeafSpine(3, 2, 2, hostLink, fabricLink, RoutingL2)
	require.NoError(t, err)
	tri := triangle(t)
	for _, nr := range []struct {
		nw     *Network
		static []StaticRoute
	}{{tri, []StaticRoute{{At: id(t, tri, "r1"), Dst: subnet("10.0.2.0/24"), Via: id(t, tri, "r2")}}}, {ls, nil}} {
		r := routes(t, nr.nw, nr.static...)
		for sw := range nr.nw.Nodes {
			fw := r.Forwarding(NodeID(sw))
			if fw == nil {
				continue
			}
			for _, d := range nr.nw.Hosts() {
				for _, kind := range []struct{ cross, routed bool }{{false, false}, {true, false}, {true, true}} {
					for h := uint32(0); h < 64; h++ {
						p := &Packet{Dst: d, Hash: h * 0x9e3779b9, CrossSubnet: kind.cross, Routed: kind.routed}
						fw.Ahead(p)
						if p.CrossSubnet && nr.nw.Nodes[sw].Router() {
							p.Routed = true // as the switch marks it on arrival, before its lookup
						}
						tab := TableFor(p)
						require.Equal(t, fw.Pick(tab, d, p.Hash), fw.Out(tab, p), "switch %d to %d, %+v, hash %d", sw, d, kind, h)
						require.Zero(t, p.ahead, "Out uses it up")
					}
				}
			}
		}
	}
}

// TestSharedRoutesAreEachHostsOwn checks that routing the hosts of one switch together (as
// ComputeRoutes does) gives every switch the same equal-cost ports, in every table and to
// every destination host, as routing each host on its own: on a star, a dumbbell, layer-2
// and layer-3 leaf-spines and fat-trees, hosts of two subnets on one switch with a router on
// a stick, and a routed triangle with static routes.
func TestSharedRoutesAreEachHostsOwn(t *testing.T) {
	star, err := Star(5, hostLink)
	require.NoError(t, err)
	bell, err := Dumbbell(3, 2, hostLink, fabricLink)
	require.NoError(t, err)
	tri := triangle(t)
	type network struct {
		name   string
		nw     *Network
		static []StaticRoute
	}
	nets := []network{
		{"star", star, nil},
		{"dumbbell", bell, nil},
		{"router on a stick", subnetsNet(t, 2, true), nil},
		{"triangle with static routes", tri, []StaticRoute{
			{At: id(t, tri, "r1"), Dst: subnet("10.0.2.0/24"), Via: id(t, tri, "r2")},
			{At: id(t, tri, "r2"), Dst: subnet("10.0.3.0/24"), Via: id(t, tri, "r1")}}},
	}
	for _, routing := range []string{RoutingL2, RoutingL3} {
		ls, err := LeafSpine(4, 3, 3, hostLink, fabricLink, routing)
		require.NoError(t, err)
		ft, err := FatTree(4, fabricLink, routing)
		require.NoError(t, err)
		nets = append(nets, network{"leaf-spine " + routing, ls, nil}, network{"fat-tree " + routing, ft, nil})
	}
	for _, tc := range nets {
		t.Run(tc.name, func(t *testing.T) {
			own, err := computeRoutes(tc.nw, tc.static, false)
			require.NoError(t, err)
			shared, err := computeRoutes(tc.nw, tc.static, true)
			require.NoError(t, err)
			sets := attachedSets(tc.nw, true)
			require.Less(t, len(sets), len(tc.nw.Hosts()), "some hosts share a switch")
			for sw := range tc.nw.Nodes {
				if tc.nw.Nodes[sw].Type != Switch {
					continue
				}
				for _, d := range tc.nw.Hosts() {
					for tab := Table(0); tab < numTables; tab++ {
						require.Equal(t, own.Next(NodeID(sw), tab, d), shared.Next(NodeID(sw), tab, d),
							"switch %s to %s, table %d", tc.nw.Nodes[sw].Name, tc.nw.Nodes[d].Name, tab)
					}
				}
			}
		})
	}
}
