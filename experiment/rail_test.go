package experiment

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// railPair is two HGX-like servers of 2 GPUs on one stripe, each server a scale-up domain
// (scaleup: {}, the H100 defaults), one 1000-byte message from s1g1 to DST.
const railPair = `
version: 1
name: rail-pair
stop: 1ms
topology:
  preset: rail
  params:
    servers_per_stripe: 2
    gpus_per_server: 2
    spines: 1
    nic_link: {rate: 400Gbps, delay: 1us}
    fabric_link: {rate: 400Gbps, delay: 2us}
    scaleup: {}
traffic:
  - flow: {src: s1g1, dst: %s, size: 1000B, transport: rocev2}
`

// railPairExplicit is railPair declared node by node, its servers and scale-up switches in
// topology.servers: the same fabric, the same paths and times.
const railPairExplicit = `
version: 1
name: rail-pair-explicit
stop: 1ms
topology:
  nodes:
    - {name: leaf1r1, type: switch, layer: 3}
    - {name: leaf1r2, type: switch, layer: 3}
    - {name: spine1, type: switch, layer: 3}
    - {name: nv1, type: switch, layer: 3}
    - {name: nv2, type: switch, layer: 3}
    - {name: s1g1, type: host, subnet: 10.0.1.0/24}
    - {name: s1g2, type: host, subnet: 10.0.2.0/24}
    - {name: s2g1, type: host, subnet: 10.0.1.0/24}
    - {name: s2g2, type: host, subnet: 10.0.2.0/24}
  links:
    - {between: [leaf1r1, spine1], rate: 400Gbps, delay: 2us}
    - {between: [leaf1r2, spine1], rate: 400Gbps, delay: 2us}
    - {between: [s1g1, leaf1r1], rate: 400Gbps, delay: 1us}
    - {between: [s1g1, nv1], rate: 3600Gbps, delay: 936.25ns}
    - {between: [s1g2, leaf1r2], rate: 400Gbps, delay: 1us}
    - {between: [s1g2, nv1], rate: 3600Gbps, delay: 936.25ns}
    - {between: [s2g1, leaf1r1], rate: 400Gbps, delay: 1us}
    - {between: [s2g1, nv2], rate: 3600Gbps, delay: 936.25ns}
    - {between: [s2g2, leaf1r2], rate: 400Gbps, delay: 1us}
    - {between: [s2g2, nv2], rate: 3600Gbps, delay: 936.25ns}
  servers:
    - {name: server1, gpus: [s1g1, s1g2], scaleup_domain: nv1}
    - {name: server2, gpus: [s2g1, s2g2], scaleup_domain: nv2}
traffic:
  - flow: {src: s1g1, dst: %s, size: 1000B, transport: rocev2}
`

// TestRailPathsWithAndWithoutPXN checks, alone on the fabric, which links a one-packet
// message crosses and its FCT to the picosecond: s1g1 to s2g1 (same rail) crosses the two
// NIC links; s1g1 to s2g2 (another rail, another server) crosses NIC link, leaf-spine,
// spine-leaf and NIC link without PXN, and with PXN two scale-up links (s1g1 to nv1 to s1g2)
// and then s2g2's rail: two NIC links. The preset and the same fabric declared node by node
// (topology.servers) take the same paths in the same times.
func TestRailPathsWithAndWithoutPXN(t *testing.T) {
	for _, fabric := range []string{railPair, railPairExplicit} {
		railPaths(t, fabric)
	}
}

