package pfc

import "github.com/fabricsim/fabricsim/sim"

// Egress is the pause state of one sending port, per priority: when each class is paused,
// and for how long it has been paused in all. The port's scheduler skips a paused class;
// a frame already started always finishes.
type Egress struct {
	start, until [NumPriorities]sim.Time // the current pause interval [start, until)
	total        [NumPriorities]sim.Time // closed pause intervals
	// Frames counts the PAUSE frames received with non-zero quanta, Resumes those with zero.
	Frames, Resumes int64
}

// Receive applies a PAUSE that arrived at now for class c: quanta > 0 pauses the class from
// now+response for quanta x 512 bit times at rate r, replacing any timer running (IEEE
// 802.1Qbb); quanta 0 ends a pause at once. It returns when the class may send again.
func (e *Egress) Receive(now sim.Time, c int, quanta uint16, r sim.Rate, response sim.Time) sim.Time {
	if quanta == 0 {
		e.Resumes++
		switch {
		case e.start[c] > now: // not in force yet: it never takes effect
			e.until[c] = e.start[c]
		case e.until[c] > now:
			e.until[c] = now
		}
		return now
	}
	e.Frames++
	s, u := now+response, now+response+PauseDuration(quanta, r)
	if e.until[c] > e.start[c] && s <= e.until[c] {
		e.until[c] = u // a refresh: the interval goes on
		return u
	}
	e.total[c] += e.until[c] - e.start[c]
	e.start[c], e.until[c] = s, u
	return u
}

// Paused reports whether class c may not start a frame at now.
func (e *Egress) Paused(now sim.Time, c int) bool { return e.start[c] <= now && now < e.until[c] }

// Until is the end of class c's current or last pause.
func (e *Egress) Until(c int) sim.Time { return e.until[c] }

// PausedSince is when class c's current pause began, or sim.Never if it is not paused at now.
func (e *Egress) PausedSince(now sim.Time, c int) sim.Time {
	if e.Paused(now, c) {
		return e.start[c]
	}
	return sim.Never
}

// PausedTime is the time class c spent paused up to end.
func (e *Egress) PausedTime(c int, end sim.Time) sim.Time {
	t := e.total[c]
	if s, u := e.start[c], min(e.until[c], end); u > s {
		t += u - s
	}
	return t
}
