package results

import (
	"math"

	"gonum.org/v1/plot"
)

// timeUnit is the unit a time axis is drawn in: microseconds, milliseconds or seconds,
// whichever keeps the axis's numbers between about 1 and 1000.
type timeUnit struct {
	name  string
	perUS float64 // microseconds per unit
}

// unitFor chooses the unit for an axis spanning spanUS microseconds.
func unitFor(spanUS float64) timeUnit {
	switch {
	case spanUS >= 2e6:
		return timeUnit{"s", 1e6}
	case spanUS >= 2e3:
		return timeUnit{"ms", 1e3}
	}
	return timeUnit{"us", 1}
}

// setTimeAxis makes p's x axis the time from startUS to endUS in unit u, with round ticks
// (gonum's default ticker on the converted values). Call it once the data are added, which
// would otherwise widen the range.
func setTimeAxis(p *plot.Plot, u timeUnit, startUS, endUS float64) {
	p.X.Label.Text = "time (" + u.name + ")"
	p.X.Min, p.X.Max = startUS/u.perUS, endUS/u.perUS
}

// timeWindow is the time axis every time-series figure of a run shares: from the earliest
// first sample of any variant to the latest last, in one unit.
type timeWindow struct {
	unit       timeUnit
	start, end float64 // microseconds
}

// scenarioWindow is d's time window over every variant's samples; nil when no variant has
// two samples.
func scenarioWindow(d *Document) *timeWindow {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range d.Variants {
		if s := d.Variants[i].Series; s != nil && s.Len() > 1 {
			lo, hi = min(lo, s.TimesUS[0]), max(hi, s.TimesUS[s.Len()-1])
		}
	}
	if hi <= lo {
		return nil
	}
	return &timeWindow{unit: unitFor(hi - lo), start: lo, end: hi}
}

// timeAxisOf is v's time axis: the run's window when Figures set one, else v's own samples'
// span (a figure drawn on its own).
func timeAxisOf(v *Variant) (u timeUnit, start, end float64) {
	if w := v.window; w != nil {
		return w.unit, w.start, w.end
	}
	s := v.Series
	start, end = s.TimesUS[0], s.TimesUS[s.Len()-1]
	return unitFor(end - start), start, end
}
