package results

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure is one plot of an output directory, ready to render as PNG or SVG: its file name
// (Name plus .png or .svg), the variant it shows ("" for a comparison of variants), a
// caption saying what to read in it, and its curves with their number of points.
type Figure struct {
	Name    string
	Variant string
	Title   string
	Caption string
	Curves  []Curve
	plot    *plot.Plot
	legend  []legendEntry
	lines   []*plotter.Line // addLine's, in order
}

// Curve is one line (or timeline row) of a figure: its legend label and how many data
// points it draws.
type Curve struct {
	Label  string
	Points int
}

// Omitted is a figure that was not drawn, and why (nothing to show: no pause, no DCQCN...).
type Omitted struct {
	Name   string
	Reason string
}

type legendEntry struct {
	label string
	thumb plot.Thumbnailer
}

// The size of every figure: wide enough for the legend beside the data.
const figWidth, figHeight = 26 * vg.Centimeter, 13 * vg.Centimeter

// maxPlotLines bounds the lines of one plot: beyond it a plot is unreadable, so a plot keeps
// the deepest queues (or the largest flows) and its caption says how many it left out.
const maxPlotLines = 10

// newFigure starts a figure with its title and axis labels.
func newFigure(name, variant, title, xLabel, yLabel string) *Figure {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Add(plotter.NewGrid())
	return &Figure{Name: name, Variant: variant, Title: title, plot: p}
}

// addLine draws pts as line number i of the figure (its colour and dash from i), in the
// legend under label, and returns the line to restyle.
func (f *Figure) addLine(i int, label string, pts plotter.XYs) (*plotter.Line, error) {
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil, err
	}
	l.Color = lineColor(i)
	l.Dashes = plotutil.Dashes(i / len(palette))
	l.Width = vg.Points(1.5)
	f.plot.Add(l)
	f.legend = append(f.legend, legendEntry{label, l})
	f.Curves = append(f.Curves, Curve{Label: label, Points: len(pts)})
	f.lines = append(f.lines, l)
	return l, nil
}

// palette is a colour-blind-safe qualitative palette (Okabe and Ito).
var palette = []color.RGBA{
	{0, 114, 178, 255}, {213, 94, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255},
	{230, 159, 0, 255}, {86, 180, 233, 255}, {0, 0, 0, 255}, {240, 228, 66, 255},
}

func lineColor(i int) color.Color { return palette[i%len(palette)] }

// Render writes the figure as "png" or "svg", its legend in a column right of the data.
func (f *Figure) Render(w io.Writer, format string) error {
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.New(figWidth, figHeight)}
	case "svg":
		c = vgsvg.New(figWidth, figHeight)
	default:
		return fmt.Errorf("results: unknown figure format %q", format)
	}
	dc := draw.New(c)
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	l.YOffs = -vg.Points(24)
	l.XOffs = vg.Points(6)
	width := vg.Length(0)
	for _, e := range f.legend {
		l.Add(e.label, e.thumb)
		width = max(width, l.TextStyle.Width(e.label))
	}
	if len(f.legend) > 0 {
		width += l.ThumbnailWidth + l.Padding + vg.Points(18)
		width = min(width, figWidth/3)
		l.Draw(draw.Crop(dc, figWidth-width, 0, 0, 0))
	}
	f.plot.Draw(draw.Crop(dc, 0, -width, 0, 0))
	_, err := c.WriteTo(w)
	return err
}

// InlineSVG is the figure as an <svg> element to place in an HTML page: the SVG without
// its XML prologue, scaled to the page's width.
func (f *Figure) InlineSVG() (string, error) {
	var b bytes.Buffer
	if err := f.Render(&b, "svg"); err != nil {
		return "", err
	}
	s := b.String()
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	// Width and height in points fix the size; the viewBox keeps the proportions.
	if i := strings.Index(s, "viewBox"); i >= 0 {
		s = `<svg role="img" aria-label="` + htmlAttr(f.Title) + `" class="figure" ` + s[i:]
	}
	return s, nil
}

// htmlAttr escapes s for a double-quoted HTML attribute.
func htmlAttr(s string) string {
	return strings.NewReplacer("&", "&amp;", `"`, "&quot;", "<", "&lt;", ">", "&gt;").Replace(s)
}
