package experiment

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/results"
)

// planesFabric is a leaf-spine built on 4 planes, its hosts spraying every frame over them
// (hosts.plane_spread: packet); h1 and h2 each write 4 MB to a host of the other leaf.
// FAULTS is the faults block.
const planesFabric = `
version: 1
name: planes
stop: 20ms
topology:
  preset: leafspine
  params: {leaves: 2, spines: 2, hosts_per_leaf: 2, planes: 4, host_link: {rate: 100Gbps, delay: 1us}, fabric_link: {rate: 100Gbps, delay: 1us}}
hosts: {plane_spread: packet}
transports:
  rocev2: {recovery: irn}
traffic:
  - flow: {src: h1, dst: h3, size: 4MB, transport: rocev2}
  - flow: {src: h2, dst: h4, size: 4MB, transport: rocev2}
%s`

// planeShares is the frames h sent on each of the planes' links, from its results.
func planeShares(v *results.Variant, h string, planes int) []int64 {
	out := make([]int64, planes)
	for p := 1; p <= planes; p++ {
		out[p-1] = linkPackets(v, fmt.Sprintf("%s-p%dleaf1", h, p))
	}
	return out
}

// requireEvenShares checks that every plane in use carries its share of the frames, the
// total over the planes in use, within 5%.
func requireEvenShares(t *testing.T, shares []int64, down int, what string) {
	t.Helper()
	var total int64
	used := 0
	for p, n := range shares {
		if p+1 != down {
			total += n
			used++
		}
	}
	for p, n := range shares {
		if p+1 == down {
			require.Zero(t, n, "%s: plane %d's link is down: nothing goes on it", what, p+1)
			continue
		}
		share := float64(total) / float64(used)
		require.InEpsilon(t, share, float64(n), 0.05, "%s: plane %d carries %d frames of %d", what, p+1, n, total)
	}
}

func TestPlaneSprayCarriesEvenSharesAndAvoidsADeadPlane(t *testing.T) {
	v := runOne(t, fmt.Sprintf(planesFabric, ""), 0)
	require.EqualValues(t, 2, v.Flows.Completed)
	require.Zero(t, v.Drops.Total)
	for _, h := range []string{"h1", "h2"} {
		requireEvenShares(t, planeShares(v, h, 4), 0, h)
	}
	// link_groups: each plane's host links carried a quarter of the bytes, within 5%.
	require.Len(t, v.LinkGroups, 4)
	var bytes [4]int64
	for i, g := range v.LinkGroups {
		require.Equal(t, "plane", g.Kind)
		require.Equal(t, i+1, g.Index)
		require.Equal(t, 4, g.Links, "a link per host on each plane")
		bytes[i] = g.WireBytes
	}
	requireEvenShares(t, bytes[:], 0, "link_groups")

	// h1's link on plane 2 down from t = 0: h1 sends nothing on it, its three other planes
	// carry its flow, and h3's replies to h1 keep off plane 2 too (nothing is lost).
	v = runOne(t, fmt.Sprintf(planesFabric, "faults:\n  - {at: 0, link: [h1, p2leaf1], state: down}\n"), 0)
	require.EqualValues(t, 2, v.Flows.Completed)
	require.Zero(t, v.Drops.Total, "no frame is sent toward the dead link")
	requireEvenShares(t, planeShares(v, "h1", 4), 2, "h1")
	requireEvenShares(t, planeShares(v, "h2", 4), 0, "h2")
	require.Zero(t, linkPackets(v, "p2leaf1-h1"))
}

func TestPlaneFailingMidRunLosesOnlyItsFrames(t *testing.T) {
	v := runOne(t, fmt.Sprintf(planesFabric, "faults:\n  - {at: 50us, link: [h1, p2leaf1], state: down}\n"), 0)
	require.EqualValues(t, 2, v.Flows.Completed, "every flow completes")
	require.Equal(t, v.Drops.Total, v.Drops.ByReason.LinkDown, "the only losses are on the failed link")
	for _, d := range v.DropPlaces {
		link := map[string]bool{d.Node + "-" + d.Peer: true}
		require.True(t, link["h1-p2leaf1"] || link["p2leaf1-h1"], "a drop at %s:%d toward %s (%s)", d.Node, d.Port, d.Peer, d.Reason)
	}
	if v.Drops.Total > 0 {
		require.Positive(t, v.RetransmittedPackets, "the transport resends what was lost")
	}
	t.Logf("mid-run failure: %d frames lost on the link, %d retransmitted", v.Drops.Total, v.RetransmittedPackets)
}

// TestPlaneSpreadByQPAndByFlow: sixteen flows from h1 to h3 on 4 planes keep to one plane
// with plane_spread qp (one queue pair's plane) and use several with plane_spread flow.
func TestPlaneSpreadByQPAndByFlow(t *testing.T) {
	text := `
version: 1
name: planes-spread
stop: 20ms
topology:
  preset: leafspine
  params: {leaves: 2, spines: 1, hosts_per_leaf: 1, planes: 4, host_link: {rate: 100Gbps, delay: 1us}, fabric_link: {rate: 100Gbps, delay: 1us}}
traffic:
  - incast: {senders: [h1], receiver: h2, size: 100KB, repeat: {every: 1us, count: 16}, transport: rocev2}
`
	used := func(spread string) int {
		v := runOne(t, text, 0, "hosts.plane_spread="+spread)
		require.EqualValues(t, 16, v.Flows.Completed, spread)
		n := 0
		for _, c := range planeShares(v, "h1", 4) {
			if c > 0 {
				n++
			}
		}
		return n
	}
	require.Equal(t, 1, used("qp"), "qp: every frame from h1 to h2 on one plane")
	// FlowKey spreads 16 flows over 4 planes; all on one plane has probability 4 x (1/4)^16.
	require.Greater(t, used("flow"), 1, "flow: each flow on its own plane")
}
