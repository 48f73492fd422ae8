package results

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// refLabel names a reference line (a threshold, a capacity) on the line itself: its y in
// data units, its text, and whether it goes below the line (so that two thresholds close
// together, XOFF and XON, label apart).
type refLabel struct {
	y     float64
	text  string
	below bool
}

// refLabels draw the names of a plot's reference lines, each at the right end of the data
// area, above its line or below it as asked, on the other side where it would leave the
// data area; a name that would overprint one drawn before it (two thresholds close
// together on the axis's scale: Kmin 5 KB and Kmax 200 KB under a 12 MB queue) moves left
// of it, still on its line. They are drawn after the data (Figure.drawRefLabels), each on a
// white ground, so that a busy series under a threshold (DCQCN's queue spiking through
// Kmax) does not cross out its name.
type refLabels struct{ labels []refLabel }

// refFont is a reference line's label size in points.
const refFont = 9

// Plot draws the labels.
func (r *refLabels) Plot(c draw.Canvas, plt *plot.Plot) {
	_, trY := plt.Transforms(&c)
	sty := text.Style{Font: font.From(plot.DefaultFont, refFont), Handler: plot.DefaultTextHandler, Color: color.Gray{Y: 60},
		XAlign: draw.XRight, YAlign: draw.YBottom}
	gap := vg.Points(1.5)
	var placed []vg.Rectangle
	for _, l := range r.labels {
		y := trY(l.y)
		if y < c.Min.Y || y > c.Max.Y {
			continue
		}
		w, h := sty.Width(l.text), sty.Height(l.text)
		below := l.below
		if below && y-gap-h < c.Min.Y {
			below = false
		} else if !below && y+gap+h > c.Max.Y && y-gap-h >= c.Min.Y {
			below = true
		}
		box := vg.Rectangle{Min: vg.Point{Y: y + gap}, Max: vg.Point{X: c.Max.X - vg.Points(3), Y: y + gap + h}}
		if below {
			box.Min.Y, box.Max.Y = y-gap-h, y-gap
		}
		box.Min.X = box.Max.X - w
		for moved := true; moved; {
			moved = false
			for _, p := range placed {
				if box.Min.X < p.Max.X && p.Min.X < box.Max.X && box.Min.Y < p.Max.Y && p.Min.Y < box.Max.Y {
					box.Max.X = p.Min.X - vg.Points(8)
					box.Min.X = box.Max.X - w
					moved = true
				}
			}
		}
		if box.Min.X < c.Min.X {
			continue // no room left on its line (labels of many close thresholds): not drawn over another
		}
		placed = append(placed, box)
		pad := vg.Points(1)
		c.FillPolygon(labelGround, []vg.Point{{X: box.Min.X - pad, Y: box.Min.Y - pad}, {X: box.Max.X + pad, Y: box.Min.Y - pad},
			{X: box.Max.X + pad, Y: box.Max.Y + pad}, {X: box.Min.X - pad, Y: box.Max.Y + pad}})
		sty := sty
		sty.YAlign = draw.YBottom
		c.FillText(sty, vg.Point{X: box.Max.X, Y: box.Min.Y}, l.text)
	}
}

// labelGround is the ground of a reference line's name: white, a little see-through, so the
// data under it shows as a shadow and the name reads.
var labelGround = color.NRGBA{R: 255, G: 255, B: 255, A: 220}

// drawRefLabels draws the names of the reference lines over the plot drawn in plotArea.
func (f *Figure) drawRefLabels(plotArea draw.Canvas) {
	if f.refs != nil {
		f.refs.Plot(f.plot.DataCanvas(plotArea), f.plot)
	}
}

// addReference draws a horizontal reference line at y across xsUS (the figure's time axis),
// grey in dashes, in the legend under name ("XOFF": one entry however many panels draw one)
// and named by label, with its value, on the line (below it when below is true).
func (f *Figure) addReference(name, label string, y float64, xsUS []float64, u timeUnit, dashes []vg.Length, below bool) error {
	l, err := f.addLine(0, name, refPoints(y, xsUS, u))
	if err != nil {
		return err
	}
	l.Color, l.Dashes, l.Width = color.Gray{Y: 90}, dashes, vg.Points(1.2)
	f.Curves[len(f.Curves)-1].byPlace = false
	f.Curves[len(f.Curves)-1].ref = true
	if f.refs == nil {
		f.refs = &refLabels{}
	}
	f.refs.labels = append(f.refs.labels, refLabel{y: y, text: label, below: below})
	return nil
}

// refPoints is y at each of xsUS (the samples: a reference line is a series like the
// others in the figure's record), in unit u.
func refPoints(y float64, xsUS []float64, u timeUnit) plotter.XYs {
	pts := make(plotter.XYs, len(xsUS))
	for k, t := range xsUS {
		pts[k] = plotter.XY{X: t / u.perUS, Y: y}
	}
	return pts
}
