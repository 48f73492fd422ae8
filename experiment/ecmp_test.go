package experiment

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/scenarios"
)

// linkLoads runs variant i of the bundled fattree-ecmp with the overrides and returns the
// packets each link direction carried, and the variant's document without its wall time.
func linkLoads(t *testing.T, i int, sets ...string) (map[string]int64, string) {
	t.Helper()
	text, ok := scenarios.BundledYAML("fattree-ecmp")
	require.True(t, ok)
	v, err := Run(load(t, string(text), sets...).Scenario(i), nil)
	require.NoError(t, err)
	loads := map[string]int64{}
	for _, l := range v.Links {
		loads[l.From+"->"+l.To] = l.Packets
	}
	v.WallSeconds = 0
	doc, err := json.Marshal([]results.Variant{*v})
	require.NoError(t, err)
	return loads, string(doc)
}

// flowHashes builds variant i of the bundled fattree-ecmp with the overrides and returns its
// flows' ECMP hashes.
func flowHashes(t *testing.T, i int, sets ...string) []uint32 {
	t.Helper()
	text, _ := scenarios.BundledYAML("fattree-ecmp")
	f, err := build(load(t, string(text), sets...).Scenario(i))
	require.NoError(t, err)
	var hs []uint32
	for k := range f.reg.Flows {
		hs = append(hs, f.reg.Hash(int32(k)))
	}
	return hs
}

// TestSeedsSampleECMPPaths: the source port, the entropy ECMP hashes, is drawn per queue
// pair (per TCP connection) from the seed, so two seeds of one fixed flow list take other
// paths and load the fat-tree's links otherwise; under udp_sport: qpn (tcp_sport: index)
// the seed changes no path. Each host of the k=4 fat-tree writes to the host eight after it,
// in the other half of the pods: each flow has (k/2)^2 = 4 shortest paths, so the 16 flows'
// paths coincide under two seeds with probability 4^-16 if the draws are independent.
func TestSeedsSampleECMPPaths(t *testing.T) {
	var flows []string
	for h := 1; h <= 16; h++ {
		flows = append(flows, fmt.Sprintf("{flow: {src: h%d, dst: h%d, size: 200KB}}", h, (h+7)%16+1))
	}
	fixed := "traffic=[" + strings.Join(flows, ", ") + "]"
	for _, tc := range []struct {
		variant int
		pinned  string
	}{
		{0, "transports.rocev2.udp_sport=qpn"},  // RoCEv2 + PFC
		{2, "transports.iwarp.tcp_sport=index"}, // iWARP lossy
	} {
		one, doc1 := linkLoads(t, tc.variant, fixed, "seed=1")
		two, _ := linkLoads(t, tc.variant, fixed, "seed=2")
		require.NotEqual(t, one, two, "variant %d: seeds 1 and 2 load the links alike", tc.variant)
		_, again := linkLoads(t, tc.variant, fixed, "seed=1")
		require.Equal(t, doc1, again, "variant %d: the same seed, the same document", tc.variant)

		require.NotEqual(t, flowHashes(t, tc.variant, fixed, "seed=1"), flowHashes(t, tc.variant, fixed, "seed=2"))
		require.Equal(t, flowHashes(t, tc.variant, fixed, "seed=1", tc.pinned), flowHashes(t, tc.variant, fixed, "seed=2", tc.pinned),
			"variant %d, %s: the seed moves no flow", tc.variant, tc.pinned)
	}
	// Lossless RoCE v2 with the ports pinned: the seed changes no link's load either (the
	// hosts' jitter, also drawn from it, moves frames in time, not between links).
	p1, _ := linkLoads(t, 0, fixed, "seed=1", "transports.rocev2.udp_sport=qpn")
	p2, _ := linkLoads(t, 0, fixed, "seed=2", "transports.rocev2.udp_sport=qpn")
	require.Equal(t, p1, p2)

	// The bundled scenario as it is (its permutation drawn from the seed too).
	one, _ := linkLoads(t, 0, "seed=1", "traffic.0.permutation.size=200KB")
	two, _ := linkLoads(t, 0, "seed=2", "traffic.0.permutation.size=200KB")
	require.NotEqual(t, one, two)
}
