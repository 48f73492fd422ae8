package experiment

import (
	"fmt"
	"math/bits"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/internal/accuracy"
	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// TestTreeAllreduceClosedForm: NCCL's double binary tree allreduce of S = 16 MiB per rank
// over N = 4, 8, 16 ranks of the uncontended star (100 Gb/s, 1 us links, no congestion
// control), pipelined in K = S/2 / 512 KiB = 16 chunks a tree (K >= 4H: well filled).
//
// The closed form of docs/model.md section 12: with b the time of a payload byte at 100
// Gb/s with RoCE v2's headers, a one packet's latency beyond its first serialization (as
// for the ring) and H = log2 N, (4(K + H) - 6) C b + (K + 2H - 1) a; the job's ideal is a
// lower bound at most that, and the run within 3% above the ideal.
//
// The run: never below 2 S b, the busiest rank's bytes (interior in one tree, a leaf in the
// other, it sends and receives 2S), and within 3% of the closed form. The closed form is a
// lockstep schedule (every chunk one hop a round, a round as long as its busiest rank's
// bytes); the run departs from it both ways: leaves are held by no round, so the fill runs
// ahead of it (most where the trees are deep), and the streams of one NIC, served in turn,
// drift apart over a long pipeline, so the drain runs behind it; and a link's slot, freed
// when its chunk arrives at the receiver, reaches the sender at the end of that window (up to
// 1 us a chunk: package jobs runs on every partition), while a rank's chunks to one peer
// queue on one queue pair whichever tree they are of. Measured here: +1.70%, -0.72% and
// -2.25% for N = 4, 8, 16 (+0.24%, +1.12%, -2.61% when a chunk was a flow of its own and the
// runtime one partition); the 2% the ring holds is not met at N = 16, and the spread over 8
// to 32 MiB was -6.0% to +4.4% (docs/model.md section 12).
//
// The run is within 3% of its ideal at N = 8 and 16. At N = 4 a rank's chunks of both trees
// to its one peer go on one queue pair, in an order the ideal cannot know (the one posted
// first is not held by the other), so the ideal is its busiest link's bytes, 2 S b (+0.07%),
// and the band follows from the two checks above it: the run within 3% of the closed form
// and the ideal at least 2 S b, so run / ideal <= 1.03 (4(K+H)-6 + (K+2H-1) a / C b) / 2K
// (7.6% at N = 4; the run measured 6.19% above).
//
// algbw is S / t and busbw algbw x 2(N-1)/N, nccl-tests' allreduce factor, for the tree as
// for the ring.
func TestTreeAllreduceClosedForm(t *testing.T) {
	const S, C = 16 << 20, 512 << 10
	const K = S / 2 / C
	const rate, delay = 100e9, 1e-6
	full := float64(frames.RoCEWireBytes(2, 1024, false))
	b := full / 1024 * 8 / rate
	a := delay + full*8/rate + delay
	for _, n := range []int{4, 8, 16} {
		H := float64(bits.TrailingZeros(uint(n)))
		want := ((4*(K+H)-6)*C*b + (K+2*H-1)*a) * 1e6
		floor := 2 * S * b * 1e6
		band := 0.03 // how far above its ideal the run may be
		if n == 4 {
			band = want*1.03/floor - 1 // the ideal is its floor here (above)
		}
		v := runOne(t, starCollective(n, fmt.Sprintf("op: allreduce, algorithm: tree, hosts: all, size: %dB", S)), 0)
		require.Len(t, v.Jobs, 1)
		j := v.Jobs[0]
		require.Equal(t, "tree", j.Algorithm)
		require.EqualValues(t, C, j.ChunkBytes, "the default chunk: one NCCL buffer slot")
		require.Equal(t, 1, j.Completed)
		require.Equal(t, int(K+2*H-1), j.Steps)
		// The ideal is a lower bound (issue 34, point 6): the lockstep form's rounds at most,
		// and below it where the messages a rank's link carries in a round are not ready
		// together (they then overlap less, most where the trees are deep), never below the
		// busiest rank's bytes; each message's first packet carries a RETH (16 B) across the
		// star's two 100 Gb/s links. Measured: 0.1%, 1.5% and 2.8% below the lockstep form.
		rounds := K + 2*H - 1
		reth := 2 * 16 * 8 / rate * 1e6
		require.LessOrEqual(t, j.IdealUS, want+rounds*reth, "N=%d: the job's ideal", n)
		require.GreaterOrEqual(t, j.IdealUS, floor, "N=%d: the job's ideal", n)
		got := *j.CompletionUS
		t.Logf("tree allreduce N=%d, 16 MiB: %.2f us; closed form %.2f us (%+.2f%%); floor 2Sb %.2f us", n, got, want, (got/want-1)*100, floor)
		require.GreaterOrEqual(t, got, floor, "N=%d: faster than the busiest rank's 2S bytes allow", n)
		require.InDelta(t, want, got, want*0.03, "N=%d: %.2f us against the closed form %.2f", n, got, want)
		accurate(t, "Collectives", fmt.Sprintf("double binary tree allreduce, N=%d x 16 MiB per rank, 100 Gb/s star: job", n), want, got, "us", 0.03,
			accuracy.ClosedForm, "(4(K+H)-6) C b + (K+2H-1) alpha, the lockstep pipeline (docs/model.md section 12)")
		atLeast(t, "Collectives", fmt.Sprintf("double binary tree allreduce, N=%d x 16 MiB per rank: job against its ideal", n), j.IdealUS, got, "us", band,
			accuracy.ClosedForm, "the critical path alone on the fabric, a lower bound (docs/model.md section 12)")
		require.GreaterOrEqual(t, got, j.IdealUS, "N=%d: faster than its ideal", n)
		require.LessOrEqual(t, got, j.IdealUS*(1+band), "N=%d: %.2f us, more than %.1f%% over its ideal %.2f", n, got, 100*band, j.IdealUS)
		algbw := float64(S) * 8 / (got * 1e3)
		require.InDelta(t, algbw, *j.AlgbwGbps, 1e-9*algbw)
		require.InDelta(t, algbw*2*float64(n-1)/float64(n), *j.BusbwGbps, 1e-9*algbw, "busbw = algbw x 2(n-1)/n")
		require.Equal(t, 2*float64(n-1)/float64(n), j.BusFactor)
	}
}

// TestTreeRunsRepeat: a tree allreduce beside a ring and background traffic on a leaf-spine
// gives byte-identical results across runs and across worker counts.
func TestTreeRunsRepeat(t *testing.T) {
	slow(t, "a tree beside a ring and background traffic, run four times")
	f := load(t, `
version: 1
name: repeat-tree
stop: 20ms
topology:
  preset: leafspine
  params: {leaves: 2, spines: 2, hosts_per_leaf: 4, host_link: {rate: 100Gbps, delay: 1us}, fabric_link: {rate: 100Gbps, delay: 1us}}
traffic:
  - collective: {op: allreduce, algorithm: tree, hosts: all, size: 3MB, chunk: 256KiB, iterations: 2, channels: 2, label: tree}
  - collective: {op: allreduce, hosts: [h1, h5, h2, h6], size: 1MB, label: ring}
  - poisson: {hosts: all, load: 0.3, workload: websearch, count: 100}
variants:
  - {name: a, transport: rocev2}
  - {name: b, transport: rocev2, set: {transports.rocev2.recovery: irn, switch.pfc.enabled: false}}
`)
	render := func(workers int) string {
		doc, err := RunFile(f, nil, workers, nil, Capture{})
		require.NoError(t, err)
		for i := range doc.Variants {
			doc.Variants[i].WallSeconds = 0
			require.Equal(t, 2, doc.Variants[i].Jobs[0].Completed, "variant %s: both tree iterations end", doc.Variants[i].Name)
		}
		var b strings.Builder
		require.NoError(t, results.WriteJSON(&b, doc))
		return b.String()
	}
	one := render(1)
	require.Contains(t, one, `"algorithm": "tree"`)
	require.Contains(t, one, `"chunk_bytes": 262144`)
	require.Equal(t, one, render(2), "across workers")
	require.Equal(t, one, render(1), "across runs")
}
