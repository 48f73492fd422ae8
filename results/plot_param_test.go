package results

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// paramDoc: loss 0, 0.0001 and 0.01 for "rocev2" and 0.0001 and 0.01 for "iwarp" (written
// out of order), two seeds each, goodput a + b over the seeds as given; variant "gone" is on
// the axis but was not run.
func paramDoc() *Document {
	run := func(name string, seed uint64, goodput, p99 float64) Variant {
		return Variant{Name: name, Seed: seed, GoodputGbps: goodput, FCT: FCTSummary{P99: &p99}}
	}
	d := &Document{Scenario: "loss", Variants: []Variant{
		run("r0", 1, 90, 40), run("r0", 2, 92, 40),
		run("r2", 1, 10, 5000), run("r2", 2, 14, 5100),
		run("r1", 1, 60, 300), run("r1", 2, 62, 340),
		run("i1", 1, 50, 400), run("i1", 2, 50, 400),
		run("i2", 1, 20, 1000), run("i2", 2, 30, 1010),
	}}
	d.Axis = &ParamAxis{Path: "faults.0.loss", Points: []ParamPoint{
		{Variant: "r0", Series: "rocev2", Value: "0", X: 0},
		{Variant: "r2", Series: "rocev2", Value: "0.01", X: 0.01},
		{Variant: "i2", Series: "iwarp", Value: "0.01", X: 0.01},
		{Variant: "r1", Series: "rocev2", Value: "0.0001", X: 0.0001},
		{Variant: "i1", Series: "iwarp", Value: "0.0001", X: 0.0001},
		{Variant: "gone", Series: "iwarp", Value: "0", X: 0},
	}}
	return d
}