func railPaths(t *testing.T, fabric string) {
	const size = 1000
	frame := int64(size + roceV2Overhead + topology.RETHHeader) // one packet: WRITE only, with RETH
	nic, su := 400*sim.Gbps, 3600*sim.Gbps                      // nic_link; NVLink 4 each way (H100)
	nicDelay, fabricDelay, suDelay := sim.Microsecond, 2*sim.Microsecond, 936250*sim.Picosecond
	for _, c := range []struct {
		dst               string
		pxn               bool
		fabric, scaleUp   int
		fct               sim.Time
		first, notCrossed string // a link the data crosses, one it does not (from-to)
	}{
		{"s2g1", true, 2, 0, 2 * (nic.TxTime(frame) + nicDelay), "s1g1-leaf1r1", "s1g1-nv1"},
		{"s2g1", false, 2, 0, 2 * (nic.TxTime(frame) + nicDelay), "s1g1-leaf1r1", "s1g1-nv1"},
		{"s2g2", false, 4, 0, 2*(nic.TxTime(frame)+nicDelay) + 2*(nic.TxTime(frame)+fabricDelay), "leaf1r1-spine1", "s1g1-nv1"},
		{"s2g2", true, 2, 2, 2*(su.TxTime(frame)+suDelay) + 2*(nic.TxTime(frame)+nicDelay), "s1g2-leaf1r2", "s1g1-leaf1r1"},
	} {
		text := fmt.Sprintf(fabric, c.dst)
		name := fmt.Sprintf("%s: %s pxn=%v", load(t, text).Scenario(0).Name, c.dst, c.pxn)
		set := fmt.Sprintf("hosts.pxn=%v", c.pxn)
		f := build0(t, text, set)
		src, _ := f.nw.Lookup("s1g1")
		dst, _ := f.nw.Lookup(c.dst)
		hops, loop, err := f.routes.Path(src, dst, f.reg.Hash(0), f.pathLimit())
		require.NoError(t, err, name)
		require.False(t, loop, name)
		fabric, scaleUp := 0, 0
		for _, h := range hops {
			n := &f.nw.Nodes[h.Node]
			peer := &f.nw.Nodes[n.Ports[h.Port].Peer]
			if n.Role == topology.RoleScaleUp || peer.Role == topology.RoleScaleUp {
				scaleUp++
			} else {
				fabric++
			}
		}
		require.Equal(t, c.fabric, fabric, name+": fabric links")
		require.Equal(t, c.scaleUp, scaleUp, name+": scale-up links")

		v := runOne(t, text, 0, set)
		fl := v.PerFlow[0]
		require.Equal(t, "completed", fl.Status, name)
		require.InDelta(t, c.fct.Microseconds(), *fl.FCTUS, 1e-6, name+": FCT to the picosecond")
		require.InDelta(t, 1.0, *fl.Slowdown, 1e-9, name+": the ideal FCT follows the same path (relay included)")
		require.Zero(t, v.Drops.Total, name)
		require.Equal(t, []int{1, 1, 2, int(c.dst[3] - '0')}, []int{fl.SrcServer, fl.SrcRail, fl.DstServer, fl.DstRail}, name+": the ends' server and rail")
		require.Positive(t, linkPackets(v, c.first), name+": "+c.first+" carries the message")
		require.Zero(t, linkPackets(v, c.notCrossed), name+": "+c.notCrossed+" carries nothing")
	}
}

// linkPackets is the frames the link from-to ("a-b") carried in v.
func linkPackets(v *results.Variant, fromTo string) int64 {
	for _, l := range v.Links {
		if l.From+"-"+l.To == fromTo {
			return l.Packets
		}
	}
	return 0
}

// TestScaleUpSwitchHasRoomForItsHeadroom: the scale-up switch is lossless on all eight
// classes, and its headroom (about 0.9 MB a port-class at 3.6 Tb/s and 936.25 ns) comes on
// top of the switch block's buffer; with the 32 MB default alone, eight classes on four ports
// would leave XOFF at 0 and every frame would pause the GPU. A lone 4 MB message through the
// domain (PXN) is never paused, and the switch's XOFF is the block's buffer shared by its
// port-classes.
func TestScaleUpSwitchHasRoomForItsHeadroom(t *testing.T) {
	text := strings.Replace(fmt.Sprintf(railPair, "s2g2"), "size: 1000B", "size: 4MB", 1)
	v := runOne(t, text, 0)
	require.Equal(t, "completed", v.PerFlow[0].Status)
	require.Zero(t, v.PFC.PauseFrames, "nothing waits long enough at the scale-up switch to pause")
	f := build0(t, text)
	nv, _ := f.nw.Lookup("nv1")
	sw := f.switchByID(nv)
	ports := len(f.nw.Nodes[nv].Ports)
	want := f.sc.Switch.Buffer / int64(ports*8)
	for c := range 8 {
		require.Equal(t, want, sw.Ports[0].Ingress[c].Xoff, "class %d: XOFF = buffer / (ports x 8 classes)", c)
	}
}

