package results

import (
	"fmt"
	"image/color"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// maxTimelineRows bounds the rows of a PFC timeline: the port-classes paused longest.
const maxTimelineRows = 16

// pauseRows is a PFC timeline's data: per row, the share of each sample interval paused.
type pauseRows struct {
	xs   []float64   // interval ends, in the figure's unit; interval k is (xs[k-1], xs[k]]
	rows [][]float64 // per row, per interval k >= 1: the fraction paused
}

// Plot implements plot.Plotter: one bar per row, shaded where the port-class was paused,
// darker the more of the interval it was.
func (r *pauseRows) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	for y, row := range r.rows {
		for k := 1; k < len(r.xs); k++ {
			f := row[k]
			if f <= 0 {
				continue
			}
			x0, x1 := trX(r.xs[k-1]), trX(r.xs[k])
			y0, y1 := trY(float64(y)-0.35), trY(float64(y)+0.35)
			a := uint8(80 + 175*f)
			c.FillPolygon(color.NRGBA{213, 94, 0, a}, c.ClipPolygonXY([]vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}))
		}
	}
}

// DataRange implements plot.DataRanger.
func (r *pauseRows) DataRange() (xmin, xmax, ymin, ymax float64) {
	return r.xs[0], r.xs[len(r.xs)-1], -0.5, float64(len(r.rows)) - 0.5
}

// pfcFigure is the PFC timeline: a row per sending port-class that a PFC frame paused,
// shaded over the sample intervals in which it was paused.
func pfcFigure(v *Variant) (*Figure, string, error) {
	s := v.Series
	if len(s.Pauses) == 0 || s.Len() < 2 {
		return nil, "no port-class was paused at any sample (no PFC frame took effect)", nil
	}
	idx := make([]int, len(s.Pauses))
	for i := range idx {
		idx[i] = i
	}
	total := func(i int) float64 { p := s.Pauses[i].PausedUS; return p[len(p)-1] }
	sort.SliceStable(idx, func(a, b int) bool { return total(idx[a]) > total(idx[b]) })
	caption := "Which sending port-class was paused when: a row per (port, class) that a PFC frame from its peer paused, shaded over each sample interval in which it was paused, darker the larger the share of the interval."
	if len(idx) > maxTimelineRows {
		caption += fmt.Sprintf(" The %d port-classes paused longest of %d.", maxTimelineRows, len(idx))
		idx = idx[:maxTimelineRows]
	}
	f := newFigure("pfc-", v.Name, v.Name+": PFC timeline", "", "paused port-class (node:port -> peer)")
	f.Caption = caption
	labels := make([]string, len(idx))
	for y, i := range idx {
		labels[y] = pauseLabel(&s.Pauses[i])
	}
	addPauseRows(f, v, idx, labels)
	return f, "", nil
}

// pauseLabel names a paused sending port-class.
func pauseLabel(p *PauseSeries) string {
	return fmt.Sprintf("%s:%d->%s prio %d", p.Node, p.Port, p.Peer, p.Priority)
}

// addPauseRows draws a timeline row per pause series idx[y] of v's series, from the bottom (y = 0)
// up, named labels[y], on v's time axis (timeAxisOf): shaded over each sample interval in which it was paused, darker the
// larger the share of the interval; the x axis is the series' time.
func addPauseRows(f *Figure, v *Variant, idx []int, labels []string) {
	s := v.Series
	u, start, end := timeAxisOf(v)
	r := &pauseRows{xs: make([]float64, s.Len())}
	for k, t := range s.TimesUS {
		r.xs[k] = t / u.perUS
	}
	var ticks []plot.Tick
	for y, i := range idx {
		p := &s.Pauses[i]
		row := make([]float64, s.Len())
		for k := 1; k < s.Len(); k++ {
			row[k] = pausedFraction(p.PausedUS, s.TimesUS, k)
		}
		r.rows = append(r.rows, row)
		ticks = append(ticks, plot.Tick{Value: float64(y), Label: labels[y]})
		f.Curves = append(f.Curves, Curve{Label: labels[y], Points: s.Len() - 1})
	}
	f.plot.Add(r)
	f.pauses = r
	f.plot.Y.Tick.Marker = plot.ConstantTicks(ticks)
	f.plot.Y.Min, f.plot.Y.Max = -0.5, float64(len(r.rows))-0.5
	setTimeAxis(f.plot, u, start, end)
}
