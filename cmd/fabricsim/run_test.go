package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// long runs for several seconds: a 128-host leaf-spine permutation of endless flows.
const long = `version: 1
name: long
stop: 50ms
topology:
  preset: leafspine
  params:
    leaves: 16
    spines: 8
    hosts_per_leaf: 8
    host_link: {rate: 100Gbps, delay: 1us}
    fabric_link: {rate: 100Gbps, delay: 1us}
traffic:
  - permutation: {size: 1GB, transport: rocev2}
variants:
  - {name: a}
  - {name: b, set: {switch.pfc.enabled: true}}
`

type stopDoc struct {
	Interrupted bool `json:"interrupted"`
	Variants    []struct {
		Name       string  `json:"name"`
		StopReason string  `json:"stop_reason"`
		SimTimeUS  float64 `json:"sim_time_us"`
		Events     int64   `json:"events"`
		Flows      struct {
			Incomplete int `json:"incomplete"`
		} `json:"flows"`
	} `json:"variants"`
}

func readDoc(t *testing.T, path string) stopDoc {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var d stopDoc
	require.NoError(t, json.Unmarshal(data, &d))
	return d
}

func TestRunSettingsFromTheEnvironmentAreChecked(t *testing.T) {
	path := writeFile(t, "small.yaml", small)
	for _, tc := range []struct{ env, value, want string }{
		{"FABRICSIM_SEED", "abc", `FABRICSIM_SEED: "abc": a seed is a whole number`},
		{"FABRICSIM_SEED", "-1", `FABRICSIM_SEED: "-1": a seed is a whole number`},
		{"FABRICSIM_WORKERS", "abc", `FABRICSIM_WORKERS: "abc": the number of variants run at once`},
		{"FABRICSIM_QUIET", "maybe", `FABRICSIM_QUIET: "maybe": want true or false`},
		{"FABRICSIM_FORMAT", "xml", `FABRICSIM_FORMAT: "xml": allowed: table, markdown, csv, json`},
		{"FABRICSIM_MAX_WALL", "soon", `FABRICSIM_MAX_WALL: "soon"`},
	} {
		t.Setenv(tc.env, tc.value)
		args := []string{"run", path, "-q"}
		if tc.env == "FABRICSIM_QUIET" {
			args = args[:2] // -q would win over the variable
		}
		status, _, stderr := fabricsim(t, args...)
		require.Equal(t, 2, status, "%s=%s", tc.env, tc.value)
		require.Contains(t, stderr, tc.want)
		os.Unsetenv(tc.env)
	}
	status, _, stderr := fabricsim(t, "run", path, "-q", "--workers", "-3")
	require.Equal(t, 2, status)
	require.Contains(t, stderr, `--workers: "-3"`)
	for _, bad := range []string{"-1", "abc", "", "1025"} {
		status, _, stderr = fabricsim(t, "run", path, "-q", "--threads", bad)
		require.Equal(t, 2, status, bad)
		require.Contains(t, stderr, `--threads: "`+bad+`": the threads one variant runs on, 1 to 1024 (0: the CPUs shared among the variants run at once)`)
	}
	t.Setenv("FABRICSIM_SEED", "7")
	status, out, stderr := fabricsim(t, "run", path, "-q", "--format", "json")
	require.Equal(t, 0, status, stderr)
	require.Contains(t, out, `"seed": 7`, "a good variable is used")
}

func TestOutputsAreCheckedBeforeSimulating(t *testing.T) {
	path := writeFile(t, "long.yaml", long) // would take seconds: the refusals must not
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", file}, "is a file, not a directory"},
		{[]string{"-o", filepath.Join(file, "sub")}, "is not a directory"}, // a file in the way
		{[]string{"--json", dir}, "is a directory; give a file name"},
		{[]string{"--json", filepath.Join(file, "r.json")}, "is not a directory"},
	} {
		start := time.Now()
		status, _, stderr := fabricsim(t, append([]string{"run", path, "-q"}, tc.args...)...)
		require.Equal(t, 2, status, "%v", tc.args)
		require.Contains(t, stderr, tc.want, "%v", tc.args)
		require.Less(t, time.Since(start), 2*time.Second, "%v: refused before simulating", tc.args)
	}
}

func TestAnEarlierRunsFilesNeedForce(t *testing.T) {
	path := writeFile(t, "small.yaml", small)
	dir := t.TempDir()
	status, _, stderr := fabricsim(t, "run", path, "-q", "-o", dir)
	require.Equal(t, 0, status, stderr)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		require.False(t, strings.HasSuffix(e.Name(), ".tmp"), "no temporary file left: %s", e.Name())
	}
	notes := filepath.Join(dir, "my-notes.txt")
	require.NoError(t, os.WriteFile(notes, []byte("mine"), 0o644))
	status, _, stderr = fabricsim(t, "run", path, "-q", "-o", dir)
	require.Equal(t, 2, status)
	require.Contains(t, stderr, "holds an earlier run's results")
	require.Contains(t, stderr, "--force")
	// --force removes the earlier run's files, here one variant's table that the new run
	// (one variant only) would not overwrite, and keeps the user's own.
	status, _, stderr = fabricsim(t, "run", path, "-q", "-o", dir, "--force", "--variant", "a")
	require.Equal(t, 0, status, stderr)
	require.NoFileExists(t, filepath.Join(dir, "table-b.txt"), "a stale file of the earlier run")
	require.FileExists(t, filepath.Join(dir, "table-a.txt"))
	require.FileExists(t, notes, "not a run's file: kept")
}

