package results

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
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
	// Key is true for a figure that shows what the scenario's variants differ in (Figures
	// puts these first): a report may show them apart.
	Key    bool
	plot   *plot.Plot
	legend []legendEntry
	lines  []*plotter.Line // addLine's, in order
	fabric *fabricDrawing  // a fabric figure's drawing
	pauses *pauseRows      // a PFC timeline's rows
	heat   *heatmapDrawing // a heat map's image
	refs   *refLabels      // the names of its reference lines (addReference)
	// timeline is a per-rank step timeline's bars.
	timeline *rankBars
	// natural is true for a y axis with a natural bound it ends at (a CDF's 1, a share, named
	// rows): no headroom above the data.
	natural bool
	// panels are a panel figure's plots, one per variant (panelFigure); plot is the first's.
	panels []*Figure
	// panelTitle names a panel (its variant).
	panelTitle string
	// ownX is true for a panel zoomed to its own activity (zoomEach), its x range its own.
	ownX bool
	// notes say, under a panel figure's title, how its axes are drawn (zoomed, not shared):
	// the caption's encodings in the image too.
	notes []string
	// dataArea is where the last Render drew the data (HoverJSON); a panel figure's panels
	// keep their own.
	dataArea *draw.Canvas
}

// Curve is one line (or timeline row) of a figure: its legend label, how many data points
// it draws, the panel it is in (0 but in a panel figure) and the largest y it draws.
type Curve struct {
	Label   string
	Points  int
	Panel   int
	MaxY    float64
	line    *plotter.Line    // its line, when it is one
	marker  draw.GlyphDrawer // its points' marker, if any
	byPlace bool             // styled by its place in the figure (restyled in a panel figure)
	ref     bool             // a reference line (a threshold, a capacity), not data
}

// Style is how a curve is drawn: its colour as #rrggbb, its dash pattern in points ("" for
// solid) and its marker ("" for none); "" colour for a curve that is no line (a timeline
// row, a heat map's group).
type Style struct{ Color, Dash, Marker string }

// Style is how c is drawn.
func (c Curve) Style() Style {
	var s Style
	if c.line != nil {
		r, g, b, _ := c.line.Color.RGBA()
		s.Color = fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
		for _, d := range c.line.Dashes {
			s.Dash += fmt.Sprintf("%.1f,", float64(d)/float64(vg.Points(1)))
		}
	}
	if c.marker != nil {
		s.Marker = fmt.Sprintf("%T", c.marker)
	}
	return s
}

// maxYOf is the largest y of pts (0 for none).
func maxYOf(pts plotter.XYer) float64 {
	m := math.Inf(-1)
	for i := range pts.Len() {
		_, y := pts.XY(i)
		if !math.IsNaN(y) && !math.IsInf(y, 0) {
			m = max(m, y)
		}
	}
	if math.IsInf(m, -1) {
		return 0
	}
	return m
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

// The size of a figure of one plot: wide enough for the legend beside the data.
const figWidth, figHeight = 26 * vg.Centimeter, 13 * vg.Centimeter

// pngDPI is the PNG's resolution: 26 cm at 160 dots per inch is 1,638 pixels wide, sharp
// on a wide screen and in a slide; the fonts keep their size in points, as on the page.
const pngDPI = 160

// headroom is how far above the data's maximum a y axis without a natural bound ends, as a
// factor: a plateau then reads apart from a line cut at the top of the axis.
const headroom = 1.08

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
	f.Curves = append(f.Curves, Curve{Label: label, Points: len(pts), MaxY: maxYOf(pts), line: l, byPlace: true})
	f.lines = append(f.lines, l)
	return l, nil
}

// palette is a colour-blind-safe qualitative palette of 12 colours: Okabe and Ito's eight
// (Okabe & Ito, "Color Universal Design", 2008) without their yellow, which is nearly
// invisible on white, then Paul Tol's indigo, olive, wine, teal and a mid grey (Tol,
// "Colour schemes", SRON/EPS/TN/09-002, 2021, the "muted" set).
var palette = []color.RGBA{
	{0, 114, 178, 255}, {213, 94, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255},
	{230, 159, 0, 255}, {86, 180, 233, 255}, {0, 0, 0, 255}, {51, 34, 136, 255},
	{153, 153, 51, 255}, {136, 34, 85, 255}, {68, 170, 153, 255}, {119, 119, 119, 255},
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
// there are), each label whole, wrapped onto further rows where it is wider than the
// column. Axes get readable ticks (readableTicks) unless a figure set its own, and a y axis
// without a natural bound ends headroom above the data. A panel figure draws its panels in
// a grid on shared axes, the figure's title above them.
func (f *Figure) Render(w io.Writer, format string) error {
	width, height := f.size()
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(pngDPI))}
	case "svg":
		c = vgsvg.New(width, height)
	case "pdf":
		pc := vgpdf.New(width, height)
		pc.EmbedFonts(true)
		c = pc
	default:
		return fmt.Errorf("results: unknown figure format %q", format)
	}
	f.readableAxes()
	dc := draw.New(c)
	legendWidth := f.drawLegend(dc, width, height)
	// A margin of its own round the plot: the y label and the last tick label otherwise
	// touch the image's edge, and a printer's trim takes them.
	area := draw.Crop(dc, figMargin, -legendWidth-figMargin, figMargin, -figMargin/2)
	if len(f.panels) == 0 {
		f.plot.Draw(area)
		f.drawRefLabels(area)
		f.keepDataArea(area)
	} else {
		f.drawPanels(area)
	}
	_, err := c.WriteTo(w)
	return err
}

