package results

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// maxHoverPoints bounds the points of one line the report's hover can show: a line of more
// is thinned to every k-th point (the first and last kept), which at the report's width is
// still a point every few pixels; maxHoverFigurePoints bounds a figure's, so that a page of
// many figures stays a few MB.
const maxHoverPoints, maxHoverFigurePoints = 300, 1500

// HoverJSON is what report.html's hover shows of the figure's lines (addLine's): a JSON
// object {"x": x-axis label, "y": y-axis label, "s": [{"l": legend label, "p": [[sx, sy, x,
// y], ...]}, ...]} (the label its Curve has) where x and y are a point's data values (6 significant figures) and sx,
// sy its place in the inline SVG's viewBox (points from the top left, as gonum drew it:
// the plot's data area, Plot.DataCanvas, and its axes' transforms). A panel figure's lines
// are those of every panel, each placed by its own panel's data area and axes and labelled
// "PANEL: label", or "PANEL" for a line without one (the panels of a kind share their axes'
// labels). Points outside the axes'
// ranges are left out. "" for a figure not yet rendered or without lines.
func (f *Figure) HoverJSON() string {
	parts := []*Figure{f}
	if len(f.panels) > 0 {
		parts = f.panels
	}
	lines := 0
	for _, p := range parts {
		if p.dataArea != nil {
			lines += len(p.lines)
		}
	}
	if lines == 0 {
		return ""
	}
	_, height := f.size()
	budget := maxHoverFigurePoints / lines
	var b strings.Builder
	b.WriteString(`{"x":`)
	b.WriteString(strconv.Quote(parts[0].plot.X.Label.Text))
	b.WriteString(`,"y":`)
	b.WriteString(strconv.Quote(parts[0].plot.Y.Label.Text))
	b.WriteString(`,"s":[`)
	first := true
	for _, p := range parts {
		if p.dataArea == nil {
			continue
		}
		labels := map[*plotter.Line]string{}
		for _, c := range p.Curves {
			if c.line != nil {
				labels[c.line] = c.Label
			}
		}
		for _, l := range p.lines {
			if !first {
				b.WriteByte(',')
			}
			first = false
			label := labels[l]
			switch {
			case len(f.panels) == 0:
			case label == "": // a line the legend names by its group (a thin flow)
				label = p.panelTitle
			default:
				label = p.panelTitle + ": " + label
			}
			p.writeHoverLine(&b, l, label, height, budget)
		}
	}
	b.WriteString("]}")
	return b.String()
}

// writeHoverLine writes line l of f (a figure or a panel, rendered) as HoverJSON's series
// labelled label, its points placed in a viewBox height high, thinned to about budget.
func (f *Figure) writeHoverLine(b *strings.Builder, l *plotter.Line, label string, height vg.Length, budget int) {
	tx, ty := f.plot.Transforms(f.dataArea)
	b.WriteString(`{"l":`)
	b.WriteString(strconv.Quote(label))
	b.WriteString(`,"p":[`)
	n := len(l.XYs)
	step := max(1, int(math.Ceil(float64(n)/float64(min(maxHoverPoints, max(budget, 2))))))
	first := true
	for k := 0; k < n; k++ {
		if k%step != 0 && k != n-1 {
			continue
		}
		p := l.XYs[k]
		if p.X < f.plot.X.Min || p.X > f.plot.X.Max || p.Y < f.plot.Y.Min || p.Y > f.plot.Y.Max {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		sx, sy := tx(p.X).Points(), (height - ty(p.Y)).Points()
		b.WriteByte('[')
		b.WriteString(strconv.FormatFloat(sx, 'f', 2, 64))
		b.WriteByte(',')
		b.WriteString(strconv.FormatFloat(sy, 'f', 2, 64))
		b.WriteByte(',')
		b.WriteString(strconv.FormatFloat(p.X, 'g', 6, 64))
		b.WriteByte(',')
		b.WriteString(strconv.FormatFloat(p.Y, 'g', 6, 64))
		b.WriteByte(']')
	}
	b.WriteString("]}")
}

// keepDataArea records where Render (or drawPanels, for a panel) drew the plot's data (its
// area inside the axes), for HoverJSON.
func (f *Figure) keepDataArea(plotArea draw.Canvas) {
	da := f.plot.DataCanvas(plotArea)
	f.dataArea = &da
}
