package transports

import "github.com/fabricsim/fabricsim/sim"

// sendTimes is a requester's record of when each packet in flight left, by PSN modulo its
// length, from which an acknowledgement gives an RTT sample (ccSignal.rtt): its arrival less
// the send time of the packet that drew it, unless that packet left more than once (Karn's
// rule: the acknowledgement could be the original's) or a later PSN has taken its slot.
type sendTimes struct {
	at      []sim.Time // when the PSN left, -1 when it left more than once
	newFrom uint32     // one past the highest PSN sent: a PSN below it is a resend
}

// newSendTimes holds the send times of n packets in flight (n >= 1).
func newSendTimes(n int) *sendTimes {
	t := &sendTimes{at: make([]sim.Time, max(n, 1))}
	for i := range t.at {
		t.at[i] = -1
	}
	return t
}

// slot is where PSN psn's send time is, and whether it is still there.
func (t *sendTimes) slot(psn uint32) (int, bool) {
	n := uint32(len(t.at))
	return int(psn % n), psn < t.newFrom && t.newFrom-psn <= n
}

// sent records that PSN psn left at time at, or that it left again.
func (t *sendTimes) sent(psn uint32, at sim.Time) {
	if i, ok := t.slot(psn); ok {
		t.at[i] = -1
	} else if psn >= t.newFrom {
		t.newFrom = psn + 1
		i, _ := t.slot(psn)
		t.at[i] = at
	}
}

// sample is the RTT of PSN psn's acknowledgement arriving at now, or 0 when it gives none.
func (t *sendTimes) sample(psn uint32, now sim.Time) sim.Time {
	if i, ok := t.slot(psn); ok && t.at[i] >= 0 {
		return now - t.at[i]
	}
	return 0
}
