package results

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// sizesFigure is the slowdown by flow size: per variant with at least SizeTableMinFlows
// flows, in its colour and marker (identities), the p50 (solid) and p99 (dashed) slowdown of each size bin's completed flows (of
// all groups), drawn at the bin's geometric middle on log axes. A replicated variant is one
// line of the seeds' mean with its 95% interval as error bars.
func sizesFigure(d *Document) (*Figure, string, error) {
	f := newFigure("slowdown-by-size", "", d.Scenario+": slowdown by flow size", "flow size (bytes, log scale)", "slowdown (FCT / FCT alone, log scale)")
	f.Caption = fmt.Sprintf("Each variant's slowdown (FCT over the FCT alone on the empty fabric) by flow size: the p50 (solid) and p99 (dashed) of the completed flows of each size bin (slowdown_by_size, all groups), at the bin's geometric middle; bins with no completed flow have no point. Variants with fewer than %d flows are left out.", SizeTableMinFlows)
	if seedsDiffer(d) {
		f.Caption += " With several seeds, each point is the mean over the seeds and its bar the 95% confidence interval (Student's t)."
	}
	line := 0
	ids := identities(d)
	for _, runs := range runsByName(d) {
		if runs[0].Flows.Total < SizeTableMinFlows {
			continue
		}
		p50, p50ci := binMeans(runs, func(b SizeBin) *float64 { return b.P50 })
		p99, p99ci := binMeans(runs, func(b SizeBin) *float64 { return b.P99 })
		if len(p50) < 2 {
			continue // a curve of one bin is a point: the sizes table says it better
		}
		for k, c := range []struct {
			name string
			pts  plotter.XYs
			ci   []float64
		}{{"p50", p50, p50ci}, {"p99", p99, p99ci}} {
			l, err := plotter.NewLine(c.pts)
			if err != nil {
				return nil, "", err
			}
			id := ids(runs[0].Name)
			_, side := compareBase(d, runs[0].Name)
			l.Color, l.Dashes, l.Width = id.color, sizeDashes[side][k], vg.Points(1.5)
			pts, err := plotter.NewScatter(c.pts)
			if err != nil {
				return nil, "", err
			}
			pts.Color, pts.Shape, pts.Radius = l.Color, id.marker, vg.Points(3)
			f.plot.Add(l, pts)
			if len(runs) > 1 {
				bars, err := plotter.NewYErrorBars(ciBars{c.pts, c.ci})
				if err != nil {
					return nil, "", err
				}
				bars.Color = l.Color
				f.plot.Add(bars)
			}
			label := runs[0].Name + " " + c.name
			if len(runs) > 1 {
				label += fmt.Sprintf(" (mean of %d seeds)", len(runs))
			}
			f.legend = append(f.legend, legendEntry{label, thumbs{l, pts}})
			top := 0.0
			for j, p := range c.pts {
				top = max(top, p.Y+c.ci[j])
			}
			f.Curves = append(f.Curves, Curve{Label: label, Points: len(c.pts), MaxY: top, line: l, marker: id.marker})
		}
		line++
	}
	if line == 0 {
		return nil, fmt.Sprintf("no variant has %d flows or more with completed ones in two size bins or more (the by-size table's threshold; one bin is no curve)", SizeTableMinFlows), nil
	}
	f.plot.X.Scale, f.plot.Y.Scale = plot.LogScale{}, plot.LogScale{}
	return f, "", nil
}

// sizeDashes are the slowdown lines' dashes: p50 and p99, of a run and of a comparison's
// run b.
var sizeDashes = [2][2][]vg.Length{
	{nil, {vg.Points(4), vg.Points(3)}},
	{{vg.Points(1.5), vg.Points(2)}, {vg.Points(8), vg.Points(2), vg.Points(1.5), vg.Points(2)}},
}

// binMeans are, per all-flows size bin of runs (one run, or one per seed), the mean of
// stat over the runs that have it (above 0, for the log axis) at the bin's middle, with the
// 95% confidence half-width of each mean.
func binMeans(runs []*Variant, stat func(SizeBin) *float64) (plotter.XYs, []float64) {
	var pts plotter.XYs
	var ci []float64
	for b, bin := range runs[0].OverallSizeBins() {
		var xs []float64
		for _, v := range runs {
			if bins := v.OverallSizeBins(); b < len(bins) {
				if x := stat(bins[b]); x != nil && *x > 0 {
					xs = append(xs, *x)
				}
			}
		}
		if len(xs) == 0 {
			continue
		}
		e := EstimateOf(xs)
		pts = append(pts, plotter.XY{X: binMiddle(bin), Y: e.Mean})
		ci = append(ci, e.CI95)
	}
	return pts, ci
}

// ciBars are points with symmetric error bars, kept above 0 for a log axis.
type ciBars struct {
	pts plotter.XYs
	ci  []float64
}

func (c ciBars) Len() int                    { return len(c.pts) }
func (c ciBars) XY(i int) (float64, float64) { return c.pts[i].X, c.pts[i].Y }
func (c ciBars) YError(i int) (float64, float64) {
	return min(c.ci[i], c.pts[i].Y*0.999), c.ci[i]
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
