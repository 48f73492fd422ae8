package experiment

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/scenarios"
)

// A figure in docs/lessons.md's prose that a run gives is marked with where it comes from,
// in an HTML comment right after it (Markdown shows nothing of it):
//
//	its last flow at 1,385<!-- golden irn | RoCEv2 + PFC | fct_us.max --> us
//	ends at 2.6 ms<!-- golden tradeoff | RoCEv2 + PFC | per_flow[src=h15,dst=h3].fct_us | x0.001 -->
//
// The fields are the scenario, the variant's name (the first run of that name; with
// "replication:NAME" its entry of the replication list instead) and a path into that object
// of the golden results document: keys joined by dots, a list element chosen by [N] (from 0)
// or by [key=value,...] (the first whose fields match; a missing field matches the empty
// value, a true one "true"), and an optional factor xF that scales the value (units). The
// number written before the comment, a unit word between them allowed, must be the golden
// value rounded to the decimals written (thousands separators ignored). A figure from a
// --set run that no golden holds is written without a mark.
var goldenMark = regexp.MustCompile(`([0-9][0-9,]*(?:\.[0-9]+)?)(?:\s?[A-Za-z/%]+)?<!-- golden ([^>]*?) -->`)

// markedNumber is a figure with its mark, as found in docs/lessons.md.
type markedNumber struct {
	written, mark string
	line          int
}

func lessonMarks(t *testing.T) []markedNumber {
	data, err := os.ReadFile(filepath.Join("..", "docs", "lessons.md"))
	require.NoError(t, err)
	var out []markedNumber
	for i, line := range strings.Split(string(data), "\n") {
		for _, m := range goldenMark.FindAllStringSubmatch(line, -1) {
			out = append(out, markedNumber{written: m[1], mark: m[2], line: i + 1})
		}
		if n := strings.Count(line, "<!-- golden"); n != len(goldenMark.FindAllString(line, -1)) {
			t.Errorf("docs/lessons.md:%d: a golden mark without a number right before it", i+1)
		}
	}
	return out
}

// goldenValue evaluates a mark's "SCENARIO | VARIANT | PATH [| xF]" on the scenario's
// results as this build computes them (freshJSON).
func goldenValue(t *testing.T, docs map[string]map[string]any, mark string) (float64, string) {
	parts := strings.Split(mark, "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	if len(parts) < 3 || len(parts) > 4 {
		return 0, "want SCENARIO | VARIANT | PATH [| xFACTOR]"
	}
	doc, ok := docs[parts[0]]
	if !ok {
		if _, ok := scenarios.BundledYAML(parts[0]); !ok {
			return 0, "no bundled scenario " + parts[0]
		}
		if err := json.Unmarshal(freshJSON(t, parts[0]), &doc); err != nil {
			return 0, err.Error()
		}
		docs[parts[0]] = doc
	}
	var node any
	list, name := "variants", parts[1]
	if r, ok := strings.CutPrefix(name, "replication:"); ok {
		list, name = "replication", r // a replicated run's means and intervals
	}
	entries, _ := doc[list].([]any)
	for _, v := range entries {
		if v.(map[string]any)["name"] == name {
			node = v
			break
		}
	}
	if node == nil {
		return 0, "no variant " + strconv.Quote(parts[1]) + " in " + parts[0]
	}
	for _, step := range splitPath(parts[2]) {
		key, sel, hasSel := strings.Cut(step, "[")
		if key != "" {
			m, ok := node.(map[string]any)
			if !ok {
				return 0, "at " + step + ": not an object"
			}
			if node, ok = m[key]; !ok {
				return 0, "no field " + key
			}
		}
		if !hasSel {
			continue
		}
		list, ok := node.([]any)
		if !ok {
			return 0, "at " + step + ": not a list"
		}
		sel = strings.TrimSuffix(sel, "]")
		if n, err := strconv.Atoi(sel); err == nil {
			if n < 0 || n >= len(list) {
				return 0, "index " + sel + " out of range"
			}
			node = list[n]
			continue
		}
		node = nil
		for _, el := range list {
			if matches(el, sel) {
				node = el
				break
			}
		}
		if node == nil {
			return 0, "no element [" + sel + "]"
		}
	}
	x, ok := node.(float64)
	if !ok {
		return 0, "the path leads to no number"
	}
	if len(parts) == 4 {
		f, err := strconv.ParseFloat(strings.TrimPrefix(parts[3], "x"), 64)
		if err != nil || !strings.HasPrefix(parts[3], "x") {
			return 0, "a factor is xNUMBER, e.g. x0.001"
		}
		x *= f
	}
	return x, ""
}

// splitPath splits a path at the dots outside brackets.
func splitPath(p string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range p {
		switch {
		case c == '[':
			depth++
		case c == ']':
			depth--
		case c == '.' && depth == 0:
			out = append(out, p[start:i])
			start = i + 1
		}
	}
	return append(out, p[start:])
}

// matches says whether list element el has every key=value of sel.
func matches(el any, sel string) bool {
	m, ok := el.(map[string]any)
	if !ok {
		return false
	}
	for _, kv := range strings.Split(sel, ",") {
		k, want, _ := strings.Cut(kv, "=")
		var got string
		switch v := m[k].(type) {
		case nil:
		case string:
			got = v
		case float64:
			got = strconv.FormatFloat(v, 'f', -1, 64)
		case bool:
			got = strconv.FormatBool(v)
		default:
			return false
		}
		if got != want {
			return false
		}
	}
	return true
}

// TestLessonProseMatchesGoldens: every marked figure of docs/lessons.md's prose is what the
// golden run gives, to the precision written.
func TestLessonProseMatchesGoldens(t *testing.T) {
	marks := lessonMarks(t)
	require.GreaterOrEqual(t, len(marks), 20, "the lessons' key figures are marked")
	docs := map[string]map[string]any{}
	for _, m := range marks {
		want, problem := goldenValue(t, docs, m.mark)
		if problem != "" {
			t.Errorf("docs/lessons.md:%d: mark %q: %s", m.line, m.mark, problem)
			continue
		}
		written := strings.ReplaceAll(m.written, ",", "")
		decimals := 0
		if _, frac, ok := strings.Cut(written, "."); ok {
			decimals = len(frac)
		}
		got, _ := strconv.ParseFloat(written, 64)
		scale := math.Pow(10, float64(decimals))
		if rounded := math.Round(want*scale) / scale; math.Abs(rounded-got) > 1e-9*math.Max(1, got) {
			t.Errorf("docs/lessons.md:%d: %s is written, the golden (%s) gives %s",
				m.line, m.written, m.mark, strconv.FormatFloat(want, 'f', decimals, 64))
		}
	}
}

// TestLessonFilesExist: every output file docs/lessons.md tells the reader to open
// (out/NAME.png and the like) is one a run of that scenario writes.
func TestLessonFilesExist(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "lessons.md"))
	require.NoError(t, err)
	file := regexp.MustCompile(`out/([A-Za-z0-9._-]+\.(?:png|svg|pdf|csv|json|html|md|txt))`)
	for _, section := range strings.Split(string(data), "\n## ")[1:] {
		name, _, _ := strings.Cut(section, "\n")
		if _, ok := scenarios.BundledYAML(name); !ok {
			continue
		}
		var variants []string
		for _, v := range fresh(t, name).Variants {
			variants = append(variants, v.Name)
		}
		known := results.RunFileNames(variants)
		for _, m := range file.FindAllStringSubmatch(section, -1) {
			require.Contains(t, known, m[1], "docs/lessons.md, lesson %s: a run writes no %s", name, m[1])
		}
	}
}
