package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// sweepScenario is the sweep package's test scenario, which runs in milliseconds, with a
// sweep block.
func sweepScenario(t *testing.T) string {
	data, err := os.ReadFile("../../sweep/testdata/tiny.yaml")
	require.NoError(t, err)
	return string(data) + "sweep:\n  switch.ecn.kmax: [20KB, 50KB]\n"
}

func TestSweepShardsAndMergeOnTheCommandLine(t *testing.T) {
	path := writeFile(t, "tiny.yaml", sweepScenario(t))
	root := t.TempDir()
	whole := filepath.Join(root, "whole")
	status, stdout, stderr := fabricsim(t, "sweep", path, "--grid", "seed=1..2", "-o", whole, "--workers", "2")
	require.Equal(t, 0, status, stderr)
	require.Equal(t, whole+": 4 points in "+whole+"/points, sweep.csv, sweep.json, plots/, report.html\n", stdout)
	require.Contains(t, stderr, "fabricsim sweep: 4 points of tiny-sweep into "+whole+", 2 at a time")
	require.Contains(t, stderr, "[4/4]")

	var dirs []string
	for _, shard := range []string{"0/2", "1/2"} {
		d := filepath.Join(root, "shard"+shard[:1])
		status, stdout, stderr = fabricsim(t, "sweep", path, "--grid", "seed=1..2", "--shard", shard, "-o", d, "-q")
		require.Equal(t, 0, status, stderr)
		require.Empty(t, stderr)
		require.Contains(t, stdout, "(shard "+shard+": merge the shards with fabricsim merge)")
		dirs = append(dirs, d)
	}
	merged := filepath.Join(root, "merged")
	status, stdout, stderr = fabricsim(t, append([]string{"merge", "-o", merged}, dirs...)...)
	require.Equal(t, 0, status, stderr)
	require.Equal(t, merged+": 4 points from 2 directories, sweep.csv, sweep.json, plots/, report.html\n", stdout)
	for _, name := range []string{"sweep.csv", "sweep.json", "report.html"} {
		a, err := os.ReadFile(filepath.Join(whole, name))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(merged, name))
		require.NoError(t, err)
		require.Equal(t, string(a), string(b), name)
	}

	status, _, stderr = fabricsim(t, "merge", dirs[0], "-o", filepath.Join(root, "m2"))
	require.Equal(t, 2, status)
	require.Contains(t, stderr, "merge: 2 of the sweep's 4 points have no results")
}

func TestSweepUsageErrorsExitTwo(t *testing.T) {
	path := writeFile(t, "tiny.yaml", sweepScenario(t))
	out := filepath.Join(t.TempDir(), "out")
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"sweep", path}, "give the output directory with -o DIR"},
		{[]string{"sweep", path, "-o", out, "--grid", "switch.ecn.kmax"}, "want PATH=V1,V2"},
		{[]string{"sweep", path, "-o", out, "--grid", "switch.ecn.kmax=20KB,zz"}, `--grid switch.ecn.kmax=zz: switch.ecn.kmax: size "zz" does not start with a number`},
		{[]string{"sweep", path, "-o", out, "--grid", "switch.pfc.enabeld=true,false"}, `unknown field "enabeld" in switch.pfc (did you mean "enabled"?)`},
		{[]string{"sweep", path, "-o", out, "--shard", "2/2"}, "want I/N with 0 <= I < N"},
		{[]string{"sweep", path, "-o", out, "--workers", "-1"}, `--workers: "-1": the number of points run at once`},
		{[]string{"sweep", path, "-o", out, "--threads", "x"}, `--threads: "x": the threads one point runs on, 1 to 1024 (0: the CPUs shared among the points run at once)`},
		{[]string{"sweep", "no-such", "-o", out}, "no such file, and no bundled scenario"},
		{[]string{"merge", "-o", out, filepath.Join(out, "nothing")}, "no sweep.json"},
		{[]string{"merge", out}, "give the output directory with -o DIR"},
	} {
		status, stdout, stderr := fabricsim(t, c.args...)
		require.Equal(t, 2, status, c.args)
		require.Empty(t, stdout, c.args)
		require.Contains(t, stderr, c.msg, c.args)
	}
	t.Setenv("FABRICSIM_WORKERS", "many")
	status, _, stderr := fabricsim(t, "sweep", path, "-o", out)
	require.Equal(t, 2, status)
	require.Contains(t, stderr, `FABRICSIM_WORKERS: "many": the number of points run at once`)
}

// TestRunWarnsOfASweepBlock: run simulates a file's own values once and says that its sweep:
// block is for fabricsim sweep, rather than ignoring it silently.
func TestRunWarnsOfASweepBlock(t *testing.T) {
	path := writeFile(t, "tiny.yaml", sweepScenario(t))
	status, _, stderr := fabricsim(t, "run", path, "-q")
	require.Equal(t, 0, status, stderr)
	require.Contains(t, stderr, "warning: "+path+" has a sweep: block (1 parameter(s)); run simulates the file's own values once; fabricsim sweep "+path+" -o DIR runs the grid")
}
