package accuracy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRowsHoldTheirTolerance: a row within its tolerance passes, one outside fails its test;
// a bound fails below its expected value; the page lists rows by area and check, whatever
// order they were recorded in, and Finish compares, rewrites or leaves the file as asked.
func TestRowsHoldTheirTolerance(t *testing.T) {
	within := Row{Area: "b", Check: "two", Expected: 100, Measured: 101.5, Unit: "us", Tolerance: 0.02, Kind: ClosedForm, Source: "2 + 2"}
	require.True(t, within.Within())
	require.InDelta(t, 0.015, within.Error(), 1e-12)
	outside := within
	outside.Measured = 103
	require.False(t, outside.Within())
	bound := Row{Expected: 10, Measured: 9.99, Tolerance: 0.05, Lower: true}
	require.False(t, bound.Within(), "below a lower bound")
	bound.Measured = 10.4
	require.True(t, bound.Within())

	ft := &testing.T{}
	var b Book
	b.Record(ft, Row{Area: "b", Check: "one", Expected: 1, Measured: 1, Unit: "x", Tolerance: 0, Kind: Peer, Source: "peer | at abc"})
	b.Record(ft, within)
	b.Record(ft, Row{Area: "a", Check: "z", Expected: 0.5, Measured: 0.5, Unit: "", Kind: Published, Source: "fig. 3"})
	rows := b.Rows()
	require.Equal(t, []string{"z", "one", "two"}, []string{rows[0].Check, rows[1].Check, rows[2].Check})
	page := string(Render(rows, "go test ./x -update-accuracy"))
	require.Contains(t, page, "3 checks: 1 against closed forms, 1 against peers, 1 against published figures.")
	require.Contains(t, page, "| two | 100 us | 101.50 us | +1.50% | ±2.00% | closed form | 2 + 2 |")
	require.Contains(t, page, `peer \| at abc`, "a | in a cell is escaped")
	require.Less(t, strings.Index(page, "## a\n"), strings.Index(page, "## b\n"))

	path := filepath.Join(t.TempDir(), "accuracy.md")
	require.Equal(t, 0, b.Finish(0, path, "cmd", false, false), "an incomplete run leaves the file alone")
	require.NoFileExists(t, path)
	require.Equal(t, 1, b.Finish(0, path, "cmd", true, false), "no file: differs")
	require.Equal(t, 0, b.Finish(0, path, "cmd", true, true))
	require.Equal(t, 0, b.Finish(0, path, "cmd", true, false), "the file it wrote is the page")
	require.NoError(t, os.WriteFile(path, []byte("edited\n"), 0o644))
	require.Equal(t, 1, b.Finish(0, path, "cmd", true, false))
	require.Equal(t, 3, b.Finish(3, path, "cmd", true, true), "a failed run writes nothing")
}