// drawLegend draws the legend in a column at the right of dc and returns its width (0 when
// the figure has none). A label wider than the column (a third of the image, more for a
// long one in a wide image) goes on as many rows as it needs, under one swatch.
func (f *Figure) drawLegend(dc draw.Canvas, width, height vg.Length) vg.Length {
	l := newLegend()
	entries := fitLegend(wrapLegend(f.legend, l, width), l, height)
	if len(entries) == 0 {
		return 0
	}
	w := vg.Length(0)
	for _, e := range entries {
		w = max(w, l.TextStyle.Width(e.label))
	}
	w += l.ThumbnailWidth + l.Padding + vg.Points(18)
	for _, e := range entries {
		l.Add(e.label, e.thumb)
	}
	l.Draw(draw.Crop(dc, width-w, 0, 0, 0))
	return w
}

// legendFont is the legend's font size in points: the tick labels' size, a little under the
// axis labels'.
const legendFont = 10

// newLegend is the figure legend's style: rows apart by a third of the font size, so that
// no two lines of text touch.
func newLegend() plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font.Size = vg.Points(legendFont)
	l.Padding = vg.Points(legendFont / 3)
	l.Top, l.Left = true, true
	l.YOffs = -legendTop
	l.XOffs = vg.Points(6)
	return l
}

// legendColumn is the widest a legend's text may be in an image width wide.
func legendColumn(width vg.Length) vg.Length { return width / 3 }

// wrapLegend splits each label wider than the legend's column at spaces into rows that
// fit, the swatch on the first.
func wrapLegend(entries []legendEntry, l plot.Legend, width vg.Length) []legendEntry {
	room := legendColumn(width) - l.ThumbnailWidth - l.Padding - vg.Points(18)
	var out []legendEntry
	for _, e := range entries {
		rows := wrapText(e.label, room, l.TextStyle.Width)
		out = append(out, legendEntry{rows[0], e.thumb})
		for _, r := range rows[1:] {
			out = append(out, legendEntry{"   " + r, blankThumb{}})
		}
	}
	return out
}

// wrapText breaks s at spaces into rows at most room wide (a word wider than room is a
// row of its own, whole).
func wrapText(s string, room vg.Length, width func(string) vg.Length) []string {
	words := strings.Fields(s)
	if len(words) == 0 {
		return []string{s}
	}
	var rows []string
	row := words[0]
	for _, w := range words[1:] {
		if width(row+" "+w) > room {
			rows = append(rows, row)
			row = w
			continue
		}
		row += " " + w
	}
	return append(rows, row)
}

// readableAxes gives each numeric axis readableTicks (an axis of named rows keeps its own),
// an axis of one value a unit's range above it, and a y axis without a natural bound its
// headroom above the data (the curves' largest y). A panel figure's panels each.
func (f *Figure) readableAxes() {
	for _, p := range f.panels {
		p.readableAxes()
	}
	if len(f.panels) > 0 {
		return // f.plot is the first panel's
	}
	if _, named := f.plot.Y.Tick.Marker.(plot.ConstantTicks); !f.natural && !named {
		if top := f.maxY(); top > 0 && f.plot.Y.Max < headroom*top {
			f.plot.Y.Max = headroom * top
		}
	}
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

// maxY is the largest y the figure's curves draw (every panel's, in a panel figure).
func (f *Figure) maxY() float64 {
	m := 0.0
	for _, c := range f.Curves {
		m = max(m, c.MaxY)
	}
	return m
}

// Panels are the figure's panels (itself, when it has none).
func (f *Figure) Panels() []*Figure {
	if len(f.panels) == 0 {
		return []*Figure{f}
	}
	return f.panels
}

// YAxis is the top of the figure's y axis (of a panel figure, its first panel's: see
// Panels), the largest y its curves draw, and whether the axis ends at a natural bound instead (a CDF's 1, a share, a
// timeline's named rows).
func (f *Figure) YAxis() (top, dataMax float64, natural bool) {
	f.readableAxes()
	_, named := f.plot.Y.Tick.Marker.(plot.ConstantTicks)
	return f.plot.Y.Max, f.maxY(), f.natural || named
}

// LegendLabels are the labels of the figure's legend, as given (before rows are wrapped or
// cut to the image's height): a panel figure's lists each label of its panels once.
func (f *Figure) LegendLabels() []string {
	var out []string
	for _, e := range f.legend {
		out = append(out, e.label)
	}
	return out
}

// PanelTitle names a panel of a panel figure (its variant); "" for a figure of one plot.
func (f *Figure) PanelTitle() string { return f.panelTitle }

// AxisLabels are the figure's x and y axis labels (its first panel's).
func (f *Figure) AxisLabels() (x, y string) { return f.plot.X.Label.Text, f.plot.Y.Label.Text }

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
func fitLegend(entries []legendEntry, l plot.Legend, height vg.Length) []legendEntry {
	row := l.TextStyle.Height("Xg") + l.Padding
	rows := int((height - legendTop - vg.Points(12)) / row)
	if len(entries) <= rows {
		return entries
	}
	out := append([]legendEntry(nil), entries[:rows-1]...)
	return append(out, legendEntry{label: fmt.Sprintf("... and %d more (see the caption)", len(entries)-rows+1), thumb: blankThumb{}})
}

// blankThumb draws nothing: a legend row of text only.
type blankThumb struct{}

func (blankThumb) Thumbnail(*draw.Canvas) {}

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
