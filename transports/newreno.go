package transports

// newReno is TCP's standard congestion control: slow start and congestion avoidance (RFC
// 5681), with appropriate byte counting (RFC 3465); it halves the window on a loss (RFC 5681
// section 3.2, RFC 6582) and on an ECE (RFC 3168 section 6.1.2), and restarts from one
// segment after an RTO (RFC 5681 section 3.1).
type newReno struct {
	w *congestionWindow
}

// acked needs nothing: NewReno reacts to losses and ECEs, not to each ACK.
func (r *newReno) acked(int64, bool, int64, int64) {}

// increase opens cwnd for `delivered` newly delivered segments: slow start below ssthresh,
// with appropriate byte counting and L = 2 (RFC 3465), so that delayed ACKs still double
// cwnd per round trip; above it, congestion avoidance adds one segment per window (RFC 5681).
// cwnd grows only while it limits the sender (RFC 7661's concern, done as Linux does): in
// slow start while it is below twice the most the sender had in flight, in congestion
// avoidance if the sender filled it in this window or the last. A sender held back by its
// own link (or pacing) thus keeps a cwnd near what it uses, not one that grew without bound
// and would flood the network when a bottleneck appears downstream.
func (r *newReno) increase(delivered int64) {
	w := r.w
	if delivered <= 0 {
		return
	}
	if w.cwnd < w.ssthresh {
		if w.cwnd >= 2*float64(max(w.maxOut, w.prevMaxOut)) {
			return
		}
	} else if !w.limited && !w.prevLimited {
		return
	}
	if w.cwnd < w.ssthresh {
		w.cwnd += min(float64(delivered), 2)
	} else {
		w.cwnd += float64(delivered) / w.cwnd
	}
	w.cwnd = min(w.cwnd, w.max)
}

// lossDetected sets ssthresh = cwnd = FlightSize / 2, at least 2 (RFC 6675 section 5 step
// 4.2, RFC 6582 section 3.2 step 2).
func (r *newReno) lossDetected(flight int64) {
	r.w.ssthresh = max(float64(flight)/2, 2)
	r.w.cwnd = r.w.ssthresh
}

// rtoExpired sets ssthresh to FlightSize / 2 on the first timeout of a series (RFC 5681
// section 3.1, equation 4) and restarts from one segment.
func (r *newReno) rtoExpired(flight int64, first bool) {
	if first {
		r.w.ssthresh = max(float64(flight)/2, 2)
	}
	r.w.cwnd = 1
}

// congestionExperienced halves the window (RFC 3168 section 6.1.2).
func (r *newReno) congestionExperienced() {
	r.w.ssthresh = max(r.w.cwnd/2, 2)
	r.w.cwnd = r.w.ssthresh
}
