package results

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg/draw"
)

// maxHoverPoints bounds the points of one line the report's hover can show: a line of more
// is thinned to every k-th point (the first and last kept), which at the report's width is
// still a point every few pixels; maxHoverFigurePoints bounds a figure's, so that a page of
// many figures stays a few MB.
const maxHoverPoints, maxHoverFigurePoints = 300, 1500

// HoverJSON is what report.html's hover shows of the figure's lines (addLine's): a JSON
// object {"x": x-axis label, "y": y-axis label, "s": [{"l": legend label, "p": [[sx, sy, x,
// y], ...]}, ...]} where x and y are a point's data values (6 significant figures) and sx,
// sy its place in the inline SVG's viewBox (points from the top left, as gonum drew it:
// the plot's data area, Plot.DataCanvas, and its axes' transforms). Points outside the
// axes' ranges are left out. "" for a figure not yet rendered or without lines.
func (f *Figure) HoverJSON() string {
	if f.dataArea == nil || len(f.lines) == 0 {
		return ""
	}
	tx, ty := f.plot.Transforms(f.dataArea)
	labels := map[any]string{}
	for _, e := range f.legend {
		labels[e.thumb] = e.label
	}
	budget := maxHoverFigurePoints / len(f.lines)
	var b strings.Builder
	b.WriteString(`{"x":`)
	b.WriteString(strconv.Quote(f.plot.X.Label.Text))
	b.WriteString(`,"y":`)
	b.WriteString(strconv.Quote(f.plot.Y.Label.Text))
	b.WriteString(`,"s":[`)
	for i, l := range f.lines {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"l":`)
		b.WriteString(strconv.Quote(labels[l]))
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
			sx, sy := tx(p.X).Points(), (figHeight - ty(p.Y)).Points()
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
	b.WriteString("]}")
	return b.String()
}

// keepDataArea records where Render drew the plot's data (its area inside the axes), for
// HoverJSON.
func (f *Figure) keepDataArea(plotArea draw.Canvas) {
	da := f.plot.DataCanvas(plotArea)
	f.dataArea = &da
}
