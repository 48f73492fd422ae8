package topology

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFrameMACsThroughBridgesAndRouters follows a packet from h1 (10.0.1.0/24) to h2
// (10.0.2.0/24) over h1 - a - r1 - b - r2 - c - h2, where a, b and c bridge and r1, r2 route:
// each link carries the addresses of the layer-3 hops around it, bridges change nothing.
func TestFrameMACsThroughBridgesAndRouters(t *testing.T) {
	nw := NewNetwork()
	s1 := Subnet{Base: 10<<24 | 1<<8, Bits: 24}
	s2 := Subnet{Base: 10<<24 | 2<<8, Bits: 24}
	h1, err := nw.AddHost("h1", s1, 0)
	require.NoError(t, err)
	h2, err := nw.AddHost("h2", s2, 0)
	require.NoError(t, err)
	var sw [5]NodeID
	for i, name := range []string{"a", "r1", "b", "r2", "c"} {
		layer := 2
		if name[0] == 'r' {
			layer = 3
		}
		sw[i], err = nw.AddSwitch(name, layer)
		require.NoError(t, err)
	}
	chain := []NodeID{h1, sw[0], sw[1], sw[2], sw[3], sw[4], h2}
	for i := 1; i < len(chain); i++ {
		_, err := nw.Connect(chain[i-1], chain[i], hostLink)
		require.NoError(t, err)
	}
	r := routes(t, nw)
	// port is the MAC of node n's port toward its neighbour m.
	port := func(n, m NodeID) MAC {
		for pi, p := range nw.Nodes[n].Ports {
			if p.Peer == m {
				return nw.PortMAC(n, pi)
			}
		}
		t.Fatalf("no link %d-%d", n, m)
		return MAC{}
	}
	r1, r2 := sw[1], sw[3]
	want := []struct{ src, dst MAC }{
		{HostMAC(h1), port(r1, sw[0])},     // h1 - a: to the gateway
		{HostMAC(h1), port(r1, sw[0])},     // a - r1: bridged
		{port(r1, sw[2]), port(r2, sw[2])}, // r1 - b: routed, to the next router
		{port(r1, sw[2]), port(r2, sw[2])}, // b - r2: bridged
		{port(r2, sw[4]), HostMAC(h2)},     // r2 - c: routed, to the host
		{port(r2, sw[4]), HostMAC(h2)},     // c - h2: bridged
	}
	p := packetBetween(nw, h1, h2)
	require.True(t, p.CrossSubnet)
	hops, loop, err := r.Path(h1, h2, 0, 16)
	require.NoError(t, err)
	require.False(t, loop)
	require.Len(t, hops, len(want))
	for i, h := range hops {
		dst, src := r.FrameMACs(h.Node, h.Port, &p)
		require.Equal(t, want[i].src, src, "source on hop %d", i)
		require.Equal(t, want[i].dst, dst, "destination on hop %d", i)
		if nw.Nodes[h.Node].Router() {
			p.Routed = true // as the switch marks it when it routes
		}
	}
	// Inside a subnet nothing is rewritten, and PFC frames go to the reserved address.
	q := packetBetween(nw, h1, h1)
	dst, src := r.FrameMACs(sw[0], 0, &Packet{EtherType: EtherTypeMACControl, Src: q.Src})
	require.Equal(t, MACPFC, dst)
	require.Equal(t, nw.PortMAC(sw[0], 0), src)
	require.NotEqual(t, nw.PortMAC(r1, 0), nw.PortMAC(r2, 0), "ports of different switches differ")
	require.NotEqual(t, nw.PortMAC(r1, 0), nw.PortMAC(r1, 1), "ports of one switch differ")
	require.NotEqual(t, HostMAC(h1), nw.PortMAC(r1, 0))
	require.Equal(t, "02:00:00:00:00:00", HostMAC(h1).String())
}