// TestParamCurvesAreThePerVariantMeans: each point is its variant's mean over the seeds and
// the half-width t(0.975, 1) x s / sqrt(2), t(0.975, 1) = 12.706205 (the t table's 12.71):
// for 10 and 14, s = sqrt(8) and the half-width 12.706205 x 2; points by value, series in
// the order of their first variant; the variant not run has no point.
func TestParamCurvesAreThePerVariantMeans(t *testing.T) {
	d := paramDoc()
	curves, seeds := paramCurves(d, "goodput_gbps")
	require.Equal(t, 2, seeds)
	require.Len(t, curves, 2)
	half := func(a, b float64) float64 {
		m := (a + b) / 2
		s := math.Sqrt((a-m)*(a-m) + (b-m)*(b-m)) // n-1 = 1
		return 12.706204736174707 * s / math.Sqrt(2)
	}
	r, i := curves[0], curves[1]
	require.Equal(t, "rocev2", r.Label)
	require.Equal(t, []float64{0, 0.0001, 0.01}, r.X)
	require.InDeltaSlice(t, []float64{91, 61, 12}, r.Y, 1e-12)
	require.InDeltaSlice(t, []float64{half(90, 92), half(60, 62), half(10, 14)}, r.Err, 1e-9)
	require.InDelta(t, 25.41241, r.Err[2], 1e-4)
	require.Equal(t, "iwarp", i.Label)
	require.Equal(t, []float64{0.0001, 0.01}, i.X, "gone was not run")
	require.InDeltaSlice(t, []float64{50, 25}, i.Y, 1e-12)
	require.InDeltaSlice(t, []float64{0, half(20, 30)}, i.Err, 1e-9)

	// 0, 0.0001 and 0.01: two decades above 0 and a 0, so evenly spaced categories, each a
	// loss rate in percent (metricTable's faults.*.loss).
	x, pos := paramXAxis(d.Axis)
	require.Equal(t, []string{"0", "0.01", "1"}, x.XLabels)
	require.Equal(t, "frame loss rate (%), its values evenly spaced (not to scale)", x.Label)
	require.Equal(t, 2.0, pos(0.01))
	// Without the 0: a log axis with a tick at each value.
	x, pos = paramXAxis(&ParamAxis{Path: "p", Unit: "bytes", Points: []ParamPoint{{Value: "1KB", X: 1e3}, {Value: "1MB", X: 1e6}}})
	require.True(t, x.LogX)
	require.Equal(t, []string{"1KB", "1MB"}, x.TickLabels)
	require.Equal(t, "p (bytes), log scale", x.Label)
	require.Equal(t, 1e6, pos(1e6))
	// 0, 1 and 2: linear, a tick at each value.
	x, _ = paramXAxis(&ParamAxis{Path: "n", Points: []ParamPoint{{Value: "0", X: 0}, {Value: "2", X: 2}, {Value: "1", X: 1}}})
	require.False(t, x.LogX)
	require.Nil(t, x.XLabels)
	require.Equal(t, []float64{0, 1, 2}, x.TickAt)
	// 1, 2, 4, 8: a doubling sweep, evenly apart on a log2 axis.
	x, _ = paramXAxis(&ParamAxis{Path: "traffic.0.collective.channels", Points: []ParamPoint{{Value: "1", X: 1}, {Value: "2", X: 2}, {Value: "4", X: 4}, {Value: "8", X: 8}}})
	require.True(t, x.LogX)
	require.Equal(t, "collective channels (count), log2 scale", x.Label)

	figs, omitted, err := paramFigures(d)
	require.NoError(t, err)
	require.Empty(t, omitted)
	require.Equal(t, []string{"goodput_gbps-vs-faults-0-loss", "fct_p99_us-vs-faults-0-loss"}, []string{figs[0].Name, figs[1].Name})
	require.Equal(t, ParamFigureNames("faults.0.loss"), []string{figs[0].Name, figs[1].Name})
	require.Contains(t, figs[0].Caption, "2 seeds")
	require.True(t, spansDecades(mustCurves(t, d, "fct_p99_us")), "40 us up to 5050 + 635 us: a log y axis")
	require.False(t, spansDecades(mustCurves(t, d, "goodput_gbps")), "the goodput's interval reaches below 0")
	inked, area := renderedInk(t, figs[0])
	require.Greater(t, inked, area/100, "not blank")

	// Every variant equal and no interval: nothing to show, and said so.
	for k := range d.Variants {
		d.Variants[k].GoodputGbps = 7
	}
	_, omitted, err = paramFigures(d)
	require.NoError(t, err)
	require.Equal(t, Omitted{"goodput_gbps-vs-faults-0-loss", "goodput_gbps is 7 at every point"}, omitted[0])
}

func mustCurves(t *testing.T, d *Document, metric string) []ErrorCurve {
	t.Helper()
	c, _ := paramCurves(d, metric)
	require.NotEmpty(t, c)
	return c
}

// TestErrorBarsStopAtZero: a mean of 10 Gb/s with a 95% half-width of 25 (two seeds far
// apart) is drawn from 0 to 35, not from -15: goodput cannot be negative; the y axis starts
// at 0 and the caption says the interval was cut. A bar above 0 is drawn whole.
func TestErrorBarsStopAtZero(t *testing.T) {
	curves := []ErrorCurve{{Label: "a", X: []float64{1, 2}, Y: []float64{10, 50}, Err: []float64{25, 5}}}
	f, err := NewErrorFigure("g", "g", "a caption.", XAxis{Label: "x"}, "goodput (Gb/s)", curves)
	require.NoError(t, err)
	require.GreaterOrEqual(t, f.plot.Y.Min, 0.0)
	require.Contains(t, f.Caption, "cut at 0")
	curves[0].Err[0] = 5
	f, err = NewErrorFigure("g", "g", "a caption.", XAxis{Label: "x"}, "goodput (Gb/s)", curves)
	require.NoError(t, err)
	require.InDelta(t, 5.0, f.plot.Y.Min, 1e-9)
	require.Equal(t, "a caption.", f.Caption)
}
