package results

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Table formats accepted by WriteTable.
const (
	FormatTable    = "table"
	FormatMarkdown = "markdown"
	FormatCSV      = "csv"
)

// TableCSVHeader is the comparison's header in CSV (--format csv): variant, transport, then
// the metrics with their units in their names.
func TableCSVHeader() []string { return slices.Clone(csvHeader) }

// TableCSVRow is v's row of the comparison in CSV, under TableCSVHeader.
func TableCSVRow(v *Variant) []string { return csvRow(v) }

// SizeTableMinFlows is how many flows a variant needs for WriteTable to print its
// slowdown_by_size table under the comparison.
const SizeTableMinFlows = 100

// sizeHeader is the slowdown-by-size table's header; grouped tables have a group column
// after the variant (sizeColumns).
var sizeHeader = []string{"variant", "size", "flows", "completed", "fct_p50_us", "fct_p99_us",
	"slowdown_p50", "slowdown_p95", "slowdown_p99"}

var sizeAlign = []tw.Align{tw.AlignLeft, tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight,
	tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight}

// AllFlowsGroup is what the group column of a by-size table says for a bin of all flows.
const AllFlowsGroup = "(all)"

// sizeVariants are the variants of the by-size table (at least minFlows flows), and
// whether any has bins per group.
func sizeVariants(d *Document, minFlows int64) ([]*Variant, bool) {
	var vs []*Variant
	grouped := false
	for i := range d.Variants {
		v := &d.Variants[i]
		if v.Flows.Total < minFlows {
			continue
		}
		vs = append(vs, v)
		grouped = grouped || len(v.OverallSizeBins()) < len(v.SlowdownBySize)
	}
	return vs, grouped
}

// withGroup inserts a group column after the first (the variant's) when grouped.
func withGroup[T any](row []T, grouped bool, group T) []T {
	if !grouped {
		return row
	}
	return append([]T{row[0], group}, row[1:]...)
}

// sizeColumns are the by-size table's header and alignment.
func sizeColumns(d *Document, minFlows int64) ([]string, []tw.Align) {
	_, grouped := sizeVariants(d, minFlows)
	return withGroup(sizeHeader, grouped, "group"), withGroup(sizeAlign, grouped, tw.AlignLeft)
}

// groupName is a bin's group for a table: AllFlowsGroup for a bin of all the flows.
func groupName(b SizeBin) string {
	if b.Group == "" {
		return AllFlowsGroup
	}
	return b.Group
}

// sizeRows are the slowdown_by_size rows of the variants with at least minFlows flows: all
// flows' bins, then each group's, with a group column when some variant has groups; a bin
// of no flow has no row (sizes.csv keeps every bin).
func sizeRows(d *Document, minFlows int64) [][]string {
	var rows [][]string
	vs, grouped := sizeVariants(d, minFlows)
	for _, v := range vs {
		for _, b := range v.SlowdownBySize {
			if b.Flows == 0 {
				continue
			}
			rows = append(rows, withGroup([]string{v.Name, b.Range(), integer(b.Flows), integer(b.Completed),
				optFixed(b.FCTP50US), optFixed(b.FCTP99US), optFixed(b.P50), optFixed(b.P95), optFixed(b.P99)}, grouped, groupName(b)))
		}
	}
	return rows
}

// sizeCSVHeader is sizeHeader in CSV: the bin as its two edges.
var sizeCSVHeader = []string{"variant", "lo_bytes", "hi_bytes", "flows", "completed", "fct_p50_us", "fct_p99_us",
	"slowdown_p50", "slowdown_p95", "slowdown_p99"}

// sizeCSVRows are sizeRows in CSV: the bin as lo_bytes and hi_bytes (empty: unbounded),
// numbers at full precision, empty cells for nothing (and for the group of all flows); a
// bin of no flow has no row.
func sizeCSVRows(d *Document, minFlows int64) [][]string {
	var rows [][]string
	vs, grouped := sizeVariants(d, minFlows)
	for _, v := range vs {
		for _, b := range v.SlowdownBySize {
			if b.Flows == 0 {
				continue
			}
			hi := ""
			if b.HiBytes != nil {
				hi = integer(*b.HiBytes)
			}
			rows = append(rows, withGroup([]string{v.Name, integer(b.LoBytes), hi, integer(b.Flows), integer(b.Completed),
				optExact(b.FCTP50US), optExact(b.FCTP99US), optExact(b.P50), optExact(b.P95), optExact(b.P99)}, grouped, b.Group))
		}
	}
	return rows
}

// Range names the bin's sizes, e.g. "10KB-100KB" or ">=10MB", in decimal units.
func (b SizeBin) Range() string {
	if b.HiBytes == nil {
		return ">=" + sizeName(b.LoBytes)
	}
	return sizeName(b.LoBytes) + "-" + sizeName(*b.HiBytes)
}

