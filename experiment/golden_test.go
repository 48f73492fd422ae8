package experiment

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/scenarios"
)

// update rewrites the golden results instead of comparing with them:
// go test ./experiment -run TestGoldenResults -update
var update = flag.Bool("update", false, "rewrite testdata/golden/*.json from this build")

// freshRuns holds, per bundled scenario, the results document this test binary computed
// (goldenDocument), so that the lesson tests check what this build gives, not a stored file
// that TestGoldenResults would fail on first (a change that breaks a lesson then fails with
// the lesson's sentence too).
var freshRuns struct {
	sync.Mutex
	docs map[string][]byte
}

// freshJSON is bundled scenario name's results document as this build computes it: the one
// TestGoldenResults computed, or a new run when it did not run (go test -run LessonName).
func freshJSON(t *testing.T, name string) []byte {
	t.Helper()
	freshRuns.Lock()
	data, ok := freshRuns.docs[name]
	freshRuns.Unlock()
	if !ok {
		data, _ = goldenDocument(t, name)
	}
	return data
}

// goldenDocument runs bundled scenario name as `fabricsim run NAME -o DIR` does (with the
// time series, which must not change the results) and renders its results document, with
// the wall time (the only part that is not deterministic) zeroed.
func goldenDocument(t *testing.T, name string) ([]byte, *results.Document) {
	t.Helper()
	doc := runBundledWithSeries(t, name)
	for i := range doc.Variants {
		doc.Variants[i].WallSeconds = 0
	}
	var b bytes.Buffer
	require.NoError(t, results.WriteJSON(&b, doc))
	freshRuns.Lock()
	if freshRuns.docs == nil {
		freshRuns.docs = map[string][]byte{}
	}
	freshRuns.docs[name] = b.Bytes()
	freshRuns.Unlock()
	return b.Bytes(), doc
}

// runBundledWithSeries runs bundled scenario name with its time series, as `fabricsim run
// NAME -o DIR` does, on three threads per variant (TestResultsDoNotDependOnThreads runs one
// and two); under -short on one thread, two variants at once, which keeps both cores busy
// without the windows' hand-overs (results do not depend on it).
func runBundledWithSeries(t *testing.T, name string) *results.Document {
	t.Helper()
	data, ok := scenarios.BundledYAML(name)
	require.True(t, ok)
	f, problems, _ := scenarios.Load(name+".yaml", data, nil)
	require.Empty(t, problems)
	threads := 3
	if testing.Short() {
		threads = 1
	}
	doc, err := RunFileWith(f, nil, Options{Workers: 2, Series: true, Threads: threads})
	require.NoError(t, err)
	return doc
}

// checkFigures holds the plots of a bundled scenario to what a reader needs: every time
// series plot (not the fabric drawing, not the queue-depth CDF) has at least 50 points on
// each curve over the active period, and no plot is
// empty (an omitted one says why). The FCT and by-size plots have a point per flow or per
// size bin, as many as there are.
func checkFigures(t *testing.T, doc *results.Document) {
	t.Helper()
	figs, omitted, err := results.Figures(doc)
	require.NoError(t, err)
	require.NotEmpty(t, figs)
	for _, f := range figs {
		require.NotEmpty(t, f.Curves, "%s: an empty plot", f.Name)
		for _, c := range f.Curves {
			require.Positive(t, c.Points, "%s: %s has no point", f.Name, c.Label)
			// A time series; the fabric drawing and the queues' depth distribution (a point
			// per depth range the queue held) are not.
			if f.Variant != "" && !strings.HasPrefix(f.Name, "fabric-") && !strings.HasPrefix(f.Name, "queue-cdf") {
				require.GreaterOrEqual(t, c.Points, 50, "%s: %s", f.Name, c.Label)
			}
		}
	}
	for _, o := range omitted {
		require.NotEmpty(t, o.Reason, o.Name)
	}
	for i, f := range figs {
		x, y, xNamed, yNamed := f.TickLabels()
		for _, ax := range []struct {
			name   string
			labels []string
			named  bool
		}{{"x", x, xNamed}, {"y", y, yNamed}} {
			if !ax.named {
				require.GreaterOrEqual(t, len(ax.labels), 4, "%s: the %s axis has the tick labels %q", f.Name, ax.name, ax.labels)
				for _, l := range ax.labels {
					require.NotContains(t, l, "e", "%s: %s axis label %q: one plain number format", f.Name, ax.name, l)
				}
			}
		}
		var png bytes.Buffer
		require.NoError(t, f.Render(&png, "png"))
		checkRenderedPNG(t, f.Name, png.Bytes())
		if i == 0 { // one PDF per scenario through pdftoppm: it opens and shows the same
			var pdf bytes.Buffer
			require.NoError(t, f.Render(&pdf, "pdf"))
			checkPDF(t, f.Name, pdf.Bytes())
		}
	}
}

// TestGoldenResults pins every bundled scenario's results document byte for byte, so that a
// refactor that claims to change nothing is checked, and a change of behaviour shows where.
// After a change that is meant to move results, rerun with -update and say why in the commit.
// The figures are rendered and checked in the full suite only (not under -short), and the
// output directory's figures held to a paper's needs (checkOutputFigures).
func TestGoldenResults(t *testing.T) {
	for _, s := range scenarios.Bundled() {
		t.Run(s.Name, func(t *testing.T) {
			got, doc := goldenDocument(t, s.Name)
			if !testing.Short() {
				checkFigures(t, doc)
				checkOutputFigures(t, s.Name, doc)
			}
			for _, v := range doc.Variants {
				require.Equal(t, v.Drops.ByReason, results.DropPlacesByReason(v.DropPlaces),
					"%s: the drop places add up to drops.by_reason", v.Name)
			}
			path := filepath.Join("testdata", "golden", s.Name+".json")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, got, 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "no golden results for %s: go test ./experiment -run TestGoldenResults -update", s.Name)
			if !bytes.Equal(want, got) {
				t.Fatalf("%s differs from %s (regenerate with -update if the change is meant):\n%s",
					s.Name, path, lineDiff(string(want), string(got), 20))
			}
		})
	}
}

// lineDiff summarises how got differs from want: the number of lines that differ, and the
// first few of them, each with its line number and the JSON path-like context of the line.
func lineDiff(want, got string, limit int) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var out []string
	changed := 0
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a == b {
			continue
		}
		changed++
		if changed <= limit {
			out = append(out, fmt.Sprintf("line %d:\n  - %s\n  + %s", i+1, strings.TrimSpace(a), strings.TrimSpace(b)))
		}
	}
	head := fmt.Sprintf("%d of %d lines differ (want %d lines, got %d)", changed, max(len(w), len(g)), len(w), len(g))
	return head + "\n" + strings.Join(out, "\n")
}

func TestLineDiffNamesTheChangedLines(t *testing.T) {
	d := lineDiff("a\nb\nc", "a\nB\nc\nd", 1)
	require.Contains(t, d, "2 of 4 lines differ (want 3 lines, got 4)")
	require.Contains(t, d, "line 2:\n  - b\n  + B")
	require.NotContains(t, d, "line 4", "only the first one, as asked")
}
