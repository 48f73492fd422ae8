// Package accuracy keeps the accuracy page (docs/accuracy.md): every check of fabricsim
// against a closed form, a peer simulator or a published figure, a row per check, written
// by the tests that make the checks, so that the page cannot drift from the code. A test
// records its row (Book.Record) where it asserts; the package's TestMain then compares the
// page the rows make with the file (Book.Finish), or rewrites it when asked.
//
// A peer's figure that cannot be run in CI (a run of uet-htsim or of the HPCC authors' ns-3)
// is a row's expected value, with the peer's command and commit in its source; fabricsim's
// side is measured by the test on every run.
package accuracy

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Kinds of expected value.
const (
	ClosedForm = "closed form"
	Peer       = "peer"
	Published  = "published"
)

// Row is one check: what was checked (Area groups the rows, Check says what in words, with
// its setting), the expected value with its kind and source, fabricsim's measured value,
// both in Unit, and the tolerance the test holds it to: a relative one (0.02 is 2%), or with
// Lower set, only a bound (the measured value must not be below the expected one, and at
// most Tolerance above it; a lower bound such as an ideal).
type Row struct {
	Area, Check        string
	Expected, Measured float64
	Unit               string
	Tolerance          float64
	Lower              bool
	Kind, Source       string
	Test               string // set by Record: the test that holds the row
}

// Error is the measured value's relative error against the expected one (0 when both are 0).
func (r Row) Error() float64 {
	if r.Expected == 0 {
		if r.Measured == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return (r.Measured - r.Expected) / math.Abs(r.Expected)
}

// Within reports whether the row holds its tolerance.
func (r Row) Within() bool {
	e := r.Error()
	if r.Lower {
		return e >= -1e-12 && e <= r.Tolerance
	}
	return math.Abs(e) <= r.Tolerance
}

// Book collects the rows of one test binary.
type Book struct {
	mu   sync.Mutex
	rows []Row
}

// Record adds r, made by t, and fails t when r is outside its tolerance. A row of the same
// area and check recorded again (a test run twice with -count) replaces the earlier one.
func (b *Book) Record(t testing.TB, r Row) {
	t.Helper()
	r.Test = t.Name()
	if !r.Within() {
		t.Errorf("accuracy: %s, %s: measured %s %s against %s %s (%s: %s), %+.2f%%, outside %s",
			r.Area, r.Check, num(r.Measured), r.Unit, num(r.Expected), r.Unit, r.Kind, r.Source, 100*r.Error(), tolerance(r))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := range b.rows {
		if b.rows[i].Area == r.Area && b.rows[i].Check == r.Check {
			b.rows[i] = r
			return
		}
	}
	b.rows = append(b.rows, r)
}

// Rows is a copy of the rows recorded, by area and check.
func (b *Book) Rows() []Row {
	b.mu.Lock()
	defer b.mu.Unlock()
	rows := slices.Clone(b.rows)
	slices.SortStableFunc(rows, func(x, y Row) int {
		if c := strings.Compare(x.Area, y.Area); c != 0 {
			return c
		}
		return strings.Compare(x.Check, y.Check)
	})
	return rows
}

// Render writes the page of rows: a title, how it is made, then a table per area.
func Render(rows []Row, command string) []byte {
	var b bytes.Buffer
	b.WriteString("# Accuracy\n\n")
	b.WriteString("Every check of fabricsim against a closed form, a peer simulator or a published figure, a row\n")
	b.WriteString("per check: what is expected and from where, what fabricsim measures, the error and the\n")
	b.WriteString("tolerance the test holds it to. The tests write this page (`" + command + "`)\n")
	b.WriteString("and CI fails when a row leaves its tolerance or the page differs from what the tests give.\n")
	b.WriteString("A peer's figure that cannot run in CI is the expected value, with the peer's command and\n")
	b.WriteString("commit in its source. A bound (tolerance `>= 0, <= x%`) is a lower bound such as an ideal:\n")
	b.WriteString("the measured value may not fall below it.\n\n")
	fmt.Fprintf(&b, "%d checks: %d against closed forms, %d against peers, %d against published figures.\n",
		len(rows), count(rows, ClosedForm), count(rows, Peer), count(rows, Published))
	area := ""
	for _, r := range rows {
		if r.Area != area {
			area = r.Area
			fmt.Fprintf(&b, "\n## %s\n\n", area)
			b.WriteString("| check | expected | measured | error | tolerance | kind | source | test |\n")
			b.WriteString("|---|---:|---:|---:|---:|---|---|---|\n")
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %+.2f%% | %s | %s | %s | `%s` |\n",
			cell(r.Check), withUnit(r.Expected, r.Unit), withUnit(r.Measured, r.Unit), 100*r.Error(), tolerance(r), r.Kind, cell(r.Source), r.Test)
	}
	return b.Bytes()
}

// Finish ends the test binary's run (call it from TestMain after m.Run with its code): with
// every row recorded (complete: the whole suite ran, not -short or -run), it compares the
// page with the file at path, or rewrites the file when update is set. It returns the exit
// code: code itself, or 1 when the page differs.
func (b *Book) Finish(code int, path, command string, complete, update bool) int {
	if code != 0 {
		return code
	}
	if !complete {
		if update {
			fmt.Fprintf(os.Stderr, "accuracy: %s is written from the whole suite: run %s without -short or -run\n", path, command)
			return 1
		}
		return code
	}
	page := Render(b.Rows(), command)
	if update {
		if err := os.WriteFile(path, page, 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "accuracy: %v\n", err)
			return 1
		}
		return code
	}
	old, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(old, page) {
		fmt.Fprintf(os.Stderr, "accuracy: %s is not what the tests give (%s): regenerate it with %s\n", path, firstDifference(old, page), command)
		return 1
	}
	return code
}

// firstDifference names the first line where want and got differ.
func firstDifference(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, c string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			c = g[i]
		}
		if a != c {
			return fmt.Sprintf("line %d: the file has %q, the tests give %q", i+1, a, c)
		}
	}
	return "same lines"
}

func count(rows []Row, kind string) int {
	n := 0
	for _, r := range rows {
		if r.Kind == kind {
			n++
		}
	}
	return n
}

// tolerance says the row's tolerance in words: "±2.00%", or ">= 0, <= 3.00%" for a bound.
func tolerance(r Row) string {
	if r.Lower {
		return fmt.Sprintf(">= 0, <= %.2f%%", 100*r.Tolerance)
	}
	return fmt.Sprintf("±%.2f%%", 100*r.Tolerance)
}

// num writes a value without an exponent: a whole number as it is, others with five
// significant figures and at least two decimals (1.0101, 88.698, 3305.49), or four
// significant figures below 1.
func num(x float64) string {
	switch a := math.Abs(x); {
	case x == math.Trunc(x) && a < 1e15:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case a >= 1:
		digits := int(math.Floor(math.Log10(a))) + 1
		return strconv.FormatFloat(x, 'f', max(2, 5-digits), 64)
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// withUnit writes a value and its unit, if it has one.
func withUnit(x float64, unit string) string {
	if unit == "" {
		return num(x)
	}
	return num(x) + " " + unit
}

// cell keeps text from breaking a Markdown table.
func cell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
