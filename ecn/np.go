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
	// the marks inside the interval: the paper's first clause alone. It is also what NVIDIA
	// documents for ConnectX: a CNP for a marked packet once MIN_TIME_BETWEEN_CNPS has
	// passed since the port's last one ("minimum time between sending cnps from the port",
	// mstflint's mlxconfig parameter text), nothing remembered in between.
	NPImmediateOnly
	// NPWindow is the DCQCN authors' own code (bobzhuyb/ns3-rdma,
	// src/point-to-point/model/qbb-net-device.cc at e8a27d0): a per-flow timer, started when
	// the flow's first packet arrives (QbbNetDevice::Receive, lines 492-515: a new
	// ECNAccount entry calls CheckandSendQCN at once), runs every N
	// (CheckandSendQCN, lines 1111-1155: it reschedules itself every m_qcn_interval). Each
	// tick sends one CNP if a CE-marked packet of the flow arrived since the previous tick
	// (ecnbits OR-ed in at line 485) and clears the marks either way. So a flow gets at most
	// one CNP per N-long window of its own timer, one for every window in which a packet was
	// marked: the CoNEXT 2016 fluid model's assumption, 1-(1-p)^(N R) cuts per window. A
	// mark waits for the end of its window (up to N), except on the flow's first packet,
	// which the first call answers at once.
	NPWindow
)

// Pacer is one CNP pacing domain: a flow's notification point (the paper: at most one CNP
// every N for the flow) or every flow a NIC port receives (ConnectX MIN_TIME_BETWEEN_CNPS,
// "minimum time between sending cnps from the port", mstflint tools_open_layouts.h). It sends at
// most one CNP per Interval.
//
// Under NPPaper the flows whose marks find the pacer blocked wait in a queue, in the order
// of their oldest unanswered mark, each flow at most once; the end of each window sends one
// CNP, to the head of the queue, and starts the next window. With one flow per pacer this is
// the paper's rule exactly. Under NPWindow every mark waits in that queue for the next tick
// of the pacer's timer, and each tick sends one CNP to the head; with one flow per pacer this
// is the authors' code exactly. With a port pacer, which flow gets the port's CNP is not
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
	start      sim.Time           // NPWindow: when the timer started, the first packet's arrival
	started    bool               // NPWindow: the timer runs
	due        sim.Time           // NPWindow: the tick that answers the head of the queue
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

// Arrived tells the pacer that a packet (marked or not) arrived at now. Under NPWindow the
// first one starts the pacer's timer, whose ticks every Interval from then on end the
// windows; the other rules and later calls ignore it. The timer costs nothing while no mark
// waits: its ticks are computed, not scheduled.
func (p *Pacer) Arrived(now sim.Time) {
	if p.Rule == NPWindow && !p.started {
		p.started, p.start = true, now
	}
}

// Marked handles a CE-marked packet of the flow arriving at now. cnp says whether a CNP goes
// to the flow at once. Otherwise, when wake is not sim.Never, the mark is pending and the
// caller must call the pacer's Expire at wake (the end of the current window); asking again
// for the same wake is harmless.
func (np *NotificationPoint) Marked(now sim.Time) (cnp bool, wake sim.Time) {
	p := np.Pacer
	if p.Rule == NPWindow && p.Interval > 0 {
		return np.markedWindow(now)
	}
	if p.head == nil && (!p.sent || now-p.last >= p.Interval) {
		// No CNP in the last Interval and nobody waiting: answer at once.
		p.send(now)
		np.CNPs++
		return true, sim.Never
	}
	if p.Rule == NPImmediateOnly {
		return false, sim.Never // forgotten
	}
	np.enqueue()
	return false, p.Wake()
}

// markedWindow is Marked under NPWindow: a mark on the packet that starts the timer is
// answered at once (the authors' first CheckandSendQCN call finds it); any other waits for
// the next tick, start + k Interval for the least k with that after now. A mark that
// arrives exactly on a tick waits for the next one: the tick, scheduled an Interval
// earlier, runs first among events of its time (ns-3 runs same-time events in the order
// they were scheduled).
func (np *NotificationPoint) markedWindow(now sim.Time) (cnp bool, wake sim.Time) {
	p := np.Pacer
	p.Arrived(now)
	if now == p.start && p.head == nil && !p.sent {
		p.send(now)
		np.CNPs++
		return true, sim.Never
	}
	if p.head == nil {
		p.due = p.nextTick(now)
	}
	np.enqueue()
	return false, p.due
}

// nextTick is the first tick of the window timer after now.
func (p *Pacer) nextTick(now sim.Time) sim.Time {
	return p.start + ((now-p.start)/p.Interval+1)*p.Interval
}

// enqueue puts the flow at the tail of its pacer's queue of pending marks, once.
func (np *NotificationPoint) enqueue() {
	if np.pending {
		return
	}
	p := np.Pacer
	np.pending = true
	if p.tail == nil {
		p.head = np
	} else {
		p.tail.next = np
	}
	p.tail = np
}

// Wake is when Expire must next be called: the end of the current window if a flow has a
// pending mark, sim.Never otherwise.
func (p *Pacer) Wake() sim.Time {
	switch {
	case p.head == nil:
		return sim.Never
	case p.Rule == NPWindow && p.Interval > 0:
		return p.due
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
	if end := p.Wake(); now < end {
		return nil, end
	}
	to = p.head
	p.head, to.next, to.pending = to.next, nil, false
	if p.head == nil {
		p.tail = nil
	} else if p.Rule == NPWindow {
		p.due = p.nextTick(now) // the next flow waits for the next tick of the port's timer
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
	switch r {
	case NPImmediateOnly:
		return "immediate-only"
	case NPWindow:
		return "window"
	}
	return "paper"
}
