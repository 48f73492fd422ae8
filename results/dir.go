package results

import (
	"fmt"
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

// WriteDir creates dir (and its parents) if needed and writes d into it (WriteDirFiles),
// then its manifest.json listing the files written (WriteManifest).
func WriteDir(dir string, d *Document) error {
	files, err := WriteDirFiles(dir, d)
	if err != nil {
		return err
	}
	return WriteManifest(dir, d.Version, d.Scenario, files)
}

// WriteDirFiles creates dir (and its parents) if needed and writes d into it: results.json,
// flows.csv (all variants' flows with leading variant and seed columns), sizes.csv, the
// time series of each variant that has them (rates.csv, queues.csv, ingress.csv,
// pauses.csv, links.csv, buffers.csv, queue-cdf.csv, events.csv), table-<slug>.txt per variant, every figure of Figures as PNG and SVG,
// summary.md (the description, the tables, the column definitions, notes and links to the
// plots) and report.html (the whole run on one self-contained page), in that order. slug is
// Slug(variant name) with "-2", "-3", ... appended when two variants' slugs collide.
// Existing files of those names are replaced; a figure with nothing to show is not written
// (the report and summary say why). It returns the names of the files written: on an error,
// those written before the file that failed, which stay whole (the error names that file).
func WriteDirFiles(dir string, d *Document) (written []string, err error) {
	if d == nil {
		return nil, fmt.Errorf("results: no document to write")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	write := func(name string, fill func(io.Writer) error) error {
		if err := writeFile(dir, name, fill); err != nil {
			return err
		}
		written = append(written, name)
		return nil
	}
	var files []string // those report.html links to
	for _, f := range []struct {
		name  string
		write func(io.Writer, *Document) error
	}{{FileJSON, WriteJSON}, {FileFlows, writeAllFlowsCSV}, {FileSizes, writeSizesCSV}} {
		if err := write(f.name, func(w io.Writer) error { return f.write(w, d) }); err != nil {
			return written, err
		}
		files = append(files, f.name)
	}
	if hasJobs(d) {
		if err := write(FileJobs, func(w io.Writer) error { return writeJobsCSV(w, d) }); err != nil {
			return written, err
		}
		files = append(files, FileJobs)
	}
	if hasDropPlaces(d) {
		if err := write(FileDrops, func(w io.Writer) error { return writeDropsCSV(w, d) }); err != nil {
			return written, err
		}
		files = append(files, FileDrops)
	}
	if hasSeries(d) {
		for _, f := range []struct {
			name  string
			write func(io.Writer, *Document) error
		}{{FileRates, writeRatesCSV}, {FileQueues, writeQueuesCSV}, {FileIngress, writeIngressCSV}, {FilePauses, writePausesCSV},
			{FileLinks, writeLinksCSV}, {FileBuffers, writeBuffersCSV}, {FileQueueDepth, writeQueueDepthCSV}, {FileEvents, writeEventsCSV}} {
			if err := write(f.name, func(w io.Writer) error { return f.write(w, d) }); err != nil {
				return written, err
			}
			files = append(files, f.name)
		}
	}
	for i, name := range VariantFileSlugs(d) {
		v := &d.Variants[i]
		if err := write(filePrefixVT+name+".txt", func(w io.Writer) error {
			return WriteVariantTable(w, v)
		}); err != nil {
			return written, err
		}
		files = append(files, filePrefixVT+name+".txt")
	}
	figs, omitted, err := Figures(d)
	if err != nil {
		return written, err
	}
	for _, f := range figs {
		for _, format := range FigureFormats {
			if err := write(f.Name+"."+format, func(w io.Writer) error { return f.Render(w, format) }); err != nil {
				return written, err
			}
		}
	}
	if err := write(FileSummary, func(w io.Writer) error { return writeSummary(w, d, figs, omitted) }); err != nil {
		return written, err
	}
	files = append(files, FileSummary)
	err = write(FileReport, func(w io.Writer) error { return WriteReport(w, d, figs, omitted, files) })
	return written, err
}

// hasSeries reports whether a variant of d has time series.
func hasSeries(d *Document) bool {
	for i := range d.Variants {
		if d.Variants[i].Series != nil {
			return true
		}
	}
	return false
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
	names := make([]string, len(d.Variants))
	for i := range d.Variants {
		names[i] = d.Variants[i].Name
	}
	return VariantSlugs(names)
}

// VariantSlugs gives each variant name, in order, a distinct slug for file names: its
// Slug, with "-2", "-3", ... appended to later names whose slug is already taken.
func VariantSlugs(names []string) []string {
	out := make([]string, len(names))
	taken := make(map[string]bool, len(names))
	for i := range names {
		base := Slug(names[i])
		s := base
		for n := 2; taken[s]; n++ {
			s = base + "-" + strconv.Itoa(n)
		}
		taken[s] = true
		out[i] = s
	}
	return out
}
