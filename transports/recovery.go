package transports

import (
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// Congestion states of the sender (Linux's names).
type caState uint8

const (
	caOpen     caState = iota // no loss outstanding: slow start or congestion avoidance
	caRecovery                // fast recovery (RFC 6675, or NewReno without SACK) until recoverAt
	caLoss                    // after an RTO: slow start from one segment, resending until recoverAt
)

// lossRecovery is how the sender learns from ACKs which of its segments the receiver holds
// and which are lost, as gVisor's tcp package puts SACK and NewReno recovery behind one
// interface: with SACK, from the SACK blocks (RFC 6675, sackRecovery); without, from
// duplicate ACKs (RFC 6582, renoRecovery). Both keep the sender's scoreboard, which the
// sender's NextSeg (pick) reads. None of its methods allocates.
type lossRecovery interface {
	// onAck updates the scoreboard for ACK p, once the cumulative ACK has moved una from
	// prevUna (ref is prevUna's offset in the sequence space, which unwraps p's sequence
	// numbers), and returns how many segments it newly SACKed.
	onAck(p *topology.Packet, ref, prevUna int64) int64
	// rescue is the segment NextSeg's rule 3 resends in fast recovery, or -1.
	rescue() int64
	// rtoExpired forgets what a retransmission timeout makes stale.
	rtoExpired()
}

// newLossRecovery returns s's loss recovery: SACK's when the connection has SACK.
func newLossRecovery(s *IWARPSender) lossRecovery {
	if s.cfg.SACK {
		return &sackRecovery{s: s}
	}
	return &renoRecovery{s: s}
}

// enterRecovery starts fast recovery: ssthresh = cwnd = FlightSize / 2 (at least 2), the
// recovery point is the highest segment sent, and una is resent at once (RFC 6675 section 5,
// steps 4.1-4.3; RFC 6582 without SACK).
func (s *IWARPSender) enterRecovery(now sim.Time) {
	s.cc.signal(ccSignal{event: ccLost, now: now, una: s.una, next: s.nxt, phase: ccFastRecovery, flight: s.pipe()})
	s.ca, s.recoverAt, s.fastRetx = caRecovery, s.nxt, true
	s.sb.rule3Scan = s.una
	s.stats.FastRecoveries++
	if s.cfg.ECN != ECNOff {
		s.sendCWR = true // this reduction answers congestion for the window (tcpCC)
	}
}
