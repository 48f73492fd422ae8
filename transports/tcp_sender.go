package transports

import (
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// IWARPSender is the sending side of an iWARP connection: the RDMA WRITE's FPDUs over the TCP
// sender (slow start, congestion avoidance, fast retransmit and SACK recovery, RTO with
// back-off, optional ECN) and, with a handshake, the active side of the connection set-up.
type IWARPSender struct {
	tcpConn
	sched schedSlot
	state tcpState
	over  bool

	una, nxt int64 // oldest unacknowledged FPDU; next new one (HighData + 1)
	sb       scoreboard
	cc       senderCC // tcpCC: the window, NewReno's or DCTCP's
	ca       caState
	// recoverAt is RFC 6675's RecoveryPoint: recovery (or loss) ends when una reaches it.
	recoverAt int64
	fastRetx  bool // una's fast retransmission is due, whatever the pipe
	rec       lossRecovery

	// sendCWR puts CWR on the next new segment, after a window reduction (ECN).
	sendCWR bool

	// RTT and the retransmission timer. Without timestamps one segment at a time is timed
	// (Karn: not a retransmitted one).
	rtt      rttEstimator
	rto      sim.Time // current RTO, back-off included
	timer    alarm    // the retransmission timer
	timeouts int      // consecutive timeouts without progress
	timing   bool
	timedSeg int64
	timedAt  sim.Time

	// The handshake: when the SYN and the MPA Request left and whether they were resent.
	synAt, mpaAt     sim.Time
	synRetx, mpaRetx bool
	tsRecent         uint32 // the receiver's latest TSval, echoed

	rx delayLine
	// stream is a persistent connection's layout of its messages (tcp_stream.go); nil: the
	// connection carries one message, laid out by lay.
	stream *tcpStream
	// Stats counts what the sender did; read it with Registry.TCPStats.
	stats TCPStats
}

// Handle implements sim.Handler: the start, the retransmission timer and the NIC's pipeline.
func (s *IWARPSender) Handle(now sim.Time, op int, _ any) {
	switch op {
	case tcpOpStart:
		if s.over {
			return
		}
		if s.cfg.Handshake {
			s.state = tcpSynSent
			s.sendSYN(now)
			return
		}
		s.establish(now)
	case tcpOpTimer:
		if s.timer.expired(now) && !s.over {
			s.timeout(now)
		}
	case tcpOpRx:
		p, _ := s.rx.front()
		s.process(now, p)
		s.rx.pop()
		if s.rx.n > 0 {
			_, due := s.rx.front()
			s.src.at(due, s, tcpOpRx, nil)
		}
	}
}

// onControl takes the receiver's segments (ACKs, the SYN-ACK, the MPA Reply) as they arrive:
// they reach TCP after the NIC's processing delay.
func (s *IWARPSender) onControl(now sim.Time, p *topology.Packet) {
	if s.cfg.NICDelay == 0 {
		s.process(now, p)
		return
	}
	if s.rx.push(p, now+s.cfg.NICDelay) {
		s.src.at(now+s.cfg.NICDelay, s, tcpOpRx, nil)
	}
}

// process takes a segment of the receiver's once the NIC has handed it to TCP: the SYN-ACK
// and the MPA Reply during the set-up, ACKs after.
func (s *IWARPSender) process(now sim.Time, p *topology.Packet) {
	th := p.TCP()
	if s.over {
		return
	}
	if s.cfg.Timestamps {
		s.tsRecent = th.TSVal
	}
	switch {
	case th.Flags&topology.TCPFlagSYN != 0:
		if s.state == tcpSynSent {
			s.onSynAck(now, p)
		}
	case th.MPA == topology.MPAReply:
		if s.state == tcpMPAWait {
			if !s.mpaRetx || s.cfg.Timestamps {
				s.sampleRTT(now, p, s.mpaAt)
			}
			s.establish(now)
		}
	case s.state == tcpEstablished:
		s.onAck(now, p)
	}
}

// pipe is RFC 6675's estimate of the segments in the network.
func (s *IWARPSender) pipe() int64 {
	return max(s.nxt-s.una-s.sb.sacked-s.sb.lost+s.sb.retx, 0)
}

// pick is RFC 6675's NextSeg, in segments: first the fast retransmission of una, then, if
// the pipe leaves room in cwnd, (1) the lowest lost segment not yet resent, (2) new data the
// receive window allows, (3) in recovery, the lowest unSACKed segment below the highest
// SACKed one that was not resent. It returns -1 when nothing may be sent.
func (s *IWARPSender) pick() (int64, bool) {
	sb := &s.sb
	if s.fastRetx {
		if f := *sb.flag(s.una); s.una < s.nxt && f&segLost != 0 && f&segRetx == 0 {
			return s.una, true
		}
		s.fastRetx = false
	}
	if !s.cc.windowOpen(s.pipe() + 1) {
		return -1, false
	}
	sb.retxScan = max(sb.retxScan, s.una)
	for ; sb.retxScan < sb.lostTo; sb.retxScan++ {
		if f := *sb.flag(sb.retxScan); f&segLost != 0 && f&segRetx == 0 {
			return sb.retxScan, true
		}
	}
	if s.nxt < s.segments() && s.nxt-s.una < sb.capacity() &&
		s.segEnd(s.nxt)-s.segStart(s.una) <= s.cfg.ReceiveWindow {
		return s.nxt, false
	}
	if s.ca == caRecovery {
		if k := s.rec.rescue(); k >= 0 {
			return k, true
		}
	}
	return -1, false
}

// hasData reports whether NextSeg finds a segment the sender may send now.
func (s *IWARPSender) hasData() bool {
	if s.over || s.state != tcpEstablished {
		return false
	}
	k, _ := s.pick()
	return k >= 0
}

// emit builds the next segment. Precondition: hasData.
func (s *IWARPSender) emit(now sim.Time) *topology.Packet {
	k, retx := s.pick()
	if retx && k == s.una {
		s.fastRetx = false
	}
	p := s.src.pool.Get(topology.KindData)
	th := p.TCP()
	s.frame(p, s.src, s.dst, s.dataHash, s.sport, topology.TCPPortIWARP)
	s.fill(p, k)
	th.AckNum = s.irs + uint32(s.rlen)
	switch {
	case s.cfg.ECN == ECNDCTCP, s.cfg.ECN == ECNClassic && !retx:
		// RFC 3168 section 6.1.5: no ECT on retransmissions; DCTCP marks every data
		// segment ECN-capable, as Linux does.
		p.ECN = topology.ECNECT0
	}
	if s.sendCWR && !retx && s.cfg.ECN != ECNOff {
		th.Flags |= topology.TCPFlagCWR // on the first new segment after a reduction
		s.sendCWR = false
	}
	th.TSVal, th.TSEcr = tsClock(now), s.tsRecent
	p.SentAt = now
	p.Seal()
	s.stats.SegmentsSent++
	f := s.sb.flag(k)
	if retx {
		if *f&segRetx == 0 {
			s.sb.retx++
		}
		*f |= segRetx | segEverRetx
		s.flow.Retransmitted++
		s.stats.Retransmissions++
		if s.timing && s.timedSeg == k {
			s.timing = false // Karn's algorithm
		}
	} else {
		*f = 0
		s.nxt++
		if !s.timing {
			s.timing, s.timedSeg, s.timedAt = true, k, now
		}
	}
	s.cc.sent(p, s.pipe())
	if r := s.rate(); r > 0 {
		s.sched.readyAt = now + r.TxTime(p.WireBytes())
	}
	if !s.timer.running() {
		s.timer.set(now + s.rto) // RFC 6298 (5.1)
	}
	return p
}

// onAck takes an ACK of the established connection: the cumulative ACK and SACK blocks
// update the scoreboard, then congestion control reacts (RFC 5681, 6675, 3168, 8257), told
// the sender's phase (tcpCC).
func (s *IWARPSender) onAck(now sim.Time, p *topology.Packet) {
	ref := s.base + s.segStart(s.una)
	ack := unwrap(ref, p.TCP().AckNum-s.isn) - s.base
	newUna := min(max(s.covered(ack), s.una), s.nxt)
	ece := p.TCP().Flags&topology.TCPFlagECE != 0 && s.cfg.ECN != ECNOff
	prevUna := s.una
	var delivered int64
	if newUna > s.una {
		delivered = s.sb.ackTo(s.una, newUna)
		s.una = newUna
		s.timeouts = 0
		if s.cfg.Timestamps {
			s.sampleRTT(now, p, 0)
		} else if s.timing && s.timedSeg < newUna {
			s.timing = false
			s.sampleRTT(now, p, s.timedAt)
		}
	}
	delivered += s.rec.onAck(p, ref, prevUna)
	if s.stream != nil {
		s.retire(now)
	}
	phase := ccOpen
	switch {
	case s.ca == caRecovery, s.ca == caOpen && s.sb.lost > 0: // in fast recovery, or entering it
		phase = ccFastRecovery
	case s.ca == caLoss:
		phase = ccRestart
	}
	c := s.cc.signal(ccSignal{event: ccAcked, now: now, una: s.una, next: s.nxt, ece: ece, phase: phase,
		acked: delivered, flight: s.pipe()})
	if c&ccReduced != 0 {
		s.sendCWR = true // RFC 3168 section 6.1.2: CWR on the next new segment
		s.stats.ECNReductions++
	}
	if c&ccUnpace != 0 {
		s.sched.readyAt = min(s.sched.readyAt, now)
	}
	switch s.ca {
	case caOpen:
		if s.sb.lost > 0 {
			s.enterRecovery(now)
		}
	case caRecovery, caLoss:
		if s.una >= s.recoverAt {
			s.ca = caOpen // after fast recovery cwnd = ssthresh already (RFC 6675)
		}
	}
	switch {
	case s.una == s.nxt:
		s.timer.stop() // nothing outstanding (5.2)
	case newUna > prevUna:
		s.timer.set(now + s.rto) // (5.3)
	}
	if s.una < s.segments() {
		s.src.activate(now, s)
	}
}

func (s *IWARPSender) slot() *schedSlot { return &s.sched }
func (s *IWARPSender) stop()            { s.over = true; s.timer.stop() }
func (s *IWARPSender) class() uint8     { return s.flow.Priority }
func (s *IWARPSender) hash() uint32     { return s.dataHash }
func (s *IWARPSender) rate() sim.Rate   { return pacingRate(s.flow.Rate, s.cc) }
