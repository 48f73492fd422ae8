package results

import (
	"fmt"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ErrorCurve is one curve of a figure with error bars: at each X, the mean Y and the
// half-width Err of its interval (0: no bar).
type ErrorCurve struct {
	Label     string
	X, Y, Err []float64
}

// XAxis holds the x-axis options of NewErrorFigure: LogX draws x on a log scale (every x
// above 0); XLabels, when set, names the x positions 0, 1, ... (a parameter whose values are
// not numbers); TickAt and TickLabels, when set, put a tick at each value with its label (the
// values as the user wrote them, "2MB" rather than 2e+06).
type XAxis struct {
	Label      string
	LogX       bool
	XLabels    []string
	TickAt     []float64
	TickLabels []string
}

// errorPoints are a curve's points with their symmetric y errors (plotter.YErrorBars).
type errorPoints struct {
	plotter.XYs
	plotter.YErrors
}

func (e errorPoints) Len() int { return len(e.XYs) }

// NewErrorFigure is a figure of curves with points, lines between them and error bars, each
// curve its own colour and marker, in the legend under its label. Every metric it draws is a
// count, a time or a rate, never negative, so a bar whose interval reaches below 0 (a t
// interval over a few seeds that differ much) is cut at 0, and the caption says so.
func NewErrorFigure(name, title, caption string, x XAxis, yLabel string, curves []ErrorCurve) (*Figure, error) {
	f := newFigure(name, "", title, x.Label, yLabel)
	f.Caption = caption
	if x.LogX {
		f.plot.X.Scale = plot.LogScale{}
	}
	if len(x.TickAt) > 0 && len(x.TickAt) == len(x.TickLabels) {
		ticks := make([]plot.Tick, len(x.TickAt))
		for i, v := range x.TickAt {
			ticks[i] = plot.Tick{Value: v, Label: x.TickLabels[i]}
		}
		f.plot.X.Tick.Marker = plot.ConstantTicks(ticks)
	}
	if x.XLabels != nil {
		var ticks []plot.Tick
		for i, l := range x.XLabels {
			ticks = append(ticks, plot.Tick{Value: float64(i), Label: l})
		}
		f.plot.X.Tick.Marker = plot.ConstantTicks(ticks)
		f.plot.X.Min, f.plot.X.Max = -0.5, float64(len(x.XLabels))-0.5
	}
	cut := false
	for i, c := range curves {
		if len(c.X) != len(c.Y) || len(c.X) != len(c.Err) {
			return nil, fmt.Errorf("results: %s: curve %q has %d x, %d y and %d errors", name, c.Label, len(c.X), len(c.Y), len(c.Err))
		}
		if len(c.X) == 0 {
			continue
		}
		pts := errorPoints{XYs: make(plotter.XYs, len(c.X)), YErrors: make(plotter.YErrors, len(c.X))}
		for k := range c.X {
			pts.XYs[k] = plotter.XY{X: c.X[k], Y: c.Y[k]}
			pts.YErrors[k].Low, pts.YErrors[k].High = c.Err[k], c.Err[k]
			if c.Y[k] >= 0 && c.Err[k] > c.Y[k] {
				pts.YErrors[k].Low, cut = c.Y[k], true
			}
		}
		l, err := f.addLine(i, c.Label, pts.XYs)
		if err != nil {
			return nil, err
		}
		sc, err := plotter.NewScatter(pts.XYs)
		if err != nil {
			return nil, err
		}
		sc.Color = l.Color
		sc.Shape = markers[i%len(markers)]
		sc.Radius = vg.Points(3)
		bars, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, err
		}
		bars.Color = l.Color
		bars.Width = vg.Points(1)
		f.plot.Add(sc, bars)
		// The legend shows the marker with the line, and the curve's top is its highest bar.
		if c.Label != "" {
			f.legend[len(f.legend)-1].thumb = thumbs{l, sc}
		}
		cv := &f.Curves[len(f.Curves)-1]
		cv.marker = sc.Shape
		for k := range c.Y {
			cv.MaxY = max(cv.MaxY, c.Y[k]+c.Err[k])
		}
	}
	if cut {
		f.Caption = strings.TrimSuffix(f.Caption, ".") + "; intervals that reach below 0 are cut at 0, which the metric cannot go below."
	}
	// Room above the highest error bar, so that it does not touch the title.
	if f.plot.Y.Max > f.plot.Y.Min {
		f.plot.Y.Max += 0.08 * (f.plot.Y.Max - f.plot.Y.Min)
	}
	return f, nil
}

// markers tell curves apart where colours do not (print, colour blindness).
var markers = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{},
	draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}}
