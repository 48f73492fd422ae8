package experiment

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/chakra"
	"github.com/fabricsim/fabricsim/chakra/chakratest"
	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
)

// writeTraces writes one trace per rank into dir as trace.RANK.et: compute c1[r] us, an
// allreduce of 4 MB, compute c2[r] us, an allgather of 1 MB (comm_size, each rank's input,
// as ASTRA-sim counts it).
func writeTraces(t *testing.T, dir string, c1, c2 []uint64) {
	t.Helper()
	for r := range c1 {
		data := chakratest.Trace("0.0.4",
			chakratest.Comp(1, c1[r]),
			chakratest.Coll(2, chakra.AllReduce, 4_000_000, 1),
			chakratest.Comp(3, c2[r], 2),
			chakratest.Coll(4, chakra.AllGather, 1_000_000, 3))
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("trace.%d.et", r)), data, 0o644))
	}
}

// chakraScenario loads a star of 4 hosts at 100 Gb/s running the traces in dir; the scenario
// file sits in dir, so the pattern is relative to it.
func chakraScenario(t *testing.T, dir string) *scenarios.Scenario {
	t.Helper()
	text := `
version: 1
name: chakra
stop: 1s
topology:
  preset: star
  params: {hosts: 4, link: {rate: 100Gbps, delay: 1us}}
transports:
  rocev2: {cc: none}
traffic:
  - chakra: {traces: "trace.%d.et", hosts: all, label: trace}
variants:
  - {name: v, transport: rocev2}
`
	f, problems, _ := scenarios.Load(filepath.Join(dir, "s.yaml"), []byte(text), nil)
	require.Empty(t, problems)
	return f.Scenario(0)
}

// TestChakraJobClosedForm: 4 ranks, each computing 10 us, allreducing 4 MB, computing 20 us
// and allgathering 1 MB each (a 4 MB output), on a one-switch star at 100 Gb/s: the job takes
// 10 us + the ring allreduce's closed form (6 steps of 1 MB) + 20 us + the ring allgather's
// (3 steps of 1 MB), within 2% and not below; each collective within 2% of its own closed
// form, and each starts exactly its compute after the one before ended.
func TestChakraJobClosedForm(t *testing.T) {
	dir := t.TempDir()
	writeTraces(t, dir, []uint64{10, 10, 10, 10}, []uint64{20, 20, 20, 20})
	v, err := Run(chakraScenario(t, dir), nil)
	require.NoError(t, err)
	require.Len(t, v.Jobs, 1)
	j := v.Jobs[0]
	ar := closedForm([]float64{1e6, 1e6, 1e6, 1e6, 1e6, 1e6})
	ag := closedForm([]float64{1e6, 1e6, 1e6})
	want := 10 + ar + 20 + ag
	require.Equal(t, "chakra", j.Op)
	require.Equal(t, 2, j.Iterations)
	require.Equal(t, 2, j.Completed)
	require.NotNil(t, j.JobUS)
	t.Logf("job %.2f us against %.2f (allreduce %.2f, allgather %.2f); ideal %.2f", *j.JobUS, want, ar, ag, *j.JobIdealUS)
	require.InDelta(t, want, *j.JobUS, want*0.02)
	require.GreaterOrEqual(t, *j.JobUS, want*0.999)
	require.InDelta(t, want, *j.JobIdealUS, want*1e-3, "the job's ideal is the closed forms and the compute")
	for k, c := range []struct {
		op         string
		size       int64
		wait, form float64
	}{{"allreduce", 4_000_000, 10, ar}, {"allgather", 4_000_000, 20, ag}} {
		it := j.PerIteration[k]
		require.Equal(t, c.op, it.Op)
		require.Equal(t, "ring", it.Algorithm)
		require.Equal(t, c.size, it.SizeBytes)
		require.InDelta(t, c.wait, *it.WaitUS, 1e-9, "iteration %d waits its compute", k)
		require.InDelta(t, c.form, *it.CompletionUS, c.form*0.02, "iteration %d", k)
		require.InDelta(t, c.form, *it.IdealUS, c.form*1e-3, "iteration %d's ideal", k)
	}
	require.Nil(t, j.AlgbwGbps, "a chakra job's collectives differ: no algbw of its own")
	require.Zero(t, j.BusFactor)
	require.InDelta(t, (ar+ag)/2, j.IdealUS, (ar+ag)*1e-3, "the job's ideal_us is its collectives' mean")
	// The jobs CSV gives each iteration its own op, size and ideal.
	doc := &results.Document{Scenario: "chakra", Variants: []results.Variant{*v}}
	out := t.TempDir()
	err = results.WriteDir(out, doc)
	require.NoError(t, err)
	csv, err := os.ReadFile(filepath.Join(out, results.FileJobs))
	require.NoError(t, err)
	require.Contains(t, string(csv), "v,1,trace,allgather,ring,4,4000000,1,1,")
}

