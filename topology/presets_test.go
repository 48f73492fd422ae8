package topology

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/stretchr/testify/require"
)

var (
	hostLink   = LinkParams{Rate: 100 * sim.Gbps, Delay: 500 * sim.Nanosecond}
	fabricLink = LinkParams{Rate: 400 * sim.Gbps, Delay: 1 * sim.Microsecond}
)

// mustNode looks a node up by name.
func mustNode(t *testing.T, nw *Network, name string) *Node {
	t.Helper()
	id, ok := nw.Lookup(name)
	require.True(t, ok, "node %s", name)
	return &nw.Nodes[id]
}

// peers lists the names of a node's neighbours, one per port.
func peers(nw *Network, n *Node) []string {
	var out []string
	for _, p := range n.Ports {
		out = append(out, nw.Nodes[p.Peer].Name)
	}
	return out
}

// nameIndex splits "agg12" into ("agg", 12).
func nameIndex(t *testing.T, name string) (string, int) {
	t.Helper()
	i := strings.IndexAny(name, "0123456789")
	require.Positive(t, i, name)
	n, err := strconv.Atoi(name[i:])
	require.NoError(t, err)
	return name[:i], n
}

func countByPrefix(t *testing.T, nw *Network) map[string]int {
	c := map[string]int{}
	for i := range nw.Nodes {
		if nw.Nodes[i].Name == "sw" || nw.Nodes[i].Name == "swl" || nw.Nodes[i].Name == "swr" {
			c[nw.Nodes[i].Name]++
			continue
		}
		p, _ := nameIndex(t, nw.Nodes[i].Name)
		c[p]++
	}
	return c
}

// checkWiring checks the invariants every network must keep: ids match positions, every
// port's link points back at it, every link's two ends agree, host addresses are unique and
// inside their subnet.
func checkWiring(t *testing.T, nw *Network) {
	t.Helper()
	ips := map[IPv4]string{}
	for i := range nw.Nodes {
		n := &nw.Nodes[i]
		require.Equal(t, NodeID(i), n.ID)
		id, ok := nw.Lookup(n.Name)
		require.True(t, ok)
		require.Equal(t, n.ID, id)
		for pi, p := range n.Ports {
			l := nw.Links[p.Link]
			me, other := l.A, l.B
			if l.B.Node == n.ID && l.B.Port == pi {
				me, other = l.B, l.A
			}
			require.Equal(t, End{n.ID, pi}, me, "%s port %d", n.Name, pi)
			require.Equal(t, other.Node, p.Peer)
			require.Equal(t, other.Port, p.PeerPort)
			back := nw.Nodes[p.Peer].Ports[p.PeerPort]
			require.Equal(t, n.ID, back.Peer)
			require.Equal(t, pi, back.PeerPort)
		}
		if n.Type == Host {
			require.True(t, n.Subnet.Contains(n.IP), "%s %v in %v", n.Name, n.IP, n.Subnet)
			require.NotEqual(t, n.Subnet.Base, n.IP, "%s has the network address", n.Name)
			dup, seen := ips[n.IP]
			require.False(t, seen, "%s and %s share %v", n.Name, dup, n.IP)
			ips[n.IP] = n.Name
			require.Len(t, n.Ports, 1, "host %s has one NIC port", n.Name)
		} else {
			require.Contains(t, []int{2, 3}, n.Layer)
		}
	}
}

func TestStar(t *testing.T) {
	for _, n := range []int{1, 2, 7} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			nw, err := Star(n, hostLink)
			require.NoError(t, err)
			checkWiring(t, nw)
			require.Len(t, nw.Nodes, n+1)
			require.Len(t, nw.Links, n)
			require.Len(t, nw.Hosts(), n)
			sw := mustNode(t, nw, "sw")
			require.Equal(t, Switch, sw.Type)
			require.Equal(t, 2, sw.Layer)
			require.False(t, sw.Router())
			require.Len(t, sw.Ports, n)
			want := subnet("10.0.0.0/8")
			for i := 1; i <= n; i++ {
				h := mustNode(t, nw, fmt.Sprintf("h%d", i))
				require.Equal(t, Host, h.Type)
				require.Equal(t, want, h.Subnet)
				require.Equal(t, []string{"sw"}, peers(nw, h))
				require.Equal(t, hostLink, nw.Links[h.Ports[0].Link].Params)
			}
		})
	}
}

