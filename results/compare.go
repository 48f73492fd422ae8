package results

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/olekukonko/tablewriter/tw"
)

// Comparison is two runs side by side: the variants both have (by name, in A's order),
// every table metric of each with its change, and the variants only one has.
type Comparison struct {
	A, B           *Document
	LabelA, LabelB string
	Rows           []ComparisonRow
	OnlyA, OnlyB   []string
}

// ComparisonRow is one metric of one variant in both runs; HasA or HasB is false where
// the run has no value (no flow completed).
type ComparisonRow struct {
	Variant, Metric string
	ValueA, ValueB  float64
	HasA, HasB      bool
}

// firstRuns maps each variant name of d to its first run (a replicated run's first seed)
// and lists the names in order.
func firstRuns(d *Document) (map[string]*Variant, []string) {
	m := map[string]*Variant{}
	var names []string
	for i := range d.Variants {
		if v := &d.Variants[i]; m[v.Name] == nil {
			m[v.Name] = v
			names = append(names, v.Name)
		}
	}
	return m, names
}

// Compare matches the variants of a and b by name and lines up every table metric
// (TableMetrics). A replicated run is compared by its means (Replication), one seed's run
// by its values.
func Compare(a, b *Document, labelA, labelB string) *Comparison {
	c := &Comparison{A: a, B: b, LabelA: labelA, LabelB: labelB}
	ra, names := firstRuns(a)
	rb, namesB := firstRuns(b)
	value := func(d *Document, v *Variant, m Metric) (float64, bool) {
		for _, r := range d.Replication {
			if r.Name == v.Name {
				e, ok := r.Metrics[m.Name]
				return e.Mean, ok
			}
		}
		return m.Value(v)
	}
	for _, n := range names {
		vb := rb[n]
		if vb == nil {
			c.OnlyA = append(c.OnlyA, n)
			continue
		}
		for _, m := range TableMetrics() {
			row := ComparisonRow{Variant: n, Metric: m.Name}
			row.ValueA, row.HasA = value(a, ra[n], m)
			row.ValueB, row.HasB = value(b, vb, m)
			c.Rows = append(c.Rows, row)
		}
	}
	for _, n := range namesB {
		if ra[n] == nil {
			c.OnlyB = append(c.OnlyB, n)
		}
	}
	return c
}

// comparisonHeader is the delta table's header.
var comparisonHeader = []string{"variant", "metric", "a", "b", "delta", "change"}

// cells are the row as table cells: values with two decimals (full precision in CSV), a
// count (drops, pause frames) as a whole number,
// the delta b - a, and the change as a percentage of a ("-" when a is 0 or a value is
// missing).
func (r ComparisonRow) cells(format string) []string {
	num := fixed
	if format == FormatCSV {
		num = exact
	}
	if r.isCount() {
		num = func(x float64) string { return strconv.FormatFloat(x, 'f', 0, 64) }
	}
	cell := func(x float64, ok bool) string {
		if !ok {
			return "-"
		}
		return num(x)
	}
	delta, change := "-", "-"
	if r.HasA && r.HasB {
		delta = num(r.ValueB - r.ValueA)
		if r.ValueA != 0 {
			change = strconv.FormatFloat(100*(r.ValueB-r.ValueA)/math.Abs(r.ValueA), 'f', 1, 64) + "%"
		}
	}
	return []string{r.Variant, r.Metric, cell(r.ValueA, r.HasA), cell(r.ValueB, r.HasB), delta, change}
}

// isCount reports whether the row is a count (its metric's cell is a whole number: drops,
// pause frames, flows completed) with whole values in both runs (a replicated run's mean
// over seeds may not be).
func (r ComparisonRow) isCount() bool {
	m, ok := metricNamed(r.Metric)
	if !ok || (m.Cell != CellCount && m.Cell != CellOfTotal) {
		return false
	}
	return r.ValueA == math.Trunc(r.ValueA) && r.ValueB == math.Trunc(r.ValueB)
}

// WriteComparison writes c as a table ("table", "markdown" or "csv"): a row per variant and
// metric, a (c.LabelA) and b (c.LabelB), b - a and its change, then the variants only one
// run has.
func WriteComparison(w io.Writer, c *Comparison, format string) error {
	rows := make([][]string, len(c.Rows))
	for i, r := range c.Rows {
		rows[i] = r.cells(format)
	}
	if format == FormatCSV {
		return writeCSV(w, comparisonHeader, rows)
	}
	if _, err := fmt.Fprintf(w, "a: %s\nb: %s\n\n", c.LabelA, c.LabelB); err != nil {
		return err
	}
	align := []tw.Align{tw.AlignLeft, tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight}
	if err := renderTable(w, format, comparisonHeader, align, rows); err != nil {
		return err
	}
	for _, only := range []struct {
		label string
		names []string
	}{{c.LabelA, c.OnlyA}, {c.LabelB, c.OnlyB}} {
		for _, n := range only.names {
			if _, err := fmt.Fprintf(w, "only in %s: %s\n", only.label, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// ComparisonFigures are the two runs' FCT distributions and slowdown by size overlaid
// (fct-cdf-compare, slowdown-by-size-compare): each variant both have twice, "NAME [a]"
// and "NAME [b]", drawn as a run's own plots draw them, in one colour and marker per
// variant, run b's lines dashed (identities).
func ComparisonFigures(c *Comparison) ([]*Figure, []Omitted, error) {
	d := &Document{Scenario: c.A.Scenario + " (a) against " + c.B.Scenario + " (b)", compared: true}
	for _, side := range []struct {
		doc *Document
		tag string
	}{{c.A, "a"}, {c.B, "b"}} {
		for i := range side.doc.Variants {
			v := side.doc.Variants[i]
			matched := false
			for _, r := range c.Rows {
				matched = matched || r.Variant == v.Name
			}
			if !matched {
				continue
			}
			v.Name += " [" + side.tag + "]"
			d.Variants = append(d.Variants, v)
		}
	}
	var figs []*Figure
	var omitted []Omitted
	for _, pl := range []struct {
		name string
		make func(*Document) (*Figure, string, error)
	}{{"fct-cdf-compare", fctFigure}, {"slowdown-by-size-compare", sizesFigure}} {
		f, why, err := pl.make(d)
		if err != nil {
			return nil, nil, err
		}
		if f == nil {
			omitted = append(omitted, Omitted{pl.name, why})
			continue
		}
		f.Name = pl.name
		f.Caption += " Each variant twice: [a] is " + c.LabelA + ", [b] " + c.LabelB + "."
		figs = append(figs, f)
	}
	return figs, omitted, nil
}
