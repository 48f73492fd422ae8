package sweep

import (
	"bytes"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/scenarios"
)

// tiny is testdata/tiny.yaml, a scenario that runs in milliseconds.
var tiny = func() string {
	data, err := os.ReadFile("testdata/tiny.yaml")
	if err != nil {
		panic(err)
	}
	return string(data)
}()

// parsed parses each argument with parse, failing the test on an error.
func parsed[T any](t *testing.T, parse func(string) (T, error), args ...string) []T {
	t.Helper()
	var out []T
	for _, a := range args {
		v, err := parse(a)
		require.NoError(t, err, a)
		out = append(out, v)
	}
	return out
}

func grid(t *testing.T, args ...string) []scenarios.Axis {
	t.Helper()
	return parsed(t, scenarios.ParseGrid, args...)
}

func plan(t *testing.T, yaml string, sets []string, args ...string) *Plan {
	t.Helper()
	p, err := NewPlan("tiny.yaml", []byte(yaml), parsed(t, scenarios.ParseOverride, sets...), grid(t, args...))
	require.NoError(t, err)
	return p
}

func TestPlanIsTheProductLastAxisFastest(t *testing.T) {
	p := plan(t, tiny, nil, "switch.ecn.kmax=20KB,50KB,100KB", "seed=1..4")
	require.Len(t, p.Points, 12)
	names := map[string]bool{}
	for k, pt := range p.Points {
		require.Equal(t, k, pt.Index)
		require.Equal(t, []string{[]string{"20KB", "50KB", "100KB"}[k/4], []string{"1", "2", "3", "4"}[k%4]}, pt.Values)
		require.False(t, names[pt.Name], pt.Name)
		names[pt.Name] = true
		require.Len(t, pt.Hash, 64)
	}
	require.Equal(t, "05_kmax-50kb_seed-2", p.Points[5].Name)
	require.Equal(t, []string{"switch.ecn.kmax=50KB", "seed=2"}, p.Points[5].Overrides)
	require.Equal(t, uint64(2), p.Points[5].file.Scenario(0).Seed)
	require.Equal(t, int64(50_000), p.Points[5].file.Scenario(1).Switch.ECN.Kmax)

	// The file's sweep block, with --grid replacing an axis of the same path and adding
	// others; the file's seeds become the seed axis; every point empties both.
	withBlock := tiny + "seeds: [7, 8]\nsweep:\n  switch.ecn.kmax: [20KB, 40KB]\n  switch.buffer: logspace(100KB,1MB,3)\n"
	p = plan(t, withBlock, []string{"stop=1ms"}, "switch.buffer=300KB,400KB", "hosts.jitter=0,5ns")
	var paths []string
	for _, a := range p.Axes {
		paths = append(paths, a.Path)
	}
	require.Equal(t, []string{"switch.ecn.kmax", "switch.buffer", "hosts.jitter", "seed"}, paths)
	require.Len(t, p.Points, 2*2*2*2)
	require.Equal(t, []string{"stop=1ms", "switch.ecn.kmax=20KB", "switch.buffer=300KB", "hosts.jitter=0", "seed=8",
		"seeds=null", "sweep=null"}, p.Points[1].Overrides)
	sc := p.Points[1].file.Scenario(0)
	require.Equal(t, uint64(8), sc.Seed)
	require.Nil(t, sc.Seeds, "a point runs one seed")
	require.Nil(t, p.Points[1].file.Sweep())
}

func TestPlanRefusesBadValuesNamingThePath(t *testing.T) {
	for _, c := range []struct {
		grid []string
		msg  string
	}{
		{[]string{"switch.ecn.kmax=20KB,abc"}, `--grid switch.ecn.kmax=abc: switch.ecn.kmax: size "abc" does not start with a number; want e.g. 4MB (units: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)`},
		{[]string{"switch.ecn.kmaxx=1KB"}, `--grid switch.ecn.kmaxx=1KB: switch.ecn.kmaxx: unknown field "kmaxx" in switch.ecn (did you mean "kmax"?)`},
		{[]string{"switch.ecn.kmax=1KB"}, "--grid switch.ecn.kmax=1KB: tiny.yaml:11:30: switch.ecn.kmin: kmin (5000 bytes) must not exceed kmax (1000 bytes)"},
		{[]string{"switch.ecn.kmin=5KB,40KB", "switch.ecn.kmax=30KB,100KB"}, "point 2_kmin-40kb_kmax-30kb: switch.ecn.kmin: kmin (40000 bytes) must not exceed kmax (30000 bytes)"},
		{nil, "nothing to sweep"},
		{[]string{"seed=1..1000", "switch.ecn.pmax=linspace(0.1,1,11)"}, "more than 10000 points"},
		// A path given twice is refused, not run with its last values alone.
		{[]string{"switch.buffer=1MB", "seed=1,2", "switch.buffer=2MB"}, "--grid switch.buffer is given twice (1MB, then 2MB): give all its values in one --grid, e.g. --grid switch.buffer=1MB,2MB"},
	} {
		_, err := NewPlan("tiny.yaml", []byte(tiny), nil, grid(t, c.grid...))
		var ie *InputError
		require.ErrorAs(t, err, &ie, c.grid)
		require.Contains(t, err.Error(), c.msg, c.grid)
	}
}