func TestDumbbell(t *testing.T) {
	bottleneck := LinkParams{Rate: 10 * sim.Gbps, Delay: 5 * sim.Microsecond, Loss: 0.01}
	for _, c := range [][2]int{{1, 1}, {2, 3}, {4, 0}} {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			nw, err := Dumbbell(c[0], c[1], hostLink, bottleneck)
			require.NoError(t, err)
			checkWiring(t, nw)
			require.Len(t, nw.Nodes, 2+c[0]+c[1])
			require.Len(t, nw.Links, 1+c[0]+c[1])
			swl, swr := mustNode(t, nw, "swl"), mustNode(t, nw, "swr")
			li, ok := nw.LinkBetween(swl.ID, swr.ID)
			require.True(t, ok)
			require.Equal(t, bottleneck, nw.Links[li].Params)
			require.Len(t, swl.Ports, 1+c[0])
			require.Len(t, swr.Ports, 1+c[1])
			for side, sw := range map[string]string{"l": "swl", "r": "swr"} {
				count := c[0]
				if side == "r" {
					count = c[1]
				}
				for i := 1; i <= count; i++ {
					h := mustNode(t, nw, fmt.Sprintf("%s%d", side, i))
					require.Equal(t, []string{sw}, peers(nw, h))
					require.Equal(t, subnet("10.0.0.0/8"), h.Subnet)
					require.Equal(t, hostLink, nw.Links[h.Ports[0].Link].Params)
				}
			}
		})
	}
}

func TestLeafSpine(t *testing.T) {
	tests := []struct {
		leaves, spines, hosts int
		routing               string
		layer                 int
	}{
		{2, 1, 1, RoutingL3, 3},
		{3, 2, 4, RoutingL3, 3},
		{4, 4, 3, "", 3}, // l3 is the default
		{3, 2, 4, RoutingL2, 2},
		{2, 3, 300, RoutingL3, 3}, // more hosts than a /24 holds
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%dx%dx%d-%s", tc.leaves, tc.spines, tc.hosts, tc.routing), func(t *testing.T) {
			nw, err := LeafSpine(tc.leaves, tc.spines, tc.hosts, hostLink, fabricLink, tc.routing)
			require.NoError(t, err)
			checkWiring(t, nw)
			nHosts := tc.leaves * tc.hosts
			require.Len(t, nw.Nodes, tc.leaves+tc.spines+nHosts)
			require.Len(t, nw.Links, tc.leaves*tc.spines+nHosts)
			require.Len(t, nw.Hosts(), nHosts)
			rackOf := map[string]int{}
			for l := 1; l <= tc.leaves; l++ {
				leaf := mustNode(t, nw, fmt.Sprintf("leaf%d", l))
				require.Equal(t, tc.layer, leaf.Layer)
				require.Equal(t, tc.layer == 3, leaf.Router())
				require.Len(t, leaf.Ports, tc.spines+tc.hosts)
				spines, hosts := 0, 0
				for _, p := range leaf.Ports {
					peer := &nw.Nodes[p.Peer]
					if peer.Type == Host {
						hosts++
						rackOf[peer.Name] = l
						require.Equal(t, hostLink, nw.Links[p.Link].Params)
					} else {
						require.True(t, strings.HasPrefix(peer.Name, "spine"))
						spines++
						require.Equal(t, fabricLink, nw.Links[p.Link].Params)
					}
				}
				require.Equal(t, tc.spines, spines)
				require.Equal(t, tc.hosts, hosts)
			}
			for s := 1; s <= tc.spines; s++ {
				spine := mustNode(t, nw, fmt.Sprintf("spine%d", s))
				require.Equal(t, tc.layer, spine.Layer)
				require.Len(t, spine.Ports, tc.leaves)
				seen := map[string]bool{}
				for _, name := range peers(nw, spine) {
					require.True(t, strings.HasPrefix(name, "leaf"))
					seen[name] = true
				}
				require.Len(t, seen, tc.leaves, "a spine reaches every leaf once")
			}
			// Hosts h1.. rack by rack.
			for h := 1; h <= nHosts; h++ {
				require.Equal(t, (h-1)/tc.hosts+1, rackOf[fmt.Sprintf("h%d", h)], "h%d", h)
			}
			// Subnets: l3 one per rack, disjoint; l2 one for all.
			subnets := map[Subnet]map[int]bool{}
			for _, id := range nw.Hosts() {
				h := &nw.Nodes[id]
				if subnets[h.Subnet] == nil {
					subnets[h.Subnet] = map[int]bool{}
				}
				subnets[h.Subnet][rackOf[h.Name]] = true
			}
			if tc.layer == 2 {
				require.Len(t, subnets, 1)
				for s := range subnets {
					require.Equal(t, subnet("10.0.0.0/8"), s)
				}
				return
			}
			require.Len(t, subnets, tc.leaves, "one subnet per rack")
			wantBits := 24
			if tc.hosts > 253 {
				wantBits = 16
			}
			for s, racks := range subnets {
				require.Len(t, racks, 1, "subnet %v spans racks", s)
				require.Equal(t, wantBits, s.Bits)
				for o := range subnets {
					if o != s {
						require.False(t, s.Contains(o.Base) || o.Contains(s.Base), "%v overlaps %v", s, o)
					}
				}
			}
		})
	}
}

