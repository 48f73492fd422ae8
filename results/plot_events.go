package results

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// maxNamedLeftOut is the most left-out lines a caption names; beyond, it counts them.
const maxNamedLeftOut = 12

// leftOutNames says which lines a figure left out: their names (at most maxNamedLeftOut,
// then how many more) and where every one of them is.
func leftOutNames(what string, names []string, file string) string {
	if len(names) == 0 {
		return ""
	}
	shown := names[:min(len(names), maxNamedLeftOut)]
	out := fmt.Sprintf(" Left out, %d %s: %s", len(names), what, strings.Join(shown, ", "))
	if len(names) > len(shown) {
		out += fmt.Sprintf(" and %d more", len(names)-len(shown))
	}
	return out + "; " + file + " has them all."
}

// busiest is the order of n items by score, highest first (ties in their own order).
func busiest(n int, score func(i int) float64) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return score(idx[a]) > score(idx[b]) })
	return idx
}

// queueName names an egress queue in a legend: "sw:3->h5 prio 3".
func queueName(node string, port int, peer string, prio int) string {
	return fmt.Sprintf("%s:%d->%s prio %d", node, port, peer, prio)
}

// queueCDFFigure is the time-weighted distribution of the busiest egress queues' depths
// over the whole run (queue-cdf.csv): for each depth, the share of the run's time the queue
// held at most that much.
func queueCDFFigure(v *Variant) (*Figure, string, error) {
	qs := v.Series.QueueDepths
	if len(qs) == 0 {
		return nil, "no egress queue held a frame", nil
	}
	mean := func(i int) float64 {
		var area, total float64
		for _, r := range qs[i].Depths {
			area += float64(r.LoBytes+r.HiBytes) / 2 * r.TimeUS
			total += r.TimeUS
		}
		if total == 0 {
			return 0
		}
		return area / total
	}
	order := busiest(len(qs), mean)
	shown := order[:min(len(order), maxPlotLines)]
	f := newFigure("queue-cdf-", v.Name, v.Name+": egress queue depth, time-weighted CDF", "queue depth (KB, log scale)", "time at or below (fraction)")
	f.Caption = "For each of the busiest egress queues (by time-weighted mean depth), the share of the whole run's time it held at most each depth: time-weighted from the queue's own record of how long it held each depth (exact below 32 bytes, then in ranges of 1/16 of a power of two, each drawn at its upper end, never above the queue's maximum), not from the samples. The depth axis is logarithmic; a line starts at the share of the time its queue was empty. A line that starts high spent most of the run empty; one that reaches 1 far right held a deep queue."
	// Depths span bytes to megabytes: a log axis, from the least depth above 0 any line
	// reaches, where each line starts at its share of the time at depth 0.
	least := math.Inf(1)
	for _, i := range shown {
		for _, r := range qs[i].Depths {
			if r.HiBytes > 0 {
				least = math.Min(least, float64(r.HiBytes)/1e3)
			}
		}
	}
	if math.IsInf(least, 1) {
		least = 0.001 // every queue held its frames for no time: one byte
	}
	for n, i := range shown {
		q := &qs[i]
		var total float64
		for _, r := range q.Depths {
			total += r.TimeUS
		}
		pts := plotter.XYs{}
		cum := 0.0
		for _, r := range q.Depths {
			cum += r.TimeUS
			pts = append(pts, plotter.XY{X: math.Max(float64(r.HiBytes)/1e3, least), Y: cum / max(total, 1e-300)})
		}
		l, err := f.addLine(n, fmt.Sprintf("%s (max %s KB)", queueName(q.Node, q.Port, q.Peer, q.Priority), fixed(float64(q.MaxBytes)/1e3)), pts)
		if err != nil {
			return nil, "", err
		}
		l.StepStyle = plotter.PostStep
	}
	var left []string
	for _, i := range order[len(shown):] {
		left = append(left, queueName(qs[i].Node, qs[i].Port, qs[i].Peer, qs[i].Priority))
	}
	f.Caption += leftOutNames("less busy queues", left, FileQueueDepth)
	f.plot.X.Scale = plot.LogScale{}
	f.plot.Y.Min, f.plot.Y.Max = 0, 1
	f.natural = true
	return f, "", nil
}

// maxCapacityOverPeak is how far above the fullest buffer's peak its capacity may be and
// still be drawn: further up, the line would squash the data into the axis's foot.
const maxCapacityOverPeak = 3

