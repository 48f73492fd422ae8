package transports

// congestionControl is a TCP congestion control algorithm over a window of segments, as
// gVisor's tcp package puts Reno and CUBIC behind one interface: it moves the congestion
// window for the events its senderCC (tcpCC; roceDCTCP on RoCE) feeds it, which decides when
// an event happens (loss detection, an RTO, at most one ECN reduction per window). None of its
// methods allocates.
type congestionControl interface {
	// acked is called on every ACK of the established connection with the segments it
	// newly delivered (cumulatively acknowledged or SACKed), whether it echoed CE (ECE), and
	// the sender's una and nxt after it.
	acked(delivered int64, ece bool, una, nxt int64)
	// increase opens the window for delivered newly delivered segments, outside fast
	// recovery.
	increase(delivered int64)
	// lossDetected is the entry into fast recovery with flight segments outstanding.
	lossDetected(flight int64)
	// rtoExpired is a retransmission timeout with flight segments outstanding; first says
	// whether it is the first of a series.
	rtoExpired(flight int64, first bool)
	// congestionExperienced is the window reduction for an ECE.
	congestionExperienced()
}

// congestionWindow is the congestion window and slow-start threshold, in segments, and what
// the sender records of the window's use for its validation (see newReno.increase): whether
// cwnd limited the sender, and the most it had in flight, in this window of data (ending
// when una reaches useEnd) and in the previous one.
type congestionWindow struct {
	cwnd, ssthresh float64
	// max bounds cwnd: it does not grow past what the receive window lets be in flight.
	max float64

	limited, prevLimited bool
	maxOut, prevMaxOut   int64
	useEnd               int64
}

// open reports whether a packet may go with flight outstanding with it, and notes when cwnd
// held the sender back (limited: the window grows only while in use).
func (w *congestionWindow) open(flight int64) bool {
	if float64(flight) > w.cwnd {
		w.limited = true
		return false
	}
	return true
}

// newCongestionControl returns the algorithm an ECN mode calls for, on w: DCTCP (RFC 8257)
// for ECNDCTCP with alpha gain g, else NewReno (RFC 5681, 6582), which halves the window for
// an ECE under classic ECN (RFC 3168).
func newCongestionControl(mode TCPECN, g float64, w *congestionWindow) congestionControl {
	if mode == ECNDCTCP {
		return &dctcp{newReno: newReno{w: w}, g: g, alpha: 1}
	}
	return &newReno{w: w}
}