func TestLeafSpineBadRouting(t *testing.T) {
	_, err := LeafSpine(2, 2, 2, hostLink, fabricLink, "l4")
	require.ErrorContains(t, err, `"l4"`)
}

func TestFatTree(t *testing.T) {
	for _, tc := range []struct {
		k       int
		routing string
	}{{2, RoutingL3}, {4, RoutingL3}, {4, RoutingL2}, {6, RoutingL3}, {8, ""}} {
		t.Run(fmt.Sprintf("k=%d-%s", tc.k, tc.routing), func(t *testing.T) {
			k, half := tc.k, tc.k/2
			nw, err := FatTree(k, hostLink, tc.routing)
			require.NoError(t, err)
			checkWiring(t, nw)
			layer := 3
			if tc.routing == RoutingL2 {
				layer = 2
			}
			// Al-Fares et al.: (k/2)^2 cores, k pods of k/2 aggs and k/2 edges, k^3/4 hosts.
			counts := countByPrefix(t, nw)
			require.Equal(t, half*half, counts["core"])
			require.Equal(t, k*half, counts["agg"])
			require.Equal(t, k*half, counts["edge"])
			require.Equal(t, k*k*k/4, counts["h"])
			require.Len(t, nw.Nodes, half*half+k*k+k*k*k/4)
			// Links: core-agg k^3/4, agg-edge k^3/4, edge-host k^3/4.
			require.Len(t, nw.Links, 3*k*k*k/4)
			pod := func(name string) int { _, i := nameIndex(t, name); return (i - 1) / half }
			for i := range nw.Nodes {
				n := &nw.Nodes[i]
				prefix, idx := nameIndex(t, n.Name)
				if n.Type == Switch {
					require.Equal(t, layer, n.Layer, n.Name)
					require.Len(t, n.Ports, k, "%s: every switch has k ports", n.Name)
				}
				up := map[string]int{}
				for _, name := range peers(nw, n) {
					p, _ := nameIndex(t, name)
					up[p]++
				}
				switch prefix {
				case "edge":
					require.Equal(t, map[string]int{"agg": half, "h": half}, up, n.Name)
					for _, name := range peers(nw, n) {
						if strings.HasPrefix(name, "agg") {
							require.Equal(t, pod(n.Name), pod(name), "%s links to %s of another pod", n.Name, name)
						}
					}
				case "agg":
					require.Equal(t, map[string]int{"core": half, "edge": half}, up, n.Name)
					j := (idx - 1) % half // position of the agg in its pod
					for _, name := range peers(nw, n) {
						p, ci := nameIndex(t, name)
						if p == "core" {
							require.Equal(t, j, (ci-1)/half, "agg %d of a pod connects to cores %d..%d", j+1, j*half+1, (j+1)*half)
						} else {
							require.Equal(t, pod(n.Name), pod(name))
						}
					}
				case "core":
					require.Equal(t, map[string]int{"agg": k}, up, n.Name)
					pods := map[int]int{}
					for _, name := range peers(nw, n) {
						pods[pod(name)]++
					}
					require.Len(t, pods, k, "%s reaches every pod", n.Name)
					for p, c := range pods {
						require.Equal(t, 1, c, "%s has %d links into pod %d", n.Name, c, p)
					}
				case "h":
					e := peers(nw, n)
					require.Len(t, e, 1)
					_, ei := nameIndex(t, e[0])
					require.Equal(t, (idx-1)/half+1, ei, "h%d is on edge%d", idx, ei)
				default:
					t.Fatalf("unexpected node %s", n.Name)
				}
			}
			subnets := map[Subnet][]string{}
			for _, id := range nw.Hosts() {
				h := &nw.Nodes[id]
				subnets[h.Subnet] = append(subnets[h.Subnet], peers(nw, h)[0])
			}
			if layer == 2 {
				require.Len(t, subnets, 1)
				return
			}
			require.Len(t, subnets, k*half, "one subnet per edge switch")
			for s, edges := range subnets {
				require.Equal(t, 24, s.Bits)
				require.Len(t, edges, half)
				for _, e := range edges {
					require.Equal(t, edges[0], e, "subnet %v spans edges", s)
				}
			}
		})
	}
}

