package results

import (
	"fmt"
	"image/color"
	"sort"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// minCurvePoints is the fewest samples a flow must be active for to get a line of its own
// in the rate and window plots: fewer say nothing about how it evolved.
const minCurvePoints = 50

// throughputPoints is about how many points a goodput line has.
const throughputPoints = 120

// timeCurve is one line of a time-series figure, in microseconds and the figure's unit.
type timeCurve struct {
	label string
	xsUS  []float64
	ys    []float64
}

// timeFigure draws curves over the variant's active period (the series' first to last
// sample), or reports why it is empty.
func timeFigure(name string, v *Variant, title, yLabel, caption string, curves []timeCurve) (*Figure, error) {
	s := v.Series
	f := newFigure(name, v.Name, v.Name+": "+title, "", yLabel)
	f.Caption = caption
	start, end := s.TimesUS[0], s.TimesUS[s.Len()-1]
	u := unitFor(end - start)
	for i, c := range curves {
		pts := make(plotter.XYs, len(c.xsUS))
		for k := range c.xsUS {
			pts[k] = plotter.XY{X: c.xsUS[k] / u.perUS, Y: c.ys[k]}
		}
		if _, err := f.addLine(i, c.label, pts); err != nil {
			return nil, err
		}
	}
	setTimeAxis(f.plot, u, start, end)
	f.plot.Y.Min = min(f.plot.Y.Min, 0)
	return f, nil
}

// throughputFigure is each flow's delivered throughput over time: the payload delivered in
// order between two samples over the time between them. With more flows than fit, it shows
// their sum and the flows that delivered the most.
func throughputFigure(v *Variant) (*Figure, string, error) {
	s := v.Series
	type flow struct {
		i     int
		total int64
	}
	var fl []flow
	for i := range s.Flows {
		b := s.Flows[i].DeliveredBytes
		if n := b[len(b)-1]; n > 0 {
			fl = append(fl, flow{i, n})
		}
	}
	if len(fl) == 0 || s.Len() < 2 {
		return nil, "no flow delivered anything", nil
	}
	// Over one sample interval a flow delivers a few packets, so the goodput of single
	// intervals jumps by whole packets: it is taken over windows of `step` intervals,
	// about throughputPoints of them.
	step := max(1, (s.Len()-1)/throughputPoints)
	var at []int
	for k := step; k < s.Len(); k += step {
		at = append(at, k)
	}
	xs := make([]float64, len(at))
	for j, k := range at {
		xs[j] = s.TimesUS[k]
	}
	thr := func(b []int64) []float64 {
		ys := make([]float64, len(at))
		for j, k := range at {
			ys[j] = throughputGbps(b[k]-b[k-step], s.TimesUS[k]-s.TimesUS[k-step])
		}
		return ys
	}
	var curves []timeCurve
	caption := "Each flow's goodput: the payload delivered in order between two samples over the time between them."
	if len(fl) > maxPlotLines {
		sum := make([]int64, s.Len())
		for _, f := range fl {
			for k, n := range s.Flows[f.i].DeliveredBytes {
				sum[k] += n
			}
		}
		curves = append(curves, timeCurve{fmt.Sprintf("all %d flows", len(fl)), xs, thr(sum)})
		sort.SliceStable(fl, func(a, b int) bool { return fl[a].total > fl[b].total })
		fl = fl[:maxPlotLines-1]
		caption += fmt.Sprintf(" The sum over all flows, and the %d flows that delivered the most.", len(fl))
	}
	for _, f := range fl {
		curves = append(curves, timeCurve{fmt.Sprintf("flow %d", s.Flows[f.i].Flow), xs, thr(s.Flows[f.i].DeliveredBytes)})
	}
	caption += fmt.Sprintf(" Each point is the goodput over %s us (%d sample intervals).", fixed(float64(step)*s.IntervalUS), step)
	f, err := timeFigure("throughput-", v, "delivered throughput", "goodput (Gb/s)", caption, curves)
	return f, "", err
}

// activeCurves makes a curve of value per flow over the samples at which the flow ran
// (from its start to its finish or the end), for the flows that have values and ran for at
// least minCurvePoints samples, at most maxPlotLines of them (the longest running).
func activeCurves(v *Variant, value func(fs *FlowSeries) []float64) (curves []timeCurve, left int) {
	s := v.Series
	runs := map[int]*Flow{}
	for i := range v.PerFlow {
		runs[v.PerFlow[i].ID] = &v.PerFlow[i]
	}
	for i := range s.Flows {
		vals := value(&s.Flows[i])
		r := runs[s.Flows[i].Flow]
		if vals == nil || r == nil {
			continue
		}
		var c timeCurve
		c.label = fmt.Sprintf("flow %d", s.Flows[i].Flow)
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
		curves = append(curves, timeCurve{fmt.Sprintf("%s:%d prio %d", q.Node, q.Port, q.Priority), s.TimesUS, kilobytes(q.Bytes)})
	}
	f, err := timeFigure("queues-", v, "egress queue depth", "queue (KB)", caption, curves)
	return f, "", err
}

// ingressFigure is what the lossless ingress port-classes held from their peers, against
// XOFF (a PAUSE goes upstream above it) and XON (a resume at or below it).
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
	caption := "The bytes each lossless port-class of a switch holds from its peer (ingress accounting), against XOFF (above it the switch pauses the peer) and XON (at or below it, it resumes); the thresholds drawn are those of the fullest port-class."
	if len(idx) > maxPlotLines-2 {
		caption += fmt.Sprintf(" The %d fullest of %d port-classes.", maxPlotLines-2, len(idx))
		idx = idx[:maxPlotLines-2]
	}
	var curves []timeCurve
	for _, i := range idx {
		in := &s.Ingress[i]
		curves = append(curves, timeCurve{fmt.Sprintf("%s:%d from %s prio %d", in.Node, in.Port, in.Peer, in.Priority), s.TimesUS, kilobytes(in.Bytes)})
	}
	top := &s.Ingress[idx[0]]
	for _, th := range []struct {
		name  string
		bytes int64
	}{{"XOFF", top.XoffBytes}, {"XON", top.XonBytes}} {
		ys := make([]float64, s.Len())
		for k := range ys {
			ys[k] = float64(th.bytes) / 1e3
		}
		curves = append(curves, timeCurve{fmt.Sprintf("%s %s KB", th.name, fixed(float64(th.bytes)/1e3)), s.TimesUS, ys})
	}
	f, err := timeFigure("ingress-", v, "lossless ingress occupancy", "held from peer (KB)", caption, curves)
	if err != nil {
		return nil, "", err
	}
	for _, l := range f.lines[len(f.lines)-2:] { // the thresholds: grey, dashed
		l.Color = color.Gray{Y: 90}
		l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	}
	return f, "", nil
}

func kilobytes(b []int64) []float64 {
	out := make([]float64, len(b))
	for i, n := range b {
		out[i] = float64(n) / 1e3
	}
	return out
}
