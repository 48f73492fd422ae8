package topology

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
)

// TestRailCounts builds the rail preset for 1 and 2 stripes, 1 and 2 planes, and scale-up
// domains of 1 server (8 GPUs, HGX H100) and of 18 servers of 4 GPUs (NVL72), and counts
// its nodes and links against the formula, written out here:
//
//	servers  = stripes x servers_per_stripe, GPUs = servers x gpus_per_server
//	nodes    = planes x (stripes x rails + spines) + servers/servers_per_scaleup + GPUs
//	links    = planes x (GPUs + stripes x rails x spines) + GPUs (scale-up)
//
// where rails = gpus_per_server; and every GPU has planes + 1 ports.
func TestRailCounts(t *testing.T) {
	nic := LinkParams{Rate: 400 * sim.Gbps, Delay: sim.Microsecond}
	su := LinkParams{Rate: 3600 * sim.Gbps, Delay: 936250}
	for _, c := range []struct{ stripes, planes, perScaleup, gpus, servers, spines int }{
		{1, 1, 1, 8, 4, 2}, {2, 1, 1, 8, 4, 2}, {1, 2, 1, 8, 4, 2}, {2, 2, 1, 8, 4, 2},
		{1, 1, 18, 4, 18, 3}, {2, 1, 18, 4, 18, 3}, {1, 2, 18, 4, 18, 3}, {2, 2, 18, 4, 18, 3},
	} {
		name := fmt.Sprintf("stripes%d-planes%d-scaleup%d", c.stripes, c.planes, c.perScaleup)
		p := RailParams{Stripes: c.stripes, ServersPerStripe: c.servers, GPUsPerServer: c.gpus, ServersPerScaleup: c.perScaleup,
			Spines: c.spines, Planes: c.planes, NIC: nic, Fabric: nic, ScaleUp: &su}
		nw, err := Rail(p)
		require.NoError(t, err, name)
		servers := c.stripes * c.servers
		gpus := servers * c.gpus
		wantNodes := c.planes*(c.stripes*c.gpus+c.spines) + servers/c.perScaleup + gpus
		wantLinks := c.planes*(gpus+c.stripes*c.gpus*c.spines) + gpus
		require.Len(t, nw.Nodes, wantNodes, name)
		require.Len(t, nw.Links, wantLinks, name)
		require.Equal(t, wantNodes, p.Nodes(), name)
		require.Equal(t, wantLinks, p.Links(), name)
		require.Len(t, nw.Hosts(), gpus, name)
		last := fmt.Sprintf("s%dg%d", servers, c.gpus)
		id, ok := nw.Lookup(last)
		require.True(t, ok, name)
		g := &nw.Nodes[id]
		require.Len(t, g.Ports, c.planes+1, name)
		require.Equal(t, int32(servers), g.Server)
		require.Equal(t, int32(c.gpus), g.Rail)
		require.Equal(t, int32(servers/c.perScaleup), g.Domain)
		nv := fmt.Sprintf("nv%d", servers/c.perScaleup)
		nvID, ok := nw.Lookup(nv)
		require.True(t, ok, name)
		require.Len(t, nw.Nodes[nvID].Ports, c.perScaleup*c.gpus, "a scale-up switch has a link per GPU of its domain")
		leaf := PlaneName(fmt.Sprintf("leaf%dr%d", c.stripes, c.gpus), c.planes, c.planes)
		leafID, ok := nw.Lookup(leaf)
		require.True(t, ok, name+" "+leaf)
		require.Len(t, nw.Nodes[leafID].Ports, c.servers+c.spines, "a rail leaf: a GPU per server of its stripe, a link per spine")
	}
}