func TestMaxEventsStopsEachVariantExactly(t *testing.T) {
	path := writeFile(t, "long.yaml", long)
	j := filepath.Join(t.TempDir(), "r.json")
	status, out, stderr := fabricsim(t, "run", path, "-q", "--max-events", "100000", "--json", j)
	require.Equal(t, 3, status, stderr)
	require.Contains(t, stderr, "stopped by --max-events 100000")
	require.Contains(t, out, "| a ", "the table is printed")
	d := readDoc(t, j)
	require.True(t, d.Interrupted)
	for _, v := range d.Variants {
		require.Equal(t, "max-events", v.StopReason)
		require.EqualValues(t, 100000, v.Events, "%s: exactly the bound", v.Name)
		require.Less(t, v.SimTimeUS, 50_000.0)
		require.Equal(t, 128, v.Flows.Incomplete)
	}
}

// TestMaxEventsOfExactlyTheRunsEvents: a bound equal to the events a run executes unbounded
// lets it end as it would (exit 0, not interrupted, the same document), whether it ends at
// its stop time with a flow unfinished (its timers still pending) or when its last flow
// ends; one event fewer stops it.
func TestMaxEventsOfExactlyTheRunsEvents(t *testing.T) {
	for _, stop := range []string{"50us", "5ms"} {
		path := writeFile(t, "one.yaml", `version: 1
name: one
stop: `+stop+`
topology:
  preset: star
  params: {hosts: 3, link: {rate: 100Gbps, delay: 1us}}
traffic:
  - flow: {src: h1, dst: h3, size: 1MB, transport: rocev2}
`)
		dir := t.TempDir()
		whole := filepath.Join(dir, "whole.json")
		status, _, stderr := fabricsim(t, "run", path, "-q", "--json", whole)
		require.Equal(t, 0, status, stderr)
		need := readDoc(t, whole).Variants[0].Events

		exact := filepath.Join(dir, "exact.json")
		status, _, stderr = fabricsim(t, "run", path, "-q", "--max-events", fmt.Sprint(need), "--json", exact)
		require.Equal(t, 0, status, "stop %s: --max-events %d, the events the run needs: %s", stop, need, stderr)
		d := readDoc(t, exact)
		require.False(t, d.Interrupted, "stop %s", stop)
		require.Empty(t, d.Variants[0].StopReason, "stop %s", stop)
		require.Equal(t, resultsWithoutWallTime(t, whole), resultsWithoutWallTime(t, exact), "stop %s", stop)

		status, _, stderr = fabricsim(t, "run", path, "-q", "--max-events", fmt.Sprint(need-1))
		require.Equal(t, 3, status, "stop %s: one event short", stop)
		require.Contains(t, stderr, "stopped by --max-events")
	}
}

func TestMaxWallStopsTheRun(t *testing.T) {
	path := writeFile(t, "long.yaml", long)
	j := filepath.Join(t.TempDir(), "r.json")
	start := time.Now()
	status, _, stderr := fabricsim(t, "run", path, "-q", "--max-wall", "300ms", "--json", j)
	require.Equal(t, 3, status, stderr)
	require.Less(t, time.Since(start), 5*time.Second)
	require.Contains(t, stderr, "stopped by --max-wall 300ms")
	d := readDoc(t, j)
	require.True(t, d.Interrupted)
	require.Equal(t, "max-wall", d.Variants[0].StopReason)
}

// TestSignalWritesTheResultsSoFar runs the real binary, sends it SIGINT (and, in a second
// run, SIGTERM) mid-run, and expects exit 130 and a whole results document marked
// interrupted.
func TestSignalWritesTheResultsSoFar(t *testing.T) {
	slow(t, "builds the binary and runs it twice")
	bin := filepath.Join(t.TempDir(), "fabricsim")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))
	path := writeFile(t, "long.yaml", long)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		dir := t.TempDir()
		cmd := exec.Command(bin, "run", path, "-q", "-o", dir)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		time.Sleep(700 * time.Millisecond)
		require.NoError(t, cmd.Process.Signal(sig))
		err := cmd.Wait()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "%v: %s", sig, stderr.String())
		require.Equal(t, 130, exit.ExitCode(), "%v: %s", sig, stderr.String())
		require.Contains(t, stderr.String(), "interrupted at")
		// After the signal, it says that the files are being written, and how to abort.
		require.Contains(t, stderr.String(), fmt.Sprintf("fabricsim: %s: stopping the simulation; the results so far will be written", map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[sig]))
		require.Contains(t, stderr.String(), "fabricsim: writing the results so far to "+dir+"; a second Ctrl-C or SIGTERM aborts")
		d := readDoc(t, filepath.Join(dir, "results.json"))
		require.True(t, d.Interrupted, "%v", sig)
		for _, v := range d.Variants {
			require.Equal(t, "signal", v.StopReason)
			require.Greater(t, v.SimTimeUS, 0.0, "%v: %s simulated something before the signal", sig, v.Name)
		}
		require.FileExists(t, filepath.Join(dir, "flows.csv"))
	}
}