func TestShardsCoverEveryPointOnce(t *testing.T) {
	p := plan(t, tiny, nil, "switch.ecn.kmax=20KB,50KB,100KB", "seed=1..7")
	for n := 1; n <= 25; n++ {
		seen := make([]int, len(p.Points))
		for i := range n {
			for _, pt := range p.Shard(i, n) {
				seen[pt.Index]++
			}
		}
		for k, c := range seen {
			require.Equal(t, 1, c, "point %d with %d shards", k, n)
		}
	}
	for _, bad := range []string{"4/4", "-1/4", "0/0", "1", "a/b", "1/2/3"} {
		_, _, err := ParseShard(bad)
		require.ErrorContains(t, err, "0 <= I < N", bad)
	}
	i, n, err := ParseShard("3/4")
	require.NoError(t, err)
	require.Equal(t, []int{3, 4}, []int{i, n})
}

// files reads every file under dir, by path relative to dir.
func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	require.NoError(t, filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		out[rel] = data
		return err
	}))
	return out
}

var wallSeconds = regexp.MustCompile(`"wall_seconds": [0-9.e+-]+`)

func TestMergedShardsAreTheWholeSweepByteForByte(t *testing.T) {
	p := plan(t, tiny, nil, "switch.ecn.kmax=20KB,50KB,100KB", "seed=1..3")
	whole := t.TempDir()
	require.NoError(t, Run(p, Options{Dir: whole, Workers: 2}))
	root := t.TempDir()
	var shards []string
	for i := range 4 {
		d := filepath.Join(root, "shard", string(rune('0'+i)))
		require.NoError(t, Run(p, Options{Dir: d, Shard: i, Shards: 4, Workers: 1}))
		shards = append(shards, d)
	}
	merged := filepath.Join(root, "merged")
	require.NoError(t, Merge(shards, merged, false))

	w, m := files(t, whole), files(t, merged)
	require.Equal(t, slices.Sorted(mapKeys(w)), slices.Sorted(mapKeys(m)))
	require.Contains(t, w, "report.html")
	require.Contains(t, w, "plots/fct_p99_us-vs-switch-ecn-kmax.png")
	for name, data := range w {
		if strings.HasPrefix(name, DirPoints+"/") {
			// A point's document holds its wall-clock time: merged, it is the shard's copy
			// byte for byte, and the whole sweep's but for that figure.
			shard := shards[indexOfPoint(t, p, name)%4]
			own, err := os.ReadFile(filepath.Join(shard, name))
			require.NoError(t, err)
			require.Equal(t, own, m[name], name)
			require.Equal(t, wallSeconds.ReplaceAllString(string(data), "x"), wallSeconds.ReplaceAllString(string(m[name]), "x"), name)
			continue
		}
		require.True(t, bytes.Equal(data, m[name]), "%s differs between the whole sweep and the merged shards", name)
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func indexOfPoint(t *testing.T, p *Plan, file string) int {
	for _, pt := range p.Points {
		if DirPoints+"/"+pt.Name+".json" == file {
			return pt.Index
		}
	}
	t.Fatalf("%s is no point of the plan", file)
	return 0
}

func TestRerunSkipsPointsWithResults(t *testing.T) {
	p := plan(t, tiny, nil, "switch.ecn.kmax=20KB,50KB", "seed=1..2")
	dir := t.TempDir()
	ran := func(p *Plan, force ...bool) []string {
		var mu sync.Mutex
		var names []string
		require.NoError(t, Run(p, Options{Dir: dir, Workers: 2, Force: len(force) > 0, Progress: func(_, _ int, pt Point, skipped bool, _ time.Duration) {
			mu.Lock()
			defer mu.Unlock()
			if !skipped {
				names = append(names, pt.Name)
			}
		}}))
		slices.Sort(names)
		return names
	}
	require.Len(t, ran(p), 4)
	before := files(t, dir)
	require.Empty(t, ran(p), "a rerun runs nothing")
	require.Equal(t, before, files(t, dir), "and writes the same bytes")

	// A missing, damaged or interrupted point runs again; the others do not.
	require.NoError(t, os.Remove(filepath.Join(dir, DirPoints, p.Points[1].Name+".json")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, DirPoints, p.Points[2].Name+".json"), []byte("{"), 0o644))
	doc := before[DirPoints+"/"+p.Points[3].Name+".json"]
	interrupted := bytes.Replace(doc, []byte(`"interrupted": false`), []byte(`"interrupted": true`), 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, DirPoints, p.Points[3].Name+".json"), interrupted, 0o644))
	require.Equal(t, []string{p.Points[1].Name, p.Points[2].Name, p.Points[3].Name}, ran(p))

	// A changed scenario (here a --set) is another sweep: refused, since its points would
	// replace these; with Force every point's hash differs and all run again.
	changed := plan(t, tiny, []string{"stop=1500us"}, "switch.ecn.kmax=20KB,50KB", "seed=1..2")
	require.ErrorContains(t, Run(changed, Options{Dir: dir}), "holds another sweep (scenario tiny-sweep")
	require.Len(t, ran(changed, true), 4)

	// Another sweep's points are refused, or removed with Force; so are points of no sweep
	// the directory's sweep.json names.
	other := plan(t, tiny, nil, "switch.ecn.kmax=30KB")
	err := Run(other, Options{Dir: dir})
	require.ErrorContains(t, err, "holds another sweep")
	require.NoError(t, os.Remove(filepath.Join(dir, FileJSON)))
	require.ErrorContains(t, Run(other, Options{Dir: dir}), "no point of this sweep")
	require.NoError(t, Run(other, Options{Dir: dir, Force: true}))
	require.Len(t, files(t, filepath.Join(dir, DirPoints)), 1)
}