// TestChakraPerRankCompute: when one rank computes longer before the allgather, no message of
// that rank goes before its compute has passed, every other message goes at the latest of
// its inputs' arrival and its sender's gate, and the allgather begins at the first gate.
func TestChakraPerRankCompute(t *testing.T) {
	dir := t.TempDir()
	writeTraces(t, dir, []uint64{10, 30, 10, 10}, []uint64{20, 20, 80, 20})
	f, err := build(chakraScenario(t, dir))
	require.NoError(t, err)
	f.runWithin(Limits{}, nil)
	j := f.jobs.Jobs()[0]
	for k := 0; k < j.Phases(); k++ {
		require.NotEqual(t, sim.Never, j.Ended(k), "phase %d did not end", k)
		first := sim.Never
		for r := range j.Ranks() {
			first = min(first, j.Gate(k, r))
		}
		require.Equal(t, first, j.Begun(k), "phase %d begins at its first gate", k)
		for m, msg := range j.Plan(k).Messages {
			want := j.Gate(k, msg.Src)
			for _, a := range msg.After {
				want = max(want, j.Arrived(k, int(a)))
			}
			require.Equal(t, want, j.Released(k, m), "phase %d message %d from rank %d", k, m, msg.Src)
		}
	}
	// The gates: rank 1 at 30 us; rank 2 80 us after the allreduce ended.
	require.Equal(t, 30*sim.Microsecond, j.Gate(0, 1))
	require.Equal(t, j.Ended(0)+80*sim.Microsecond, j.Gate(1, 2))
	require.Equal(t, j.Ended(0)+20*sim.Microsecond, j.Gate(1, 0))
}

// TestASTRASimSampleRuns runs ASTRA-sim's 4-NPU all_reduce microbenchmark (chakra/testdata,
// named by ASTRA-sim's prefix convention): one allreduce of 1 MiB with no compute, within 2%
// of the ring's closed form (6 steps of 256 KiB) and not below it.
func TestASTRASimSampleRuns(t *testing.T) {
	text := `
version: 1
name: astra
stop: 10ms
topology:
  preset: star
  params: {hosts: 4, link: {rate: 100Gbps, delay: 1us}}
transports:
  rocev2: {cc: none}
traffic:
  - chakra: {traces: all_reduce, hosts: all}
variants:
  - {name: v, transport: rocev2}
`
	f, problems, _ := scenarios.Load("../chakra/testdata/astra.yaml", []byte(text), nil)
	require.Empty(t, problems)
	v, err := Run(f.Scenario(0), nil)
	require.NoError(t, err)
	j := v.Jobs[0]
	want := closedForm([]float64{1 << 18, 1 << 18, 1 << 18, 1 << 18, 1 << 18, 1 << 18})
	require.Equal(t, "allreduce", j.PerIteration[0].Op)
	require.Equal(t, int64(1<<20), j.PerIteration[0].SizeBytes)
	require.InDelta(t, want, *j.JobUS, want*0.02)
	require.GreaterOrEqual(t, *j.JobUS, want*0.999)
	t.Logf("ASTRA-sim's sample: %.2f us against the closed form %.2f us", *j.JobUS, want)
}
