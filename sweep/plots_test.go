package sweep

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/results"
)

// TestFlatMetricsAreNotPlotted: a metric that is the same at every point (drops 0 at both
// buffer sizes) gets no plot but a line saying so; one that changes gets its plot.
func TestFlatMetricsAreNotPlotted(t *testing.T) {
	m := &Manifest{Scenario: "s", Parameters: []Parameter{{Path: "switch.buffer", Values: []string{"1MB", "2MB"}}}}
	for i, buf := range []string{"1MB", "2MB"} {
		metrics := map[string]results.Estimate{}
		for _, mt := range results.TableMetrics() {
			metrics[mt.Name] = results.Estimate{Mean: 0}
		}
		metrics["goodput_gbps"] = results.Estimate{Mean: 10 * float64(i+1)}
		metrics[results.JobMetricKey("ar", "busbw_gbps")] = results.Estimate{Mean: 50 * float64(i+1)}
		metrics[results.JobMetricKey("ar", "size_bytes")] = results.Estimate{Mean: 1e6}
		m.Summary = append(m.Summary, Summary{Variant: "v", Parameters: map[string]string{"switch.buffer": buf},
			Seeds: []uint64{1}, Metrics: metrics})
	}
	figs, flat, err := figures(m, []string{results.JobMetricKey("ar", "size_bytes"), results.JobMetricKey("ar", "busbw_gbps")})
	require.NoError(t, err)
	require.Len(t, figs, 2, "goodput and the collective's busbw vary; the rest is flat")
	require.Equal(t, "goodput_gbps-vs-switch-buffer", figs[0].Name)
	require.Equal(t, "collective-ar-busbw_gbps-vs-switch-buffer", figs[1].Name)
	_, y := figs[0].AxisLabels()
	require.Equal(t, "goodput (Gbit/s)", y, "metricTable's label")
	_, y = figs[1].AxisLabels()
	require.Equal(t, "ar: bus bandwidth (Gbit/s)", y, "the job's label and JobMetrics' label")
	require.Len(t, flat, len(results.TableMetrics())-1+1)
	require.Contains(t, flat, "collective.ar.size_bytes (1000000 at every point)")
	require.Contains(t, flat, "drops (0 at every point)")
}
