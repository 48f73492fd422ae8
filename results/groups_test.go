package results

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// groupedVariant is four completed flows of two groups: "web" 5 KB and 50 KB flows with
// slowdowns 1 and 2, "incast" two 200 KB flows with slowdowns 4 and 8.
func groupedVariant() *Variant {
	v := &Variant{Name: "v", SimTimeUS: 1000}
	for i, f := range []struct {
		group string
		size  int64
		slow  float64
	}{{"web", 5000, 1}, {"incast", 200_000, 4}, {"web", 50_000, 2}, {"incast", 200_000, 8}} {
		fl := completed(i+1, 0, 100*f.slow, f.size, f.slow)
		fl.Group = f.group
		v.PerFlow = append(v.PerFlow, fl)
	}
	Summarize(v)
	return v
}

func TestSlowdownBySizePerGroup(t *testing.T) {
	v := groupedVariant()
	// Five default bins of all flows, then five per group in the order of their first flow.
	require.Len(t, v.SlowdownBySize, 15)
	all := v.OverallSizeBins()
	require.Len(t, all, 5)
	for i, g := range []string{"web", "incast"} {
		bins := v.SlowdownBySize[5*(i+1) : 5*(i+2)]
		for _, b := range bins {
			require.Equal(t, g, b.Group)
		}
	}
	// The 100 KB-1 MB bin: both incast flows, slowdown p50 = the smaller (ceil(0.5 x 2) = 1st).
	require.EqualValues(t, 2, all[2].Flows)
	require.Equal(t, 4.0, *all[2].P50)
	web, incast := v.SlowdownBySize[5:10], v.SlowdownBySize[10:15]
	require.EqualValues(t, 0, web[2].Flows, "no web flow is 100 KB-1 MB")
	require.Nil(t, web[2].P50)
	require.EqualValues(t, []int64{1, 1}, []int64{web[0].Flows, web[1].Flows})
	require.Equal(t, 8.0, *incast[2].P99)

	// One group: no per-group bins, the list is as before groups.
	for i := range v.PerFlow {
		v.PerFlow[i].Group = "same"
	}
	Summarize(v)
	require.Len(t, v.SlowdownBySize, 5)
	require.Len(t, v.OverallSizeBins(), 5)
}

func TestQuantileEdges(t *testing.T) {
	var sizes []int64
	for s := int64(100); s >= 1; s-- { // any order
		sizes = append(sizes, s)
	}
	// The k/4-quantile of 1..100 is x[ceil(25k)] = 25k; each edge is the next size up.
	require.Equal(t, []int64{26, 51, 76}, QuantileEdges(sizes, 4))
	// Ties: the median of 10,10,10,10,20 is 10, so the one edge is 20 (bins of 4 and 1);
	// quantiles:4 asks for edges after 10, 10 and 10: the same edge once.
	require.Equal(t, []int64{20}, QuantileEdges([]int64{10, 20, 10, 10, 10}, 2))
	require.Equal(t, []int64{20}, QuantileEdges([]int64{10, 20, 10, 10, 10}, 4))
	require.Empty(t, QuantileEdges([]int64{7, 7, 7}, 3), "one size: one bin")
	require.Empty(t, QuantileEdges(nil, 3))

	// In slowdown_by_size: 20 equal bins of 1..100 hold 5 flows each.
	v := &Variant{SimTimeUS: 1000, SizeQuantiles: 20}
	for i, s := range sizes {
		v.PerFlow = append(v.PerFlow, completed(i+1, 0, 10, s, 1))
	}
	Summarize(v)
	require.Len(t, v.SlowdownBySize, 20)
	for _, b := range v.SlowdownBySize {
		require.EqualValues(t, 5, b.Flows, "bin from %d", b.LoBytes)
	}
}

func TestWarmupLeavesEarlyFlowsOutOfTheStatistics(t *testing.T) {
	v := &Variant{SimTimeUS: 1000}
	// Flows starting at 0, 100, 200 and 300 us, FCTs 10, 20, 30 and 40 us.
	for i := range 4 {
		start := float64(100 * i)
		v.PerFlow = append(v.PerFlow, completed(i+1, start, start+float64(10*(i+1)), 1000, float64(i+1)))
	}
	Summarize(v)
	require.Equal(t, 20.0, *v.FCT.P50)
	v.WarmupUS = 150 // the flows at 0 and 100 us are left out
	Summarize(v)
	require.Equal(t, 30.0, *v.FCT.P50, "30, 40: p50 is the 1st")
	require.Equal(t, 35.0, *v.FCT.Mean)
	require.Equal(t, 3.0, *v.Slowdown.P50)
	require.EqualValues(t, 2, v.OverallSizeBins()[0].Flows)
	require.EqualValues(t, 4, v.Flows.Total, "counts keep every flow")
	require.EqualValues(t, 4, v.Flows.Completed)
}