// bufferFigure is the occupancy of each switch's shared buffer over time (buffers.csv), the
// fullest switches, with the fullest one's capacity as a labelled line when it is near.
func bufferFigure(v *Variant) (*Figure, string, error) {
	s := v.Series
	if len(s.Buffers) == 0 {
		return nil, "no switch buffer held a frame at any sample", nil
	}
	peak := func(i int) float64 {
		p := int64(0)
		for _, b := range s.Buffers[i].Bytes {
			p = max(p, b)
		}
		return float64(p)
	}
	order := busiest(len(s.Buffers), peak)
	shown := order[:min(len(order), maxPlotLines)]
	var curves []timeCurve
	for _, i := range shown {
		b := &s.Buffers[i]
		curves = append(curves, timeCurve{label: fmt.Sprintf("%s (of %s KB)", b.Node, fixed(float64(b.CapacityBytes)/1e3)), xsUS: s.TimesUS, ys: kilobytes(b.Bytes)})
	}
	caption := "The bytes each switch's shared buffer held at every sample: the frames queued on all its ports and classes (a frame leaves the buffer when its transmission starts); the legend gives each buffer's size."
	var left []string
	for _, i := range order[len(shown):] {
		left = append(left, s.Buffers[i].Node)
	}
	caption += leftOutNames("switches with less at their peak", left, FileBuffers)
	full := &s.Buffers[order[0]]
	capKB, peakKB := float64(full.CapacityBytes)/1e3, peak(order[0])/1e3
	drawCap := full.CapacityBytes > 0 && capKB <= maxCapacityOverPeak*peakKB
	if !drawCap && full.CapacityBytes > 0 {
		caption += fmt.Sprintf(" The fullest buffer's size, %s KB, is more than %d times its peak and is not drawn.", fixed(capKB), maxCapacityOverPeak)
	}
	f, err := timeFigure("buffer-", v, "shared-buffer occupancy", "buffer use (KB)", caption, curves)
	if err != nil || !drawCap {
		return f, "", err
	}
	u, _, _ := timeAxisOf(v)
	err = f.addReference("buffer size (value on the line)", fmt.Sprintf("%s's buffer size %s KB", full.Node, fixed(capKB)), capKB, s.TimesUS, u, nil, false)
	return f, "", err
}

// eventName names an event count in a legend: "sw: drops (buffer)", "h5: CNPs sent".
func eventName(e *EventSeries) string {
	switch e.Event {
	case EventDrop:
		return e.Place + ": drops (" + e.Reason + ")"
	case EventRetransmit:
		return e.Place + ": data packets sent again"
	case EventMark:
		return e.Place + ": ECN marks"
	case EventCNP:
		return e.Place + ": CNPs sent"
	case EventTrim:
		return e.Place + ": packets trimmed"
	}
	return e.Place + ": " + e.Event
}

// eventsFigure is what went wrong, and what congestion control was told, over time
// (events.csv): drops by place and reason, retransmissions by sending host, ECN marks by
// switch and CNPs by the host that sent them, each as a count so far.
func eventsFigure(v *Variant) (*Figure, string, error) {
	s := v.Series
	if len(s.Events) == 0 {
		return nil, "nothing was dropped, sent again, marked, trimmed or notified", nil
	}
	final := func(i int) float64 { c := s.Events[i].Counts; return float64(c[len(c)-1]) }
	order := busiest(len(s.Events), final)
	shown := order[:min(len(order), maxPlotLines)]
	var curves []timeCurve
	for _, i := range shown {
		e := &s.Events[i]
		ys := make([]float64, len(e.Counts))
		for k, c := range e.Counts {
			ys[k] = float64(c)
		}
		curves = append(curves, timeCurve{label: eventName(e), xsUS: s.TimesUS, ys: ys})
	}
	caption := "Counts so far, at every sample, of packets dropped (by place: a switch, all its ports together, a link direction, or a host; and by reason, as drops.by_reason names them), data packets sent again (by sending host), frames marked CE (by switch), packets trimmed (by switch) and CNPs (by the host that sent them, a flow's receiver): a step is a burst, a slope a steady rate; a line's last value is its total (events.csv and the tables give them). The counts with the largest totals are drawn, each count in one colour in every panel."
	var left []string
	for _, i := range order[len(shown):] {
		left = append(left, eventName(&s.Events[i]))
	}
	caption += leftOutNames("smaller counts", left, FileEvents)
	f, err := timeFigure("events-", v, "drops, retransmissions, ECN marks and CNPs", "count so far (packets)", caption, curves)
	return f, "", err
}
