package pfc

import "github.com/fabricsim/fabricsim/sim"

// Egress is the pause state of one sending port, per priority: when each class is paused,
// and for how long it has been paused in all. The port's scheduler skips a paused class;
// a frame already started always finishes.
//
// Each PAUSE pauses its class from its arrival plus the response time, for its quanta; any
// frame for the class (PAUSE or resume) ends the earlier pauses when it takes effect, the
// resume at once, a PAUSE when its own pause begins (IEEE 802.1Qbb reloads the class's timer
// with each frame). So a refresh that arrives while a pause is in force continues it, and a
// late one, whose pause begins only after the pause in force has ended, leaves the class
// free in between: the pauses are a short list of intervals per class, the one in force
// first, those still to begin after it.
type Egress struct {
	pauses [NumPriorities][]interval // not yet ended, in time order, disjoint
	total  [NumPriorities]sim.Time   // the length of the ended ones
	// Frames counts the PAUSE frames received with non-zero quanta, Resumes those with zero.
	Frames, Resumes int64
}

// interval is one pause, [from, to).
type interval struct{ from, to sim.Time }

// Receive applies a PFC frame that arrived at now for class c: quanta > 0 pauses the class
// from now+response for quanta x 512 bit times at rate r; quanta 0 ends every pause of the
// class at once. It returns when the pause it sets ends (now for a resume).
func (e *Egress) Receive(now sim.Time, c int, quanta uint16, r sim.Rate, response sim.Time) sim.Time {
	at, until := now, now
	if quanta == 0 {
		e.Resumes++
	} else {
		e.Frames++
		at, until = now+response, now+response+PauseDuration(quanta, r)
	}
	// The frame ends the earlier pauses where it takes effect; a PAUSE then adds its own,
	// which continues the last one if that reached its start.
	p := e.pauses[c][:0]
	for _, v := range e.pauses[c] {
		v.to = min(v.to, at)
		if v.to > v.from {
			p = append(p, v)
		}
	}
	if quanta > 0 {
		if n := len(p); n > 0 && p[n-1].to == at {
			p[n-1].to = until
		} else {
			p = append(p, interval{at, until})
		}
	}
	e.pauses[c] = p
	e.closeEnded(now, c)
	return until
}

// Clear ends every pause of every class at now, counting no frame: what a MAC does when its
// link goes down (IEEE 802.3 annex 31B: the pause timers are reset with the MAC Control
// sublayer on loss of link). Pauses that had not begun by now are dropped.
func (e *Egress) Clear(now sim.Time) {
	for c := range e.pauses {
		p := e.pauses[c][:0]
		for _, v := range e.pauses[c] {
			v.to = min(v.to, now)
			if v.to > v.from {
				p = append(p, v)
			}
		}
		e.pauses[c] = p
		e.closeEnded(now, c)
	}
}

// closeEnded moves the pauses of class c that ended by now into the total.
func (e *Egress) closeEnded(now sim.Time, c int) {
	p := e.pauses[c]
	k := 0
	for k < len(p) && p[k].to <= now {
		e.total[c] += p[k].to - p[k].from
		k++
	}
	if k > 0 {
		e.pauses[c] = append(p[:0], p[k:]...)
	}
}

// inForce is the pause of class c in force at now, if any.
func (e *Egress) inForce(now sim.Time, c int) (interval, bool) {
	for _, v := range e.pauses[c] {
		if v.from <= now && now < v.to {
			return v, true
		}
	}
	return interval{}, false
}

// Paused reports whether class c may not start a frame at now.
func (e *Egress) Paused(now sim.Time, c int) bool {
	_, ok := e.inForce(now, c)
	return ok
}

// Until is when the pause of class c in force at now ends (now if none is).
func (e *Egress) Until(now sim.Time, c int) sim.Time {
	if v, ok := e.inForce(now, c); ok {
		return v.to
	}
	return now
}

// PausedSince is when the pause of class c in force at now began, or sim.Never if none is.
func (e *Egress) PausedSince(now sim.Time, c int) sim.Time {
	if v, ok := e.inForce(now, c); ok {
		return v.from
	}
	return sim.Never
}

// End is when the last pause of any class ends: no class is paused from then on, unless
// another PFC frame arrives. Zero if no pause was ever received.
func (e *Egress) End() sim.Time {
	var end sim.Time
	for c := range e.pauses {
		if n := len(e.pauses[c]); n > 0 {
			end = max(end, e.pauses[c][n-1].to)
		}
	}
	return end
}

// PausedTime is the time class c spent paused up to end.
func (e *Egress) PausedTime(c int, end sim.Time) sim.Time {
	t := e.total[c]
	for _, v := range e.pauses[c] {
		if u := min(v.to, end); u > v.from {
			t += u - v.from
		}
	}
	return t
}