func TestFatTreeErrors(t *testing.T) {
	for _, tc := range []struct {
		k       int
		routing string
		msg     string
	}{
		{3, RoutingL3, "k=3"},
		{5, RoutingL2, "k=5"},
		{0, RoutingL3, "k=0"},
		{-2, RoutingL3, "k=-2"},
		{4, "ospf", `"ospf"`},
	} {
		t.Run(fmt.Sprint(tc.k, tc.routing), func(t *testing.T) {
			nw, err := FatTree(tc.k, hostLink, tc.routing)
			require.ErrorContains(t, err, tc.msg)
			require.Nil(t, nw)
		})
	}
}

func TestNetworkErrors(t *testing.T) {
	nw := NewNetwork()
	s := subnet("10.0.1.0/30")
	a, err := nw.AddHost("a", s, 0)
	require.NoError(t, err)
	require.Equal(t, ip("10.0.1.1"), nw.Nodes[a].IP)
	_, err = nw.AddHost("b", s, ip("10.0.1.1"))
	require.ErrorContains(t, err, "already in use")
	b, err := nw.AddHost("b", s, 0)
	require.NoError(t, err)
	require.Equal(t, ip("10.0.1.2"), nw.Nodes[b].IP)
	_, err = nw.AddHost("c", s, 0)
	require.ErrorContains(t, err, "no room", "a /30 holds two hosts")
	_, err = nw.AddHost("a", subnet("10.0.2.0/24"), 0)
	require.ErrorContains(t, err, "defined twice")
	_, err = nw.AddSwitch("s", 4)
	require.ErrorContains(t, err, "layer 4")
	sw, err := nw.AddSwitch("s", 2)
	require.NoError(t, err)
	_, err = nw.Connect(sw, sw, hostLink)
	require.ErrorContains(t, err, "itself")
	_, err = nw.Connect(a, sw, LinkParams{Rate: 0})
	require.ErrorContains(t, err, "rate")
	_, err = nw.Connect(a, sw, LinkParams{Rate: sim.Gbps, Delay: -1})
	require.ErrorContains(t, err, "delay")
	require.Empty(t, nw.Links, "failed connects add nothing")
	require.Equal(t, "s:1", nw.PortName(sw, 0))
	require.Equal(t, []string{"a", "b", "s"}, nw.Names())
}
