package results

import (
	"fmt"
	"sort"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// minCurvePoints is the fewest samples a flow must be active for to get a line of its own
// in the rate and window plots: fewer say nothing about how it evolved.
const minCurvePoints = 50

// throughputPoints is about how many points a goodput line has.
const throughputPoints = 120

// timeCurve is one line of a time-series figure, in microseconds and the figure's unit. A
// flow's line (id > 0, its label the flow's name) has the flow's colour and dash in every
// plot of a run (flowGroups.flowStyle); a
// group's line (or thin line of one of its flows) the group's colour in every plot of a run
// (flowGroups); any other line its place's. An empty label keeps the line out of the legend.
type timeCurve struct {
	label string
	id    int  // the flow's id, 0 for a line of no one flow
	group int  // from 1: the group's place among the run's groups, for a group's line
	thin  bool // drawn thin (one of many flows of a group)
	xsUS  []float64
	ys    []float64
}

// timeFigure draws curves over the variant's active period (the series' first to last
// sample), or reports why it is empty.
func timeFigure(name string, v *Variant, title, yLabel, caption string, curves []timeCurve) (*Figure, error) {
	f := newFigure(name, v.Name, v.Name+": "+title, "", yLabel)
	f.Caption = caption
	u, start, end := timeAxisOf(v)
	fg := flowGroupsOf(v)
	for i, c := range curves {
		pts := make(plotter.XYs, len(c.xsUS))
		for k := range c.xsUS {
			pts[k] = plotter.XY{X: c.xsUS[k] / u.perUS, Y: c.ys[k]}
		}
		l, err := f.addLine(i, c.label, pts)
		if err != nil {
			return nil, err
		}
		switch {
		case c.group > 0:
			l.Color, l.Dashes = lineColor(c.group-1), nil
			if c.thin {
				l.Width = vg.Points(0.5)
			}
			f.Curves[len(f.Curves)-1].byPlace = false
		case c.id > 0:
			l.Color, l.Dashes = fg.flowStyle(c.label, c.id)
			f.Curves[len(f.Curves)-1].byPlace = false
		}
	}
	if err := f.markAlike(); err != nil {
		return nil, err
	}
	setTimeAxis(f.plot, u, start, end)
	f.plot.Y.Min = min(f.plot.Y.Min, 0)
	return f, nil
}

// throughputFigure is what each flow has delivered over time: the payload delivered in
// order by each sample, cumulative, so that its slope is the flow's goodput and a repaired
// loss (a hole filled, delivering all it held back at once) shows as a step, never as a
// rate above the line's. As the run's flowGroups say, alike in every panel: each flow a line
// of its own, or the flows of a group (a traffic item's label) drawn thin in the group's
// colour under one legend entry, the largest maxGroupLines of them, and a group of at most
// namedFlows flows (a flow the scenario names) a line per flow.
func throughputFigure(v *Variant) (*Figure, string, error) {
	s := v.Series
	flows := flowsByID(v)
	names := flowNames(v)
	fg := flowGroupsOf(v)
	order, members := fg.members(v, flows)
	if len(order) == 0 || s.Len() < 2 {
		return nil, "no flow delivered anything", nil
	}
	caption := "The payload each flow had delivered in order by each sample, cumulative: the slope is the flow's goodput, and a loss repaired late shows as a flat stretch and a step, never as a rate above the line's."
	var curves, thin []timeCurve
	line := func(i int) timeCurve {
		fs := &s.Flows[i]
		return timeCurve{label: flowName(names, fs.Flow, flows[fs.Flow]), id: fs.Flow, xsUS: s.TimesUS, ys: megabytes(fs.DeliveredBytes)}
	}
	for _, g := range order {
		idx := members[g]
		if !fg.byGroup || fg.most[g] <= namedFlows {
			for _, i := range idx {
				curves = append(curves, line(i))
			}
			continue
		}
		last := func(i int) int64 { b := s.Flows[i].DeliveredBytes; return b[len(b)-1] }
		sort.SliceStable(idx, func(a, b int) bool { return last(idx[a]) > last(idx[b]) })
		drawn := idx[:min(len(idx), maxGroupLines)]
		if len(drawn) < len(idx) {
			caption += fmt.Sprintf(" Of group %s, the %d flows that delivered the most of %d.", groupOrAll(g), len(drawn), len(idx))
		}
		for k, i := range drawn {
			c := line(i)
			c.group, c.thin, c.id = fg.place[g]+1, true, 0
			c.label = ""
			if k == 0 {
				c.label = fg.label[g] // one legend entry per group
			}
			thin = append(thin, c)
		}
	}
	if fg.byGroup {
		caption += " A group's flows are drawn thin in one colour, the group's in every panel, under one legend entry; a group of one or two flows keeps a line, and a colour, per flow."
	}
	f, err := timeFigure("throughput-", v, "delivered payload", "delivered (MB)", caption, append(thin, curves...))
	return f, "", err
}

// namedFlows is the largest group whose flows keep lines of their own in a crowded plot:
// a flow item, or a pair, is a flow the scenario names (the victim).
const namedFlows = 2

// maxGroupLines bounds the thin lines a group draws.
const maxGroupLines = 100

func groupOrAll(g string) string {
	if g == "" {
		return "flows"
	}
	return g
}

// flowsByID maps each flow id of v to its record.
func flowsByID(v *Variant) map[int]*Flow {
	m := make(map[int]*Flow, len(v.PerFlow))
	for i := range v.PerFlow {
		m[v.PerFlow[i].ID] = &v.PerFlow[i]
	}
	return m
}

// flowLabel names a flow in a legend as its source, destination and group:
// "h15->h3 (background)"; "flow N" when its record is missing.
func flowLabel(id int, f *Flow) string {
	if f == nil {
		return fmt.Sprintf("flow %d", id)
	}
	if f.Group == "" {
		return f.Src + "->" + f.Dst
	}
	return f.Src + "->" + f.Dst + " (" + f.Group + ")"
}

func megabytes(b []int64) []float64 {
	out := make([]float64, len(b))
	for i, n := range b {
		out[i] = float64(n) / 1e6
	}
	return out
}

// activeCurves makes a curve of value per flow over the samples at which the flow ran
// (from its start to its finish or the end), for the flows that have values and ran for at
// least minCurvePoints samples, at most maxPlotLines of them (the longest running).
func activeCurves(v *Variant, value func(fs *FlowSeries) []float64) (curves []timeCurve, left int) {
	s := v.Series
	runs := flowsByID(v)
	names := flowNames(v)
	for i := range s.Flows {
		vals := value(&s.Flows[i])
		r := runs[s.Flows[i].Flow]
		if vals == nil || r == nil {
			continue
		}
		c := timeCurve{label: names[r.ID], id: s.Flows[i].Flow}
		for k, t := range s.TimesUS {
			if t >= r.StartUS && (r.FinishUS == nil || t <= *r.FinishUS) {
				c.xsUS = append(c.xsUS, t)
				c.ys = append(c.ys, vals[k])
			}
		}
		if len(c.xsUS) < minCurvePoints {
			left++
			continue
		}
		curves = append(curves, c)
	}
	sort.SliceStable(curves, func(a, b int) bool { return len(curves[a].xsUS) > len(curves[b].xsUS) })
	if len(curves) > maxPlotLines {
		left += len(curves) - maxPlotLines
		curves = curves[:maxPlotLines]
	}
	return curves, left
}

// rateFigure is the rate each flow's congestion control lets it send at (DCQCN's R_C, or
// HPCC's pacing rate W/T), over the flow's life.
func rateFigure(v *Variant) (*Figure, string, error) {
	curves, left := activeCurves(v, func(fs *FlowSeries) []float64 { return fs.RateGbps })
	if len(curves) == 0 {
		if left > 0 {
			return nil, fmt.Sprintf("no rate-controlled flow ran for %d samples or more", minCurvePoints), nil
		}
		return nil, "no flow runs a rate-based congestion control (DCQCN or HPCC)", nil
	}
	caption := "The sending rate each flow's congestion control allows (DCQCN's current rate R_C, or HPCC's pacing rate W/T), from the flow's start to its finish: what congestion control asks for, beside the goodput the flow gets."
	caption += leftOut(left)
	f, err := timeFigure("rate-", v, "congestion-control rate limit", "rate (Gb/s)", caption, curves)
	return f, "", err
}

// cwndFigure is each iWARP flow's TCP congestion window over the flow's life.
func cwndFigure(v *Variant) (*Figure, string, error) {
	curves, left := activeCurves(v, func(fs *FlowSeries) []float64 { return fs.CwndSegments })
	if len(curves) == 0 {
		if left > 0 {
			return nil, fmt.Sprintf("no iWARP flow ran for %d samples or more", minCurvePoints), nil
		}
		return nil, "no iWARP (TCP) flow", nil
	}
	caption := "Each iWARP flow's TCP congestion window in segments, from the flow's start to its finish." + leftOut(left)
	f, err := timeFigure("cwnd-", v, "TCP congestion window", "cwnd (segments)", caption, curves)
	return f, "", err
}

func leftOut(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" %d other flows (shorter lived, or beyond the %d longest) are left out.", n, maxPlotLines)
}

