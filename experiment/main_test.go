package experiment

import (
	"flag"
	"os"
	"testing"

	"github.com/fabricsim/fabricsim/internal/accuracy"
)

// updateAccuracy rewrites docs/accuracy.md from the rows this package's tests record:
// go test ./experiment -update-accuracy (the whole suite: not with -short or -run).
var updateAccuracy = flag.Bool("update-accuracy", false, "rewrite ../docs/accuracy.md from the checks' rows")

// book collects the accuracy page's rows (internal/accuracy): each test that checks
// fabricsim against a closed form, a peer or a published figure records its row there.
var book accuracy.Book

// accuracyCommand regenerates the accuracy page.
const accuracyCommand = "go test ./experiment -update-accuracy"

// TestMain runs the tests, then holds docs/accuracy.md to the rows they recorded when the
// whole suite ran (./test.sh --full, CI), or rewrites it with -update-accuracy.
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	run := flag.Lookup("test.run").Value.String()
	complete := !testing.Short() && run == ""
	os.Exit(book.Finish(code, "../docs/accuracy.md", accuracyCommand, complete, *updateAccuracy))
}

// accurate records a row of the accuracy page, a check of measured against expected (both in
// unit) within the relative tolerance tol, of kind (accuracy.ClosedForm, Peer, Published)
// from source; outside the tolerance it fails t.
func accurate(t *testing.T, area, what string, expected, measured float64, unit string, tol float64, kind, source string) {
	t.Helper()
	book.Record(t, accuracy.Row{Area: area, Check: what, Expected: expected, Measured: measured, Unit: unit,
		Tolerance: tol, Kind: kind, Source: source})
}

// atLeast records a row whose expected value is a lower bound (an ideal): measured may not
// be below it, and at most tol above it.
func atLeast(t *testing.T, area, what string, bound, measured float64, unit string, tol float64, kind, source string) {
	t.Helper()
	book.Record(t, accuracy.Row{Area: area, Check: what, Expected: bound, Measured: measured, Unit: unit,
		Tolerance: tol, Lower: true, Kind: kind, Source: source})
}
