package results

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// minTickLabels is the fewest labelled ticks an axis gets: a reader of a printed figure
// needs at least that many to read a value off it.
const minTickLabels = 4

// readableTicks labels an axis with at least minTickLabels round values, all written the
// same way: plain decimals (never 1e+03 beside 100), each with the decimals its step needs.
// On a log axis it labels decades when there are minTickLabels of them, else 1-2-5 steps,
// else 1..9 steps in each decade, with unlabelled minor ticks between.
type readableTicks struct{ log bool }

// Ticks returns the ticks of [lo, hi].
func (t readableTicks) Ticks(lo, hi float64) []plot.Tick {
	switch {
	case math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || hi < lo:
		return nil
	case hi == lo: // one value: the axis gonum draws around it, [lo-1, lo+1]
		lo, hi = lo-1, hi+1
	}
	if t.log && lo > 0 {
		for _, mantissas := range [][]float64{{1}, {1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}} {
			if ticks := logTicks(lo, hi, mantissas); labelled(ticks) >= minTickLabels {
				return ticks
			}
		}
		// Less than a decade with few round values in it: linear steps on the log axis.
	}
	return linearTicks(lo, hi)
}

func labelled(ticks []plot.Tick) int {
	n := 0
	for _, tk := range ticks {
		if tk.Label != "" {
			n++
		}
	}
	return n
}

// logTicks labels m x 10^k for each mantissa m in [lo, hi], with minor ticks at the other
// integer multiples.
func logTicks(lo, hi float64, mantissas []float64) []plot.Tick {
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		base := math.Pow(10, e)
		for m := 1.0; m <= 9; m++ {
			x := m * base
			if x < lo*(1-1e-9) || x > hi*(1+1e-9) {
				continue
			}
			tk := plot.Tick{Value: x}
			for _, want := range mantissas {
				if m == want {
					tk.Label = tickLabel(x, base*want)
				}
			}
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

// linearTicks labels the multiples of a round step (1, 2, 2.5 or 5 x 10^k) in [lo, hi], the
// largest step that gives minTickLabels of them.
func linearTicks(lo, hi float64) []plot.Tick {
	span := hi - lo
	step := math.Pow(10, math.Ceil(math.Log10(span)))
	for _, f := range []float64{1, 0.5, 0.25, 0.2, 0.1, 0.05, 0.025, 0.02, 0.01} {
		s := step * f
		if n := math.Floor(hi/s+1e-9) - math.Ceil(lo/s-1e-9) + 1; n >= minTickLabels {
			step = s
			break
		}
	}
	var ticks []plot.Tick
	for k := math.Ceil(lo/step - 1e-9); k*step <= hi+step*1e-9; k++ {
		x := k * step
		if math.Abs(x) < step*1e-9 {
			x = 0
		}
		ticks = append(ticks, plot.Tick{Value: x, Label: tickLabel(x, step)})
		if mid := x + step/2; mid < hi { // an unlabelled minor tick halfway
			ticks = append(ticks, plot.Tick{Value: mid})
		}
	}
	return ticks
}

// tickLabel writes x with the decimals that step needs (2.5 needs one, 0.25 two).
func tickLabel(x, step float64) string {
	decimals := 0
	for s := step; decimals < 9 && math.Abs(s-math.Round(s)) > 1e-9*math.Max(1, math.Abs(s)); s *= 10 {
		decimals++
	}
	return strconv.FormatFloat(x, 'f', decimals, 64)
}
