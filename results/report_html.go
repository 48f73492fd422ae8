package results

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// FileReport is the HTML report of an output directory.
const FileReport = "report.html"

//go:embed report.html.tmpl
var reportSource string

// reportScript is the page's behaviour (sorting, hover, zoom), inline: the page fetches
// nothing. It is our own, some 170 lines, rather than a charting library: the figures are
// gonum's SVG (the same drawing as the PNG and PDF), which a library would draw a second
// time its own way, and reading values off them needs only each point's place and values
// (Figure.HoverJSON).
//
//go:embed report.js
var reportScript string

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"inc": func(i int) int { return i + 1 }}).Parse(reportSource))

// reportFigure is a figure as the report shows it: inline SVG, caption, links to its files.
type reportFigure struct {
	Name, Title, Caption string
	SVG                  template.HTML
	Points               string // Figure.HoverJSON, "" for none
	Panels               int    // a panel figure's panels (data-panels), 0 for one plot
}

// contentsEntry is a line of the report's contents: a link to an element of the page by
// its id, and the entries under it.
type contentsEntry struct {
	ID, Title string
	Children  []contentsEntry
}

type reportSection struct {
	Title   string
	Figures []reportFigure
}

// report is what the template renders.
type report struct {
	Title, Version   string
	Seed             uint64
	Interrupted      bool
	Description      []descriptionBlock
	Tables           []Table  // the comparison in column groups, drops by reason, flows by group
	Replicated       string   // what a replicated run's cells are, "" for one seed
	Takeaways        []string // Reading's lines
	YAML             string
	Overrides        []string
	Header           []string
	Rows             [][]string
	SizeHeader       []string
	SizeRows         [][]string
	SizeNone         string
	GroupHeader      []string   // the link groups' table (planes, rails, scale-up domains)
	GroupRows        [][]string // none for a fabric without them
	Defs, SizeDefs   []Definition
	Notes, Deadlocks []string
	Sections         []reportSection
	Omitted          []Omitted
	Files            []string
	Contents         []contentsEntry
	Script           template.JS
}

// WriteReport writes d as one self-contained HTML page: the scenario's description (its
// bullet lists as lists), the comparison in column groups (ComparisonTables: narrow
// enough, side by side or one under another, for a 1,400 px window) with the takeaways
// (Reading), the slowdown-by-size table with the definition of every column, the notes
// and deadlocks, every figure as inline SVG with its caption (and what was not plotted,
// and why), links to the other files, and the scenario as run, under a contents list that
// links to each. Its tables sort on a click of a header, its figures show a point's values
// under the pointer and zoom (report.js, inline); it needs no network, and reads on an
// 800 px screen without scrolling sideways (wide tables scroll in their own box).
func WriteReport(w io.Writer, d *Document, figs []*Figure, omitted []Omitted, files []string) error {
	r := report{Title: d.Scenario, Version: d.Version, Seed: d.Seed, Interrupted: d.Interrupted,
		Description: describeBlocks(describe(d.ResolvedScenario)), Tables: ComparisonTables(d),
		Takeaways: Reading(d, ""), YAML: d.ResolvedScenario, Overrides: d.Overrides,
		Header: summaryHeader, Defs: TableDefinitions, SizeDefs: SizeDefinitions,
		Omitted: omitted, Files: files, Script: template.JS(reportScript)}
	if r.Title == "" {
		r.Title = "fabricsim results"
	}
	if len(d.Replication) > 0 {
		r.Replicated = ReplicatedNote + "."
	}
	for i := range d.Variants {
		v := &d.Variants[i]
		row := summaryRow(v)
		if seedsDiffer(d) {
			row[0] = fmt.Sprintf("%s (seed %d)", v.Name, v.Seed)
		}
		r.Rows = append(r.Rows, row)
		r.Notes = append(r.Notes, Notes(v)...)
		for _, dl := range v.Deadlocks {
			r.Deadlocks = append(r.Deadlocks, fmt.Sprintf("%s: at %s us, the cycle %s", v.Name, fixed(dl.AtUS), strings.Join(dl.Cycle, " -> ")))
		}
	}
	if r.GroupRows = linkGroupRows(d); r.GroupRows != nil {
		r.GroupHeader = linkGroupHeader
	}
	r.SizeRows = sizeRows(d, SizeTableMinFlows)
	r.SizeHeader, _ = sizeColumns(d, SizeTableMinFlows)
	if len(r.SizeRows) == 0 {
		r.SizeNone = fmt.Sprintf("No variant has %d flows or more: too few for a table by flow size.", SizeTableMinFlows)
	}
	sections := map[string]int{}
	for _, f := range figs {
		title := "All variants"
		if f.Variant != "" {
			title = "Variant " + f.Variant
		}
		k, ok := sections[title]
		if !ok {
			k = len(r.Sections)
			sections[title] = k
			r.Sections = append(r.Sections, reportSection{Title: title})
		}
		svg, err := f.InlineSVG()
		if err != nil {
			return err
		}
		r.Sections[k].Figures = append(r.Sections[k].Figures, reportFigure{Name: f.Name, Title: f.Title, Caption: f.Caption,
			SVG: template.HTML(svg), Points: f.HoverJSON(), Panels: len(f.panels)}) // gonum's SVG writer escapes its text
	}
	r.Contents = r.contents()
	return reportTemplate.Execute(w, r)
}

