package results

import (
	"fmt"
	"io"
	"strings"
)

// writeSummary writes summary.md: a heading, the scenario's description (its lists as
// lists), the comparison in column groups with drops by reason and flows by group
// (ComparisonTables), the slowdown-by-size table and the notes, the takeaways (Reading), the definition of every
// column, and links to the plots, with those not drawn and why. What the user wrote (the
// description, variant names in rows, notes, titles and reasons) is escaped (MarkdownText):
// it shows as written, never as markup or HTML.
func writeSummary(w io.Writer, d *Document, figs []*Figure, omitted []Omitted) error {
	var b strings.Builder
	title := d.Scenario
	if title == "" {
		title = "fabricsim results"
	}
	version := ""
	if d.Version != "" {
		version = ", " + d.Version
	}
	fmt.Fprintf(&b, "# %s\n\nseed %d%s\n\n", title, d.Seed, version)
	for _, p := range describeBlocks(describe(d.ResolvedScenario)) {
		if p.Text != "" {
			b.WriteString(markdownLine(p.Text) + "\n\n")
		}
		for _, item := range p.Items {
			b.WriteString("- " + MarkdownText(item) + "\n")
		}
		if len(p.Items) > 0 {
			b.WriteString("\n")
		}
	}
	b.WriteString("## Comparison\n\n")
	if len(d.Replication) > 0 {
		b.WriteString(ReplicatedNote + ".\n\n")
	}
	if err := flush(w, &b); err != nil {
		return err
	}
	if err := writeMarkdownTables(w, ComparisonTables(d)); err != nil {
		return err
	}
	if err := writeSizesAndNotes(w, d); err != nil {
		return err
	}
	for _, l := range Reading(d, "") {
		b.WriteString("- " + MarkdownText(l) + "\n")
	}
	b.WriteString("\n## What the columns mean\n\n")
	for _, defs := range []struct {
		title string
		list  []Definition
	}{{"Comparison", TableDefinitions}, {"Slowdown by flow size", SizeDefinitions}} {
		fmt.Fprintf(&b, "%s:\n\n", defs.title)
		for _, def := range defs.list {
			unit := ""
			if def.Unit != "" {
				unit = " (" + def.Unit + ")"
			}
			fmt.Fprintf(&b, "- `%s`%s: %s\n", def.Column, unit, def.Meaning)
		}
		b.WriteString("\n")
	}
	b.WriteString("## Plots\n\nAll of them, with captions, are in [report.html](report.html).\n\n")
	for _, f := range figs {
		fmt.Fprintf(&b, "- [%s](%s.png) ([SVG](%s.svg), [PDF](%s.pdf))\n", MarkdownText(f.Title), f.Name, f.Name, f.Name)
	}
	if len(omitted) > 0 {
		b.WriteString("\nNot plotted:\n\n")
		for _, o := range omitted {
			fmt.Fprintf(&b, "- `%s`: %s\n", o.Name, MarkdownText(o.Reason))
		}
	}
	return flush(w, &b)
}
