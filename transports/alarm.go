package transports

import "github.com/fabricsim/fabricsim/sim"

// alarm is a timer that owns its deadline and keeps moving it cheap. set schedules an event
// only when none is already due by the new deadline, so pushing a deadline later costs
// nothing; when an event runs, the owner's handler asks expired, which re-arms for the
// current deadline if the event came early and reports the expiry only once the deadline
// has come. An alarm is made by newAlarm with the handler and operation its events carry.
type alarm struct {
	eng      *sim.Engine
	lane     sim.Lane
	h        sim.Handler
	op       int
	deadline sim.Time // when the timer expires; sim.Never while stopped
	at       sim.Time // time of the earliest pending event, when pending
	pending  bool
}

// newAlarm returns a stopped alarm whose events are (h, op) on n's engine, in its lane.
func newAlarm(n *NIC, h sim.Handler, op int) alarm {
	return alarm{eng: n.eng, lane: n.lane, h: h, op: op, deadline: sim.Never}
}

// set makes the alarm expire at t, in place of any earlier deadline.
func (a *alarm) set(t sim.Time) {
	a.deadline = t
	a.schedule(t)
}

// stop cancels the deadline: the pending event, if any, will find nothing to do.
func (a *alarm) stop() { a.deadline = sim.Never }

// running reports whether a deadline is set.
func (a *alarm) running() bool { return a.deadline != sim.Never }

// expired is what the owner's handler calls when one of the alarm's events runs at now. It
// reports true, and stops the alarm, when the deadline has come; an event that came early
// re-arms for the deadline, and one for a stopped alarm does nothing.
func (a *alarm) expired(now sim.Time) bool {
	a.pending = false
	if a.deadline == sim.Never {
		return false
	}
	if now < a.deadline {
		a.schedule(a.deadline)
		return false
	}
	a.deadline = sim.Never
	return true
}

// schedule makes sure an event is pending no later than t.
func (a *alarm) schedule(t sim.Time) {
	if a.pending && a.at <= t {
		return
	}
	a.pending, a.at = true, t
	a.eng.AtLane(a.lane, t, a.h, a.op, nil)
}
