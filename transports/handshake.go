package transports

import (
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// Connection states of the sender (the active opener).
type tcpState uint8

const (
	tcpClosed      tcpState = iota // not started
	tcpSynSent                     // SYN sent, waiting for the SYN-ACK
	tcpMPAWait                     // handshake done, MPA Request sent, waiting for the Reply
	tcpEstablished                 // sending FPDUs
)

// sendSYN sends (or resends) the SYN, with the options of RFC 9293/7323/2018 and, with ECN,
// ECE and CWR (RFC 3168 section 6.1.1).
func (s *IWARPSender) sendSYN(now sim.Time) {
	p := s.src.pool.Get(topology.KindData)
	th := p.TCP()
	s.frame(p, s.src, s.dst, s.dataHash, s.sport, topology.TCPPortIWARP)
	th.Seq = s.isn
	th.Flags = topology.TCPFlagSYN
	if s.cfg.ECN != ECNOff {
		th.Flags |= topology.TCPFlagECE | topology.TCPFlagCWR
	}
	th.SACKPermitted = s.cfg.SACK
	th.TSVal = tsClock(now)
	p.SentAt = now
	p.Seal()
	s.synAt = now
	s.src.sendControl(now, p)
	s.timer.set(now + s.rto)
}

// onSynAck completes the three-way handshake and opens MPA's start-up phase: the ACK, then
// the MPA Request (RFC 5044 section 7.1), back to back.
func (s *IWARPSender) onSynAck(now sim.Time, p *topology.Packet) {
	if !s.synRetx || s.cfg.Timestamps {
		s.sampleRTT(now, p, s.synAt)
	}
	s.timeouts = 0
	s.state = tcpMPAWait
	a := s.src.pool.Get(topology.KindData)
	th := a.TCP()
	s.frame(a, s.src, s.dst, s.dataHash, s.sport, topology.TCPPortIWARP)
	th.Seq, th.AckNum, th.Flags = s.isn+1, s.irs+1, topology.TCPFlagACK
	th.TSVal, th.TSEcr = tsClock(now), s.tsRecent
	a.SentAt = now
	a.Seal()
	s.src.sendControl(now, a)
	s.sendMPARequest(now)
}

// sendMPARequest sends (or resends) the MPA Request (RFC 5044 section 7.1), which asks for
// markers when the connection uses them, and arms the retransmission timer for it.
func (s *IWARPSender) sendMPARequest(now sim.Time) {
	p := s.src.pool.Get(topology.KindData)
	th := p.TCP()
	s.frame(p, s.src, s.dst, s.dataHash, s.sport, topology.TCPPortIWARP)
	th.Seq, th.AckNum = s.isn+1, s.irs+1
	th.Flags = topology.TCPFlagACK | topology.TCPFlagPSH
	th.MPA, th.MPAPrivate = topology.MPARequest, frames.MPAPrivateData
	th.MPAWantMarkers = s.cfg.Markers
	th.TSVal, th.TSEcr = tsClock(now), s.tsRecent
	p.SentAt = now
	p.Seal()
	s.mpaAt = now
	s.src.sendControl(now, p)
	s.timer.set(now + s.rto)
}

// establish enters MPA's full operation: FPDUs may flow. After a lost SYN the initial window
// is one segment (RFC 5681 section 3.1) and, without an RTT sample, the RTO is 3 x the
// initial one (RFC 6298 section 5.7).
func (s *IWARPSender) establish(now sim.Time) {
	s.state = tcpEstablished
	s.stats.Established = now
	s.timer.stop()
	s.timeouts = 0
	if s.synRetx {
		s.cc = s.newCC(1)
		if !s.rtt.valid {
			s.rto = min(3*s.cfg.InitialRTO, s.cfg.MaxRTO)
		}
	}
	s.src.activate(now, s)
}

// synAck answers a SYN (RFC 9293 section 3.5; ECE for an ECN set-up, RFC 3168 6.1.1).
func (r *IWARPReceiver) synAck(now sim.Time, syn *topology.Packet) {
	p := r.dst.pool.Get(topology.KindAck)
	th := p.TCP()
	r.frame(p, r.dst, r.src, r.ackHash, topology.TCPPortIWARP, r.sport)
	th.Seq, th.AckNum = r.irs, r.isn+1
	th.Flags = topology.TCPFlagSYN | topology.TCPFlagACK
	if r.cfg.ECN != ECNOff && syn.TCP().Flags&topology.TCPFlagECE != 0 {
		th.Flags |= topology.TCPFlagECE
	}
	th.SACKPermitted = r.cfg.SACK
	th.TSVal, th.TSEcr = tsClock(now), syn.TCP().TSVal
	p.SentAt = now
	p.Seal()
	r.dst.sendControl(now, p)
}

// mpaReply answers the MPA Request: the responder's MPA Reply frame (RFC 5044 section 7.1),
// which also acknowledges the request.
func (r *IWARPReceiver) mpaReply(now sim.Time) {
	p := r.dst.pool.Get(topology.KindAck)
	th := p.TCP()
	r.frame(p, r.dst, r.src, r.ackHash, topology.TCPPortIWARP, r.sport)
	th.Seq, th.AckNum = r.irs+1, r.isn+uint32(r.base)
	th.Flags = topology.TCPFlagACK | topology.TCPFlagPSH
	th.MPA, th.MPAPrivate = topology.MPAReply, frames.MPAPrivateData
	th.MPAWantMarkers = r.cfg.Markers
	th.TSVal, th.TSEcr = tsClock(now), r.tsRecent
	p.SentAt = now
	p.Seal()
	r.dst.sendControl(now, p)
}
