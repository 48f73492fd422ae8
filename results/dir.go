package results

import (
	"fmt"
	"gonum.org/v1/plot"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// File names WriteDir writes into its directory.
const (
	FileJSON     = "results.json" // the results document (WriteJSON)
	FileFlows    = "flows.csv"    // every variant's flows, with a leading variant column
	FileSizes    = "sizes.csv"    // every variant's slowdown_by_size bins
	FileSummary  = "summary.md"   // the comparison as a Markdown table, with its notes
	filePrefixVT = "table-"       // table-<slug>.txt: one report per variant (WriteVariantTable)
)

// WriteDir creates dir (and its parents) if needed and writes d into it: results.json,
// fct-cdf.png (the FCT distribution of every variant), rates-<slug>.png and queues-<slug>.png
// (each variant's time series),
// flows.csv (all variants' flows with a leading variant column), rates.csv and queues.csv (the
// time series of each variant), summary.md (a heading, the
// Markdown comparison table and its notes), and table-<slug>.txt per variant, where slug is
// Slug(variant name) with "-2", "-3", ... appended when two variants' slugs collide. Existing
// files of those names are replaced.
func WriteDir(dir string, d *Document) error {
	if d == nil {
		return fmt.Errorf("results: no document to write")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	if err := writeFile(dir, FileJSON, func(w io.Writer) error { return WriteJSON(w, d) }); err != nil {
		return err
	}
	if err := writeFile(dir, FileFlows, func(w io.Writer) error { return writeAllFlowsCSV(w, d) }); err != nil {
		return err
	}
	if err := writeFile(dir, FileSizes, func(w io.Writer) error { return writeSizesCSV(w, d) }); err != nil {
		return err
	}
	if err := writeFile(dir, FileRates, func(w io.Writer) error { return writeRatesCSV(w, d) }); err != nil {
		return err
	}
	if err := writeFile(dir, FileQueues, func(w io.Writer) error { return writeQueuesCSV(w, d) }); err != nil {
		return err
	}
	fct, err := FCTPlot(d)
	if err != nil {
		return fmt.Errorf("results: FCT plot: %w", err)
	}
	if err := writeFile(dir, FilePlotFCT, func(w io.Writer) error { return writePlot(w, fct) }); err != nil {
		return err
	}
	for i, name := range VariantFileSlugs(d) {
		v := &d.Variants[i]
		if err := writeFile(dir, filePrefixVT+name+".txt", func(w io.Writer) error {
			return WriteVariantTable(w, v)
		}); err != nil {
			return err
		}
		for _, pl := range []struct {
			prefix string
			make   func(*Variant) (*plot.Plot, error)
		}{{"rates-", RatePlot}, {"queues-", QueuePlot}} {
			p, err := pl.make(v)
			if err != nil {
				return fmt.Errorf("results: %s plot of %s: %w", pl.prefix, v.Name, err)
			}
			if err := writeFile(dir, pl.prefix+name+".png", func(w io.Writer) error { return writePlot(w, p) }); err != nil {
				return err
			}
		}
	}
	return writeFile(dir, FileSummary, func(w io.Writer) error {
		title := d.Scenario
		if title == "" {
			title = "fabricsim results"
		}
		version := ""
		if d.Version != "" {
			version = ", " + d.Version
		}
		if _, err := fmt.Fprintf(w, "# %s\n\nseed %d%s\n\n", title, d.Seed, version); err != nil {
			return err
		}
		return WriteTable(w, d, FormatMarkdown)
	})
}

// writeFile creates dir/name and fills it with write, atomically (WriteFileAtomic).
func writeFile(dir, name string, write func(io.Writer) error) error {
	return WriteFileAtomic(filepath.Join(dir, name), write)
}

// Slug turns a variant name into a file-name part: ASCII letters lower-cased, digits kept,
// every run of other characters one '-', none at either end; "variant" if nothing is left.
// "RoCEv2 + PFC" gives "rocev2-pfc".
func Slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range name {
		switch {
		case r >= 'A' && r <= 'Z':
			r += 'a' - 'A'
			fallthrough
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
	}
	if b.Len() == 0 {
		return "variant"
	}
	return b.String()
}

// VariantFileSlugs gives each variant of d, in order, a distinct slug for file names: its
// Slug, with "-2", "-3", ... appended to later variants whose slug is already taken.
func VariantFileSlugs(d *Document) []string {
	out := make([]string, len(d.Variants))
	taken := make(map[string]bool, len(d.Variants))
	for i := range d.Variants {
		base := Slug(d.Variants[i].Name)
		s := base
		for n := 2; taken[s]; n++ {
			s = base + "-" + strconv.Itoa(n)
		}
		taken[s] = true
		out[i] = s
	}
	return out
}
