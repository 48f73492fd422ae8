package results

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// ParamAxis is the one numeric parameter a scenario's variants vary (a set path whose values
// all read as numbers of one kind): its path, the unit of X ("" for plain numbers, "bytes",
// "Gb/s" or "us"), and the variants on it.
type ParamAxis struct {
	Path   string
	Unit   string
	Points []ParamPoint
}

// ParamPoint is one variant on a ParamAxis: its name, its series (the transport and the
// rest of its set, shared by the series' variants), its value as written and as a number.
type ParamPoint struct {
	Variant, Series string
	Value           string
	X               float64
}

// paramMetrics are the metrics plotted against a varied parameter.
var paramMetrics = []string{"goodput_gbps", "fct_p99_us"}

// paramFigureName is the file name of metric's plot against path.
func paramFigureName(metric, path string) string { return metric + "-vs-" + Slug(path) }

// ParamFigureNames are the names of the plots against a varied parameter at path.
func ParamFigureNames(path string) []string {
	var out []string
	for _, m := range paramMetrics {
		out = append(out, paramFigureName(m, path))
	}
	return out
}

// paramCurves are metric against the axis of d: a curve per series, in the order of their
// first variant, its points by value; each point a variant's mean over its seeds and the
// half-width of its 95% confidence interval (EstimateOf: 0 for one seed). A variant that was
// not run, or has no value of the metric (an FCT when no flow completed), has no point.
func paramCurves(d *Document, metric string) ([]ErrorCurve, int) {
	m, _ := metricNamed(metric)
	of := m.Value
	runs := map[string][]*Variant{}
	for _, r := range runsByName(d) {
		runs[r[0].Name] = r
	}
	seeds := 0
	var curves []ErrorCurve
	index := map[string]int{}
	pts := append([]ParamPoint(nil), d.Axis.Points...)
	sort.SliceStable(pts, func(a, b int) bool { return pts[a].X < pts[b].X })
	for _, pt := range d.Axis.Points { // the series in the order of their first variant
		if _, ok := index[pt.Series]; !ok {
			index[pt.Series] = len(curves)
			curves = append(curves, ErrorCurve{Label: pt.Series})
		}
	}
	for _, pt := range pts {
		var xs []float64
		for _, v := range runs[pt.Variant] {
			if x, ok := of(v); ok {
				xs = append(xs, x)
			}
		}
		if len(xs) == 0 {
			continue
		}
		seeds = max(seeds, len(runs[pt.Variant]))
		e := EstimateOf(xs)
		c := &curves[index[pt.Series]]
		c.X, c.Y, c.Err = append(c.X, pt.X), append(c.Y, e.Mean), append(c.Err, e.CI95)
	}
	var drawn []ErrorCurve
	for _, c := range curves {
		if len(c.X) > 0 {
			drawn = append(drawn, c)
		}
	}
	return drawn, seeds
}

// paramXAxis places the axis's values: on a log2 scale when each is twice the one before
// (a doubling sweep: 1, 2, 4, 8 evenly apart), on a log scale when all are above 0 and span
// two decades or more; evenly spaced in order of value, as categories, when they span two
// decades above 0 but include 0 or less (lossy-link's loss 0, 0.0001, 0.001, 0.01, which a
// linear axis would crowd into its first hundredth); else linear. Every value has a tick
// labelled as written. pos maps a value to its x on the plot.
func paramXAxis(a *ParamAxis) (x XAxis, pos func(float64) float64) {
	label := map[float64]string{}
	var values []float64
	for _, p := range a.Points {
		if _, ok := label[p.X]; !ok {
			label[p.X] = p.Value
			values = append(values, p.X)
		}
	}
	sort.Float64s(values)
	x.Label = MetricLabel(a.Path, a.Unit)
	if m, ok := paramNamed(a.Path); ok && m.Scale != 0 {
		for _, v := range values { // the values in the label's unit: 0.0001 as 0.01 (%)
			label[v] = strconv.FormatFloat(v*m.Scale, 'f', -1, 64)
		}
	}
	lo, hi, loPos := values[0], values[len(values)-1], math.Inf(1)
	for _, v := range values {
		if v > 0 {
			loPos = min(loPos, v)
		}
	}
	switch {
	case Doubling(values):
		x.Label += ", log2 scale"
		x.LogX = true
	case lo > 0 && hi/lo >= 100:
		x.Label += ", log scale"
		x.LogX = true
	case lo <= 0 && hi/loPos >= 100:
		x.Label += ", its values evenly spaced (not to scale)"
		rank := map[float64]float64{}
		for i, v := range values {
			rank[v] = float64(i)
			x.XLabels = append(x.XLabels, label[v])
		}
		return x, func(v float64) float64 { return rank[v] }
	}
	for _, v := range values {
		x.TickAt = append(x.TickAt, v)
		x.TickLabels = append(x.TickLabels, label[v])
	}
	return x, func(v float64) float64 { return v }
}

