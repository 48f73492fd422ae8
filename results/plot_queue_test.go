package results

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// queueVariant is rateVariant with one egress queue whose depth rises by 1 KB per us to
// peakKB KB, held to the thresholds of q (its depth filled in).
func queueVariant(q QueueSeries, peakKB float64) *Variant {
	v := rateVariant()
	for _, t := range v.Series.TimesUS {
		q.Bytes = append(q.Bytes, int64(min(t, peakKB)*1e3))
	}
	v.Series.Queues = []QueueSeries{q}
	return v
}

// refCurves are the reference lines of f by label: their depth in KB.
func refCurves(f *Figure) map[string]float64 {
	out := map[string]float64{}
	for _, c := range f.Curves {
		if c.ref {
			out[c.Label] = c.MaxY
		}
	}
	return out
}

// TestQueueFigureDrawsTheECNAndTrimThresholds: Kmin and Kmax (one line when equal, as
// DCTCP's step), and the trimming threshold, each at its depth in KB, named with its value;
// one more than maxCapacityOverPeak times the deepest sample is not drawn, and the caption
// says so.
func TestQueueFigureDrawsTheECNAndTrimThresholds(t *testing.T) {
	q := QueueSeries{Node: "sw", Port: 3, Peer: "h5", Priority: 3, KminBytes: 5000, KmaxBytes: 200000, Trims: true, TrimBytes: 80000}
	f, why, err := queueFigure(queueVariant(q, 100))
	require.NoError(t, err)
	require.NotNil(t, f, why)
	require.Equal(t, map[string]float64{"ECN Kmin (value on the line)": 5, "ECN Kmax (value on the line)": 200,
		"trimming threshold (value on the line)": 80}, refCurves(f))
	checkLabelsOnLines(t, f, "ECN Kmin 5.00 KB", "ECN Kmax 200.00 KB", "trim above 80.00 KB")

	// Kmax 400 KB over a peak of 100 KB: beyond 3 times it, left out, and said.
	q.KmaxBytes = 400000
	f, _, err = queueFigure(queueVariant(q, 100))
	require.NoError(t, err)
	require.NotContains(t, refCurves(f), "ECN Kmax (value on the line)")
	require.Contains(t, f.Caption, "ECN Kmax, 400.00 KB, is more than 3 times the deepest sample and is not drawn")

	// Kmin = Kmax: one step, one line; trimming at the buffer's limit only: no line, said.
	q = QueueSeries{Node: "sw", Port: 3, Peer: "h5", Priority: 3, KminBytes: 100000, KmaxBytes: 100000, Trims: true}
	f, _, err = queueFigure(queueVariant(q, 60))
	require.NoError(t, err)
	require.Equal(t, map[string]float64{"ECN K (value on the line)": 100}, refCurves(f))
	require.Contains(t, f.Caption, "trims only what its buffer would drop")

	// No marking, no trimming: no reference line.
	f, _, err = queueFigure(queueVariant(QueueSeries{Node: "sw", Port: 3, Peer: "h5"}, 60))
	require.NoError(t, err)
	require.Empty(t, refCurves(f))
}

// checkLabelsOnLines: f's SVG names each of labels (on its line).
func checkLabelsOnLines(t *testing.T, f *Figure, labels ...string) {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, f.Render(&b, "svg"))
	for _, l := range labels {
		require.True(t, strings.Contains(b.String(), ">"+l+"</text>"), "no %q in the SVG", l)
	}
}
