package transports

import (
	"fmt"

	"github.com/fabricsim/fabricsim/sim"
)

// timeout is the retransmission timer's expiry (RFC 6298 section 5, RFC 5681 section 3.1):
// back off the RTO; during the handshake resend the SYN or the MPA Request; else presume
// every unSACKed segment lost, set ssthresh to FlightSize / 2 on the first timeout of a
// series, and restart from one segment in slow start. The scoreboard keeps its SACK marks:
// this receiver never reneges.
func (s *IWARPSender) timeout(now sim.Time) {
	if s.state == tcpEstablished && s.una == s.nxt {
		return
	}
	s.timeouts++
	s.stats.Timeouts++
	s.flow.Timeouts++
	if s.timeouts > s.cfg.Retries {
		s.fail()
		return
	}
	s.rto = min(2*s.rto, s.cfg.MaxRTO)
	switch s.state {
	case tcpSynSent:
		s.synRetx = true
		s.sendSYN(now)
		return
	case tcpMPAWait:
		s.mpaRetx = true
		s.flow.Retransmitted++
		s.sendMPARequest(now)
		return
	}
	s.cc.signal(ccSignal{event: ccTimedOut, now: now, una: s.una, next: s.nxt, phase: ccRestart, flight: s.pipe()})
	s.ca, s.recoverAt, s.fastRetx = caLoss, s.nxt, false
	sb := &s.sb
	sb.lost, sb.retx = 0, 0
	s.rec.rtoExpired()
	for k := s.una; k < s.nxt; k++ {
		f := sb.flag(k)
		*f &^= segRetx
		if *f&segSacked == 0 {
			*f |= segLost
			sb.lost++
		}
	}
	sb.lostTo, sb.retxScan, sb.rule3Scan = s.nxt, s.una, s.una
	s.timing = false
	if s.cfg.ECN != ECNOff {
		s.sendCWR = true
	}
	s.src.activate(now, s) // the resend arms the timer when it leaves
}

// fail ends the flow when the timeouts in a row have exceeded Retries, naming what timed out.
func (s *IWARPSender) fail() {
	s.over = true
	s.timer.stop()
	what := "retransmission"
	switch s.state {
	case tcpSynSent:
		what = "SYN"
	case tcpMPAWait:
		what = "MPA Request"
	}
	s.reg.fail(s.flow, s.src.eng.Now(), fmt.Sprintf("TCP gave up: %d %s timeouts in a row without progress (retries %d, last RTO %v)",
		s.timeouts, what, s.cfg.Retries, s.rto))
}