func TestMergeRefusesMissingPointsAndOtherSweeps(t *testing.T) {
	p := plan(t, tiny, nil, "switch.ecn.kmax=20KB,50KB", "seed=1..3")
	root := t.TempDir()
	var shards []string
	for i := range 3 {
		d := filepath.Join(root, string(rune('a'+i)))
		require.NoError(t, Run(p, Options{Dir: d, Shard: i, Shards: 3}))
		shards = append(shards, d)
	}
	var ie *InputError
	err := Merge(shards[:2], filepath.Join(root, "out"), false)
	require.ErrorAs(t, err, &ie)
	require.ErrorContains(t, err, "2 of the sweep's 6 points have no results")
	require.ErrorContains(t, err, "2_kmax-20kb_seed-3, 5_kmax-50kb_seed-3")
	require.ErrorContains(t, err, "they are points of shard 2/3")

	// A shard whose point was removed after it ran.
	require.NoError(t, os.Remove(filepath.Join(shards[0], DirPoints, p.Points[3].Name+".json")))
	err = Merge(shards, filepath.Join(root, "out"), false)
	require.ErrorContains(t, err, "1 of the sweep's 6 points have no results")

	other := plan(t, tiny, nil, "switch.ecn.kmax=20KB,50KB", "seed=1..2")
	od := filepath.Join(root, "other")
	require.NoError(t, Run(other, Options{Dir: od}))
	err = Merge([]string{shards[1], od}, filepath.Join(root, "out"), false)
	require.ErrorAs(t, err, &ie)
	require.ErrorContains(t, err, "are different sweeps")
	require.ErrorContains(t, err, "6 points over switch.ecn.kmax (2) seed (3)")
	require.ErrorContains(t, err, "4 points over switch.ecn.kmax (2) seed (2)")

	err = Merge([]string{filepath.Join(root, "nothing")}, filepath.Join(root, "out"), false)
	require.ErrorContains(t, err, "no sweep.json")
	require.False(t, errors.Is(err, ErrInterrupted))
}

