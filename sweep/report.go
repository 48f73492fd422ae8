package sweep

import (
	_ "embed"
	"html/template"
	"io"
	"strconv"

	"github.com/fabricsim/fabricsim/results"
)

//go:embed report.html.tmpl
var reportSource string

var reportTemplate = template.Must(template.New("sweep").Parse(reportSource))

// reportFigure is a plot as the report shows it.
type reportFigure struct {
	Name, Title, Caption string
	SVG                  template.HTML
}

// report is what the template renders.
type report struct {
	M       *Manifest
	Header  []string   // the summary table's header
	Rows    [][]string // a row per summary entry: variant, parameters, seeds, metrics
	Figures []reportFigure
	Flat    []string // the metrics not plotted because they never change
}

// writeReport writes the sweep as one self-contained HTML page: its parameters, the seeds'
// summary (each metric's, the collectives' too, mean ±95% interval per variant and combination of the
// parameters), every plot inline with its caption, and links to the files.
func writeReport(w io.Writer, m *Manifest, jobKeys []string, figs []*results.Figure, flat []string) error {
	r := report{M: m, Header: []string{"variant"}, Flat: flat}
	metrics := metricNames(jobKeys)
	for _, p := range m.Parameters {
		if p.Path != seedParam {
			r.Header = append(r.Header, p.Path)
		}
	}
	r.Header = append(r.Header, "seeds")
	r.Header = append(r.Header, metrics...)
	for _, s := range m.Summary {
		row := []string{s.Variant}
		for _, p := range m.Parameters {
			if p.Path != seedParam {
				row = append(row, s.Parameters[p.Path])
			}
		}
		row = append(row, strconv.Itoa(len(s.Seeds)))
		for _, name := range metrics {
			cell := "-"
			if e, ok := s.Metrics[name]; ok {
				cell = strconv.FormatFloat(e.Mean, 'f', 2, 64)
				if len(e.Values) > 1 {
					cell += " ±" + strconv.FormatFloat(e.CI95, 'f', 2, 64)
				}
			}
			row = append(row, cell)
		}
		r.Rows = append(r.Rows, row)
	}
	for _, f := range figs {
		svg, err := f.InlineSVG()
		if err != nil {
			return err
		}
		r.Figures = append(r.Figures, reportFigure{Name: f.Name, Title: f.Title, Caption: f.Caption,
			SVG: template.HTML(svg)}) // gonum's SVG writer escapes its text
	}
	return reportTemplate.Execute(w, r)
}
