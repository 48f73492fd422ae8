package results

import "gonum.org/v1/plot"

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
