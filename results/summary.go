package results

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Quantile definition used everywhere in fabricsim's results.
//
// The p-quantile of n values is gonum's stat.Empirical quantile of the sorted values: the
// smallest value x such that at least a fraction p of the values are <= x. With the values
// sorted as x[1] <= ... <= x[n] it is x[k] for k = ceil(p*n) (and x[1] for p = 0). It never
// interpolates, so it is always one of the observed values: for 1..10, p50 = 5, p95 = 10 and
// p99 = 10 (numpy's default would give 5.5, 9.55 and 9.91). With weights, k is the first
// index at which the running sum of weights reaches p times the total weight.

// Summarize fills v's summaries from its per-flow records and drop counters:
//
//   - Flows: the flows counted by status (Total counts all of them);
//   - FCT: mean, p50, p95, p99 and max of fct_us over completed flows only;
//   - Slowdown: p50, p95 and p99 over completed flows that have a slowdown;
//   - SlowdownBySize: the flows by size bin, all together and per group (bySize);
//   - GoodputGbps: the sum of delivered_bytes in bits over the time from the first flow's
//     start to the last flow's finish, or to the end of the run (SimTimeUS) when any flow is
//     unfinished (has no finish time, whatever its status), in Gbit/s;
//   - RetransmittedPackets, Timeouts, NAKs: the sums over flows;
//   - Drops.Total: Drops.ByReason.Sum().
//
// FCT, Slowdown and SlowdownBySize leave out the flows that start before WarmupUS (none
// when it is 0) and collectives' queue pairs; the counts, goodput and sums take every flow. Quantiles follow the
// definition above. Every summary is 0, never NaN, when it has nothing
// to summarise (no completed flow, no elapsed time). Summarize may be called again after the
// records change; it recomputes everything it fills.
func Summarize(v *Variant) {
	v.Flows = FlowCounts{Total: int64(len(v.PerFlow))}
	v.RetransmittedPackets, v.Timeouts, v.NAKs = 0, 0, 0
	var fcts, slowdowns []float64
	var measured []*Flow // the flows the FCT and slowdown statistics are of: not in the warm-up
	var deliveredBits float64
	first, last := math.Inf(1), math.Inf(-1)
	unfinished := false
	for i := range v.PerFlow {
		f := &v.PerFlow[i]
		switch f.Status {
		case StatusCompleted:
			v.Flows.Completed++
		case StatusIncomplete:
			v.Flows.Incomplete++
		case StatusUnroutable:
			v.Flows.Unroutable++
		case StatusFailed:
			v.Flows.Failed++
		}
		v.RetransmittedPackets += f.RetransmittedPackets
		v.Timeouts += f.Timeouts
		v.NAKs += f.NAKs
		deliveredBits += float64(f.DeliveredBytes) * 8
		first = math.Min(first, f.StartUS)
		if f.FinishUS == nil {
			unfinished = true
		} else {
			last = math.Max(last, *f.FinishUS)
		}
		if f.StartUS < v.WarmupUS || f.QueuePair {
			continue
		}
		measured = append(measured, f)
		if f.Status != StatusCompleted {
			continue
		}
		if fct, ok := f.fct(); ok {
			fcts = append(fcts, fct)
		}
		if f.Slowdown != nil {
			slowdowns = append(slowdowns, *f.Slowdown)
		}
	}

	v.FCT = FCTSummary{}
	if len(fcts) > 0 {
		slices.Sort(fcts)
		mean := stat.Mean(fcts, nil)
		v.FCT = FCTSummary{Mean: &mean, P50: quantile(0.50, fcts), P95: quantile(0.95, fcts),
			P99: quantile(0.99, fcts), Max: quantile(1, fcts)}
	}
	slices.Sort(slowdowns)
	v.Slowdown = SlowdownSummary{P50: quantile(0.50, slowdowns), P95: quantile(0.95, slowdowns),
		P99: quantile(0.99, slowdowns)}
	v.SlowdownBySize = bySize(measured, v.SizeEdges, v.SizeQuantiles)

	v.FlowGbps = nil
	var rates []float64
	for i := range v.PerFlow {
		f := &v.PerFlow[i]
		f.RateGbps = f.rate(v.SimTimeUS)
		if f.RateGbps != nil {
			rates = append(rates, *f.RateGbps)
		}
	}
	if len(rates) > 0 {
		m := stat.Mean(rates, nil)
		v.FlowGbps = &m
	}

	v.GoodputGbps = 0
	end := last
	if unfinished {
		end = v.SimTimeUS
	}
	if span := end - first; len(v.PerFlow) > 0 && span > 0 && !math.IsInf(span, 0) {
		// bits / (span us * 1e-6 s/us) / 1e9 = bits / span / 1e3
		v.GoodputGbps = deliveredBits / span / 1e3
	}

	v.Drops.Total = v.Drops.ByReason.Sum()
}

