package results

import (
	"fmt"
	"sort"
)

// rateBins is how many equal intervals the rate figures cut a series' span into: as many as
// the throughput plot's points (throughputPoints), enough for a curve and wide enough that
// each holds several samples.
const rateBins = throughputPoints

// binRates cuts the span of times (increasing, at least two) into n equal intervals and
// gives, per interval, its middle and the increase of the cumulative column ys over it per
// microsecond: ys read at the interval's ends linearly between samples (interpolate), as
// rates.csv's throughput reads the delivered bytes. Over any interval the mean of the rates
// times its length is the increase, whatever the sampling.
func binRates(times, ys []float64, n int) (mids, perUS []float64) {
	lo, hi := times[0], times[len(times)-1]
	prev := interpolate(times, ys, lo)
	for j := 1; j <= n; j++ {
		a, b := lo+(hi-lo)*float64(j-1)/float64(n), lo+(hi-lo)*float64(j)/float64(n)
		next := interpolate(times, ys, b)
		mids = append(mids, (a+b)/2)
		perUS = append(perUS, (next-prev)/(b-a))
		prev = next
	}
	return mids, perUS
}

// cumulative is a count column as floats.
func cumulative(xs []int64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// goodputFigure is each flow's goodput over time in Gb/s, the payload it delivered in order
// per interval (binRates over its cumulative delivered bytes), its flows drawn as the run's
// flowGroups say, alike in every panel: a line per flow, or a line per group of flows (a
// traffic item's label, the group's flows summed) in the group's colour, a group of at most
// namedFlows flows a line per flow.
func goodputFigure(v *Variant) (*Figure, string, error) {
	s := v.Series
	if s.Len() < 2 || s.TimesUS[s.Len()-1] <= s.TimesUS[0] {
		return nil, "the series span no time", nil
	}
	flows := flowsByID(v)
	names := flowNames(v)
	fg := flowGroupsOf(v)
	order, members := fg.members(v, flows)
	if len(order) == 0 {
		return nil, "no flow delivered anything", nil
	}
	gbps := func(ys []float64) timeCurve {
		mids, r := binRates(s.TimesUS, ys, rateBins)
		for k := range r {
			r[k] *= 8 / 1e3 // bytes per us to Gb/s
		}
		return timeCurve{xsUS: mids, ys: r}
	}
	caption := fmt.Sprintf("The payload each flow delivered in order per unit time, in Gb/s, over each of %d equal intervals of the run (its delivered bytes read at the interval's ends, linearly between samples, as rates.csv's throughput): shares, fairness and convergence read off directly, where the delivered-payload plot shows them as slopes. A loss repaired late releases at once what the receiver held back behind it, so one interval may read above the line rate.", rateBins)
	var curves []timeCurve
	var grouped []string
	for _, g := range order {
		if fg.byGroup && fg.most[g] > namedFlows {
			grouped = append(grouped, g)
			continue
		}
		for _, i := range members[g] {
			fs := &s.Flows[i]
			c := gbps(cumulative(fs.DeliveredBytes))
			c.label, c.id = flowName(names, fs.Flow, flows[fs.Flow]), fs.Flow
			curves = append(curves, c)
		}
	}
	if len(grouped) > maxPlotLines {
		sort.SliceStable(grouped, func(a, b int) bool { return len(members[grouped[a]]) > len(members[grouped[b]]) })
		caption += fmt.Sprintf(" The %d largest of %d groups are drawn.", maxPlotLines, len(grouped))
		grouped = grouped[:maxPlotLines]
	}
	for _, g := range grouped {
		sum := make([]float64, s.Len())
		for _, i := range members[g] {
			for k, b := range s.Flows[i].DeliveredBytes {
				sum[k] += float64(b)
			}
		}
		c := gbps(sum)
		c.label, c.group = fg.label[g], fg.place[g]+1
		curves = append(curves, c)
	}
	if fg.byGroup {
		caption += " A group's flows are summed into one line, in the group's colour in every panel; a group of one or two flows keeps a line per flow."
	}
	f, err := timeFigure("goodput-", v, "goodput over time", "goodput (Gb/s)", caption, curves)
	return f, "", err
}

// Jain is Jain's fairness index of xs, (sum x)^2 / (n sum x^2): 1 when all are equal, 1/n
// when one has everything (R. Jain, D. Chiu, W. Hawe, "A quantitative measure of fairness
// and discrimination for resource allocation in shared computer systems", DEC-TR-301,
// 1984); false for no x or all zero.
func Jain(xs []float64) (float64, bool) {
	var s, sq float64
	for _, x := range xs {
		s, sq = s+x, sq+x*x
	}
	if len(xs) == 0 || sq == 0 {
		return 0, false
	}
	return s * s / (float64(len(xs)) * sq), true
}

// fairnessFigure is Jain's index over time of the goodputs of the flows that share a
// bottleneck: the flows into one receiver share its host link, the last hop of an incast
// and of every many-to-one pattern. Per receiver with two flows or more, per interval
// (binRates), the index over the flows that ran through the whole interval (started by its
// start, not finished before its end), where two or more did, for at least minCurvePoints
// intervals.
func fairnessFigure(v *Variant) (*Figure, string, error) {
	s := v.Series
	if s.Len() < 2 || s.TimesUS[s.Len()-1] <= s.TimesUS[0] {
		return nil, "the series span no time", nil
	}
	flows := flowsByID(v)
	var order []string
	into := map[string][]int{} // receiver: its flows' places in the series
	for i := range s.Flows {
		fl := flows[s.Flows[i].Flow]
		if fl == nil {
			continue
		}
		if _, ok := into[fl.Dst]; !ok {
			order = append(order, fl.Dst)
		}
		into[fl.Dst] = append(into[fl.Dst], i)
	}
	sort.SliceStable(order, func(a, b int) bool { return len(into[order[a]]) > len(into[order[b]]) })
	lo, hi := s.TimesUS[0], s.TimesUS[s.Len()-1]
	var curves []timeCurve
	shared := 0
	for _, dst := range order {
		idx := into[dst]
		if len(idx) < 2 {
			break
		}
		shared++
		if len(curves) == maxPlotLines {
			continue
		}
		rates := make([][]float64, len(idx))
		var mids []float64
		for k, i := range idx {
			mids, rates[k] = binRates(s.TimesUS, cumulative(s.Flows[i].DeliveredBytes), rateBins)
		}
		c := timeCurve{label: fmt.Sprintf("into %s (%d flows)", dst, len(idx))}
		for j := range mids {
			a, b := lo+(hi-lo)*float64(j)/float64(rateBins), lo+(hi-lo)*float64(j+1)/float64(rateBins)
			var xs []float64
			for k, i := range idx {
				fl := flows[s.Flows[i].Flow]
				if fl.StartUS <= a && (fl.FinishUS == nil || *fl.FinishUS >= b) {
					xs = append(xs, rates[k][j])
				}
			}
			if len(xs) < 2 {
				continue
			}
			if jain, ok := Jain(xs); ok {
				c.xsUS, c.ys = append(c.xsUS, mids[j]), append(c.ys, jain)
			}
		}
		if len(c.xsUS) >= minCurvePoints {
			curves = append(curves, c)
		}
	}
	if len(curves) == 0 {
		return nil, fmt.Sprintf("no two flows into one receiver ran together through %d intervals or more of %d", minCurvePoints, rateBins), nil
	}
	caption := fmt.Sprintf("Jain's fairness index (sum x)^2 / (n sum x^2) of the goodputs x of the n flows into each receiver (they share its link, the bottleneck of an incast), over each of %d equal intervals, counting the flows that ran through the whole interval: 1 when they get equal shares, 1/n when one takes all. A line per receiver with two flows or more, where two of them ran together.", rateBins)
	if shared > maxPlotLines {
		caption += fmt.Sprintf(" The %d receivers with the most flows of %d are drawn.", maxPlotLines, shared)
	}
	f, err := timeFigure("fairness-", v, "fairness over time", "Jain's index (1: equal shares)", caption, curves)
	if err != nil {
		return nil, "", err
	}
	f.plot.Y.Min, f.plot.Y.Max = 0, 1 // an index in (0, 1]
	f.natural = true
	return f, "", nil
}

// windowFigure is each Swift or UET NSCC flow's congestion window over time, in packets
// (FlowSeries.WindowPackets), from the flow's start to its finish.
func windowFigure(v *Variant) (*Figure, string, error) {
	curves, left := activeCurves(v, func(fs *FlowSeries) []float64 { return fs.WindowPackets })
	for i := range curves {
		// A running window is never 0 (Swift's is at least min_cwnd, NSCC's a packet): a 0
		// is a sample before the sender held one, not a value to draw.
		c := &curves[i]
		k := 0
		for j := range c.ys {
			if c.ys[j] != 0 {
				c.xsUS[k], c.ys[k] = c.xsUS[j], c.ys[j]
				k++
			}
		}
		c.xsUS, c.ys = c.xsUS[:k], c.ys[:k]
	}
	if len(curves) == 0 {
		if left > 0 {
			return nil, fmt.Sprintf("no Swift or NSCC flow ran for %d samples or more", minCurvePoints), nil
		}
		return nil, "no flow with Swift's or UET NSCC's window", nil
	}
	caption := "Each flow's congestion window in packets, from its start to its finish: Swift's min(fcwnd, ecwnd) as the paper counts it (below 1 packet the flow is paced, a packet every RTT/cwnd), or UET NSCC's window in bytes of whole packets over a full packet's bytes (headers included)." + leftOut(left)
	f, err := timeFigure("window-", v, "congestion window", "window (packets)", caption, curves)
	return f, "", err
}

// eventRatesFigure is the fabric's drops, retransmissions, ECN marks, trims and CNPs as
// rates over time: each kind summed over every place (EventSeries), per microsecond of
// each interval (binRates).
func eventRatesFigure(v *Variant) (*Figure, string, error) {
	s := v.Series
	if len(s.Events) == 0 {
		return nil, "nothing was dropped, sent again, marked, trimmed or notified", nil
	}
	if s.Len() < 2 || s.TimesUS[s.Len()-1] <= s.TimesUS[0] {
		return nil, "the series span no time", nil
	}
	kinds := []struct{ event, label string }{
		{EventMark, "ECN marks"}, {EventCNP, "CNPs"}, {EventDrop, "drops"}, {EventRetransmit, "data packets sent again"}, {EventTrim, "packets trimmed"}}
	var curves []timeCurve
	for _, k := range kinds {
		total := make([]float64, s.Len())
		seen := false
		for i := range s.Events {
			if e := &s.Events[i]; e.Event == k.event {
				seen = true
				for t, c := range e.Counts {
					total[t] += float64(c)
				}
			}
		}
		if !seen {
			continue
		}
		mids, r := binRates(s.TimesUS, total, rateBins)
		curves = append(curves, timeCurve{label: k.label, xsUS: mids, ys: r}) // no total: one kind, one colour in every panel
	}
	caption := fmt.Sprintf("How often, per microsecond, over each of %d equal intervals, the fabric marked packets CE (all switches), its receivers sent CNPs, packets were dropped (every place and reason), data packets were sent again and packets trimmed: the counts of events.csv summed over their places and differenced. A burst shows as a peak, a steady rate as a plateau; each kind is one colour in every panel (events.csv and the tables give the totals).", rateBins)
	f, err := timeFigure("event-rates-", v, "marks, CNPs, drops and retransmissions per microsecond", "events (per us)", caption, curves)
	return f, "", err
}

// pausedFigure is how many sending port-classes (switch ports and NICs) PFC held paused,
// on average over each interval: the paused time of every port-class (PauseSeries, the
// cumulative microseconds) summed and differenced per microsecond (binRates).
func pausedFigure(v *Variant) (*Figure, string, error) {
	s := v.Series
	if len(s.Pauses) == 0 {
		return nil, "no PFC frame paused anything", nil
	}
	if s.Len() < 2 || s.TimesUS[s.Len()-1] <= s.TimesUS[0] {
		return nil, "the series span no time", nil
	}
	total := make([]float64, s.Len())
	for i := range s.Pauses {
		for t, p := range s.Pauses[i].PausedUS {
			total[t] += p
		}
	}
	mids, r := binRates(s.TimesUS, total, rateBins)
	caption := fmt.Sprintf("The mean number of sending port-classes (switch ports and NICs, %d that were ever paused) that PFC held paused in each of %d equal intervals: their paused time summed, per microsecond of the interval. 1 is one port-class paused throughout; a pause storm or a deadlock holds it up.", len(s.Pauses), rateBins)
	f, err := timeFigure("paused-", v, "port-classes paused", "paused port-classes (mean count)", caption,
		[]timeCurve{{label: "paused port-classes", xsUS: mids, ys: r}})
	return f, "", err
}
