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
	"gonum.org/v1/plot/vg/vgpdf"
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
	fabric  *fabricDrawing  // a fabric figure's drawing
	pauses  *pauseRows      // a PFC timeline's rows
	// dataArea is where the last Render drew the data (HoverJSON).
	dataArea *draw.Canvas
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
	if label != "" {
		f.legend = append(f.legend, legendEntry{label, l})
	}
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

// flowStyle is flow id's colour and dash, the same in every plot of a run: both in turn
// (8 colours, 7 dashes: 56 flows before a pair repeats), so that flows whose lines lie on
// each other (equal shares) still show as interleaved dashes.
func flowStyle(id int) (color.Color, []vg.Length) {
	return lineColor(id - 1), plotutil.Dashes((id - 1) % len(plotutil.DefaultDashes))
}

// FigureFormats are the files each figure is written as: PNG for screens, SVG for the
// report, PDF for a paper (vector, fonts embedded).
var FigureFormats = []string{"png", "svg", "pdf"}

// Render writes the figure as "png", "svg" or "pdf", its legend in a column right of the
// data, inside the image: it has at most the rows that fit (the last says how many more
// there are) and labels cut to the column's width. Axes get readable ticks (readableTicks)
// unless a figure set its own.
func (f *Figure) Render(w io.Writer, format string) error {
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.New(figWidth, figHeight)}
	case "svg":
		c = vgsvg.New(figWidth, figHeight)
	case "pdf":
		pc := vgpdf.New(figWidth, figHeight)
		pc.EmbedFonts(true)
		c = pc
	default:
		return fmt.Errorf("results: unknown figure format %q", format)
	}
	f.readableAxes()
	dc := draw.New(c)
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	l.YOffs = -legendTop
	l.XOffs = vg.Points(6)
	entries := fitLegend(f.legend, l)
	width := vg.Length(0)
	for _, e := range entries {
		width = max(width, l.TextStyle.Width(e.label))
	}
	if len(entries) > 0 {
		width += l.ThumbnailWidth + l.Padding + vg.Points(18)
		width = min(width, figWidth/3)
		room := width - l.ThumbnailWidth - l.Padding - vg.Points(12)
		for _, e := range entries {
			l.Add(cutToWidth(e.label, room, l.TextStyle.Width), e.thumb)
		}
		l.Draw(draw.Crop(dc, figWidth-width, 0, 0, 0))
	}
	// A margin of its own round the plot: the y label and the last tick label otherwise
	// touch the image's edge, and a printer's trim takes them.
	area := draw.Crop(dc, figMargin, -width-figMargin, figMargin, -figMargin/2)
	f.plot.Draw(area)
	f.keepDataArea(area)
	_, err := c.WriteTo(w)
	return err
}

// readableAxes gives each numeric axis readableTicks (an axis of named rows keeps its own),
// and an axis of one value a unit's range above it.
func (f *Figure) readableAxes() {
	for _, ax := range []*plot.Axis{&f.plot.X, &f.plot.Y} {
		_, log := ax.Scale.(plot.LogScale)
		switch {
		case ax.Max == ax.Min && !log:
			// A flat line (a queue that held one frame, a count that stayed 0): from its
			// value up, not gonum's -1..1 round it.
			ax.Max = ax.Min + 1
		case ax.Max == ax.Min && ax.Min > 0:
			// One value on a log axis (every flow in one size bin): a factor of 2 either
			// side, where the ticks at every multiple give at least four labels.
			ax.Min, ax.Max = ax.Min/2, ax.Max*2
		}
		switch ax.Tick.Marker.(type) {
		case plot.DefaultTicks, plot.LogTicks, nil:
			_, log := ax.Scale.(plot.LogScale)
			ax.Tick.Marker = readableTicks{log: log}
		}
	}
}

// TickLabels are the labels of the x and y axes' ticks as drawn; named is true for an
// axis whose ticks name rows (a timeline's port-classes) rather than values.
func (f *Figure) TickLabels() (x, y []string, xNamed, yNamed bool) {
	f.readableAxes()
	labels := func(ax *plot.Axis) (out []string, named bool) {
		_, named = ax.Tick.Marker.(plot.ConstantTicks)
		for _, tk := range ax.Tick.Marker.Ticks(ax.Min, ax.Max) {
			if tk.Label != "" && tk.Value >= ax.Min && tk.Value <= ax.Max {
				out = append(out, tk.Label)
			}
		}
		return out, named
	}
	x, xNamed = labels(&f.plot.X)
	y, yNamed = labels(&f.plot.Y)
	return x, y, xNamed, yNamed
}

// figMargin is the blank round a figure's plot.
var figMargin = vg.Points(6)

// legendTop is the legend's distance from the top of the image.
var legendTop = vg.Points(24)

// fitLegend is entries cut to the rows that fit in the image's height under legendTop,
// the last row then saying how many were left out.
func fitLegend(entries []legendEntry, l plot.Legend) []legendEntry {
	row := l.TextStyle.Height("Xg") + l.Padding
	rows := int((figHeight - legendTop - vg.Points(12)) / row)
	if len(entries) <= rows {
		return entries
	}
	out := append([]legendEntry(nil), entries[:rows-1]...)
	return append(out, legendEntry{label: fmt.Sprintf("... and %d more (see the caption)", len(entries)-rows+1), thumb: blankThumb{}})
}

// blankThumb draws nothing: a legend row of text only.
type blankThumb struct{}

func (blankThumb) Thumbnail(*draw.Canvas) {}

// cutToWidth shortens s with an ellipsis until width(s) is at most room.
func cutToWidth(s string, room vg.Length, width func(string) vg.Length) string {
	if width(s) <= room {
		return s
	}
	r := []rune(s)
	for len(r) > 1 && width(string(r)+"...") > room {
		r = r[:len(r)-1]
	}
	return string(r) + "..."
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