// TestResolvedScenarioReruns: the results document records the scenario as run (after --set
// and --seed) and the overrides; that YAML, run with no flag, gives the same results.
func TestResolvedScenarioReruns(t *testing.T) {
	path := writeFile(t, "small.yaml", small)
	dir := t.TempDir()
	first := filepath.Join(dir, "first.json")
	status, _, stderr := fabricsim(t, "run", path, "-q", "--seed", "9", "--set", "switch.buffer=300KB", "--json", first)
	require.Equal(t, 0, status, stderr)
	var doc struct {
		Resolved  string   `json:"resolved_scenario"`
		Overrides []string `json:"overrides"`
		Seed      uint64   `json:"seed"`
	}
	data, err := os.ReadFile(first)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &doc))
	require.Equal(t, []string{"seed=9", "switch.buffer=300KB"}, doc.Overrides)
	require.EqualValues(t, 9, doc.Seed)
	require.Contains(t, doc.Resolved, "300KB")
	again := writeFile(t, "resolved.yaml", doc.Resolved)
	second := filepath.Join(dir, "second.json")
	status, _, stderr = fabricsim(t, "run", again, "-q", "--json", second)
	require.Equal(t, 0, status, stderr)
	strip := func(p string) map[string]any {
		var m map[string]any
		require.NoError(t, json.Unmarshal(resultsWithoutWallTime(t, p), &m))
		delete(m, "overrides")
		return m
	}
	require.Equal(t, strip(first), strip(second))
}

func TestSeedsReplicateAndReportIntervals(t *testing.T) {
	path := writeFile(t, "small.yaml", small)
	j := filepath.Join(t.TempDir(), "r.json")
	status, out, stderr := fabricsim(t, "run", path, "-q", "--seeds", "4", "--json", j)
	require.Equal(t, 0, status, stderr)
	require.Contains(t, out, "mean ±95% confidence half-width over the seeds")
	require.Regexp(t, `\| a +\| rocev2 +\| +4 \|`, out, "a row per variant, with its number of seeds")
	data, err := os.ReadFile(j)
	require.NoError(t, err)
	var doc struct {
		Variants []struct {
			Name string  `json:"name"`
			Seed uint64  `json:"seed"`
			Good float64 `json:"goodput_gbps"`
		} `json:"variants"`
		Replication []struct {
			Name    string   `json:"name"`
			Seeds   []uint64 `json:"seeds"`
			Metrics map[string]struct {
				Mean   float64   `json:"mean"`
				CI95   float64   `json:"ci95"`
				Values []float64 `json:"values"`
			} `json:"metrics"`
		} `json:"replication"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	require.Len(t, doc.Variants, 8, "two variants, four seeds each")
	require.Equal(t, []uint64{3, 4, 5, 6}, doc.Replication[0].Seeds, "the file's seed 3 and the three after it")
	// The interval is Student's: t(0.975, 3) = 3.182 times the sample deviation over 2.
	var g []float64
	for _, v := range doc.Variants[:4] {
		require.Equal(t, "a", v.Name)
		g = append(g, v.Good)
	}
	mean := (g[0] + g[1] + g[2] + g[3]) / 4
	ss := 0.0
	for _, x := range g {
		ss += (x - mean) * (x - mean)
	}
	want := 3.182446305284263 * math.Sqrt(ss/3) / 2
	e := doc.Replication[0].Metrics["goodput_gbps"]
	require.InDelta(t, mean, e.Mean, 1e-9)
	require.InDelta(t, want, e.CI95, 1e-9)
	require.Equal(t, g, e.Values)
	require.Positive(t, e.CI95, "the loss is random: seeds differ")

	status, out, _ = fabricsim(t, "run", path, "-q", "--seeds", "2", "--format", "csv")
	require.Equal(t, 0, status)
	require.Contains(t, out, "variant,transport,seed,flows_completed,flows_total,")
	require.Contains(t, out, "variant,transport,seeds,completed_mean,completed_ci95,")
	status, _, stderr = fabricsim(t, "run", path, "-q", "--seeds", "0")
	require.Equal(t, 2, status)
	require.Contains(t, stderr, "--seeds")
}