// quantile is the p-quantile of sorted (the definition above), nil when sorted is empty.
func quantile(p float64, sorted []float64) *float64 {
	if len(sorted) == 0 {
		return nil
	}
	q := stat.Quantile(p, stat.Empirical, sorted, nil)
	return &q
}

// sizeBins bins flows by size at edges (DefaultSizeEdges when nil): [0, e1), [e1, e2), ...,
// [en, no bound). Group, when not empty, is copied into every bin.
func sizeBins(flows []*Flow, edges []int64, group string) []SizeBin {
	if edges == nil {
		edges = DefaultSizeEdges
	}
	bins := make([]SizeBin, len(edges)+1)
	fcts := make([][]float64, len(bins))
	slows := make([][]float64, len(bins))
	for i := range bins {
		bins[i].Group = group
		if i > 0 {
			bins[i].LoBytes = edges[i-1]
		}
		if i < len(edges) {
			hi := edges[i]
			bins[i].HiBytes = &hi
		}
	}
	for _, f := range flows {
		b, _ := slices.BinarySearch(edges, f.SizeBytes+1) // the first edge above the size
		bins[b].Flows++
		if f.Status != StatusCompleted {
			continue
		}
		bins[b].Completed++
		if fct, ok := f.fct(); ok {
			fcts[b] = append(fcts[b], fct)
		}
		if f.Slowdown != nil {
			slows[b] = append(slows[b], *f.Slowdown)
		}
	}
	for i := range bins {
		slices.Sort(fcts[i])
		slices.Sort(slows[i])
		bins[i].FCTP50US, bins[i].FCTP99US = quantile(0.50, fcts[i]), quantile(0.99, fcts[i])
		bins[i].P50, bins[i].P95, bins[i].P99 = quantile(0.50, slows[i]), quantile(0.95, slows[i]), quantile(0.99, slows[i])
	}
	return bins
}

// bySize is slowdown_by_size of the measured flows: the bins of all of them (no group),
// then, when they come from two groups or more, each group's bins in the order its first
// flow appears. The edges are edges, or with quantiles > 0 the equal-population edges of
// the measured flows' sizes (QuantileEdges).
func bySize(measured []*Flow, edges []int64, quantiles int) []SizeBin {
	if quantiles > 0 {
		sizes := make([]int64, len(measured))
		for i, f := range measured {
			sizes[i] = f.SizeBytes
		}
		edges = QuantileEdges(sizes, quantiles)
	}
	out := sizeBins(measured, edges, "")
	order, groups := groupFlows(measured)
	if len(order) < 2 {
		return out
	}
	for _, g := range order {
		out = append(out, sizeBins(groups[g], edges, g)...)
	}
	return out
}

// QuantileEdges are the edges of n equal-population size bins of sizes: the k/n-quantiles
// (the definition above) for k = 1..n-1, each edge the smallest size of the flows above
// the quantile (a bin is [lo, hi), so the quantile's own flow stays below it). Sizes are
// discrete: an edge equal to the one before, or not above the smallest size, is left out,
// so heavy ties give fewer bins, never an empty one made up. The HPCC authors' analysis
// (alibaba-edu/High-Precision-Congestion-Control, analysis/fct_analysis.py) cuts the flows
// sorted by size into equal shares; there a tie may split across two shares, here a size is
// always in one bin.
func QuantileEdges(sizes []int64, n int) []int64 {
	if len(sizes) == 0 || n < 2 {
		return []int64{}
	}
	sorted := slices.Clone(sizes)
	slices.Sort(sorted)
	edges := []int64{}
	for k := 1; k < n; k++ {
		// x[ceil(p m)] is the k/n-quantile; the edge is the first size above it.
		i := int(math.Ceil(float64(k)*float64(len(sorted))/float64(n))) - 1
		j, _ := slices.BinarySearch(sorted, sorted[max(i, 0)]+1)
		if j >= len(sorted) {
			break
		}
		e := sorted[j]
		if len(edges) > 0 && e <= edges[len(edges)-1] {
			continue
		}
		edges = append(edges, e)
	}
	return edges
}

// rate is the flow's delivered payload over its active time, from its start to its finish
// or to endUS, in Gbit/s; nil when it never ran.
func (f *Flow) rate(endUS float64) *float64 {
	if f.Status == StatusUnroutable {
		return nil
	}
	end := endUS
	if f.FinishUS != nil {
		end = *f.FinishUS
	}
	if end <= f.StartUS {
		return nil
	}
	r := float64(f.DeliveredBytes) * 8 / (end - f.StartUS) / 1e3
	return &r
}

// fct is the flow's completion time: FCTUS, or FinishUS - StartUS when only the finish is known.
func (f *Flow) fct() (float64, bool) {
	switch {
	case f.FCTUS != nil:
		return *f.FCTUS, true
	case f.FinishUS != nil:
		return *f.FinishUS - f.StartUS, true
	}
	return 0, false
}
