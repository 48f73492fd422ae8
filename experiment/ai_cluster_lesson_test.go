package experiment

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/collective"
)

// TestAIClusterLesson holds docs/lessons.md's ai-cluster lesson on the fresh run: every
// variant's allreduce ends, at or above its ideal and within 1.45x of it; with PXN it takes
// longer than without (the relayed web search shares its rail NICs) but by less than 10%,
// and the web search's last flow ends more than 5x sooner (without PXN it crosses the
// spines). The MoE all-to-all's hottest expert is the Zipf order's first rank (s4g6), and
// the run's deepest switch or NIC queue with PXN is the scale-up switch's port to it, at
// least 1.5x the deepest elsewhere, and a relay queue holds more; its share, 1 MiB / H(32, 1.2), and its total from the 31 others are the
// lesson's figures.
func TestAIClusterLesson(t *testing.T) {
	slow(t, "the bundled ai-cluster: 64 GPUs, 4 variants")
	d := fresh(t, "ai-cluster")
	require.Len(t, d.Variants, 4)
	for i := range d.Variants {
		v := &d.Variants[i]
		require.Len(t, v.Jobs, 2, v.Name)
		for _, j := range v.Jobs {
			require.Equal(t, 1, j.Completed, "%s %s", v.Name, j.Label)
		}
		j := v.Jobs[0]
		require.Equal(t, 64, j.Ranks)
		require.GreaterOrEqual(t, *j.CompletionUS, j.IdealUS, v.Name)
		require.Less(t, *j.CompletionUS, 1.45*j.IdealUS, v.Name)
	}
	pxn, none := variantNamed(t, d, "RoCEv2 + PFC + DCQCN"), variantNamed(t, d, "RoCEv2 + PFC + DCQCN no PXN")
	with, without := *pxn.Jobs[0].CompletionUS, *none.Jobs[0].CompletionUS
	require.Greater(t, with, without, "the relayed background shares the allreduce's rail NICs")
	require.Less(t, with, 1.1*without)
	require.Greater(t, *none.FCT.Max, 5**pxn.FCT.Max, "without PXN the web search between rails crosses the spines")

	const N, S = 32, 1 << 20
	shares := collective.Skew{Dist: collective.Zipf, S: 1.2}.Shares(N, S, d.Seed)
	hot := 0
	for r, b := range shares {
		if b > shares[hot] {
			hot = r
		}
	}
	require.Equal(t, 29, hot, "s4g6 is rank 29 of s1g1..s4g8")
	var deepest, elsewhere int64
	var deepNode, deepPeer string
	var relayed int64
	for _, q := range pxn.Queues {
		if q.Relay {
			relayed = max(relayed, q.MaxBytes)
			continue
		}
		if q.MaxBytes > deepest {
			elsewhere = max(elsewhere, deepest)
			deepest, deepNode, deepPeer = q.MaxBytes, q.Node, q.Peer
		} else {
			elsewhere = max(elsewhere, q.MaxBytes)
		}
	}
	require.Equal(t, "nv4", deepNode)
	require.Equal(t, "s4g6", deepPeer)
	require.GreaterOrEqual(t, float64(deepest), 1.5*float64(elsewhere))
	require.Greater(t, relayed, deepest, "the relays hold relayed web search without bound")

	var H float64
	for k := 1; k <= N; k++ {
		H += math.Pow(float64(k), -1.2)
	}
	m := lessonSentence(t, "ai-cluster", `1 MiB / H\(32, 1\.2\) =\s+(\d+) KB of every other GPU's 1 MiB, ([0-9.]+) MB in all`)
	kb, _ := strconv.Atoi(m[1])
	require.Equal(t, int(math.Round(S/H/1000)), kb)
	require.Equal(t, strconv.FormatFloat((N-1)*S/H/1e6, 'f', 1, 64), m[2])
	require.True(t, strings.HasPrefix(d.Variants[0].Name, "RoCEv2"))
}