// Doubling reports whether values (sorted) are three or more, above 0, each twice the one
// before.
func Doubling(values []float64) bool {
	if len(values) < 3 || values[0] <= 0 {
		return false
	}
	for i := 1; i < len(values); i++ {
		if math.Abs(values[i]/values[i-1]-2) > 1e-9 {
			return false
		}
	}
	return true
}

// seriesName names a series of the axis in a legend: the words its variants' names begin
// with alike ("RoCEv2 67ms RTO loss" for "RoCEv2 67ms RTO loss 0" ... "RoCEv2 67ms RTO loss
// 1%"), or its settings when they share none.
func seriesName(a *ParamAxis, series string) string {
	var common []string
	first := true
	for _, p := range a.Points {
		if p.Series != series {
			continue
		}
		words := strings.Fields(p.Variant)
		if first {
			common, first = words, false
			continue
		}
		n := 0
		for n < len(common) && n < len(words) && common[n] == words[n] {
			n++
		}
		common = common[:n]
	}
	if len(common) == 0 {
		return series
	}
	return strings.Join(common, " ")
}

// paramFigures are the metrics of paramMetrics against d's varied parameter, when it has
// one: a curve per series, a point per variant with its seeds' 95% interval. A metric with
// the same value at every point and no interval is omitted, saying so.
func paramFigures(d *Document) (figs []*Figure, omitted []Omitted, err error) {
	if d.Axis == nil || len(d.Axis.Points) == 0 {
		return nil, nil, nil
	}
	x, pos := paramXAxis(d.Axis)
	for _, metric := range paramMetrics {
		name := paramFigureName(metric, d.Axis.Path)
		curves, seeds := paramCurves(d, metric)
		if len(curves) == 0 {
			omitted = append(omitted, Omitted{name, "no variant on the axis has a value of " + metric})
			continue
		}
		if v, flat := FlatValue(curves); flat {
			omitted = append(omitted, Omitted{name, fmt.Sprintf("%s is %s at every point", metric, strconv.FormatFloat(v, 'f', -1, 64))})
			continue
		}
		for i := range curves {
			for k := range curves[i].X {
				curves[i].X[k] = pos(curves[i].X[k])
			}
		}
		for i := range curves {
			curves[i].Label = seriesName(d.Axis, curves[i].Label)
		}
		caption := fmt.Sprintf("%s against %s (%s), the one numeric setting the variants vary: a curve per series of variants that differ in it alone (named by the words their names share), a point per variant", metric, d.Axis.Path, MetricLabel(d.Axis.Path, d.Axis.Unit))
		if seeds > 1 {
			caption += fmt.Sprintf(": the mean over its %d seeds with its 95%% confidence interval (Student's t) as the error bar", seeds)
		} else {
			caption += " (one seed: no interval)"
		}
		if len(curves) > maxPlotLines {
			caption += fmt.Sprintf("; the first %d of %d series are drawn", maxPlotLines, len(curves))
			curves = curves[:maxPlotLines]
		}
		yLabel, logY := MetricLabel(metric, ""), spansDecades(curves)
		if logY {
			yLabel += ", log scale"
		}
		title := fmt.Sprintf("%s: %s against %s", d.Scenario, strings.Split(MetricLabel(metric, ""), " (")[0], strings.Split(x.Label, " (")[0])
		f, err := NewErrorFigure(name, title, caption+".", x, yLabel, curves)
		if err != nil {
			return nil, nil, err
		}
		if logY {
			f.plot.Y.Scale = plot.LogScale{}
		}
		figs = append(figs, f)
	}
	return figs, omitted, nil
}

// FlatValue is the one value every point of curves has, when they have one and no
// interval (a count that stayed 0): such a plot shows nothing.
func FlatValue(curves []ErrorCurve) (float64, bool) {
	v, set := 0.0, false
	for _, c := range curves {
		for k, y := range c.Y {
			if c.Err[k] != 0 || (set && y != v) {
				return 0, false
			}
			v, set = y, true
		}
	}
	return v, set
}

// spansDecades reports whether curves, error bars included, lie above 0 and span two
// decades or more: a log axis shows them (lossy-link's FCT p99, 1.7 ms to 215 ms).
func spansDecades(curves []ErrorCurve) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range curves {
		for k, y := range c.Y {
			lo, hi = min(lo, y-c.Err[k]), max(hi, y+c.Err[k])
		}
	}
	return lo > 0 && hi/lo >= 100
}