// queueFigure is the depth of the variant's deepest switch egress queues over time.
func queueFigure(v *Variant) (*Figure, string, error) {
	s := v.Series
	if len(s.Queues) == 0 {
		return nil, "no switch egress queue held a frame at any sample", nil
	}
	idx := make([]int, len(s.Queues))
	peak := make([]int64, len(s.Queues))
	for i := range s.Queues {
		idx[i] = i
		for _, b := range s.Queues[i].Bytes {
			peak[i] = max(peak[i], b)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return peak[idx[a]] > peak[idx[b]] })
	caption := "The depth of each switch egress queue at every sample (the deepest ones)."
	if len(idx) > maxPlotLines {
		caption += fmt.Sprintf(" The %d deepest of %d queues that held a frame.", maxPlotLines, len(idx))
		idx = idx[:maxPlotLines]
	}
	var curves []timeCurve
	for _, i := range idx {
		q := &s.Queues[i]
		curves = append(curves, timeCurve{label: queueName(q.Node, q.Port, q.Peer, q.Priority), xsUS: s.TimesUS, ys: kilobytes(q.Bytes)})
	}
	top := &s.Queues[idx[0]]
	refs, note := queueThresholds(top, float64(peak[idx[0]])/1e3)
	f, err := timeFigure("queues-", v, "egress queue depth", "queue (KB)", caption+note, curves)
	if err != nil {
		return nil, "", err
	}
	u, _, _ := timeAxisOf(v)
	for _, r := range refs {
		if err := f.addReference(r.name+" (value on the line)", r.label, r.kb, s.TimesUS, u, r.dashes, r.below); err != nil {
			return nil, "", err
		}
	}
	return f, "", nil
}

