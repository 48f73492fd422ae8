package transports

import "github.com/fabricsim/fabricsim/sim"

// A UET sender's loss recovery: the retransmit timer over the send-time ring, and SLEEK's
// out-of-order allowance (uet.go holds the sender, uet_receiver.go the receiver).

// pushTime records a transmission; the records of transmissions no longer in flight at the
// front go first, so the ring holds about a window's worth, not the flow's.
func (s *UETSender) pushTime(at sim.Time, psn uint32) {
	s.oldest()
	if s.tLen == len(s.times) {
		n := make([]uetSendTime, 2*len(s.times))
		for k := range s.tLen {
			n[k] = s.times[(s.tHead+k)%len(s.times)]
		}
		s.times, s.tHead = n, 0
	}
	s.times[(s.tHead+s.tLen)%len(s.times)] = uetSendTime{at, psn}
	s.tLen++
}

// oldest is the earliest transmission still in flight, dropping those that are not.
func (s *UETSender) oldest() (uetSendTime, bool) {
	for s.tLen > 0 {
		t := s.times[s.tHead]
		if t.psn >= s.cum && t.psn < s.highest {
			if r := s.rec(t.psn); r.state == recFlight && r.sentAt == t.at {
				return t, true
			}
		}
		s.tHead = (s.tHead + 1) % len(s.times)
		s.tLen--
	}
	return uetSendTime{}, false
}

// timerFired is the retransmit timer's event: the oldest transmission in flight times out
// once rto has passed since it was sent (uet-htsim UecSrc::startRTO, recalculateRTO and
// rtxTimerExpired: one timer, for the earliest send time; on expiry that one packet is
// queued again and the window loses its size).
func (s *UETSender) timerFired(now sim.Time) {
	t, ok := s.oldest()
	if !ok {
		return
	}
	if due := t.at + s.rto; due > now {
		s.timer.set(due)
		return
	}
	s.flow.Timeouts++
	s.mp.feedback(now, 0, pathTimeout)
	r := s.rec(t.psn)
	s.queueRtx(t.psn, r)
	s.cc.signal(ccSignal{event: ccTimedOut, now: now, una: int64(s.cum), next: int64(s.highest), psn: t.psn,
		flight: s.inflight, size: int64(r.size)})
	if t, ok := s.oldest(); ok {
		s.timer.set(max(t.at+s.rto, now))
	}
	s.stopSpeculating()
	s.askForCredit(now)
	if s.hasData() {
		s.nic.activate(now, s)
	}
}

// queueRtx moves an in-flight PSN to the retransmit queue.
func (s *UETSender) queueRtx(psn uint32, r *uetRec) {
	r.state = recRtx
	s.rtxN++
	s.rtxBytes += int64(r.size)
	s.inflight -= int64(r.size)
	s.rtxScan = min(s.rtxScan, psn)
}

// sleek is uet-htsim's UecSrc::runSleek without its probes: once the receiver holds at least
// max(min(1.5 x cwnd, maxwnd), 5 packets) out of order, the sender counts every PSN from the
// cumulative one that is still in flight, up to a window's worth, as lost, once each, until
// the cumulative PSN passes the highest PSN sent when this began. Spraying reorders, and
// the allowance is what keeps it from resending what is merely late.
func (s *UETSender) sleek(ooo int64) {
	mss := int64(s.mtu)
	cwnd, maxwnd := s.win.window()
	threshold := max(min(cwnd*3/2, maxwnd), 5*mss)
	if s.lossMode && s.cum >= s.recoverySeq {
		s.lossMode = false
	}
	if ooo < threshold/mss && !s.lossMode {
		return
	}
	if !s.lossMode && s.rtxN == 0 {
		s.lossMode, s.recoverySeq = true, s.highest
	}
	end := min(s.recoverySeq, s.cum+uint32(max(cwnd/mss, 0)))
	for psn := max(s.cum, s.highestRtxSent); psn < end; psn++ {
		if r := s.rec(psn); r.state == recFlight {
			s.queueRtx(psn, r)
			s.highestRtxSent = psn + 1
		}
	}
}
