package results

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The size of one panel of a panel figure, and the room above the panels for the figure's
// title.
const panelWidth, panelHeight, panelTitleRoom = 11 * vg.Centimeter, 8 * vg.Centimeter, 1.2 * vg.Centimeter

// panelGrid is how many columns and rows n panels take: one column for one, two up to four,
// then three, so that a panel stays wide enough to read a time series in.
func panelGrid(n int) (cols, rows int) {
	switch {
	case n <= 1:
		cols = 1
	case n <= 4:
		cols = 2
	default:
		cols = 3
	}
	return cols, (n + cols - 1) / cols
}

// size is the figure's width and height: figWidth by figHeight for one plot; for a panel
// figure, its grid of panels with the legend beside and the title above.
func (f *Figure) size() (vg.Length, vg.Length) {
	if len(f.panels) == 0 {
		return figWidth, figHeight
	}
	cols, rows := panelGrid(len(f.panels))
	w := max(figWidth, vg.Length(cols)*panelWidth+legendColumn(figWidth))
	return w, max(figHeight, vg.Length(rows)*panelHeight+panelTitleRoom)
}

// drawPanels draws the title at the top of c and the panels in a grid under it.
func (f *Figure) drawPanels(c draw.Canvas) {
	title := text.Style{Font: font.From(plot.DefaultFont, 14), Handler: plot.DefaultTextHandler, XAlign: draw.XCenter, YAlign: draw.YTop}
	c.FillText(title, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y - vg.Points(2)}, f.Title)
	if len(f.notes) > 0 {
		note := title
		note.Font.Size = vg.Points(10)
		note.Color = color.Gray{Y: 70}
		c.FillText(note, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y - vg.Points(19)}, strings.Join(f.notes, "; "))
	}
	cols, rows := panelGrid(len(f.panels))
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
		for k := range cols {
			if i := r*cols + k; i < len(f.panels) {
				grid[r][k] = f.panels[i].plot
			}
		}
	}
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(10), PadY: vg.Points(8)}
	canvases := plot.Align(grid, tiles, draw.Crop(c, 0, 0, 0, -panelTitleRoom))
	for r := range grid {
		for k, p := range grid[r] {
			if p != nil {
				p.Draw(canvases[r][k])
				f.panels[r*cols+k].drawRefLabels(canvases[r][k])
				f.panels[r*cols+k].keepDataArea(canvases[r][k]) // HoverJSON
			}
		}
	}
}

// panelFigure is one figure of figs' kind with each of figs (one per variant) as a panel,
// titled by its variant, on shared axes: the x range and, for numeric y axes of one scale
// whose peaks are within maxSharedSpread of each other, the y range of all. A line styled by its place (a queue, a count) takes the style of its
// label's place among all panels' labels, so that one queue is one colour in every panel;
// the legend lists each label once. The caption is the first figure's.
func panelFigure(name, title string, figs []*Figure) *Figure {
	f := &Figure{Name: name, Title: title, Caption: figs[0].Caption, panels: figs, plot: figs[0].plot, natural: figs[0].natural}
	place := map[string]int{}
	seen := map[string]bool{}
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	shareY := true
	_, logY := figs[0].plot.Y.Scale.(plot.LogScale)
	lowPeak, highPeak := math.Inf(1), 0.0
	for _, p := range figs {
		lowPeak, highPeak = min(lowPeak, p.dataMax()), max(highPeak, p.dataMax())
	}
	apart := highPeak > maxSharedSpread*lowPeak
	for k, p := range figs {
		p.plot.Title.Text = p.panelTitle
		p.plot.Title.TextStyle.Font.Size = vg.Points(11)
		for _, c := range p.Curves {
			c.Panel = k
			if c.byPlace && c.line != nil && c.Label != "" {
				i, ok := place[c.Label]
				if !ok {
					i = len(place)
					place[c.Label] = i
				}
				c.line.Color, c.line.Dashes = lineColor(i), plotutil.Dashes(i/len(palette))
			}
			f.Curves = append(f.Curves, c)
		}
		for _, e := range p.legend {
			if !seen[e.label] {
				seen[e.label] = true
				f.legend = append(f.legend, e)
			}
		}
		xlo, xhi = min(xlo, p.plot.X.Min), max(xhi, p.plot.X.Max)
		_, named := p.plot.Y.Tick.Marker.(plot.ConstantTicks)
		_, log := p.plot.Y.Scale.(plot.LogScale)
		shareY = shareY && !named && log == logY
		ylo, yhi = min(ylo, p.plot.Y.Min), max(yhi, p.plot.Y.Max)
	}
	if !f.natural && f.maxY() > 0 {
		yhi = max(yhi, headroom*f.maxY())
	}
	if shareY && apart {
		shareY = false
		f.Caption += fmt.Sprintf(" Each panel has a y axis of its own: their peaks differ more than %d-fold (from %s to %s), which one axis would draw as flat lines at 0.",
			maxSharedSpread, strconv.FormatFloat(lowPeak, 'g', 3, 64), strconv.FormatFloat(highPeak, 'g', 3, 64))
		f.notes = append(f.notes, "each panel its own y axis")
	}
	for _, p := range figs {
		if !p.ownX {
			p.plot.X.Min, p.plot.X.Max = xlo, xhi
		}
		if shareY {
			p.plot.Y.Min, p.plot.Y.Max = ylo, yhi
		}
	}
	return f
}