// queueThreshold is a reference line of the queue figure: its legend name, the label on the
// line with its value, its depth in KB, its dashes and whether the label goes under it.
type queueThreshold struct {
	name, label string
	kb          float64
	dashes      []vg.Length
	below       bool
}

// queueThresholds are the thresholds that q's depth is held to (QueueSeries: ECN marking's
// Kmin and Kmax, one line when they are equal, as DCTCP's step; the trimming threshold) as
// reference lines, those at most maxCapacityOverPeak times peakKB (the figure's deepest
// sample: a line far above it would flatten the data), and the caption's sentences saying
// which are drawn and which are not.
func queueThresholds(q *QueueSeries, peakKB float64) (refs []queueThreshold, note string) {
	kb := func(b int64) float64 { return float64(b) / 1e3 }
	var all []queueThreshold
	switch {
	case q.KmaxBytes == 0:
	case q.KminBytes == q.KmaxBytes:
		all = append(all, queueThreshold{"ECN K", "ECN K " + fixed(kb(q.KmaxBytes)) + " KB", kb(q.KmaxBytes), thresholdDashes[0], false})
	default:
		all = append(all, queueThreshold{"ECN Kmin", "ECN Kmin " + fixed(kb(q.KminBytes)) + " KB", kb(q.KminBytes), thresholdDashes[1], true},
			queueThreshold{"ECN Kmax", "ECN Kmax " + fixed(kb(q.KmaxBytes)) + " KB", kb(q.KmaxBytes), thresholdDashes[0], false})
	}
	if q.Trims && q.TrimBytes > 0 {
		all = append(all, queueThreshold{"trimming threshold", "trim above " + fixed(kb(q.TrimBytes)) + " KB", kb(q.TrimBytes), thresholdDashes[2], false})
	}
	name := queueName(q.Node, q.Port, q.Peer, q.Priority)
	if len(all) > 0 {
		note = " The thresholds drawn are those of the deepest queue, " + name + ", each a grey line named on it."
	}
	if q.KmaxBytes > 0 {
		note += " ECN marks a frame leaving a queue deeper than Kmin CE with a probability rising to Pmax at Kmax, and every frame above Kmax."
	}
	if q.Trims && q.TrimBytes > 0 {
		note += " A trimming queue cuts a data packet that would take it past its threshold to its headers."
	}
	for _, r := range all {
		if r.kb > maxCapacityOverPeak*peakKB {
			note += fmt.Sprintf(" %s, %s KB, is more than %d times the deepest sample and is not drawn.", r.name, fixed(r.kb), maxCapacityOverPeak)
			continue
		}
		refs = append(refs, r)
	}
	if q.Trims && q.TrimBytes == 0 {
		note += " " + name + " trims only what its buffer would drop (no trimming threshold)."
	}
	return refs, note
}

