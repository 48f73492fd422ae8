package results

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// identityDoc is three variants of six completed flows each.
func identityDoc() *Document {
	d := &Document{Scenario: "ids"}
	for k, name := range []string{"alpha", "beta", "gamma"} {
		v := Variant{Name: name, Transport: "rocev2", SimTimeUS: 1000}
		for i := 1; i <= 6; i++ {
			v.PerFlow = append(v.PerFlow, completed(i, 0, float64(100*(i+k)), 1000000, 1+float64(i)/10))
		}
		Summarize(&v)
		d.Variants = append(d.Variants, v)
	}
	return d
}

// TestVariantIdentity: a variant is the palette's colour of its place and its marker in a
// run's figure, and in a comparison of the run with itself both its lines are that colour
// and marker, run b's dashed and a's solid.
func TestVariantIdentity(t *testing.T) {
	d := identityDoc()
	f, why, err := fctFigure(d)
	require.NoError(t, err)
	require.Empty(t, why)
	hex := func(k int) string { c := palette[k]; return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }
	for k, c := range f.Curves {
		require.Equal(t, hex(k), c.Style().Color, c.Label)
		require.Equal(t, fmt.Sprintf("%T", markers[k]), c.Style().Marker, c.Label)
		require.Empty(t, c.Style().Dash, c.Label)
	}
	figs, _, err := ComparisonFigures(Compare(d, d, "one", "two"))
	require.NoError(t, err)
	byLabel := map[string]Style{}
	for _, c := range figs[0].Curves {
		byLabel[c.Label] = c.Style()
	}
	for k, name := range []string{"alpha", "beta", "gamma"} {
		a, b := byLabel[name+" [a]"], byLabel[name+" [b]"]
		require.Equal(t, hex(k), a.Color, name)
		require.Equal(t, a.Color, b.Color, name)
		require.Equal(t, a.Marker, b.Marker, name)
		require.Empty(t, a.Dash, name)
		require.NotEmpty(t, b.Dash, "%s: run b dashed", name)
	}
	// The palette has no yellow: no colour with red and green high and blue low.
	for _, c := range palette {
		require.False(t, c.R > 200 && c.G > 200 && c.B < 120, "%v is a yellow", c)
	}
	require.Len(t, palette, 12)
}

// TestHeadroomAndLabels: a y axis ends headroom above the data (10 reads to 10.8), a CDF's
// at 1; metric and parameter paths read as words with their units.
func TestHeadroomAndLabels(t *testing.T) {
	f := newFigure("h", "", "h", "x (s)", "y (B)")
	_, err := f.addLine(0, "line", plotter.XYs{{X: 0, Y: 2}, {X: 1, Y: 10}})
	require.NoError(t, err)
	top, dataMax, natural := f.YAxis()
	require.False(t, natural)
	require.Equal(t, 10.0, dataMax)
	require.InDelta(t, 10*headroom, top, 1e-9)

	cdf, _, err := fctFigure(identityDoc())
	require.NoError(t, err)
	top, _, natural = cdf.YAxis()
	require.True(t, natural)
	require.Equal(t, 1.0, top)

	require.Equal(t, "frame loss rate (%)", MetricLabel("faults.3.loss", ""))
	require.Equal(t, "goodput (Gbit/s)", MetricLabel("goodput_gbps", ""))
	require.Equal(t, "PFC headroom (bytes)", MetricLabel("switch.pfc.headroom", "bytes"))
	require.Equal(t, "switch.mystery (us)", MetricLabel("switch.mystery", "us"))
	// A collective's metric (JobMetricKey): its job's label, the metric's words and unit; a
	// label may hold dots, and a key with no label or no known metric is no job metric.
	require.Equal(t, "ring.a: bus bandwidth (Gbit/s)", MetricLabel(JobMetricKey("ring.a", "busbw_gbps"), ""))
	require.Equal(t, "grads: iteration time (us)", MetricLabel(JobMetricKey("grads", "time_us"), ""))
	require.Equal(t, "collective..busbw_gbps (value as set)", MetricLabel("collective..busbw_gbps", ""))
	require.Equal(t, "collective.grads.mystery (value as set)", MetricLabel("collective.grads.mystery", ""))
}

// TestLegendWraps: a label wider than the legend's column goes on rows that fit, every word
// kept.
func TestLegendWraps(t *testing.T) {
	width := func(s string) vg.Length { return vg.Length(len(s)) }
	rows := wrapText("a variant name far longer than the column", 12, width)
	require.Equal(t, []string{"a variant", "name far", "longer than", "the column"}, rows)
	require.Equal(t, []string{"unbreakableword"}, wrapText("unbreakableword", 5, width))
}

// TestPanelsShareAxesAndZoom: panels of one kind share the run's time axis, zoomed to where
// any line changes when that is under zoomShare of it, and a panel's queue keeps one
// colour in every panel.
func TestPanelsShareAxesAndZoom(t *testing.T) {
	mk := func(name string, labels ...string) *Figure {
		f := newFigure("queues-", name, name+": q", "time (ms)", "queue (KB)")
		for i, l := range labels {
			pts := plotter.XYs{}
			for k := range 101 {
				y := 0.0
				if k >= 10 && k < 20 {
					y = float64(5 * (i + 1))
				}
				pts = append(pts, plotter.XY{X: float64(k), Y: y})
			}
			_, err := f.addLine(i, l, pts)
			require.NoError(t, err)
		}
		f.plot.X.Min, f.plot.X.Max = 0, 100
		f.panelTitle = name
		return f
	}
	a, b := mk("a", "q1", "q2"), mk("b", "q2")
	note := zoomToActivity([]*Figure{a, b})
	require.Contains(t, note, "zoomed")
	f := panelFigure("queues", "t", []*Figure{a, b})
	for _, p := range f.Panels() {
		require.InDelta(t, 9-0.55, p.plot.X.Min, 1e-9, "the activity, 9 to 20 ms, and a twentieth of it (0.55) either side")
		require.InDelta(t, 20+0.55, p.plot.X.Max, 1e-9)
		require.Equal(t, a.plot.Y.Max, p.plot.Y.Max, "one y axis")
	}
	colour := map[string]string{}
	for _, c := range f.Curves {
		if prev, ok := colour[c.Label]; ok {
			require.Equal(t, prev, c.Style().Color, "%s: one colour in every panel", c.Label)
		}
		colour[c.Label] = c.Style().Color
	}
	require.Len(t, f.legend, 2, "each label once")
}
