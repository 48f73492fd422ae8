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
//   - GoodputGbps: the sum of delivered_bytes in bits over the time from the first flow's
//     start to the last flow's finish, or to the end of the run (SimTimeUS) when any flow is
//     unfinished (has no finish time, whatever its status), in Gbit/s;
//   - RetransmittedPackets, Timeouts, NAKs: the sums over flows;
//   - Drops.Total: Drops.ByReason.Sum().
//
// Quantiles follow the definition above. Every summary is 0, never NaN, when it has nothing
// to summarise (no completed flow, no elapsed time). Summarize may be called again after the
// records change; it recomputes everything it fills.
func Summarize(v *Variant) {
	v.Flows = FlowCounts{Total: int64(len(v.PerFlow))}
	v.RetransmittedPackets, v.Timeouts, v.NAKs = 0, 0, 0
	var fcts, slowdowns []float64
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
		v.FCT = FCTSummary{
			Mean: stat.Mean(fcts, nil),
			P50:  stat.Quantile(0.50, stat.Empirical, fcts, nil),
			P95:  stat.Quantile(0.95, stat.Empirical, fcts, nil),
			P99:  stat.Quantile(0.99, stat.Empirical, fcts, nil),
			Max:  fcts[len(fcts)-1],
		}
	}
	v.Slowdown = SlowdownSummary{}
	if len(slowdowns) > 0 {
		slices.Sort(slowdowns)
		v.Slowdown = SlowdownSummary{
			P50: stat.Quantile(0.50, stat.Empirical, slowdowns, nil),
			P95: stat.Quantile(0.95, stat.Empirical, slowdowns, nil),
			P99: stat.Quantile(0.99, stat.Empirical, slowdowns, nil),
		}
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