// sizeName writes n bytes with the largest decimal unit that divides it exactly.
func sizeName(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

func fixed(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }
func integer(n int64) string { return strconv.FormatInt(n, 10) }
func exact(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
func optFixed(f *float64) string {
	if f == nil {
		return "-"
	}
	return fixed(*f)
}

// WriteTable writes the comparison of d's variants, one row per variant, in format: "table"
// (an ASCII box table), "markdown" or "csv", with the columns of comparisonColumns
// (metrics.go): CSV names a column as the results document does where the table shortens
// it (retransmitted_packets for retx_pkts), splits flows into flows_completed and
// flows_total, and writes numbers at full precision. Under a table or Markdown table
// it writes the notes a reader should not miss, one a line: warnings, flows that did not
// complete, deadlocks (see Notes). It renders the summaries as they are; call Summarize on
// each variant first.
func WriteTable(w io.Writer, d *Document, format string) error {
	if d == nil {
		return fmt.Errorf("results: no document to write")
	}
	rows := make([][]string, len(d.Variants))
	var notes []string
	for i := range d.Variants {
		rows[i] = summaryRow(&d.Variants[i])
		notes = append(notes, Notes(&d.Variants[i])...)
	}
	if len(d.Replication) > 0 {
		return writeReplicated(w, d, format, notes)
	}
	sizes := sizeRows(d, SizeTableMinFlows)
	switch format {
	case FormatCSV:
		csvRows := make([][]string, len(d.Variants))
		for i := range d.Variants {
			csvRows[i] = csvRow(&d.Variants[i])
		}
		if err := writeCSV(w, csvHeader, csvRows); err != nil || len(sizes) == 0 {
			return err
		}
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
		_, grouped := sizeVariants(d, SizeTableMinFlows)
		return writeCSV(w, withGroup(sizeCSVHeader, grouped, "group"), sizeCSVRows(d, SizeTableMinFlows))
	case FormatTable, FormatMarkdown:
		if err := renderTable(w, format, summaryHeader, summaryAlign, rows); err != nil {
			return err
		}
		if len(sizes) > 0 {
			if _, err := io.WriteString(w, "\nslowdown by flow size:\n"); err != nil {
				return err
			}
			header, align := sizeColumns(d, SizeTableMinFlows)
			if err := renderTable(w, format, header, align, sizes); err != nil {
				return err
			}
		}
		if err := writeJobsTable(w, d, format); err != nil {
			return err
		}
		return writeNotes(w, format, notes)
	}
	return fmt.Errorf("results: unknown table format %q; allowed: %s, %s, %s",
		format, FormatTable, FormatMarkdown, FormatCSV)
}

// Notes are the lines a reader of v's summary should not miss, each prefixed with the
// variant's name: its warnings, how many flows were incomplete at stop, unroutable or failed
// (with the first such flow's reason), and each deadlock with its cycle, e.g.
// "RoCEv2 + PFC: deadlock at 12.30us: sw1:2 -> sw2:1 -> sw1:2".
func Notes(v *Variant) []string {
	var out []string
	for _, w := range v.Warnings {
		out = append(out, v.Name+": "+w)
	}
	if n := v.Flows.Incomplete; n > 0 {
		out = append(out, fmt.Sprintf("%s: %s incomplete at stop", v.Name, flowsWord(n)))
	}
	for _, s := range []struct {
		status string
		n      int64
	}{{StatusUnroutable, v.Flows.Unroutable}, {StatusFailed, v.Flows.Failed}} {
		if s.n == 0 {
			continue
		}
		line := fmt.Sprintf("%s: %s %s", v.Name, flowsWord(s.n), s.status)
		for i := range v.PerFlow {
			if f := &v.PerFlow[i]; f.Status == s.status && f.Reason != "" {
				line += fmt.Sprintf(", e.g. flow %d %s->%s: %s", f.ID, f.Src, f.Dst, f.Reason)
				break
			}
		}
		out = append(out, line)
	}
	for _, dl := range v.Deadlocks {
		cycle := dl.Cycle
		if len(cycle) > 1 && cycle[0] != cycle[len(cycle)-1] {
			cycle = append(cycle[:len(cycle):len(cycle)], cycle[0])
		}
		out = append(out, fmt.Sprintf("%s: deadlock at %sus: %s", v.Name, fixed(dl.AtUS),
			strings.Join(cycle, " -> ")))
	}
	return out
}

func flowsWord(n int64) string {
	if n == 1 {
		return "1 flow"
	}
	return fmt.Sprintf("%d flows", n)
}

// writeNotes writes notes under a table: plain lines, or a Markdown list.
func writeNotes(w io.Writer, format string, notes []string) error {
	if len(notes) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("\n")
	for _, n := range notes {
		if format == FormatMarkdown {
			b.WriteString("- ")
			n = MarkdownText(n)
		}
		b.WriteString(n)
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// renderTable renders header and rows with tablewriter as an ASCII box table or Markdown,
// with align per column. Markdown cells have '|' escaped and newlines flattened.
func renderTable(w io.Writer, format string, header []string, align []tw.Align, rows [][]string) error {
	var r tw.Renderer
	switch format {
	case FormatMarkdown:
		r = renderer.NewMarkdown()
		header = escapeMarkdown(header, markdownCell.Replace)
		esc := make([][]string, len(rows))
		for i, row := range rows {
			esc[i] = escapeMarkdown(row, MarkdownText) // the variant's name is the user's
		}
		rows = esc
	default:
		r = renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})
	}
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(r),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
	)
	hdr := make([]any, len(header))
	for i, h := range header {
		hdr[i] = h
	}
	t.Header(hdr...)
	if err := t.Bulk(rows); err != nil {
		return fmt.Errorf("results: rendering table: %w", err)
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("results: rendering table: %w", err)
	}
	return nil
}

// markdownCell escapes what would break a Markdown table row: the cell separator and line
// breaks (tablewriter's Markdown renderer escapes neither); enough for the headers, which
// are ours. Rows hold what the user wrote and take MarkdownText.
var markdownCell = strings.NewReplacer("|", `\|`, "\r\n", " ", "\n", " ", "\r", " ")

func escapeMarkdown(cells []string, escape func(string) string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = escape(c)
	}
	return out
}

