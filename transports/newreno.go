package transports

// grow opens cwnd for `delivered` newly delivered segments: slow start below ssthresh, with
// appropriate byte counting and L = 2 (RFC 3465), so that delayed ACKs still double cwnd per
// round trip; above it, congestion avoidance adds one segment per window (RFC 5681). cwnd
// grows only while it limits the sender (RFC 7661's concern, done as Linux does): in slow
// start while it is below twice the most the sender had in flight, in congestion avoidance if
// the sender filled it in this window or the last. A sender held back by its own link (or
// pacing) thus keeps a cwnd near what it uses, not one that grew without bound and would
// flood the network when a bottleneck appears downstream.
func (s *IWARPSender) grow(delivered int64) {
	if delivered <= 0 {
		return
	}
	if s.cwnd < s.ssthresh {
		if s.cwnd >= 2*float64(max(s.maxOut, s.prevMaxOut)) {
			return
		}
	} else if !s.limited && !s.prevLimited {
		return
	}
	if s.cwnd < s.ssthresh {
		s.cwnd += min(float64(delivered), 2)
	} else {
		s.cwnd += float64(delivered) / s.cwnd
	}
	s.cwnd = min(s.cwnd, s.maxCwnd)
}
