package results

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// sizesFigure is the slowdown by flow size: per variant with at least SizeTableMinFlows
// flows, the p50 (solid) and p99 (dashed) slowdown of each size bin's completed flows,
// drawn at the bin's geometric middle on log axes.
func sizesFigure(d *Document) (*Figure, string, error) {
	f := newFigure("slowdown-by-size", "", d.Scenario+": slowdown by flow size", "flow size (bytes, log scale)", "slowdown (log scale)")
	f.Caption = fmt.Sprintf("Each variant's slowdown (FCT over the FCT alone on the empty fabric) by flow size: the p50 (solid) and p99 (dashed) of the completed flows of each size bin (slowdown_by_size), at the bin's geometric middle; bins with no completed flow have no point. Variants with fewer than %d flows are left out.", SizeTableMinFlows)
	line := 0
	for i := range d.Variants {
		v := &d.Variants[i]
		if v.Flows.Total < SizeTableMinFlows {
			continue
		}
		var p50, p99 plotter.XYs
		for _, b := range v.OverallSizeBins() {
			x := binMiddle(b)
			if b.P50 != nil && *b.P50 > 0 {
				p50 = append(p50, plotter.XY{X: x, Y: *b.P50})
			}
			if b.P99 != nil && *b.P99 > 0 {
				p99 = append(p99, plotter.XY{X: x, Y: *b.P99})
			}
		}
		if len(p50) == 0 {
			continue
		}
		for k, c := range []struct {
			name string
			pts  plotter.XYs
		}{{"p50", p50}, {"p99", p99}} {
			l, err := plotter.NewLine(c.pts)
			if err != nil {
				return nil, "", err
			}
			l.Color = lineColor(line)
			if k == 1 {
				l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			}
			l.Width = vg.Points(1.5)
			pts, err := plotter.NewScatter(c.pts)
			if err != nil {
				return nil, "", err
			}
			pts.Color = l.Color
			f.plot.Add(l, pts)
			label := v.Name + " " + c.name
			f.legend = append(f.legend, legendEntry{label, l})
			f.Curves = append(f.Curves, Curve{Label: label, Points: len(c.pts)})
		}
		line++
	}
	if line == 0 {
		return nil, fmt.Sprintf("no variant has %d flows or more with a completed one (the by-size table's threshold)", SizeTableMinFlows), nil
	}
	f.plot.X.Scale, f.plot.Y.Scale = plot.LogScale{}, plot.LogScale{}
	f.plot.X.Tick.Marker, f.plot.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	return f, "", nil
}

// binMiddle is the geometric middle of a size bin; the first bin (from 0) and the last
// (unbounded) are taken as one decade wide.
func binMiddle(b SizeBin) float64 {
	lo := float64(b.LoBytes)
	hi := lo * 10
	if b.HiBytes != nil {
		hi = float64(*b.HiBytes)
	}
	if lo <= 0 {
		lo = hi / 10
	}
	return math.Sqrt(lo * hi)
}
