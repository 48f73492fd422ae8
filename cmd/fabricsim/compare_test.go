package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCompareTwoRuns: compare of a run's directory and another's results.json lines up
// each metric of each variant with b - a computed from the two documents, writes
// compare.csv and the overlaid plots with -o, and refuses what is not a run.
func TestCompareTwoRuns(t *testing.T) {
	// Five flows: the FCT distribution is drawn from 5 flows a variant (results' minCDFFlows).
	three := "  - flow: {src: h1, dst: h2, size: 100KB, transport: rocev2}\n  - flow: {src: h2, dst: h1, size: 100KB, transport: rocev2}\n  - flow: {src: h3, dst: h1, size: 100KB, transport: rocev2}\n"
	path := writeFile(t, "small.yaml", strings.Replace(small, "traffic:\n", "traffic:\n"+three, 1))
	a := filepath.Join(t.TempDir(), "a")
	status, _, stderr := fabricsim(t, "run", path, "-q", "-o", a)
	require.Equal(t, 0, status, stderr)
	b := filepath.Join(t.TempDir(), "b.json")
	status, _, stderr = fabricsim(t, "run", path, "-q", "--set", "switch.buffer=100KB", "--json", b)
	require.Equal(t, 0, status, stderr)
	out := filepath.Join(t.TempDir(), "cmp")
	status, stdout, stderr := fabricsim(t, "compare", a, b, "-o", out)
	require.Equal(t, 0, status, stderr)
	require.Contains(t, stdout, "goodput_gbps")

	goodput := func(file string) []float64 {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		var d struct {
			Variants []struct {
				Goodput float64 `json:"goodput_gbps"`
			}
		}
		require.NoError(t, json.Unmarshal(data, &d))
		return []float64{d.Variants[0].Goodput, d.Variants[1].Goodput}
	}
	ga, gb := goodput(filepath.Join(a, "results.json")), goodput(b)
	f, err := os.Open(filepath.Join(out, "compare.csv"))
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"variant", "metric", "a", "b", "delta", "change"}, rows[0])
	seen := 0
	for _, r := range rows[1:] {
		if r[1] != "goodput_gbps" {
			continue
		}
		k := map[string]int{"a": 0, "b": 1}[r[0]]
		got := func(s string) float64 { x, err := strconv.ParseFloat(s, 64); require.NoError(t, err); return x }
		require.Equal(t, ga[k], got(r[2]), r[0])
		require.Equal(t, gb[k], got(r[3]), r[0])
		require.InDelta(t, gb[k]-ga[k], got(r[4]), 1e-9, r[0])
		seen++
	}
	require.Equal(t, 2, seen, "both variants")
	for _, name := range []string{"fct-cdf-compare.png", "fct-cdf-compare.svg", "fct-cdf-compare.pdf"} {
		require.FileExists(t, filepath.Join(out, name))
	}
	for _, args := range [][]string{
		{"compare", a},                                // one run
		{"compare", a, filepath.Join(a, "nope")},      // no such file
		{"compare", a, t.TempDir()},                   // a directory with no results.json
		{"compare", a, b, "-o", a},                    // -o not empty
		{"compare", a, b, "--format", "yaml"},         // no such format
		{"compare", a, filepath.Join(a, "flows.csv")}, // not a results document
	} {
		status, _, stderr := fabricsim(t, args...)
		require.Equal(t, 2, status, "%v: %s", args, stderr)
		require.NotContains(t, stderr, "panic")
	}
}

// TestCompareSaysWhatDiffers (issue 34, point 7): counters are whole numbers (not
// 35783.00), and under the table compare says how the two runs' resolved scenarios differ,
// field by field, and that they were made by different versions.
func TestCompareSaysWhatDiffers(t *testing.T) {
	path := writeFile(t, "small.yaml", small)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	status, _, stderr := fabricsim(t, "run", path, "-q", "--json", a)
	require.Equal(t, 0, status, stderr)
	status, _, stderr = fabricsim(t, "run", path, "-q", "--set", "switch.buffer=100KB", "--seed", "8", "--json", b)
	require.Equal(t, 0, status, stderr)

	status, stdout, stderr := fabricsim(t, "compare", a, b)
	require.Equal(t, 0, status, stderr)
	require.Regexp(t, `\| a +\| drops +\| +[0-9]+ \| +[0-9]+ \| +-?[0-9]+ \|`, stdout, "a count is a whole number")
	require.Regexp(t, `\| a +\| fct_p50_us +\| +[0-9]+\.[0-9]{2} \|`, stdout, "a time keeps two decimals")
	require.Contains(t, stdout, "note: the scenarios differ in 2 field(s):\n  seed: 3 in a, 8 in b\n  switch.buffer: not set in a (its default), 100KB in b\n")
	require.NotContains(t, stdout, "versions differ")

	status, stdout, stderr = fabricsim(t, "compare", a, a)
	require.Equal(t, 0, status, stderr)
	require.Contains(t, stdout, "note: the two runs' resolved scenarios are the same")

	data, err := os.ReadFile(b)
	require.NoError(t, err)
	older := filepath.Join(dir, "older.json")
	require.NoError(t, os.WriteFile(older, []byte(strings.Replace(string(data), `"version": "fabricsim `, `"version": "fabricsim 0.0.9-`, 1)), 0o644))
	status, stdout, stderr = fabricsim(t, "compare", a, older)
	require.Equal(t, 0, status, stderr)
	require.Contains(t, stdout, "note: versions differ: a was made by fabricsim ")
}