// panelKind is a figure kind's name without the variant: "queues-" is "queues".
func panelKind(prefix string) string { return strings.TrimSuffix(prefix, "-") }

// zoomEach zooms each of figs to its own activity when most of them are active in under
// zoomShare of the span all are active in (one variant's run far longer than the others':
// lossy-link's 67 ms timeouts beside runs of 2 ms), so that the short ones are not slivers;
// the unit stays the run's. It returns the caption's note, "" when it did not.
func zoomEach(figs []*Figure, union float64) string {
	short := 0
	for _, f := range figs {
		if a, b, ok := activeSpan(f); ok && b-a < zoomShare*union {
			short++
		}
	}
	if len(figs) < 2 || 2*short < len(figs) {
		return ""
	}
	for _, f := range figs {
		if a, b, ok := activeSpan(f); ok {
			pad := (b - a) / 20
			f.plot.X.Min, f.plot.X.Max = max(f.plot.X.Min, a-pad), min(f.plot.X.Max, b+pad)
			f.ownX = true
		}
	}
	unit := strings.TrimSuffix(strings.TrimPrefix(figs[0].plot.X.Label.Text, "time ("), ")")
	return " Each panel's time axis is zoomed to where its own lines change, in the run's one unit (" + unit + "): the variants' activity spans differ too much for one range."
}

// zoomShare is the largest share of the run's time axis the activity of a figure may fill
// before the figure is drawn zoomed to it: under it, the activity would be a sliver at one
// end (a DCQCN run's pauses, all in its first 0.3%).
const zoomShare = 0.4

// activeSpan is the x range in which f's lines change (from the point before a change to
// the point after it) and its timeline rows are paused; ok is false when nothing changes.
func activeSpan(f *Figure) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, l := range f.lines {
		for k := 1; k < len(l.XYs); k++ {
			if l.XYs[k].Y != l.XYs[k-1].Y {
				lo, hi = min(lo, l.XYs[k-1].X), max(hi, l.XYs[k].X)
			}
		}
	}
	if r := f.pauses; r != nil {
		for _, row := range r.rows {
			for k := 1; k < len(row); k++ {
				if row[k] > 0 {
					lo, hi = min(lo, r.xs[k-1]), max(hi, r.xs[k])
				}
			}
		}
	}
	return lo, hi, hi > lo
}

// zoomToActivity narrows the time axis of figs (the panels of one kind, on the run's time
// axis) to the span in which any of them is active, with a twentieth of it either side,
// when that span fills less than zoomShare of the axis; the unit stays the run's. It
// returns the caption's note of the zoom, "" when there is none.
func zoomToActivity(figs []*Figure) string {
	ax := &figs[0].plot.X
	if !strings.HasPrefix(ax.Label.Text, "time (") {
		return ""
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, f := range figs {
		if f.fabric != nil || f.heat != nil {
			return "" // a heat map's columns span the run
		}
		if a, b, ok := activeSpan(f); ok {
			lo, hi = min(lo, a), max(hi, b)
		}
	}
	span := ax.Max - ax.Min
	if hi <= lo {
		return ""
	}
	if hi-lo >= zoomShare*span {
		return zoomEach(figs, hi-lo)
	}
	pad := (hi - lo) / 20
	zlo, zhi := max(ax.Min, lo-pad), min(ax.Max, hi+pad)
	for _, f := range figs {
		f.plot.X.Min, f.plot.X.Max = zlo, zhi
	}
	unit := strings.TrimSuffix(strings.TrimPrefix(ax.Label.Text, "time ("), ")")
	return " The time axis is zoomed to where anything changes, " + fixed(zlo) + " to " + fixed(zhi) + " " + unit +
		" of the run's " + fixed(ax.Min) + " to " + fixed(ax.Max) + " " + unit + "; the same unit as every figure of the run."
}

// maxSharedSpread is how many times the largest panel's peak may be the smallest's for the
// panels of a kind to share their y axis: beyond, a shared axis would draw the small ones as
// flat lines at 0 (a queue HPCC keeps at 2 KB beside PFC's 12 MB), so each panel has its own.
const maxSharedSpread = 20

// dataMax is the largest y of f's data curves (not its reference lines).
func (f *Figure) dataMax() float64 {
	m := 0.0
	for _, c := range f.Curves {
		if !c.ref {
			m = max(m, c.MaxY)
		}
	}
	return m
}

// dropFlatPanels leaves out of figs (one kind's panels) those whose data are 0 throughout
// (a blank panel), each listed with why; a lone panel, or one of named rows, always stays.
func dropFlatPanels(kind string, figs []*Figure) (kept []*Figure, omitted []Omitted) {
	if len(figs) < 2 {
		return figs, nil
	}
	for _, f := range figs {
		_, named := f.plot.Y.Tick.Marker.(plot.ConstantTicks)
		if named || f.dataMax() > 0 || len(f.Curves) == 0 {
			kept = append(kept, f)
			continue
		}
		omitted = append(omitted, Omitted{kind, f.panelTitle + ": its " + f.plot.Y.Label.Text + " is 0 throughout"})
	}
	if len(kept) == 0 {
		return figs, nil
	}
	return kept, omitted
}
