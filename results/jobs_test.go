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
		MessageBytesMin: 500_000, MessageBytesMax: 500_000, // 8 MB / 8 ranks / 2 channels
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
	require.Contains(t, tb.String(), "| RoCEv2  | train | allreduce | ring      |     8 |    8000000 |        500000 |        1/2 |  100.00 |    95.50 |     640.00 |    1120.00 | iter 0 step 3 at h3 |")
	var md strings.Builder
	require.NoError(t, WriteTable(&md, d, FormatMarkdown))
	require.Contains(t, md.String(), "| RoCEv2  | train | allreduce | ring      |     8 |    8000000 |        500000 |        1/2 |  100.00 |    95.50 |     640.00 |    1120.00 | iter 0 step 3 at h3 |\n")

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
	// The collectives table, with the message size, in summary.md and report.html too.
	for _, name := range []string{"summary.md", FileReport} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		require.Contains(t, string(data), "Collectives", name)
		require.Contains(t, string(data), "size_bytes", name)
		require.Contains(t, string(data), "iter 0 step 3 at h3", name)
	}
	md.Reset()
	require.NoError(t, writeMarkdownTables(&md, ComparisonTables(d)))
	require.Contains(t, md.String(), "| RoCEv2  | train | allreduce | ring      |     8 |    8000000 |        500000 |        1/2 |  100.00 |    95.50 |     640.00 |    1120.00 | iter 0 step 3 at h3 |\n")

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

// TestJobsReplicated: a job run under two seeds is summarised per metric, under its key, as
// the mean and Student's t half-width of the seeds' values, in results.json's replication,
// the CLI's table and the comparison tables of the report and summary.md.
func TestJobsReplicated(t *testing.T) {
	one, two := jobsDoc().Variants[0], jobsDoc().Variants[0]
	one.Seed, two.Seed = 1, 2
	t2 := 140.0
	a2, b2 := Bandwidths(8_000_000, t2, 1.75)
	two.Jobs[0].CompletionUS, two.Jobs[0].AlgbwGbps, two.Jobs[0].BusbwGbps = &t2, &a2, &b2
	d := &Document{Scenario: "jobs", Variants: []Variant{one, two}}
	Replicate(d)
	require.Len(t, d.Replication, 1)
	m := d.Replication[0].Metrics
	// Two values 100 and 140: mean 120, s = 28.28, t(0.975, 1) = 12.706, half-width
	// 12.706 x 28.28 / sqrt(2) = 254.12.
	e := m[JobMetricKey("train", "time_us")]
	require.InDelta(t, 120, e.Mean, 1e-9)
	require.InDelta(t, 12.7062047*20, e.CI95, 1e-4)
	require.Equal(t, []float64{100, 140}, e.Values)
	require.InDelta(t, (1120+b2)/2, m[JobMetricKey("train", "busbw_gbps")].Mean, 1e-9)
	require.Equal(t, Estimate{Mean: 8e6, Values: []float64{8e6, 8e6}}, m[JobMetricKey("train", "size_bytes")])

	var tb strings.Builder
	require.NoError(t, WriteTable(&tb, d, FormatTable))
	require.Contains(t, tb.String(), "| RoCEv2  | train | allreduce | ring      |     8 |     2 |    8000000 | 120.00 ±254.12 |")
	tables := ComparisonTables(d)
	require.Equal(t, "table-collectives", tables[len(tables)-1].ID)
	require.Equal(t, []string{"RoCEv2", "train", "allreduce", "ring", "8", "2", "8000000", "120.00 ±254.12", "95.50 ±0.00"},
		tables[len(tables)-1].Rows[0][:9])
}
