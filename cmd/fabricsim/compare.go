package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/fabricsim/fabricsim/internal/infile"
	"github.com/fabricsim/fabricsim/results"
)

// compareFileCSV is the delta table compare writes into its -o directory.
const compareFileCSV = "compare.csv"

func newCompareCommand(stdout io.Writer) *cobra.Command {
	var out, format string
	cmd := &cobra.Command{
		Use:   "compare A B",
		Short: "Compare two runs: every metric of each variant both have, and their CDFs overlaid",
		Long: `compare reads two runs' results (an output directory of fabricsim run -o, or a results
document written by --json) and prints, per variant the two have by name, every metric of the
comparison table in both with the change from A to B. A replicated run is compared by its
means over the seeds. With -o DIR (new, or empty) it writes compare.csv and the two runs'
FCT distributions and slowdown by flow size overlaid (fct-cdf-compare, slowdown-by-size-compare,
as PNG, SVG and PDF).`,
		Example: `  fabricsim compare before/ after/
  fabricsim compare a.json b.json -o cmp/`,
		Args: usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch format {
			case results.FormatTable, results.FormatMarkdown, results.FormatCSV:
			default:
				return usagef("--format %q: allowed: table, markdown, csv", format)
			}
			var docs [2]*results.Document
			for i, path := range args {
				d, err := readRun(path)
				if err != nil {
					return usagef("%v", err)
				}
				docs[i] = d
			}
			c := results.Compare(docs[0], docs[1], args[0], args[1])
			if len(c.Rows) == 0 {
				return usagef("%s and %s have no variant of the same name to compare (a: %d variants, b: %d)",
					args[0], args[1], len(c.OnlyA), len(c.OnlyB))
			}
			if err := results.WriteComparison(stdout, c, format); err != nil {
				return err
			}
			if format != results.FormatCSV {
				for _, n := range comparisonNotes(docs[0], docs[1]) {
					if _, err := fmt.Fprintf(stdout, "note: %s\n", n); err != nil {
						return err
					}
				}
			}
			if out == "" {
				return nil
			}
			return writeComparisonDir(out, c)
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "write compare.csv and the overlaid plots into `DIR` (new or empty)")
	cmd.Flags().StringVar(&format, "format", "table", "standard output: table, markdown or csv")
	return cmd
}

// readRun reads a run's results document: path itself, or path/results.json for a
// directory, a regular file of at most results.MaxDocumentBytes (a fifo, a device or a
// larger file is refused at once, naming it).
func readRun(path string) (*results.Document, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %v (give a run's -o directory or its results.json)", path, errors.Unwrap(err))
	}
	file := path
	if fi.IsDir() {
		file = filepath.Join(path, results.FileJSON)
	}
	d, err := results.ReadJSONFile(file)
	if infile.IsRefused(err) {
		return nil, fmt.Errorf("%v: give a run's -o directory or its results.json", err)
	}
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: no results document there (%v): give a run's -o directory or its results.json", path, errors.Unwrap(err))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if len(d.Variants) == 0 {
		return nil, fmt.Errorf("%s: the document has no variant", file)
	}
	return d, nil
}

// writeComparisonDir writes compare.csv and the overlaid figures into dir, which must be
// new or empty: compare replaces nothing of a run's.
func writeComparisonDir(dir string, c *results.Comparison) error {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return usagef("-o %s: is not empty; compare writes into a new or empty directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, compareFileCSV), func(w io.Writer) error {
		return results.WriteComparison(w, c, results.FormatCSV)
	}); err != nil {
		return err
	}
	figs, _, err := results.ComparisonFigures(c)
	if err != nil {
		return err
	}
	for _, f := range figs {
		for _, format := range results.FigureFormats {
			if err := results.WriteFileAtomic(filepath.Join(dir, f.Name+"."+format), func(w io.Writer) error {
				return f.Render(w, format)
			}); err != nil {
				return err
			}
		}
	}
	return nil
}
