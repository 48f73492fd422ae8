package results

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Table is one table of the report and summary.md: an id, a title, a header and rows of
// cells, the first one or two of text and the rest numbers.
type Table struct {
	ID, Title string
	Header    []string
	Rows      [][]string
	// Text, when not 0, is how many leading columns are text (TextColumns).
	Text int
}

// columnGroups split the comparison into tables narrow enough for a 1,400 px window, each
// led by the variant: what completed, what was lost, what flow control did, what congestion
// control did. A column goes in its Metric's Group (by the name of the one-seed or the
// replicated comparison); one of none (seeds) goes with completion.
var columnGroups = []struct{ id, title string }{
	{"completion", "Completion"},
	{"loss", "Loss"},
	{"flow-control", "Flow control (PFC)"},
	{"congestion-control", "Congestion control (ECN)"},
}

// ComparisonTables are the comparison of d in column groups (columnGroups), with rows as
// the CLI's table has them (means and intervals for a replicated run), then drops by reason
// when anything was dropped, then flows by group when the traffic has two groups or more.
func ComparisonTables(d *Document) []Table {
	header, rows := summaryHeader, make([][]string, len(d.Variants))
	if len(d.Replication) > 0 {
		header, rows = replicatedRows(d)
	} else {
		for i := range d.Variants {
			rows[i] = summaryRow(&d.Variants[i])
			if seedsDiffer(d) {
				rows[i][0] = fmt.Sprintf("%s (seed %d)", d.Variants[i].Name, d.Variants[i].Seed)
			}
		}
	}
	placed := make([]int, len(header)) // the group of each column after the variant
	for c := 1; c < len(header); c++ {
		for g, cg := range columnGroups {
			if groupOf(header[c]) == cg.id {
				placed[c] = g
				break
			}
		}
	}
	var out []Table
	for g, cg := range columnGroups {
		t := Table{ID: "table-" + cg.id, Title: cg.title, Header: []string{header[0]}}
		var cols []int
		for c := 1; c < len(header); c++ {
			if placed[c] == g {
				cols = append(cols, c)
				t.Header = append(t.Header, header[c])
			}
		}
		if len(cols) == 0 {
			continue
		}
		for _, r := range rows {
			row := []string{r[0]}
			for _, c := range cols {
				row = append(row, r[c])
			}
			t.Rows = append(t.Rows, row)
		}
		out = append(out, t)
	}
	if t, ok := dropsTable(d); ok {
		out = append(out, t)
	}
	if t, ok := groupsTable(d); ok {
		out = append(out, t)
	}
	if t, ok := jobsTable(d); ok {
		out = append(out, t)
	}
	return out
}

// dropsTable is the variants' drops by reason, when any variant dropped a packet.
func dropsTable(d *Document) (Table, bool) {
	t := Table{ID: "table-drops", Title: "Drops by reason",
		Header: []string{"variant", "random_loss", "ttl", "watchdog", "buffer", "headroom", "link_down", "unroutable", "total"}}
	any := false
	for i := range d.Variants {
		v := &d.Variants[i]
		r := v.Drops.ByReason
		any = any || v.Drops.Total > 0
		t.Rows = append(t.Rows, []string{variantCell(d, v), integer(r.RandomLoss), integer(r.TTL), integer(r.Watchdog),
			integer(r.Buffer), integer(r.Headroom), integer(r.LinkDown), integer(r.Unroutable), integer(v.Drops.Total)})
	}
	return t, any
}