func TestSweepCSVHasARowPerPointAndVariant(t *testing.T) {
	p := plan(t, tiny, nil, "switch.ecn.kmax=20KB,50KB,100KB", "switch.pfc.priorities=[3],[3,4]", "seed=1..2")
	dir := t.TempDir()
	require.NoError(t, Run(p, Options{Dir: dir, Workers: 2}))
	f, err := os.Open(filepath.Join(dir, FileCSV))
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	header := rows[0]
	require.Equal(t, []string{"point", "switch.ecn.kmax", "switch.pfc.priorities", "variant", "transport", "seed"}, header[:6])
	n := len(results.TableCSVHeader()) - 2
	require.Equal(t, results.TableCSVHeader()[2:], header[6:6+n])
	require.Equal(t, []string{"slowdown_p50_0B-10KB", "slowdown_p99_0B-10KB", "slowdown_p50_10KB-100KB", "slowdown_p99_10KB-100KB",
		"slowdown_p50_100KB-1MB", "slowdown_p99_100KB-1MB", "slowdown_p50_1MB-10MB", "slowdown_p99_1MB-10MB",
		"slowdown_p50_>=10MB", "slowdown_p99_>=10MB"}, header[6+n:], "then the slowdown by size of all flows")
	require.Contains(t, header, "fct_p99_us")
	require.Len(t, rows, 1+12*2, "one header, then a row per point and variant")
	for k, row := range rows[1:] {
		pt := p.Points[k/2]
		require.Equal(t, []string{pt.Name, pt.Values[0], pt.Values[1]}, row[:3])
		require.Equal(t, []string{"lossy", "PFC"}[k%2], row[3])
		require.Equal(t, pt.Values[2], row[5])
		require.Equal(t, "4", row[slices.Index(header, "flows_total")])
	}
	m, err := ReadManifest(dir)
	require.NoError(t, err)
	require.Len(t, m.Rows, 24)
	require.Len(t, m.Summary, 12, "a summary per variant and combination of the parameters but seed")
	s := m.Summary[0]
	require.Equal(t, []uint64{1, 2}, s.Seeds)
	require.Equal(t, map[string]string{"switch.ecn.kmax": "20KB", "switch.pfc.priorities": "[3]"}, s.Parameters)
	fct := s.Metrics["fct_p99_us"]
	require.Len(t, fct.Values, 2)
	require.InDelta(t, (fct.Values[0]+fct.Values[1])/2, fct.Mean, 1e-9)
	require.NotContains(t, string(files(t, dir)[FileJSON]), "wall_seconds")
}

func TestInterruptedSweepKeepsNothingHalfDone(t *testing.T) {
	p := plan(t, tiny, nil, "seed=1..3")
	dir := t.TempDir()
	stop := make(chan struct{})
	close(stop)
	err := Run(p, Options{Dir: dir, Workers: 2, Interrupt: stop})
	require.ErrorIs(t, err, ErrInterrupted)
	for name := range files(t, dir) {
		require.True(t, strings.HasPrefix(name, DirPoints+"/"), "%s written by an interrupted sweep", name)
		require.NotContains(t, name, ".tmp")
	}
	require.NoError(t, Run(p, Options{Dir: dir, Workers: 2}), "and a rerun finishes it")
	require.FileExists(t, filepath.Join(dir, FileJSON))
}

// TestSweepCSVHasTheCollectives: a sweep of a scenario with a collective gives sweep.csv a
// column per metric of the job (results.JobMetrics, named collective.LABEL.METRIC), whose
// cells are the point's document's job, and the same in sweep.json's rows and summary; a
// varying busbw is plotted against the parameter.
func TestSweepCSVHasTheCollectives(t *testing.T) {
	data, err := os.ReadFile("testdata/tiny-collective.yaml")
	require.NoError(t, err)
	p := plan(t, string(data), nil, "traffic.0.collective.size=64KB,256KB")
	dir := t.TempDir()
	require.NoError(t, Run(p, Options{Dir: dir, Workers: 1}))
	f, err := os.Open(filepath.Join(dir, FileCSV))
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	header := rows[0]
	var want []string
	for _, m := range results.JobMetrics {
		want = append(want, "collective.grads."+m.Name)
	}
	require.Equal(t, want, header[len(header)-len(want):], "the collective's columns end the header")
	require.Len(t, rows, 3)
	m, err := ReadManifest(dir)
	require.NoError(t, err)
	for k, row := range rows[1:] {
		d, err := results.ReadJSONFile(filepath.Join(dir, m.Points[k].File))
		require.NoError(t, err)
		j := d.Variants[0].Jobs[0]
		require.Equal(t, []int64{64_000, 256_000}[k], j.SizeBytes)
		require.NotNil(t, j.BusbwGbps, "the job completed")
		cell := func(name string) string { return row[slices.Index(header, "collective.grads."+name)] }
		require.Equal(t, strconv.FormatInt(j.SizeBytes, 10), cell("size_bytes"))
		require.Equal(t, strconv.FormatFloat(*j.BusbwGbps, 'f', -1, 64), cell("busbw_gbps"))
		require.Equal(t, strconv.FormatFloat(*j.CompletionUS, 'f', -1, 64), cell("time_us"))
		require.Equal(t, *j.BusbwGbps, *m.Rows[k].Metrics["collective.grads.busbw_gbps"])
		require.Equal(t, *j.BusbwGbps, m.Summary[k].Metrics["collective.grads.busbw_gbps"].Mean)
	}
	_, err = os.Stat(filepath.Join(dir, DirPlots, "collective-grads-busbw_gbps-vs-traffic-0-collective-size.svg"))
	require.NoError(t, err, "busbw against the size is plotted")
	html, err := os.ReadFile(filepath.Join(dir, FileHTML))
	require.NoError(t, err)
	require.Contains(t, string(html), "collective.grads.busbw_gbps")
}