// TestJobSaysItsServersAndRails: an allreduce over the four GPUs of two servers of two is on
// 2 servers and 2 rails; it completes.
func TestJobSaysItsServersAndRails(t *testing.T) {
	text := strings.Replace(fmt.Sprintf(railPair, "s2g2"), "  - flow: {src: s1g1, dst: s2g2, size: 1000B, transport: rocev2}",
		"  - collective: {op: allreduce, algorithm: ring, hosts: all, size: 1MB, transport: rocev2}", 1)
	v := runOne(t, text, 0)
	require.Len(t, v.Jobs, 1)
	j := v.Jobs[0]
	require.Equal(t, 4, j.Ranks)
	require.Equal(t, 2, j.Servers)
	require.Equal(t, 2, j.Rails)
	require.Equal(t, 1, j.Completed)
}

// TestRailPXNLesson (the bundled rail-pxn, on its golden): with PXN no frame crosses a spine
// and the all-to-all ends within the path's latency of the closed form, each NIC's 12 MB (12
// messages of 1 MB: 977 packets, 82 bytes of headers each and a 16-byte RETH) at 400 Gb/s;
// without PXN the spines carry the traffic between rails and it takes more than 1.5x as long.
func TestRailPXNLesson(t *testing.T) {
	d := fresh(t, "rail-pxn")
	const msgs, size, pkts = 12, 1_000_000, 977
	wire := int64(msgs * (size + pkts*roceV2Overhead + topology.RETHHeader))
	closed := (400 * sim.Gbps).TxTime(wire)
	latency := 2*936250*sim.Picosecond + 2*500*sim.Nanosecond + sim.Microsecond // + a few frames' serialization
	pxn, none := variantNamed(t, d, "PXN"), variantNamed(t, d, "no PXN")
	spine := func(v *results.Variant) int64 {
		var n int64
		for _, l := range v.Links {
			if strings.HasPrefix(l.From, "spine") || strings.HasPrefix(l.To, "spine") {
				n += l.Packets
			}
		}
		return n
	}
	require.Zero(t, spine(pxn), "with PXN nothing crosses a spine")
	require.Positive(t, spine(none))
	require.EqualValues(t, 240, pxn.Flows.Completed)
	require.EqualValues(t, 240, none.Flows.Completed)
	require.GreaterOrEqual(t, *pxn.FCT.Max, closed.Microseconds(), "no faster than the NIC's 12 MB")
	require.LessOrEqual(t, *pxn.FCT.Max, (closed + latency).Microseconds())
	require.Greater(t, *none.FCT.Max, 1.5**pxn.FCT.Max)
	for _, g := range pxn.LinkGroups {
		if g.Kind == "rail" {
			require.Greater(t, g.Utilization, 0.95, "rail %d runs nearly all the time", g.Index)
		}
	}
}

// TestNodeGroupsForTheDrawing: the fabric supplies each node's groups for the drawing, the
// same declared by preset or node by node: a GPU its server, rail and domain, a scale-up
// switch its domain, a rail leaf the rail of its GPUs; a spine of one plane has none.
func TestNodeGroupsForTheDrawing(t *testing.T) {
	for _, text := range []string{railPair, railPairExplicit} {
		v := runOne(t, fmt.Sprintf(text, "s2g2"), 0)
		got := map[string]results.NodeGroup{}
		for _, g := range v.NodeGroups {
			got[g.Node] = g
		}
		require.Equal(t, results.NodeGroup{Node: "s2g1", Server: 2, Rail: 1, Domain: 2}, got["s2g1"])
		require.Equal(t, results.NodeGroup{Node: "nv2", Domain: 2}, got["nv2"])
		require.Equal(t, results.NodeGroup{Node: "leaf1r2", Rail: 2}, got["leaf1r2"])
		require.NotContains(t, got, "spine1")
	}
}
