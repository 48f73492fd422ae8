package transports

import (
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// A UET sender's side of the receiver's answers: ACKs with their SACK bitmaps, NACKs of
// trimmed packets, the ACK_REQ it sends when it needs an ACK now, each signalled to its
// congestion control (uet.go holds the sender, uet_loss.go its timer and SLEEK).

// acked marks PSN psn received (uet-htsim handleAckno, handleCumulativeAck): one queued for
// retransmission leaves the queue and its bytes, taken out of flight when it was queued,
// go back in, since the receiver's byte count will take them out.
func (s *UETSender) acked(r *uetRec) {
	if r.state == recRtx {
		s.rtxN--
		s.rtxBytes -= int64(r.size)
		s.inflight += int64(r.size)
	}
	r.state = recDone
}

func (s *UETSender) onControl(now sim.Time, p *topology.Packet) {
	if s.over {
		return
	}
	switch p.Kind {
	case topology.KindAck:
		s.onAck(now, p)
	case topology.KindNak:
		s.onNack(now, p)
	case topology.KindCredit:
		s.onCredit(now, p)
	}
}

// onAck is uet-htsim's UecSrc::processAck: the received bytes leave the flight, an RTT
// sample from the PSN that drew the ACK (Karn's rule: a packet sent once and not echoed as a
// resend, or sent twice and echoed), the cumulative PSN and the SACK bitmap, the entropy's
// feedback, NSCC, and SLEEK's loss check on the out-of-order count.
func (s *UETSender) onAck(now sim.Time, p *topology.Packet) {
	ue := p.UET()
	var newly int64
	if d := int32(ue.RecvdBytes - s.recvd); d > 0 {
		newly = int64(d)
		s.recvd = ue.RecvdBytes
	}
	s.inflight -= newly
	var sample sim.Time
	if p.PSN >= s.cum && p.PSN < s.highest && !ue.AckRequest {
		if r := s.rec(p.PSN); r.state == recFlight && r.karn(ue.Retx) {
			sample = now - r.sentAt
		}
	}
	cum := min(ue.CumPSN, s.highest)
	for ; s.cum < cum; s.cum++ {
		s.acked(s.rec(s.cum))
	}
	for b, psn := ue.SACKBitmap, ue.SACKBase; b != 0; b, psn = b>>1, psn+1 {
		if b&1 != 0 && psn >= s.cum && psn < s.highest {
			s.acked(s.rec(psn))
		}
	}
	switch {
	case ue.AckRequest: // an ACK_REQ's answer: no path echoed
	case ue.ECNEcho:
		s.mp.feedback(now, ue.Entropy, pathECN)
	default:
		s.mp.feedback(now, ue.Entropy, pathGood)
	}
	if s.cc.signal(ccSignal{event: ccAcked, now: now, una: int64(s.cum), next: int64(s.highest), psn: p.PSN,
		ece: ue.ECNEcho, acked: newly, flight: s.inflight, rtt: sample})&ccUnpace != 0 {
		s.sched.readyAt = min(s.sched.readyAt, now)
	}
	s.stopSpeculating()
	if s.win != nil && s.cfg.SLEEK { // uet-htsim: _sender_based_cc && _enable_sleek (processAck, uec.cpp 1642)
		s.sleek(int64(ue.OOO))
	}
	if s.persistent {
		s.retire(now)
	}
	if s.cum == s.npkts {
		s.over = !s.persistent // every PSN acknowledged: done (uet-htsim checkFinished)
		s.timer.stop()
		return
	}
	if s.hasData() {
		s.nic.activate(now, s)
	} else {
		s.askForAck(now)
	}
}

// askForAck sends the PDS control packet ACK_REQ when the window has closed on packets that
// did not ask for an ACK, fewer than AckBytes of them: the receiver may hold its ACK until
// AckBytes have come, and with no room to send more they would not come; the sender would
// wait for its retransmit timer with nothing lost. (AckBytes or more unrequested bytes draw an
// ACK by themselves.) uet-htsim sets AR only when a packet is sent (sendNewPacket: the packet that
// fills the window) and has no ACK_REQ; the UE specification names the control packet
// (PDS_CTL_TYPE_ACK_REQ, Wireshark's packet-uet.c) for a sender that wants an ACK now.
func (s *UETSender) askForAck(now sim.Time) {
	if s.over {
		return
	}
	var unasked int64 // bytes in flight, not known received, sent since the last request
	for psn := max(s.asked, s.cum); psn < s.highest && unasked < s.cfg.AckBytes; psn++ {
		if r := s.rec(psn); r.state == recFlight {
			unasked += int64(r.size)
		}
	}
	if unasked == 0 || unasked >= s.cfg.AckBytes {
		return
	}
	s.asked = s.highest
	p := s.src.pool.Get(topology.KindCredit)
	s.frame(p, false)
	frames.UETStack(p)
	p.UET().AckRequest, p.PSN = true, s.highest-1
	p.Priority, p.DSCP = s.cfg.AckPriority, s.cfg.AckPriority<<3
	p.SentAt = now
	p.Seal()
	s.nic.sendControl(now, p)
}

// onNack is uet-htsim's UecSrc::processNack: a trimmed packet is queued for retransmission
// at once and NSCC takes its bytes off the window (unless quick adapt acts).
func (s *UETSender) onNack(now sim.Time, p *topology.Packet) {
	if p.PSN < s.cum || p.PSN >= s.highest {
		return
	}
	r := s.rec(p.PSN)
	if r.state != recFlight {
		return // a cumulative ACK or an earlier NACK covered it already
	}
	var sample sim.Time
	if r.karn(p.UET().Retx) {
		// A NACK for a packet sent again since is the original's: timed from the resend
		// it would be a fraction of the path's RTT, and maxwnd, 1.5 BDP of the base RTT,
		// would fall with it (uet-htsim processNack takes that sample unless
		// update_base_rtt_on_nack is off, uec.cpp 1566-1569).
		sample = now - r.sentAt
	}
	s.cc.signal(ccSignal{event: ccLost, now: now, una: int64(s.cum), next: int64(s.highest), psn: p.PSN,
		ece: p.UET().ECNEcho, trimmed: true, flight: s.inflight, size: int64(r.size), rtt: sample})
	s.stopSpeculating()
	s.queueRtx(p.PSN, r)
	s.mp.feedback(now, p.UET().Entropy, pathNack)
	if s.hasData() {
		s.nic.activate(now, s)
	} else {
		s.askForAck(now)
	}
}

func (s *UETSender) slot() *schedSlot { return &s.sched }
func (s *UETSender) stop()            { s.over = true; s.timer.stop() }
func (s *UETSender) class() uint8     { return s.priority }
func (s *UETSender) hash() uint32     { return s.dataHash }
func (s *UETSender) rate() sim.Rate   { return pacingRate(s.flow.Rate, s.cc) }
