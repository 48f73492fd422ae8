package ecn

import "github.com/fabricsim/fabricsim/sim"

// NPRule is how a notification point treats CE marks that arrive less than the CNP interval N
// after the previous CNP.
type NPRule uint8

const (
	// NPPaper is the rule of Zhu et al., SIGCOMM 2015, section 3 ("Notification Point"),
	// whose wording is followed here: a marked packet for which no CNP went out in the last N
	// is answered by a CNP at once; from then on at most one CNP is sent every N, at the end
	// of each N-long window in which some packet was marked. A window that ends without a
	// mark ends the sequence, and the next mark is again answered at once. The authors' ns-3
	// code (bobzhuyb/ns3-rdma, qbb-net-device.cc) keeps marks the same way, OR-ing them into
	// a per-flow state checked by a timer every N (its first CNP waits for that timer, the
	// text's is immediate: the text is followed). The fluid model of Zhu et al., CoNEXT 2016,
	// counts one CNP per window in which a packet was marked, 1-(1-p)^(N R) per window.
	NPPaper NPRule = iota
	// NPImmediateOnly answers a mark at once when no CNP went out in the last N and forgets
	// the marks inside the interval: the paper's first clause alone.
	NPImmediateOnly
)

// Pacer is one CNP pacing domain: a flow's notification point (the paper: at most one CNP
// every N for the flow) or every flow a NIC port receives (ConnectX MIN_TIME_BETWEEN_CNPS,
// "minimum time between sending cnps from the port", mstflint tools_open_layouts.h). It sends at
// most one CNP per Interval.
//
// Under NPPaper the flows whose marks find the pacer blocked wait in a queue, in the order
// of their oldest unanswered mark, each flow at most once; the end of each window sends one
// CNP, to the head of the queue, and starts the next window. With one flow per pacer this is
// the paper's rule exactly. With a port pacer, which flow gets the port's CNP is not
// documented by the vendor; oldest pending first is a modelling choice that answers every
// marked flow in turn (k marked flows get one CNP each per k windows) and starves none.
// Under NPImmediateOnly a mark that finds the pacer blocked is forgotten: at a port pacer,
// a flow that loses the race gets no CNP for that mark.
//
// The pacer schedules nothing: Marked and Expire say when the caller must call Expire.
type Pacer struct {
	Interval sim.Time
	Rule     NPRule

	last       sim.Time           // time of the latest CNP
	sent       bool               // a CNP went out
	head, tail *NotificationPoint // flows with an unanswered mark, oldest first
	// CNPs counts the CNPs this pacer sent.
	CNPs int64
}

// NotificationPoint is the receiver side of DCQCN for one flow: it turns the flow's CE marks
// into CNPs under its Pacer's rule and interval.
type NotificationPoint struct {
	Pacer *Pacer
	// Flow is the caller's name for the flow, handed back by Pacer.Expire.
	Flow int32

	pending bool // waiting in the pacer's queue
	next    *NotificationPoint
	// CNPs counts the CNPs sent to this flow.
	CNPs int64
}

// NewNotificationPoint returns the notification point of flow, paced by its own pacer.
func NewNotificationPoint(flow int32, interval sim.Time, rule NPRule) *NotificationPoint {
	return &NotificationPoint{Pacer: &Pacer{Interval: interval, Rule: rule}, Flow: flow}
}

// Marked handles a CE-marked packet of the flow arriving at now. cnp says whether a CNP goes
// to the flow at once. Otherwise, when wake is not sim.Never, the mark is pending and the
// caller must call the pacer's Expire at wake (the end of the current window); asking again
// for the same wake is harmless.
func (np *NotificationPoint) Marked(now sim.Time) (cnp bool, wake sim.Time) {
	p := np.Pacer
	if p.head == nil && (!p.sent || now-p.last >= p.Interval) {
		// No CNP in the last Interval and nobody waiting: answer at once.
		p.send(now)
		np.CNPs++
		return true, sim.Never
	}
	if p.Rule == NPImmediateOnly {
		return false, sim.Never // forgotten
	}
	if !np.pending {
		np.pending = true
		if p.tail == nil {
			p.head = np
		} else {
			p.tail.next = np
		}
		p.tail = np
	}
	return false, p.Wake()
}

// Wake is when Expire must next be called: the end of the current window if a flow has a
// pending mark, sim.Never otherwise.
func (p *Pacer) Wake() sim.Time {
	if p.head == nil {
		return sim.Never
	}
	return p.last + p.Interval
}

// Expire handles the end of a window at now: if a flow has a pending mark and the window is
// over, a CNP goes at once to the flow whose unanswered mark is the oldest, returned as to
// (nil when no CNP is due). wake is when Expire must be called next (sim.Never: not until a
// new mark says so). Calling it early is harmless: it only returns the window's end.
func (p *Pacer) Expire(now sim.Time) (to *NotificationPoint, wake sim.Time) {
	if p.head == nil {
		return nil, sim.Never
	}
	if end := p.last + p.Interval; now < end {
		return nil, end
	}
	to = p.head
	p.head, to.next, to.pending = to.next, nil, false
	if p.head == nil {
		p.tail = nil
	}
	p.send(now)
	to.CNPs++
	return to, p.Wake()
}

// Pending reports whether a mark of the flow is waiting for the end of a window.
func (np *NotificationPoint) Pending() bool { return np.pending }

func (p *Pacer) send(now sim.Time) {
	p.sent, p.last = true, now
	p.CNPs++
}

// String names the rule as scenarios spell it.
func (r NPRule) String() string {
	if r == NPImmediateOnly {
		return "immediate-only"
	}
	return "paper"
}
