package results

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// sortIndex is the p-quantile by the definition in summary.go, computed directly: sort, then
// take the ceil(p n)-th value (1-based; the first for p = 0).
func sortIndex(p float64, xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	k := max(int(math.Ceil(p*float64(len(s)))), 1)
	return &s[k-1]
}

func TestSlowdownBySizeAgreesWithSortAndIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	edges := []int64{10_000, 100_000, 1_000_000}
	var flows []Flow
	for i := range 2000 {
		size := int64(math.Exp(rng.Float64() * math.Log(5e7))) // log-uniform over 1 B .. 50 MB
		if i < 4 {
			size = []int64{9_999, 10_000, 1_000_000, 999_999}[i] // the edges belong to the bin above
		}
		if rng.IntN(5) == 0 {
			flows = append(flows, unfinished(i+1, StatusIncomplete, 0, size, size/2))
			continue
		}
		fct := 1 + rng.Float64()*1000
		f := completed(i+1, 0, fct, size, 1+rng.Float64()*20)
		if rng.IntN(10) == 0 {
			f.Slowdown = nil // completed without an ideal FCT: counts for FCT only
		}
		flows = append(flows, f)
	}
	v := Variant{SimTimeUS: 5000, PerFlow: flows, SizeEdges: edges}
	Summarize(&v)
	require.Len(t, v.SlowdownBySize, 4)
	lo := []int64{0, 10_000, 100_000, 1_000_000}
	total := int64(0)
	for b, bin := range v.SlowdownBySize {
		require.Equal(t, lo[b], bin.LoBytes)
		if b < len(edges) {
			require.Equal(t, edges[b], *bin.HiBytes)
		} else {
			require.Nil(t, bin.HiBytes, "the last bin has no upper bound")
		}
		var n, done int64
		var fcts, slows []float64
		for _, f := range flows {
			if f.SizeBytes < bin.LoBytes || (bin.HiBytes != nil && f.SizeBytes >= *bin.HiBytes) {
				continue
			}
			n++
			if f.Status == StatusCompleted {
				done++
				fcts = append(fcts, *f.FCTUS)
				if f.Slowdown != nil {
					slows = append(slows, *f.Slowdown)
				}
			}
		}
		require.Equal(t, n, bin.Flows, "bin %d", b)
		require.Equal(t, done, bin.Completed, "bin %d", b)
		require.Equal(t, sortIndex(0.5, fcts), bin.FCTP50US)
		require.Equal(t, sortIndex(0.99, fcts), bin.FCTP99US)
		require.Equal(t, sortIndex(0.5, slows), bin.P50)
		require.Equal(t, sortIndex(0.95, slows), bin.P95)
		require.Equal(t, sortIndex(0.99, slows), bin.P99)
		total += bin.Flows
	}
	require.EqualValues(t, len(flows), total, "every flow in exactly one bin")
	require.EqualValues(t, 1, v.SlowdownBySize[1].Flows-countIn(flows, 10_001, 99_999), "10,000 B is in [10KB, 100KB), 9,999 B is not")

	// The variant-wide quantiles agree too.
	var fcts []float64
	for _, f := range flows {
		if f.Status == StatusCompleted {
			fcts = append(fcts, *f.FCTUS)
		}
	}
	require.Equal(t, sortIndex(0.5, fcts), v.FCT.P50)
	require.Equal(t, sortIndex(0.95, fcts), v.FCT.P95)
	require.Equal(t, sortIndex(0.99, fcts), v.FCT.P99)
	require.Equal(t, sortIndex(1, fcts), v.FCT.Max)
}

// countIn counts the flows with lo <= size <= hi.
func countIn(flows []Flow, lo, hi int64) int64 {
	var n int64
	for _, f := range flows {
		if f.SizeBytes >= lo && f.SizeBytes <= hi {
			n++
		}
	}
	return n
}

