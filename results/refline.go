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

// refLabel names a reference line (a threshold, a capacity) on the line itself, at the right
// end of the plot's data area: above the line, or below it (below true) so that two
// thresholds close together (XOFF and XON) label apart.
type refLabel struct {
	y     float64
	text  string
	below bool
}

// refFont is a reference line's label size in points.
const refFont = 9

// Plot draws the label.
func (r refLabel) Plot(c draw.Canvas, plt *plot.Plot) {
	_, trY := plt.Transforms(&c)
	y := trY(r.y)
	if y < c.Min.Y || y > c.Max.Y {
		return
	}
	sty := text.Style{Font: font.From(plot.DefaultFont, refFont), Handler: plot.DefaultTextHandler, Color: color.Gray{Y: 60},
		XAlign: draw.XRight, YAlign: draw.YBottom}
	y += vg.Points(1.5)
	if r.below {
		sty.YAlign = draw.YTop
		y -= vg.Points(3)
	}
	c.FillText(sty, vg.Point{X: c.Max.X - vg.Points(3), Y: y}, r.text)
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
	f.plot.Add(refLabel{y: y, text: label, below: below})
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