func TestRailWithoutScaleUpAndWithPCIe(t *testing.T) {
	nic := LinkParams{Rate: 400 * sim.Gbps, Delay: sim.Microsecond}
	pcie := LinkParams{Rate: 504 * sim.Gbps, Delay: 100 * sim.Nanosecond}
	p := RailParams{Stripes: 1, ServersPerStripe: 2, GPUsPerServer: 2, ServersPerScaleup: 1, Spines: 1, Planes: 2, NIC: nic, Fabric: nic, PCIe: &pcie}
	nw, err := Rail(p)
	require.NoError(t, err)
	// No scale-up: 2 planes x (2 leaves + 1 spine) + 4 GPUs + 4 NICs; links: 2 x (4 + 2) + 4 PCIe.
	require.Len(t, nw.Nodes, 2*(2+1)+4+4)
	require.Len(t, nw.Links, 2*(4+2)+4)
	id, _ := nw.Lookup("s1g1")
	require.Len(t, nw.Nodes[id].Ports, 1, "a GPU behind a PCIe hop has one link, to its NIC")
	nicID, _ := nw.Lookup("s1g1nic")
	require.Equal(t, RolePCIeNIC, nw.Nodes[nicID].Role)
	require.Len(t, nw.Nodes[nicID].Ports, 3, "the NIC: the PCIe link and a port per plane")
	_, ok := nw.Lookup("nv1")
	require.False(t, ok)
}

func TestRailRefusesBadParams(t *testing.T) {
	nic := LinkParams{Rate: 400 * sim.Gbps}
	ok := RailParams{Stripes: 1, ServersPerStripe: 4, GPUsPerServer: 8, ServersPerScaleup: 1, Spines: 1, Planes: 1, NIC: nic, Fabric: nic}
	for _, c := range []struct {
		mod  func(*RailParams)
		want string
	}{
		{func(p *RailParams) { p.Planes = 0 }, "planes=0"},
		{func(p *RailParams) { p.ServersPerStripe = 0 }, "servers_per_stripe=0"},
		{func(p *RailParams) { p.ServersPerScaleup = 3 }, "do not divide into scale-up domains"},
		{func(p *RailParams) { p.Routing = "l4" }, "allowed: l2, l3"},
	} {
		p := ok
		c.mod(&p)
		_, err := Rail(p)
		require.ErrorContains(t, err, c.want)
	}
}

// TestPlanesOnLeafSpineAndFatTree counts a multi-plane leaf-spine and fat tree: every switch
// and every link once per plane, the hosts once, each host with a port per plane.
func TestPlanesOnLeafSpineAndFatTree(t *testing.T) {
	link := LinkParams{Rate: 100 * sim.Gbps, Delay: sim.Microsecond}
	for _, planes := range []int{1, 2, 3} {
		ls, err := LeafSpine(3, 2, 4, link, link, RoutingL3)
		require.NoError(t, err)
		nw, err := WithPlanes(ls, planes)
		require.NoError(t, err)
		hosts := 3 * 4
		require.Len(t, nw.Nodes, planes*(3+2)+hosts)
		require.Len(t, nw.Links, planes*(hosts+3*2))
		h, _ := nw.Lookup("h12")
		require.Len(t, nw.Nodes[h].Ports, planes)
		for i, p := range nw.Nodes[h].Ports {
			require.Equal(t, PlaneName("leaf3", i+1, planes), nw.Nodes[p.Peer].Name, "port %d goes to plane %d", i, i+1)
		}

		const k = 4
		ft, err := FatTree(k, link, RoutingL3)
		require.NoError(t, err)
		nw, err = WithPlanes(ft, planes)
		require.NoError(t, err)
		// k-ary fat tree: 5k^2/4 switches, k^3/4 hosts, 3k^3/4 links (hosts, edge-agg, agg-core).
		require.Len(t, nw.Nodes, planes*5*k*k/4+k*k*k/4)
		require.Len(t, nw.Links, planes*3*k*k*k/4)
	}
	_, err := WithPlanes(NewNetwork(), 0)
	require.ErrorContains(t, err, "planes=0")
}
