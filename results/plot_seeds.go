package results

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot/plotter"
)

// seedBand is a time series over several seeds on one grid: at each grid interval's end
// (TimesUS, from the second grid time on) the mean over the seeds and the half-width of its
// 95% confidence interval (EstimateOf: Student's t with n-1 degrees of freedom).
type seedBand struct {
	TimesUS    []float64 // the grid, len(Mean)+1 times
	Mean, CI95 []float64
}

// seedGoodput is the aggregate goodput over time of runs, one variant under several seeds:
// each seed's delivered payload summed over its flows (cumulative, so exact at each of its
// samples and linear between them, as rates.csv's throughput assumes), read on a common
// grid of n intervals from the earliest first sample to the latest last, and differenced
// into Gb/s per interval; then the seeds' mean and 95% half-width per interval. A seed whose
// series ended has delivered nothing more (its last value holds); before its first sample
// it had delivered nothing.
func seedGoodput(runs []*Variant, n int) seedBand {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range runs {
		lo, hi = min(lo, v.Series.TimesUS[0]), max(hi, v.Series.TimesUS[v.Series.Len()-1])
	}
	grid := make([]float64, n+1)
	for j := range grid {
		grid[j] = lo + (hi-lo)*float64(j)/float64(n)
	}
	per := make([][]float64, n) // per interval, one goodput per seed
	for _, v := range runs {
		s := v.Series
		total := make([]float64, s.Len())
		for _, fs := range s.Flows {
			for k, b := range fs.DeliveredBytes {
				total[k] += float64(b)
			}
		}
		at := func(t float64) float64 { return interpolate(s.TimesUS, total, t) }
		for j := 1; j <= n; j++ {
			dt := grid[j] - grid[j-1]
			per[j-1] = append(per[j-1], (at(grid[j])-at(grid[j-1]))*8/(dt*1e3)) // bytes over us to Gb/s
		}
	}
	b := seedBand{TimesUS: grid, Mean: make([]float64, n), CI95: make([]float64, n)}
	for j, xs := range per {
		e := EstimateOf(xs)
		b.Mean[j], b.CI95[j] = e.Mean, e.CI95
	}
	return b
}

// interpolate is ys at t, linear between the samples at xs (increasing); ys[0] before the
// first, the last value after the last.
func interpolate(xs, ys []float64, t float64) float64 {
	if t <= xs[0] {
		return ys[0]
	}
	for k := 1; k < len(xs); k++ {
		if t <= xs[k] {
			if xs[k] == xs[k-1] {
				return ys[k]
			}
			return ys[k-1] + (ys[k]-ys[k-1])*(t-xs[k-1])/(xs[k]-xs[k-1])
		}
	}
	return ys[len(ys)-1]
}

// seedsGoodputFigure is a replicated variant's aggregate goodput over time: the mean over
// its seeds, a line, in a shaded band of the 95% confidence interval; one figure per variant
// run under two seeds or more, in place of a line per seed, in the variant's colour (id).
func seedsGoodputFigure(runs []*Variant, id identity) (*Figure, string, error) {
	if len(runs) < 2 {
		return nil, "one seed: no interval", nil
	}
	for _, v := range runs {
		if v.Series == nil || v.Series.Len() < 2 {
			return nil, "no time series (the variant ran no flow)", nil
		}
	}
	b := seedGoodput(runs, throughputPoints)
	if b.TimesUS[len(b.TimesUS)-1] <= b.TimesUS[0] {
		return nil, "the series span no time", nil
	}
	name := runs[0].Name
	f := newFigure("goodput-seeds-", name, fmt.Sprintf("%s: goodput over time, %d seeds", name, len(runs)), "", "goodput (Gb/s)")
	f.Caption = fmt.Sprintf("The payload all flows delivered in order per unit time, summed over the flows, in each of %d equal intervals: the mean over the %d seeds as a line, and its 95%% confidence interval (Student's t with %d degrees of freedom) shaded, cut at 0 where it reaches below. Each seed's cumulative delivered payload is read at the interval ends, linearly between its samples (rates.csv); a seed whose run had ended adds nothing.", throughputPoints, len(runs), len(runs)-1)
	u, start, end := timeAxisOf(runs[0])
	if runs[0].window == nil {
		start, end = b.TimesUS[0], b.TimesUS[len(b.TimesUS)-1]
		u = unitFor(end - start)
	}
	mid := make(plotter.XYs, len(b.Mean))
	upper := make(plotter.XYs, len(b.Mean))
	lower := make(plotter.XYs, len(b.Mean))
	for j := range b.Mean {
		x := (b.TimesUS[j] + b.TimesUS[j+1]) / 2 / u.perUS
		mid[j] = plotter.XY{X: x, Y: b.Mean[j]}
		upper[j] = plotter.XY{X: x, Y: b.Mean[j] + b.CI95[j]}
		lower[len(b.Mean)-1-j] = plotter.XY{X: x, Y: max(b.Mean[j]-b.CI95[j], 0)} // goodput is never negative
	}
	band, err := plotter.NewPolygon(append(upper, lower...))
	if err != nil {
		return nil, "", err
	}
	c := id.color
	band.Color = color.NRGBA{c.R, c.G, c.B, 70}
	band.LineStyle.Width = 0
	f.plot.Add(band)
	f.legend = append(f.legend, legendEntry{"95% interval", band})
	l, err := f.addLine(0, fmt.Sprintf("%s: mean of %d seeds", name, len(runs)), mid)
	if err != nil {
		return nil, "", err
	}
	l.Color = id.color
	f.Curves[len(f.Curves)-1].byPlace = false
	// In the legend, one entry for every panel's mean: each panel is titled by its variant.
	f.legend[len(f.legend)-1].label = fmt.Sprintf("mean of %d seeds (the variant's colour)", len(runs))
	top := 0.0
	for _, p := range upper {
		top = max(top, p.Y)
	}
	f.Curves = append(f.Curves, Curve{Label: "95% interval", Points: len(b.Mean), MaxY: top})
	setTimeAxis(f.plot, u, start, end)
	f.plot.Y.Min = min(f.plot.Y.Min, 0)
	return f, "", nil
}
