package transports

import "github.com/fabricsim/fabricsim/sim"

// alarm keeps a timer whose deadline keeps moving cheap: armAt schedules an event only when
// none is already due by t, so pushing a deadline later costs nothing, and the owner's
// handler re-arms for the current deadline when an event fires early. The zero value has no
// event pending.
type alarm struct {
	at  sim.Time // time of the earliest pending event, when set
	set bool
}

// armAt makes sure an event (h, op) is pending no later than t.
func (a *alarm) armAt(eng *sim.Engine, h sim.Handler, op int, t sim.Time) {
	if a.set && a.at <= t {
		return
	}
	a.set, a.at = true, t
	eng.At(t, h, op, nil)
}

// fired records that the pending event has run.
func (a *alarm) fired() { a.set = false }
