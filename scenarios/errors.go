package scenarios

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// OverrideFile is the File of a Problem caused by a --set flag rather than by the file.
const OverrideFile = "--set"

// Problem is one thing wrong (or, as a warning, worth a look) in a scenario: where it is,
// which field, and what is allowed. It is modelled on go/scanner.Error.
type Problem struct {
	File         string // the scenario file as the caller named it, or OverrideFile
	Line, Column int    // 1-based position of the offending value; 0 when unknown
	Path         string // the field path, e.g. "traffic.1.flow.dst"; "" when none applies
	Msg          string
}

// Error formats the problem as "file:line:col: path: msg", leaving out the position when it
// is unknown (as for --set flags) and the path when there is none.
func (p Problem) Error() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d", p.Line)
		if p.Column > 0 {
			fmt.Fprintf(&b, ":%d", p.Column)
		}
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if p.Path != "" {
		b.WriteString(p.Path)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Problems is a list of problems, as go/scanner.ErrorList is. Load returns it sorted by
// position with duplicates removed. As an error it reads one problem per line.
type Problems []Problem

// Error returns every problem, one per line.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Err returns ps as an error, or nil when there is no problem.
func (ps Problems) Err() error {
	if len(ps) == 0 {
		return nil
	}
	return ps
}

// compareProblems orders problems by file, position, path and message.
func compareProblems(a, b Problem) int {
	return cmp.Or(
		cmp.Compare(a.File, b.File),
		cmp.Compare(a.Line, b.Line),
		cmp.Compare(a.Column, b.Column),
		cmp.Compare(a.Path, b.Path),
		cmp.Compare(a.Msg, b.Msg),
	)
}

// normalize sorts ps by position and removes exact duplicates (the same problem found in
// several variants is reported once).
func (ps Problems) normalize() Problems {
	out := slices.Clone(ps)
	slices.SortStableFunc(out, compareProblems)
	return slices.CompactFunc(out, func(a, b Problem) bool { return a == b })
}

// fieldNames lists the YAML field names of a struct type, in declaration order, from the
// `yaml:"name"` tags.
func fieldNames(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		names = append(names, name)
	}
	return names
}

// suggest returns the candidate nearest to word by edit distance (optimal string alignment,
// so "bufer" -> "buffer" and "delya" -> "delay" are both one edit), or "" when none is near.
// Near means at most a third of the word's length, at least 1 and at most 3 edits; a
// difference in case, '-' for '_' included, counts as near, and so does a candidate that
// starts with a word of 3 or more letters ("roce" -> "rocev2").
func suggest(word string, candidates []string) string {
	norm := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "-", "_") }
	limit := min(max(len(word)/3, 1), 3)
	best, bestD := "", limit+1
	for _, c := range candidates {
		if norm(c) == norm(word) {
			return c
		}
		d := editDistance(word, c)
		if d > limit && len(word) >= 3 && strings.HasPrefix(norm(c), norm(word)) {
			d = limit
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// didYouMean formats suggest's answer as a message suffix.
func didYouMean(word string, candidates []string) string {
	if s := suggest(word, candidates); s != "" && s != word {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

// editDistance is the optimal-string-alignment distance between a and b: insertions,
// deletions, substitutions and transpositions of adjacent characters each cost 1.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 { // not a typo of a field name; skip the O(n*m) work
		return max(len(ra), len(rb))
	}
	// d[i][j] is the distance between ra[:i] and rb[:j].
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// listOf formats names as "a, b, c", the way messages list what is allowed.
func listOf(names []string) string { return strings.Join(names, ", ") }