func TestSizeTableUnderTheComparisonFromAHundredFlows(t *testing.T) {
	flowsOf := func(n int) Variant {
		v := Variant{Name: "v", Transport: "rocev2", SimTimeUS: 100}
		for i := range n {
			v.PerFlow = append(v.PerFlow, completed(i+1, 0, 10+float64(i), int64(1000*(i+1)), 1.5))
		}
		Summarize(&v)
		return v
	}
	var b bytes.Buffer
	require.NoError(t, WriteTable(&b, &Document{Variants: []Variant{flowsOf(99)}}, FormatTable))
	require.NotContains(t, b.String(), "slowdown by flow size")
	b.Reset()
	require.NoError(t, WriteTable(&b, &Document{Variants: []Variant{flowsOf(100)}}, FormatTable))
	out := b.String()
	require.Contains(t, out, "slowdown by flow size")
	// 100 flows of 1..100 KB: 9 below 10 KB, 91 in [10KB, 100KB) (10 KB is the bin's own
	// lower edge), and the 100 KB flow in [100KB, 1MB).
	require.Regexp(t, `\| v +\| 0B-10KB +\| +9 \| +9 \|`, out)
	require.Regexp(t, `\| v +\| 10KB-100KB +\| +90 \|`, out)
	require.Regexp(t, `\| v +\| 100KB-1MB +\| +1 \|`, out)
	require.NotContains(t, out, ">=10MB", "a bin of no flow has no row")
	require.NotContains(t, out, "1MB-10MB", "a bin of no flow has no row")
	b.Reset()
	require.NoError(t, WriteTable(&b, &Document{Variants: []Variant{flowsOf(100)}}, FormatCSV))
	parts := strings.Split(b.String(), "\n\n")
	require.Len(t, parts, 2, "csv: the size table after a blank line")
	require.True(t, strings.HasPrefix(parts[1], "variant,lo_bytes,hi_bytes,flows,completed,fct_p50_us"))
}

func TestNullStatisticsWhenNothingCompleted(t *testing.T) {
	v := Variant{Name: "endless", Transport: "rocev2", SimTimeUS: 1000,
		PerFlow: []Flow{unfinished(1, StatusIncomplete, 0, 1e9, 5e6), unfinished(2, StatusIncomplete, 500, 1e9, 5e6)}}
	Summarize(&v)
	require.Equal(t, FCTSummary{}, v.FCT)
	require.Equal(t, SlowdownSummary{}, v.Slowdown)
	// 5 MB in 1000 us is 40 Gbit/s, in 500 us 80: the mean is 60.
	require.InDelta(t, 40, *v.PerFlow[0].RateGbps, 1e-9)
	require.InDelta(t, 80, *v.PerFlow[1].RateGbps, 1e-9)
	require.InDelta(t, 60, *v.FlowGbps, 1e-9)
	var b bytes.Buffer
	require.NoError(t, WriteJSON(&b, &Document{Variants: []Variant{v}}))
	require.Contains(t, b.String(), `"fct_us": {
        "mean": null,`)
	b.Reset()
	require.NoError(t, WriteTable(&b, &Document{Variants: []Variant{v}}, FormatCSV))
	require.Contains(t, b.String(), "endless,rocev2,0,2,,,,", "csv: flows as two integers, an empty cell for null")
	require.Contains(t, b.String(), ",60,")
}

// TestOneFlowItemsAreOneGroup: 128 unlabelled flow items ("flow 0" to "flow 127", a
// benchmark's permutation written out) are one group in slowdown_by_size and the flows by
// group, not 128 groups of five bins (640 rows, nearly all empty); two one-flow items beside
// a group of several (tradeoff's victim and background) keep a group each.
func TestOneFlowItemsAreOneGroup(t *testing.T) {
	v := Variant{Name: "v", Transport: "rocev2", SimTimeUS: 100}
	for i := range 128 {
		f := completed(i+1, 0, 10, 50000, 1.5)
		f.Group = fmt.Sprintf("flow %d", i)
		v.PerFlow = append(v.PerFlow, f)
	}
	Summarize(&v)
	require.Len(t, v.SlowdownBySize, len(DefaultSizeEdges)+1, "the bins of all flows only: one group is no grouping")
	_, grouped := groupsTable(&Document{Variants: []Variant{v}})
	require.False(t, grouped)

	// A group of 12 beside the 128: two groups, the one-flow items' under OneFlowGroups.
	for i := range 12 {
		f := completed(200+i, 0, 10, 5000, 1.5)
		f.Group = "incast"
		v.PerFlow = append(v.PerFlow, f)
	}
	Summarize(&v)
	var groups []string
	for _, b := range v.SlowdownBySize {
		if b.Group != "" && (len(groups) == 0 || groups[len(groups)-1] != b.Group) {
			groups = append(groups, b.Group)
		}
	}
	require.Equal(t, []string{OneFlowGroups, "incast"}, groups)
	tb, _ := groupsTable(&Document{Variants: []Variant{v}})
	require.Len(t, tb.Rows, 2)
	require.Equal(t, []string{"v", OneFlowGroups, "128", "128"}, tb.Rows[0][:4])

	// Two items of one flow each: a group each.
	w := Variant{Name: "w", Transport: "rocev2", SimTimeUS: 100}
	for i, g := range []string{"victim", "background", "incast", "incast"} {
		f := completed(i+1, 0, 10, 5000, 1.5)
		f.Group = g
		w.PerFlow = append(w.PerFlow, f)
	}
	tb, _ = groupsTable(&Document{Variants: []Variant{w}})
	require.Len(t, tb.Rows, 3)
}