// contents is the report's contents list: its sections in page order, the comparison's
// tables and the plots' sections and figures under theirs.
func (r *report) contents() []contentsEntry {
	var out []contentsEntry
	if len(r.Description) > 0 {
		out = append(out, contentsEntry{ID: "description", Title: "Scenario"})
	}
	comparison := contentsEntry{ID: "comparison", Title: "Comparison"}
	for _, t := range r.Tables {
		comparison.Children = append(comparison.Children, contentsEntry{ID: t.ID, Title: t.Title})
	}
	if len(r.SizeRows) > 0 {
		comparison.Children = append(comparison.Children, contentsEntry{ID: "table-sizes", Title: "Slowdown by flow size"})
	}
	if len(r.GroupRows) > 0 {
		comparison.Children = append(comparison.Children, contentsEntry{ID: "table-link-groups", Title: "Planes, rails and scale-up domains"})
	}
	out = append(out, comparison,
		contentsEntry{ID: "definitions", Title: "What the columns mean"},
		contentsEntry{ID: "deadlocks", Title: "Deadlocks"})
	plots := contentsEntry{ID: "plots", Title: "Plots"}
	for i, s := range r.Sections {
		sec := contentsEntry{ID: "plots-" + strconv.Itoa(i+1), Title: s.Title}
		for _, f := range s.Figures {
			// The section says the variant and the page the scenario: the figure's own words.
			title := strings.TrimPrefix(f.Title, r.Title+": ")
			if v, ok := strings.CutPrefix(s.Title, "Variant "); ok {
				title = strings.TrimPrefix(title, v+": ")
			}
			sec.Children = append(sec.Children, contentsEntry{ID: "fig-" + f.Name, Title: title})
		}
		plots.Children = append(plots.Children, sec)
	}
	if len(r.Omitted) > 0 {
		plots.Children = append(plots.Children, contentsEntry{ID: "omitted-title", Title: "Not plotted"})
	}
	return append(out, plots,
		contentsEntry{ID: "files", Title: "Files"},
		contentsEntry{ID: "scenario-yaml", Title: "The scenario as run"})
}

// describe is the description of a scenario given as YAML, "" when it has none.
func describe(yamlText string) string {
	var s struct {
		Description string `yaml:"description"`
	}
	if yaml.Unmarshal([]byte(yamlText), &s) != nil {
		return ""
	}
	return strings.TrimSpace(s.Description)
}

// paragraphs splits text at blank lines.
func paragraphs(text string) []string {
	var out []string
	for _, p := range strings.Split(text, "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