// ingressFigure is what the lossless ingress port-classes held from their peers, against
// XOFF (a PAUSE goes upstream above it), XON (a resume at or below it) and XOFF + headroom
// (a frame above it is dropped).
func ingressFigure(v *Variant) (*Figure, string, error) {
	s := v.Series
	if len(s.Ingress) == 0 {
		return nil, "no lossless ingress port-class held a frame at any sample (PFC off, or nothing queued)", nil
	}
	idx := make([]int, len(s.Ingress))
	peak := make([]int64, len(s.Ingress))
	for i := range s.Ingress {
		idx[i] = i
		for _, b := range s.Ingress[i].Bytes {
			peak[i] = max(peak[i], b)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return peak[idx[a]] > peak[idx[b]] })
	caption := "The bytes each lossless port-class of a switch holds from its peer (ingress accounting), against XOFF (above it the switch pauses the peer), XON (at or below it, it resumes) and XOFF + headroom (a frame above it is dropped), each a grey line named on it; the thresholds drawn are those of the fullest port-class."
	if len(idx) > maxPlotLines-2 {
		caption += fmt.Sprintf(" The %d fullest of %d port-classes.", maxPlotLines-2, len(idx))
		idx = idx[:maxPlotLines-2]
	}
	var curves []timeCurve
	for _, i := range idx {
		in := &s.Ingress[i]
		curves = append(curves, timeCurve{label: fmt.Sprintf("%s:%d from %s prio %d", in.Node, in.Port, in.Peer, in.Priority), xsUS: s.TimesUS, ys: kilobytes(in.Bytes)})
	}
	top := &s.Ingress[idx[0]]
	f, err := timeFigure("ingress-", v, "lossless ingress occupancy", "held from peer (KB)", caption, curves)
	if err != nil {
		return nil, "", err
	}
	// The thresholds: grey, XOFF long dashes and XON dots, so the two read apart in print,
	// each named on its line, XOFF above and XON below, so that the names never overprint.
	u, _, _ := timeAxisOf(v)
	for k, th := range []struct {
		name  string
		bytes int64
	}{{"XOFF", top.XoffBytes}, {"XON", top.XonBytes}, {"XOFF + headroom", top.XoffBytes + top.HeadroomBytes}} {
		if k == 2 && top.HeadroomBytes <= 0 {
			continue
		}
		label := fmt.Sprintf("%s %s KB", th.name, fixed(float64(th.bytes)/1e3))
		if err := f.addReference(th.name+" (value on the line)", label, float64(th.bytes)/1e3, s.TimesUS, u, thresholdDashes[k], k == 1); err != nil {
			return nil, "", err
		}
	}
	return f, "", nil
}

// thresholdDashes are the dash patterns of the XOFF, XON and XOFF + headroom lines.
var thresholdDashes = [3][]vg.Length{{vg.Points(6), vg.Points(3)}, {vg.Points(1.5), vg.Points(2.5)}, {vg.Points(10), vg.Points(2), vg.Points(2), vg.Points(2)}}

func kilobytes(b []int64) []float64 {
	out := make([]float64, len(b))
	for i, n := range b {
		out[i] = float64(n) / 1e3
	}
	return out
}
