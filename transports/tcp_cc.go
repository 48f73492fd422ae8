package transports

import (
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// TCPCC is an iWARP connection's congestion control, part of IWARPConfig: the parameters of
// one scheme, whose type says which (*NewReno); nil is cc newreno. A scheme checks itself and
// makes the sender's senderCC, whose window counts segments, as RoCECC and UETCC do on their
// transports. A new scheme is a type in its own file with these two methods
// (docs/architecture.md).
type TCPCC interface {
	// checkTCP reports the first value that a connection of cfg cannot run with.
	checkTCP(cfg *IWARPConfig) error
	// newTCPCC returns the sender state of a connection of cfg whose window starts at cwnd
	// segments and never passes maxCwnd, what the receive window lets be in flight.
	newTCPCC(cfg *IWARPConfig, cwnd, maxCwnd float64) senderCC
}

// NewReno is cc newreno: NewReno (RFC 5681, 6582), halving the window for an ECE under
// classic ECN (RFC 3168); under ECN mode dctcp, DCTCP's reduction in proportion to the marks
// (RFC 8257, gain IWARPConfig.DCTCPGain). The ECN mode says how the receiver echoes and which
// reduction an echo brings; the window's growth and loss response are NewReno's either way.
type NewReno struct{}

func (*NewReno) checkTCP(*IWARPConfig) error { return nil }

func (*NewReno) newTCPCC(cfg *IWARPConfig, cwnd, maxCwnd float64) senderCC {
	return newTCPCC(cfg.ECN, cfg.DCTCPGain, cwnd, maxCwnd)
}

// tcpCC is an iWARP connection's TCP congestion control behind senderCC: the congestion
// window, in segments, and the algorithm that moves it (NewReno, or DCTCP: congestionControl).
// The TCP sender keeps its loss recovery, as RFC 5681, 6582 and 6675 give it to the sender:
// it finds losses, enters and leaves fast recovery and the slow start after an RTO, resends,
// and tells this type each event as a ccSignal:
//   - every ACK of the established connection (ccAcked): the segments it newly delivered,
//     cumulatively or selectively, its ECE, una and nxt after it, the pipe, and the sender's
//     phase: the window grows in ccOpen and ccRestart and is held in ccFastRecovery (the ACK
//     that enters or ends fast recovery included); an ECE in ccOpen cuts it, at most once per
//     window of data (RFC 3168 section 6.1.2), and the sender then puts CWR on its next new
//     segment (ccReduced);
//   - the entry into fast recovery (ccLost): ssthresh = cwnd = FlightSize / 2;
//   - a retransmission timeout (ccTimedOut): slow start from one segment, ssthresh halving
//     the flight on the first of a series (RFC 5681 section 3.1).
//
// A loss or a timeout also answers congestion for the window of data it ends, as an ECE's
// reduction does: no ECE reduces the window again before una passes nxt at that time.
type tcpCC struct {
	win congestionWindow
	alg congestionControl
	// una is the cumulative acknowledgement last signalled; timeouts counts the retransmission
	// timeouts since it last moved; cwrEnd ends the window of data of the last reduction.
	una, cwrEnd int64
	timeouts    int
}

// newTCPCC returns the congestion control an ECN mode calls for (newCongestionControl, DCTCP's
// with alpha gain g), its window starting at cwnd segments with ssthresh "arbitrarily high"
// (RFC 5681 section 3.1) and never growing past maxCwnd, what the receive window lets be in
// flight.
func newTCPCC(mode TCPECN, g, cwnd, maxCwnd float64) *tcpCC {
	c := &tcpCC{win: congestionWindow{cwnd: cwnd, ssthresh: float64(1 << 40), max: maxCwnd}}
	c.alg = newCongestionControl(mode, g, &c.win)
	return c
}

func (c *tcpCC) start() string          { return "" }
func (c *tcpCC) rate() (sim.Rate, bool) { return 0, false }

// windowOpen lets a segment go while the pipe with it fits cwnd.
func (c *tcpCC) windowOpen(flight int64) bool { return c.win.open(flight) }

// sent records the most segments the sender has had in flight (its pipe after a segment
// left), for the window's validation.
func (c *tcpCC) sent(_ *topology.Packet, flight int64) {
	if flight > c.win.maxOut {
		c.win.maxOut = flight
	}
}

// signal takes an ACK, the entry into fast recovery or a timeout (the type's comment).
func (c *tcpCC) signal(s ccSignal) ccAck {
	switch s.event {
	case ccLost:
		c.alg.lossDetected(s.next - s.una)
		c.cwrEnd = s.next
		return ccWindow
	case ccTimedOut:
		c.timeouts++
		c.alg.rtoExpired(s.next-s.una, c.timeouts == 1)
		c.cwrEnd = s.next
		return ccWindow
	case ccNotified:
		return 0
	}
	if s.una > c.una {
		c.una, c.timeouts = s.una, 0
	}
	c.alg.acked(s.acked, s.ece, s.una, s.next)
	if w := &c.win; s.una >= w.useEnd {
		w.prevLimited, w.prevMaxOut = w.limited, w.maxOut
		w.limited, w.maxOut, w.useEnd = false, s.flight, s.next
	}
	if s.phase == ccFastRecovery {
		return ccWindow
	}
	c.alg.increase(s.acked)
	if s.phase == ccOpen && s.ece && s.una >= c.cwrEnd {
		c.alg.congestionExperienced()
		c.cwrEnd = s.next
		return ccWindow | ccReduced
	}
	return ccWindow
}
