package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/scenarios"
)

// updateLessons rewrites the printed runs in docs/lessons.md from the golden results:
// go test ./cmd/fabricsim -run TestLessonsPrintWhatARunPrints -update-lessons
var updateLessons = flag.Bool("update-lessons", false, "rewrite docs/lessons.md's printed runs from the goldens")

// TestLessonsPrintWhatARunPrints: each lesson of docs/lessons.md of a one-seed scenario shows what `fabricsim run
// NAME --format markdown` prints for its bundled scenario (the title, the tables and the
// reading, up to the lesson's next paragraph), rendered here from the scenario's golden results
// (experiment/testdata/golden), so that a change that moves a golden and leaves the lesson
// behind fails here (websearch-leafspine's by-size table had lost three variants and its UET
// row a change of NSCC).
func TestLessonsPrintWhatARunPrints(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "lessons.md")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	doc := string(data)
	for _, s := range scenarios.Bundled() {
		head := "## " + s.Name + "\n"
		at := strings.Index(doc, head)
		if at < 0 {
			continue // no lesson (perf-leafspine, a benchmark)
		}
		f, err := loadScenario(s.Name, nil, &bytes.Buffer{}, true)
		require.NoError(t, err, s.Name)
		if len(f.Seeds()) > 1 {
			continue // printed as means over the seeds (lossy-link), not from one document
		}
		golden, err := os.Open(filepath.Join("..", "..", "experiment", "testdata", "golden", s.Name+".json"))
		require.NoError(t, err, s.Name)
		res, err := results.ReadJSON(golden)
		golden.Close()
		require.NoError(t, err, s.Name)
		var b bytes.Buffer
		require.NoError(t, writeReadable(&b, f, s.Name, res, "markdown"))
		want := b.String()

		next := strings.Index(doc[at+len(head):], "\n## ")
		if next < 0 {
			next = len(doc) - at - len(head)
		}
		start := strings.Index(doc[at:at+len(head)+next], "\n"+s.Name+": ")
		if start < 0 {
			continue // a lesson told without a printed run (its numbers carry golden marks)
		}
		start += at + 1
		end := strings.Index(doc[start:], "\n\n**") // the lesson's next paragraph
		require.GreaterOrEqual(t, end, 0, "docs/lessons.md, lesson %s: no paragraph after the printed run", s.Name)
		end += start + 1
		if *updateLessons {
			doc = doc[:start] + want + doc[end:]
			continue
		}
		if got := doc[start:end]; got != want {
			t.Errorf("docs/lessons.md, lesson %s: not what the run prints (go test ./cmd/fabricsim -run TestLessonsPrintWhatARunPrints -update-lessons); first difference at line %d", s.Name, firstDiffLine(want, got))
		}
	}
	if *updateLessons {
		require.NoError(t, os.WriteFile(path, []byte(doc), 0o644))
	}
}

// firstDiffLine is the number (from 1) of the first line where a and b differ.
func firstDiffLine(a, b string) int {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}