func writeCSV(w io.Writer, header []string, rows [][]string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	return cw.WriteAll(rows) // flushes
}

// ReplicatedNote heads the comparison of a replicated run.
const ReplicatedNote = "mean ±95% confidence half-width over the seeds (Student's t)"

// replicatedRows are the comparison of a replicated run: per variant, its name, transport,
// number of seeds and each metric as "mean ±ci95" ("-" when no seed has it).
func replicatedRows(d *Document) (header []string, rows [][]string) {
	header = []string{"variant", "transport", "seeds"}
	for _, m := range TableMetrics() {
		header = append(header, m.Name)
	}
	for _, r := range d.Replication {
		row := []string{r.Name, r.Transport, strconv.Itoa(len(r.Seeds))}
		for _, m := range TableMetrics() {
			if e, ok := r.Metrics[m.Name]; ok {
				row = append(row, e.cell())
			} else {
				row = append(row, "-")
			}
		}
		rows = append(rows, row)
	}
	return header, rows
}

// writeReplicated writes the comparison of a replicated run: in a table or Markdown, one row
// per variant, each metric as "mean ±ci95" over its seeds; in CSV, one row per variant and
// seed (the comparison's columns with a seed column), then, after a blank line, one row per
// variant with each metric's mean and ci95.
func writeReplicated(w io.Writer, d *Document, format string, notes []string) error {
	metrics := make([]string, len(TableMetrics()))
	for i, m := range TableMetrics() {
		metrics[i] = m.Name
	}
	switch format {
	case FormatCSV:
		header := append([]string{"variant", "transport", "seed"}, csvHeader[2:]...)
		var rows [][]string
		for i := range d.Variants {
			row := csvRow(&d.Variants[i])
			rows = append(rows, append([]string{row[0], row[1], strconv.FormatUint(d.Variants[i].Seed, 10)}, row[2:]...))
		}
		if err := writeCSV(w, header, rows); err != nil {
			return err
		}
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
		header = []string{"variant", "transport", "seeds"}
		for _, m := range metrics {
			header = append(header, m+"_mean", m+"_ci95")
		}
		rows = nil
		for _, r := range d.Replication {
			row := []string{r.Name, r.Transport, strconv.Itoa(len(r.Seeds))}
			for _, m := range metrics {
				e, ok := r.Metrics[m]
				if !ok {
					row = append(row, "-", "-")
					continue
				}
				row = append(row, exact(e.Mean), exact(e.CI95))
			}
			rows = append(rows, row)
		}
		return writeCSV(w, header, rows)
	case FormatTable, FormatMarkdown:
		header, rows := replicatedRows(d)
		align := []tw.Align{tw.AlignLeft, tw.AlignLeft}
		for range len(header) - 2 {
			align = append(align, tw.AlignRight)
		}
		if _, err := io.WriteString(w, ReplicatedNote+":\n"); err != nil {
			return err
		}
		if err := renderTable(w, format, header, align, rows); err != nil {
			return err
		}
		if err := writeJobsTable(w, d, format); err != nil {
			return err
		}
		return writeNotes(w, format, notes)
	}
	return fmt.Errorf("results: unknown table format %q; allowed: %s, %s, %s",
		format, FormatTable, FormatMarkdown, FormatCSV)
}