// groupsTable is, per variant and group of flows (a traffic item's label), how many flows
// there are and completed, their FCT p50 and p99 and their mean rate_gbps: the victim's
// rate beside the others', when the traffic has two groups or more.
func groupsTable(d *Document) (Table, bool) {
	t := Table{ID: "table-groups", Title: "Flows by group",
		Header: []string{"variant", "group", "flows", "completed", "fct_p50_us", "fct_p99_us", "rate_gbps"}}
	grouped := false
	for i := range d.Variants {
		v := &d.Variants[i]
		all := make([]*Flow, len(v.PerFlow))
		for j := range v.PerFlow {
			all[j] = &v.PerFlow[j]
		}
		order, of := groupFlows(all)
		if len(order) < 2 {
			continue
		}
		grouped = true
		for _, g := range order {
			flows := of[g]
			var fcts, rates []float64
			completed := int64(0)
			for _, f := range flows {
				if f.Status == StatusCompleted {
					completed++
					if fct, ok := f.fct(); ok {
						fcts = append(fcts, fct)
					}
				}
				if f.RateGbps != nil {
					rates = append(rates, *f.RateGbps)
				}
			}
			slices.Sort(fcts)
			rate := "-"
			if len(rates) > 0 {
				rate = fixed(EstimateOf(rates).Mean)
			}
			t.Rows = append(t.Rows, []string{variantCell(d, v), g, integer(int64(len(flows))), integer(completed),
				optFixed(quantile(0.5, fcts)), optFixed(quantile(0.99, fcts)), rate})
		}
	}
	return t, grouped
}

// variantCell names v in a table row, with its seed when the variants ran under several.
func variantCell(d *Document, v *Variant) string {
	if seedsDiffer(d) {
		return fmt.Sprintf("%s (seed %d)", v.Name, v.Seed)
	}
	return v.Name
}

// TextColumns is how many leading columns of t are text (left-aligned): the variant, and
// the transport or group after it.
func (t Table) TextColumns() int {
	if t.Text > 0 {
		return t.Text
	}
	if len(t.Header) > 1 && (t.Header[1] == "transport" || t.Header[1] == "group") {
		return 2
	}
	return 1
}

// writeMarkdownTables writes tables in Markdown, each under a level-3 heading.
func writeMarkdownTables(w io.Writer, tables []Table) error {
	for _, t := range tables {
		if _, err := fmt.Fprintf(w, "### %s\n\n", t.Title); err != nil {
			return err
		}
		if err := renderTable(w, FormatMarkdown, t.Header, t.aligns(), t.Rows); err != nil {
			return err
		}
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
	}
	return nil
}

// descriptionBlock is a paragraph of a scenario's description: its text, then the items
// of the bullet list it ends in (lines starting with "- " or "* "; a line after an item
// that starts with neither continues it).
type descriptionBlock struct {
	Text  string
	Items []string
}

// describeBlocks splits a description into paragraphs with their lists.
func describeBlocks(text string) []descriptionBlock {
	var out []descriptionBlock
	for _, p := range paragraphs(text) {
		var b descriptionBlock
		var words []string
		for _, l := range strings.Split(p, "\n") {
			l = strings.TrimSpace(l)
			item, ok := strings.CutPrefix(l, "- ")
			if !ok {
				item, ok = strings.CutPrefix(l, "* ")
			}
			switch {
			case ok:
				b.Items = append(b.Items, strings.TrimSpace(item))
			case len(b.Items) > 0:
				b.Items[len(b.Items)-1] += " " + l
			default:
				words = append(words, strings.Fields(l)...)
			}
		}
		b.Text = strings.Join(words, " ")
		out = append(out, b)
	}
	return out
}

// writeSizesAndNotes writes, in Markdown, the slowdown-by-size table (when a variant has
// SizeTableMinFlows flows) and the notes of every variant, as WriteTable does under its
// comparison.
func writeSizesAndNotes(w io.Writer, d *Document) error {
	if sizes := sizeRows(d, SizeTableMinFlows); len(sizes) > 0 {
		if _, err := io.WriteString(w, "### Slowdown by flow size\n\n"); err != nil {
			return err
		}
		header, align := sizeColumns(d, SizeTableMinFlows)
		if err := renderTable(w, FormatMarkdown, header, align, sizes); err != nil {
			return err
		}
	}
	var notes []string
	for i := range d.Variants {
		notes = append(notes, Notes(&d.Variants[i])...)
	}
	return writeNotes(w, FormatMarkdown, notes)
}
