package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// jobsDoc is a document with one variant running one two-iteration job, the second
// iteration unfinished.
func jobsDoc() *Document {
	t0, a, b := 100.0, 0.0, 0.0
	a, b = Bandwidths(8_000_000, t0, 1.75)
	start0, start1, slow := 0.0, 105.0, 20.0
	return &Document{Scenario: "jobs", Variants: []Variant{{Name: "RoCEv2", PerFlow: []Flow{}, Jobs: []Job{{
		Label: "train", Op: "allreduce", Algorithm: "ring", Ranks: 8, SizeBytes: 8_000_000, Channels: 2,
		Iterations: 2, Completed: 1, CompletionUS: &t0, AlgbwGbps: &a, BusbwGbps: &b, BusFactor: 1.75, IdealUS: 95.5,
		PerIteration: []JobIteration{
			{Iteration: 0, StartUS: &start0, CompletionUS: &t0, AlgbwGbps: &a, BusbwGbps: &b, SlowestStep: 3, SlowestRank: 2,
				SlowestHost: "h3", SlowestStepUS: &slow, Arrived: 112, Messages: 112, StepEndUS: []float64{10, 30, 100}},
			{Iteration: 1, StartUS: &start1, Arrived: 40, Messages: 112},
		}}}}}}
}

// TestBandwidths is nccl-tests' arithmetic: 8 MB in 100 us is 640 Gb/s of algbw.
func TestBandwidths(t *testing.T) {
	a, b := Bandwidths(8_000_000, 100, 1.75)
	require.InDelta(t, 640.0, a, 1e-9)
	require.InDelta(t, 1120.0, b, 1e-9)
}

// TestJobsRendered: the jobs table under the main one, jobs.csv with a row per iteration
// (empty cells for the unfinished one) and the steps plot, in an output directory; with
// two iterations, no per-iteration plot.
func TestJobsRendered(t *testing.T) {
	d := jobsDoc()
	var tb strings.Builder
	require.NoError(t, WriteTable(&tb, d, FormatTable))
	require.Contains(t, tb.String(), "collectives (time_us: mean iteration")
	require.Contains(t, tb.String(), "| RoCEv2  | train | allreduce | ring      |     8 |        1/2 |  100.00 |    95.50 |     640.00 |    1120.00 | iter 0 step 3 at h3 |")
	var md strings.Builder
	require.NoError(t, WriteTable(&md, d, FormatMarkdown))
	require.Contains(t, md.String(), "| RoCEv2  | train | allreduce | ring      |     8 |        1/2 |  100.00 |    95.50 |     640.00 |    1120.00 | iter 0 step 3 at h3 |\n")

	var csv strings.Builder
	require.NoError(t, writeJobsCSV(&csv, d))
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	require.Len(t, lines, 3)
	require.Equal(t, strings.Join(jobsCSVHeader, ","), lines[0])
	require.Equal(t, "RoCEv2,0,train,allreduce,ring,8,8000000,2,0,0,100,95.5,640,1120,3,2,h3,20,112,112", lines[1])
	require.Equal(t, "RoCEv2,0,train,allreduce,ring,8,8000000,2,1,105,,95.5,,,0,0,,,40,112", lines[2])

	dir := t.TempDir()
	files, err := WriteDirFiles(dir, d)
	require.NoError(t, err)
	require.Contains(t, files, FileJobs)
	require.NotContains(t, files, "jobs-iterations.png", "two iterations: no line through them (minIterationsLine)")
	require.Contains(t, files, "jobs-steps.png")
	names := RunFileNames([]string{"RoCEv2"})
	for _, f := range files {
		require.Contains(t, names, f, "every file written is one RunFileNames lists (--force removes those)")
	}
	_, err = os.Stat(filepath.Join(dir, "jobs-steps.svg"))
	require.NoError(t, err)

	// Without collectives: no jobs.csv, no plot, nothing said of it.
	d.Variants[0].Jobs = nil
	files, err = WriteDirFiles(t.TempDir(), d)
	require.NoError(t, err)
	require.NotContains(t, files, FileJobs)
	_, omitted, err := Figures(d)
	require.NoError(t, err)
	for _, o := range omitted {
		require.NotContains(t, o.Name, "jobs-")
	}
}
