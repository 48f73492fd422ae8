package transports

import (
	"fmt"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// TCPECN is how an iWARP connection uses ECN.
type TCPECN uint8

// ECN modes of an iWARP connection.
const (
	// ECNOff: data is not ECN-capable (Not-ECT): switches never mark it, and only losses
	// (buffer overflow, random loss) slow the sender.
	ECNOff TCPECN = iota
	// ECNClassic is RFC 3168: ECT(0) on new data, the receiver echoes CE with ECE on every ACK
	// until a segment with CWR arrives, and the sender halves cwnd at most once per window.
	ECNClassic
	// ECNDCTCP is RFC 8257: the receiver echoes each segment's CE exactly (ECE follows the CE
	// state, with an immediate ACK when it changes), and the sender keeps alpha, the EWMA of
	// the fraction of marked bytes per window (gain g), and cuts cwnd by alpha/2 once per window.
	ECNDCTCP
)

// DCTCPGain is DCTCP's default alpha gain g (RFC 8257 section 4.2: 1/16).
const DCTCPGain = 1.0 / 16

// IWARPConfig is the configuration of an iWARP connection: RDMAP/DDP/MPA over TCP.
type IWARPConfig struct {
	// MTU is the IPv4 MTU. The MSS is MTU - 40, less 12 with timestamps; each segment carries
	// one FPDU (see iwarpLayout).
	MTU int
	// Markers turns on MPA markers (RFC 5044): 4 bytes every 512 bytes of TCP sequence space.
	Markers bool
	// Timestamps puts the RFC 7323 timestamps option on every segment (12 bytes); RTT is then
	// sampled on every ACK that acknowledges new data, else on one segment per round trip.
	Timestamps bool
	// SACK turns on selective acknowledgements (RFC 2018) and SACK-based loss recovery
	// (RFC 6675); without it the sender runs NewReno (RFC 6582).
	SACK bool
	// InitCwnd is the initial window in segments (RFC 6928: 10).
	InitCwnd int
	// MinRTO, InitialRTO and MaxRTO bound the retransmission timeout of RFC 6298: the RTO
	// before any RTT sample is InitialRTO, it never goes below MinRTO, and back-off doubles it
	// up to MaxRTO.
	MinRTO, InitialRTO, MaxRTO sim.Time
	// Retries is how many retransmission timeouts in a row, without progress, the sender
	// takes before the flow fails (Linux tcp_retries2: 15).
	Retries int
	// DelayedAck is the longest the receiver holds an ACK: it acknowledges every second
	// segment at once (RFC 5681 section 4.2), and a lone segment when this time has passed.
	// 0 acknowledges every segment at once.
	DelayedAck sim.Time
	// ReceiveWindow is the receiver's window in bytes (advertised with window scaling).
	ReceiveWindow int64
	// NICDelay is the offload NIC's processing time per received segment: each one reaches
	// TCP this long after its last bit arrived. It adds latency, not a rate limit: segments
	// are processed in a pipeline.
	NICDelay sim.Time
	// Handshake runs the connection set-up at the flow's start: SYN, SYN-ACK, ACK, then the
	// MPA Request and Reply; the first FPDU follows the Reply. Without it the flow starts on
	// an established connection, as a RoCE flow starts on a connected queue pair.
	Handshake bool
	// ECN is the ECN mode; DCTCPGain the alpha gain of ECNDCTCP (0: DCTCPGain).
	ECN       TCPECN
	DCTCPGain float64
}

// MSS is the connection's maximum segment size.
func (c IWARPConfig) MSS() int64 { return tcpMSS(c.MTU, c.Timestamps) }

// DDPPayload is the DDP payload of a full FPDU: application bytes per segment.
func (c IWARPConfig) DDPPayload() int64 { return ddpPayload(c.MSS(), c.Markers) }

// mpaPrivateData is the private data of the MPA Request and Reply: none. (RFC 6581's
// enhanced connection set-up would add 4 bytes of IRD/ORD.)
const mpaPrivateData = 0

// mpaFrameLen is the length of an MPA Request or Reply frame in the TCP stream.
const mpaFrameLen = topology.MPAReqRepHeader + mpaPrivateData

// tcpConn holds what an iWARP sender and its receiver share: the flow, the addresses and
// ports, the initial sequence numbers and the layout of the message.
type tcpConn struct {
	reg      *Registry
	flow     *Flow
	index    int32
	src, dst *NIC
	cross    bool
	sport    uint16
	dataHash uint32 // ECMP hash of the data direction
	ackHash  uint32 // of the reverse direction (ports swapped)
	isn, irs uint32 // initial sequence numbers of the sender's stream and the receiver's
	// base is where the first FPDU lies in the sender's sequence space (after the SYN and
	// the MPA Request when there is a handshake); rlen is the length of the receiver's
	// stream (SYN-ACK and MPA Reply).
	base, rlen int64
	lay        iwarpLayout
	cfg        IWARPConfig
	maxBlocks  int    // SACK blocks that fit in an ACK's options
	ipid       uint16 // the IPv4 identification of the next datagram this side sends
}

// tcpSourcePort is the ephemeral source port of flow i: in 49152-65535 (RFC 6335), by hash,
// so that flows between the same hosts spread over ECMP paths.
func tcpSourcePort(i int32) uint16 {
	return 0xC000 | uint16(topology.FlowHash(topology.IPv4(i), 0x5eed, topology.IPProtoTCP, 0, 0)&0x3FFF)
}

// frame fills the Ethernet, IPv4 and TCP addressing of a segment from `from` to `to`.
func (c *tcpConn) frame(p *topology.Packet, from, to *NIC, hash uint32, sport, dport uint16) {
	p.EtherType = topology.EtherTypeIPv4
	p.SrcIP, p.DstIP = from.IP, to.IP
	p.DSCP = c.flow.Priority << 3 // class selector CSn (RFC 2474), as RoCE v2
	p.ECN = topology.ECNNotECT
	p.TTL = from.TTL
	p.IPID = c.ipid
	c.ipid++
	p.Protocol = topology.IPProtoTCP
	p.SrcPort, p.DstPort = sport, dport
	p.Priority = c.flow.Priority
	p.Flow = c.index
	p.Src, p.Dst = from.ID, to.ID
	p.Hash = hash
	p.CrossSubnet = c.cross
	p.Timestamps = c.cfg.Timestamps
}

// fillFPDU sets the TCP and MPA fields of data segment k (addressing and ACK aside).
func (c *tcpConn) fillFPDU(p *topology.Packet, k int64) {
	p.MPA = topology.MPAFPDU
	p.DDPTagged = true // RDMA WRITE: tagged DDP segments
	p.DDPLast = k == c.lay.n-1
	p.Payload = int32(c.lay.payload(k))
	p.MPAMarkers = uint8(c.lay.markersIn(k))
	p.DDPOffset = uint32(k * c.lay.d)
	p.MPAStream = uint32(c.lay.start(k))
	p.Seq = c.isn + uint32(c.base+c.lay.start(k))
	p.TCPFlags = topology.TCPFlagACK
	if p.DDPLast {
		p.TCPFlags |= topology.TCPFlagPSH
	}
}

// StartIWARP creates the iWARP connection of flow i from NIC src to NIC dst and schedules its
// start; cross says whether the hosts are in different subnets (iWARP is IP: it is routed).
func (r *Registry) StartIWARP(i int32, src, dst *NIC, cross bool, cfg IWARPConfig) {
	f := r.Flows[i]
	if cfg.DCTCPGain == 0 {
		cfg.DCTCPGain = DCTCPGain
	}
	c := tcpConn{reg: r, flow: f, index: i, src: src, dst: dst, cross: cross, sport: tcpSourcePort(i),
		lay: newLayout(cfg.MTU, cfg.Timestamps, cfg.Markers, f.Size), cfg: cfg, maxBlocks: topology.TCPMaxSACKs}
	if cfg.Timestamps {
		c.maxBlocks = (topology.TCPOptionsMax - topology.TCPTimestamps - topology.TCPSACKBase) / topology.TCPSACKBlock
	}
	c.dataHash = topology.FlowHash(src.IP, dst.IP, topology.IPProtoTCP, c.sport, topology.TCPPortIWARP)
	c.ackHash = topology.FlowHash(dst.IP, src.IP, topology.IPProtoTCP, topology.TCPPortIWARP, c.sport)
	// Initial sequence numbers from a hash of the 4-tuple, in the spirit of RFC 6528.
	c.isn = topology.FlowHash(src.IP, dst.IP, 0, c.sport, topology.TCPPortIWARP)
	c.irs = topology.FlowHash(dst.IP, src.IP, 0, topology.TCPPortIWARP, c.sport)
	if cfg.Handshake {
		c.base, c.rlen = 1+mpaFrameLen, 1+mpaFrameLen
	}
	// The scoreboard holds every segment the receive window lets be outstanding.
	minSeg := max(c.lay.full, 1)
	s := &IWARPSender{tcpConn: c,
		sb:       newScoreboard(cfg.ReceiveWindow/minSeg + 2),
		cwnd:     float64(cfg.InitCwnd),
		ssthresh: float64(1 << 40), // "arbitrarily high" (RFC 5681 section 3.1)
		rto:      cfg.InitialRTO,
		maxCwnd:  float64(max(cfg.ReceiveWindow/minSeg, int64(cfg.InitCwnd), 2)),
		alpha:    1, // RFC 8257 section 3.3
	}
	s.timer = newAlarm(r.eng, s, tcpOpTimer)
	rcv := &IWARPReceiver{tcpConn: c}
	rcv.ackTimer = newAlarm(r.eng, rcv, tcpOpDelAck)
	r.senders[i] = s
	r.receivers[i] = rcv
	r.eng.At(f.Start, s, tcpOpStart, nil)
}

// Handler operations of the iWARP endpoints.
const (
	tcpOpStart  = iota // the flow starts
	tcpOpTimer         // the sender's retransmission timer
	tcpOpRx            // a received segment leaves the NIC's pipeline for TCP
	tcpOpDelAck        // the receiver's delayed-ACK timer
)

// Connection states of the sender (the active opener).
type tcpState uint8

const (
	tcpClosed      tcpState = iota // not started
	tcpSynSent                     // SYN sent, waiting for the SYN-ACK
	tcpMPAWait                     // handshake done, MPA Request sent, waiting for the Reply
	tcpEstablished                 // sending FPDUs
)

// Congestion states of the sender (Linux's names).
type ccState uint8

const (
	ccOpen     ccState = iota // no loss outstanding: slow start or congestion avoidance
	ccRecovery                // fast recovery (RFC 6675, or NewReno without SACK) until recoverAt
	ccLoss                    // after an RTO: slow start from one segment, resending until recoverAt
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
	cwnd     float64 // in segments
	ssthresh float64
	maxCwnd  float64 // cwnd does not grow past what the receive window lets be in flight
	cc       ccState
	// recoverAt is RFC 6675's RecoveryPoint: recovery (or loss) ends when una reaches it.
	recoverAt int64
	fastRetx  bool // una's fast retransmission is due, whatever the pipe
	dupacks   int  // without SACK: duplicate ACKs in a row

	// Congestion window validation: whether cwnd limited the sender, and the most it had in
	// flight, in this window (ending when una reaches useEnd) and the previous one.
	limited, prevLimited bool
	maxOut, prevMaxOut   int64
	useEnd               int64

	// ECN: cwrEnd ends the window of the last reduction (at most one per window), sendCWR
	// puts CWR on the next new segment; DCTCP's alpha and its window's byte counts.
	cwrEnd        int64
	sendCWR       bool
	alpha         float64
	dAcked, dMark int64
	dWinEnd       int64

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
	// Stats counts what the sender did; read it with Registry.TCPStats.
	stats TCPStats
}

// TCPStats is what an iWARP sender reports about its TCP, like Linux's TCP_INFO.
type TCPStats struct {
	Cwnd, Ssthresh  float64  // segments
	SRTT, RTTVar    sim.Time // 0 before the first sample
	RTO             sim.Time
	Alpha           float64 // DCTCP
	FastRecoveries  int64   // entries into fast recovery
	Timeouts        int64   // retransmission timeouts (handshake ones included)
	ECNReductions   int64   // window reductions for ECE
	SegmentsSent    int64   // FPDUs sent, retransmissions included
	Retransmissions int64   // FPDUs sent again
	Established     sim.Time
}

// TCPStats returns the TCP state of flow i's sender, if it is an iWARP flow.
func (r *Registry) TCPStats(i int32) (TCPStats, bool) {
	s, ok := r.senders[i].(*IWARPSender)
	if !ok {
		return TCPStats{}, false
	}
	st := s.stats
	st.Cwnd, st.Ssthresh, st.RTO, st.Alpha = s.cwnd, s.ssthresh, s.rto, s.alpha
	if s.rtt.valid {
		st.SRTT, st.RTTVar = s.rtt.srtt, s.rtt.rttvar
	}
	return st, true
}

// AckHash is the ECMP hash of flow i's reverse direction, for an iWARP flow.
func (r *Registry) AckHash(i int32) (uint32, bool) {
	if s, ok := r.senders[i].(*IWARPSender); ok {
		return s.ackHash, true
	}
	return 0, false
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
			s.reg.eng.At(due, s, tcpOpRx, nil)
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
		s.reg.eng.At(now+s.cfg.NICDelay, s, tcpOpRx, nil)
	}
}

func (s *IWARPSender) process(now sim.Time, p *topology.Packet) {
	if s.over {
		return
	}
	if s.cfg.Timestamps {
		s.tsRecent = p.TSVal
	}
	switch {
	case p.TCPFlags&topology.TCPFlagSYN != 0:
		if s.state == tcpSynSent {
			s.onSynAck(now, p)
		}
	case p.MPA == topology.MPAReply:
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

// sendSYN sends (or resends) the SYN, with the options of RFC 9293/7323/2018 and, with ECN,
// ECE and CWR (RFC 3168 section 6.1.1).
func (s *IWARPSender) sendSYN(now sim.Time) {
	p := s.reg.pool.Get(topology.KindData)
	s.frame(p, s.src, s.dst, s.dataHash, s.sport, topology.TCPPortIWARP)
	p.Seq = s.isn
	p.TCPFlags = topology.TCPFlagSYN
	if s.cfg.ECN != ECNOff {
		p.TCPFlags |= topology.TCPFlagECE | topology.TCPFlagCWR
	}
	p.SACKPermitted = s.cfg.SACK
	p.TSVal = tsClock(now)
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
	a := s.reg.pool.Get(topology.KindData)
	s.frame(a, s.src, s.dst, s.dataHash, s.sport, topology.TCPPortIWARP)
	a.Seq, a.AckNum, a.TCPFlags = s.isn+1, s.irs+1, topology.TCPFlagACK
	a.TSVal, a.TSEcr = tsClock(now), s.tsRecent
	a.SentAt = now
	a.Seal()
	s.src.sendControl(now, a)
	s.sendMPARequest(now)
}

func (s *IWARPSender) sendMPARequest(now sim.Time) {
	p := s.reg.pool.Get(topology.KindData)
	s.frame(p, s.src, s.dst, s.dataHash, s.sport, topology.TCPPortIWARP)
	p.Seq, p.AckNum = s.isn+1, s.irs+1
	p.TCPFlags = topology.TCPFlagACK | topology.TCPFlagPSH
	p.MPA, p.MPAPrivate = topology.MPARequest, mpaPrivateData
	p.MPAWantMarkers = s.cfg.Markers
	p.TSVal, p.TSEcr = tsClock(now), s.tsRecent
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
		s.cwnd = 1
		if !s.rtt.valid {
			s.rto = min(3*s.cfg.InitialRTO, s.cfg.MaxRTO)
		}
	}
	s.src.activate(now, s)
}

// sampleRTT takes an RTT sample from a segment's echoed timestamp or, without timestamps,
// from the time `sent` of the segment it acknowledges, and recomputes the RTO (which ends any
// back-off).
func (s *IWARPSender) sampleRTT(now sim.Time, p *topology.Packet, sent sim.Time) {
	var r sim.Time
	switch {
	case s.cfg.Timestamps && p.TSEcr != 0:
		r = tsElapsed(now, p.TSEcr)
	case !s.cfg.Timestamps:
		r = now - sent
	}
	if r > 0 {
		s.rtt.sample(r)
		s.rto = s.rtt.rto(s.cfg.MinRTO, s.cfg.MaxRTO)
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
	if float64(s.pipe()+1) > s.cwnd {
		s.limited = true
		return -1, false
	}
	sb.retxScan = max(sb.retxScan, s.una)
	for ; sb.retxScan < sb.lostTo; sb.retxScan++ {
		if f := *sb.flag(sb.retxScan); f&segLost != 0 && f&segRetx == 0 {
			return sb.retxScan, true
		}
	}
	if s.nxt < s.lay.n && s.nxt-s.una < sb.capacity() &&
		s.lay.end(s.nxt)-s.lay.start(s.una) <= s.cfg.ReceiveWindow {
		return s.nxt, false
	}
	if s.cc == ccRecovery && s.cfg.SACK {
		sb.rule3Scan = max(sb.rule3Scan, s.una)
		for ; sb.rule3Scan < sb.top[0]; sb.rule3Scan++ {
			if *sb.flag(sb.rule3Scan)&(segSacked|segRetx|segLost) == 0 {
				return sb.rule3Scan, true
			}
		}
	}
	return -1, false
}

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
	p := s.reg.pool.Get(topology.KindData)
	s.frame(p, s.src, s.dst, s.dataHash, s.sport, topology.TCPPortIWARP)
	s.fillFPDU(p, k)
	p.AckNum = s.irs + uint32(s.rlen)
	switch {
	case s.cfg.ECN == ECNDCTCP, s.cfg.ECN == ECNClassic && !retx:
		// RFC 3168 section 6.1.5: no ECT on retransmissions; DCTCP marks every data
		// segment ECN-capable, as Linux does.
		p.ECN = topology.ECNECT0
	}
	if s.sendCWR && !retx && s.cfg.ECN != ECNOff {
		p.TCPFlags |= topology.TCPFlagCWR // on the first new segment after a reduction
		s.sendCWR = false
	}
	p.TSVal, p.TSEcr = tsClock(now), s.tsRecent
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
	if out := s.pipe(); out > s.maxOut {
		s.maxOut = out
	}
	if r := s.flow.Rate; r > 0 {
		s.sched.readyAt = now + r.TxTime(p.WireBytes())
	}
	if !s.timer.running() {
		s.timer.set(now + s.rto) // RFC 6298 (5.1)
	}
	return p
}

// onAck takes an ACK of the established connection: the cumulative ACK and SACK blocks
// update the scoreboard, then congestion control reacts (RFC 5681, 6675, 3168, 8257).
func (s *IWARPSender) onAck(now sim.Time, p *topology.Packet) {
	ref := s.base + s.lay.start(s.una)
	ack := unwrap(ref, p.AckNum-s.isn) - s.base
	newUna := min(max(s.lay.covered(ack), s.una), s.nxt)
	ece := p.TCPFlags&topology.TCPFlagECE != 0 && s.cfg.ECN != ECNOff
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
	outstanding := s.nxt - s.una
	if s.cfg.SACK {
		n := int(p.SACKBlocks)
		var blocks [topology.TCPMaxSACKs][2]int64
		for b := 0; b < n; b++ {
			lo := s.lay.covered(unwrap(ref, p.SACK[b][0]-s.isn) - s.base)
			hi := s.lay.covered(unwrap(ref, p.SACK[b][1]-s.isn) - s.base)
			lo, hi = max(lo, s.una), min(hi, s.nxt)
			blocks[b] = [2]int64{lo, hi}
			if lo < hi {
				delivered += s.sb.sack(lo, hi)
			}
		}
		s.sb.cache, s.sb.ncache = blocks, n
		s.sb.markLost(s.una)
	} else {
		s.renoAck(newUna > prevUna, newUna-prevUna, outstanding)
	}

	if s.cfg.ECN == ECNDCTCP {
		s.dAcked += delivered
		if ece {
			s.dMark += delivered
		}
		if s.una >= s.dWinEnd {
			if s.dAcked > 0 {
				g := s.cfg.DCTCPGain
				s.alpha = (1-g)*s.alpha + g*float64(s.dMark)/float64(s.dAcked)
			}
			s.dAcked, s.dMark, s.dWinEnd = 0, 0, s.nxt
		}
	}
	if s.una >= s.useEnd {
		s.prevLimited, s.prevMaxOut = s.limited, s.maxOut
		s.limited, s.maxOut, s.useEnd = false, s.pipe(), s.nxt
	}
	switch s.cc {
	case ccOpen:
		if s.sb.lost > 0 {
			s.enterRecovery()
		} else {
			s.grow(delivered)
			if ece {
				s.ecnResponse()
			}
		}
	case ccRecovery:
		if s.una >= s.recoverAt {
			s.cc = ccOpen // cwnd = ssthresh already (RFC 6675)
		}
	case ccLoss:
		if s.una >= s.recoverAt {
			s.cc = ccOpen
		}
		s.grow(delivered)
	}
	switch {
	case s.una == s.nxt:
		s.timer.stop() // nothing outstanding (5.2)
	case newUna > prevUna:
		s.timer.set(now + s.rto) // (5.3)
	}
	if s.una < s.lay.n {
		s.src.activate(now, s)
	}
}

// renoAck is the scoreboard without SACK, as Linux emulates it for NewReno (RFC 6582): each
// duplicate ACK counts one segment as having left the network; the third marks una lost; in
// recovery a partial ACK marks the new una lost and resends it at once.
func (s *IWARPSender) renoAck(advanced bool, acked, outstandingBefore int64) {
	sb := &s.sb
	outstanding := s.nxt - s.una
	if !advanced {
		if outstandingBefore == 0 {
			return
		}
		s.dupacks++
		sb.sacked = min(sb.sacked+1, max(outstanding-1, 0))
		if s.dupacks >= 3 {
			sb.markLostBelow(s.una, s.una+1)
		}
		return
	}
	s.dupacks = 0
	if s.cc == ccRecovery && s.una < s.recoverAt {
		sb.sacked = max(sb.sacked-(acked-1), 0)
		sb.markLostBelow(s.una, s.una+1)
		s.fastRetx = true
	} else {
		sb.sacked = 0
	}
	sb.sacked = min(sb.sacked, max(outstanding-1, 0))
}

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

// enterRecovery starts fast recovery: ssthresh = cwnd = FlightSize / 2 (at least 2), the
// recovery point is the highest segment sent, and una is resent at once (RFC 6675 section 5,
// steps 4.1-4.3; RFC 6582 without SACK).
func (s *IWARPSender) enterRecovery() {
	s.ssthresh = max(float64(s.nxt-s.una)/2, 2)
	s.cwnd = s.ssthresh
	s.cc, s.recoverAt, s.fastRetx = ccRecovery, s.nxt, true
	s.sb.rule3Scan = s.una
	s.stats.FastRecoveries++
	if s.cfg.ECN != ECNOff {
		s.cwrEnd, s.sendCWR = s.nxt, true // this reduction answers congestion for the window
	}
}

// ecnResponse reduces cwnd for an ECE, once per window: by half (RFC 3168 section 6.1.2) or
// by alpha/2 (DCTCP, RFC 8257 section 3.3).
func (s *IWARPSender) ecnResponse() {
	if s.una < s.cwrEnd {
		return
	}
	if s.cfg.ECN == ECNDCTCP {
		s.cwnd = max(s.cwnd*(1-s.alpha/2), 2)
		s.ssthresh = s.cwnd
	} else {
		s.ssthresh = max(s.cwnd/2, 2)
		s.cwnd = s.ssthresh
	}
	s.cwrEnd, s.sendCWR = s.nxt, true
	s.stats.ECNReductions++
}

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
	if s.timeouts == 1 {
		s.ssthresh = max(float64(s.nxt-s.una)/2, 2)
	}
	s.cwnd = 1
	s.cc, s.recoverAt, s.fastRetx, s.dupacks = ccLoss, s.nxt, false, 0
	sb := &s.sb
	sb.lost, sb.retx = 0, 0
	if !s.cfg.SACK {
		sb.sacked = 0
	}
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
		s.cwrEnd, s.sendCWR = s.nxt, true
	}
	s.src.activate(now, s) // the resend arms the timer when it leaves
}

func (s *IWARPSender) fail() {
	s.over = true
	s.timer.stop()
	f := s.flow
	if f.Status != Pending {
		return
	}
	what := "retransmission"
	switch s.state {
	case tcpSynSent:
		what = "SYN"
	case tcpMPAWait:
		what = "MPA Request"
	}
	f.Status = Failed
	f.Reason = fmt.Sprintf("TCP gave up: %d %s timeouts in a row without progress (retries %d, last RTO %v)",
		s.timeouts, what, s.cfg.Retries, s.rto)
	s.reg.ended()
}

func (s *IWARPSender) slot() *schedSlot { return &s.sched }
func (s *IWARPSender) stop()            { s.over = true; s.timer.stop() }
func (s *IWARPSender) class() uint8     { return s.flow.Priority }
func (s *IWARPSender) hash() uint32     { return s.dataHash }
func (s *IWARPSender) rate() sim.Rate   { return s.flow.Rate }

// IWARPReceiver is the receiving side: the passive side of the set-up (it answers every SYN
// with a SYN-ACK and every MPA Request with an MPA Reply, so the active side's timers recover
// their loss), reassembly of FPDUs in sequence order, delayed and selective ACKs, and the ECN
// echo.
type IWARPReceiver struct {
	tcpConn
	ra       reassembly
	pending  int   // in-order segments not yet acknowledged
	lastAck  int64 // the segment index the latest ACK named (RFC 7323 Last.ACK.sent)
	ackTimer alarm // the delayed-ACK timer
	eceState bool  // classic: echo ECE until CWR; DCTCP: the CE state of the last segment
	tsRecent uint32
	rx       delayLine
}

// Handle implements sim.Handler: the NIC's pipeline and the delayed-ACK timer.
func (r *IWARPReceiver) Handle(now sim.Time, op int, _ any) {
	switch op {
	case tcpOpRx:
		p, _ := r.rx.front()
		r.process(now, p)
		r.rx.pop()
		if r.rx.n > 0 {
			_, due := r.rx.front()
			r.reg.eng.At(due, r, tcpOpRx, nil)
		}
	case tcpOpDelAck:
		if r.ackTimer.expired(now) {
			r.ack(now)
		}
	}
}

func (r *IWARPReceiver) onData(now sim.Time, p *topology.Packet) {
	if r.cfg.NICDelay == 0 {
		r.process(now, p)
		return
	}
	if r.rx.push(p, now+r.cfg.NICDelay) {
		r.reg.eng.At(now+r.cfg.NICDelay, r, tcpOpRx, nil)
	}
}

func (r *IWARPReceiver) process(now sim.Time, p *topology.Packet) {
	switch {
	case p.TCPFlags&topology.TCPFlagSYN != 0:
		r.synAck(now, p)
	case p.MPA == topology.MPARequest:
		r.tsRecent = p.TSVal
		r.mpaReply(now)
	case p.MPA == topology.MPAFPDU:
		r.fpdu(now, p)
	}
	// A pure ACK (the handshake's third segment) needs nothing.
}

// synAck answers a SYN (RFC 9293 section 3.5; ECE for an ECN set-up, RFC 3168 6.1.1).
func (r *IWARPReceiver) synAck(now sim.Time, syn *topology.Packet) {
	p := r.reg.pool.Get(topology.KindAck)
	r.frame(p, r.dst, r.src, r.ackHash, topology.TCPPortIWARP, r.sport)
	p.Seq, p.AckNum = r.irs, r.isn+1
	p.TCPFlags = topology.TCPFlagSYN | topology.TCPFlagACK
	if r.cfg.ECN != ECNOff && syn.TCPFlags&topology.TCPFlagECE != 0 {
		p.TCPFlags |= topology.TCPFlagECE
	}
	p.SACKPermitted = r.cfg.SACK
	p.TSVal, p.TSEcr = tsClock(now), syn.TSVal
	p.SentAt = now
	p.Seal()
	r.dst.sendControl(now, p)
}

// mpaReply answers the MPA Request: the responder's MPA Reply frame (RFC 5044 section 7.1),
// which also acknowledges the request.
func (r *IWARPReceiver) mpaReply(now sim.Time) {
	p := r.reg.pool.Get(topology.KindAck)
	r.frame(p, r.dst, r.src, r.ackHash, topology.TCPPortIWARP, r.sport)
	p.Seq, p.AckNum = r.irs+1, r.isn+uint32(r.base)
	p.TCPFlags = topology.TCPFlagACK | topology.TCPFlagPSH
	p.MPA, p.MPAPrivate = topology.MPAReply, mpaPrivateData
	p.MPAWantMarkers = r.cfg.Markers
	p.TSVal, p.TSEcr = tsClock(now), r.tsRecent
	p.SentAt = now
	p.Seal()
	r.dst.sendControl(now, p)
}

// fpdu takes a data segment: the ECN echo, reassembly, and the ACK policy: every second
// in-order segment at once, a lone one after DelayedAck, and at once the segment that
// completes the message, one out of order (a duplicate ACK with SACK blocks), one that fills
// a gap and a duplicate (RFC 5681 section 4.2, RFC 1122 4.2.3.2).
func (r *IWARPReceiver) fpdu(now sim.Time, p *topology.Packet) {
	ref := r.base + r.lay.start(r.ra.nxt)
	k := r.lay.covered(unwrap(ref, p.Seq-r.isn) - r.base)
	ce := p.ECN == topology.ECNCE
	switch r.cfg.ECN {
	case ECNClassic:
		if p.TCPFlags&topology.TCPFlagCWR != 0 {
			r.eceState = false
		}
		if ce {
			r.eceState = true
		}
	case ECNDCTCP:
		if ce != r.eceState {
			if r.pending > 0 {
				r.ack(now) // acknowledge what came before with the old CE state (RFC 8257 3.2)
			}
			r.eceState = ce
		}
	}
	if r.cfg.Timestamps && k <= r.lastAck && int32(p.TSVal-r.tsRecent) >= 0 {
		r.tsRecent = p.TSVal // RFC 7323 section 4.3
	}
	before := r.ra.nxt
	advanced, _, filled := r.ra.add(k, r.maxBlocks)
	if advanced == 0 {
		r.ack(now)
		return
	}
	r.flow.Delivered += r.lay.payloadBetween(before, r.ra.nxt)
	if r.ra.nxt == r.lay.n {
		if r.flow.Status == Pending {
			r.flow.Status, r.flow.Finish = Completed, now
			r.reg.ended()
		}
		r.ack(now)
		return
	}
	r.pending++
	if filled || r.pending >= 2 || r.cfg.DelayedAck == 0 {
		r.ack(now)
		return
	}
	if !r.ackTimer.running() {
		r.ackTimer.set(now + r.cfg.DelayedAck)
	}
}

// ack sends an ACK for everything in order, with the SACK blocks and the ECN echo.
func (r *IWARPReceiver) ack(now sim.Time) {
	p := r.reg.pool.Get(topology.KindAck)
	r.frame(p, r.dst, r.src, r.ackHash, topology.TCPPortIWARP, r.sport)
	p.Seq = r.irs + uint32(r.rlen)
	p.AckNum = r.isn + uint32(r.base+r.lay.start(r.ra.nxt))
	p.TCPFlags = topology.TCPFlagACK
	if r.eceState {
		p.TCPFlags |= topology.TCPFlagECE
	}
	if r.cfg.SACK {
		for _, b := range r.ra.recent[:r.ra.nrecent] {
			if int(p.SACKBlocks) == r.maxBlocks {
				break
			}
			p.SACK[p.SACKBlocks] = [2]uint32{r.isn + uint32(r.base+r.lay.start(b.lo)), r.isn + uint32(r.base+r.lay.end(b.hi-1))}
			p.SACKBlocks++
		}
	}
	p.TSVal, p.TSEcr = tsClock(now), r.tsRecent
	p.SentAt = now
	p.Seal()
	r.pending, r.lastAck = 0, r.ra.nxt
	r.ackTimer.stop()
	r.dst.sendControl(now, p)
}

func (r *IWARPReceiver) cnps() int64 { return 0 }

// IWARPFrames is the frames an iWARP flow of a given size puts on the wire, sized by
// topology.Packet.Seal from the same header stacks the endpoints build, for computing a
// flow's ideal completion time.
type IWARPFrames struct {
	c tcpConn
}

// NewIWARPFrames describes the frames of an iWARP flow of size bytes.
func NewIWARPFrames(cfg IWARPConfig, size int64) IWARPFrames {
	c := tcpConn{cfg: cfg, flow: &Flow{}, lay: newLayout(cfg.MTU, cfg.Timestamps, cfg.Markers, size)}
	if cfg.Handshake {
		c.base = 1 + mpaFrameLen
	}
	return IWARPFrames{c: c}
}

// Segments is the number of data segments (FPDUs).
func (f IWARPFrames) Segments() int64 { return f.c.lay.n }

// SegmentWire is the wire bytes (frame, preamble and IFG) of data segment k.
func (f IWARPFrames) SegmentWire(k int64) int64 {
	p := f.packet()
	f.c.fillFPDU(&p, k)
	p.Seal()
	return p.WireBytes()
}

// SegmentPayload is the application bytes of data segment k.
func (f IWARPFrames) SegmentPayload(k int64) int64 { return f.c.lay.payload(k) }

// Handshake is the wire bytes of the connection set-up's frames, in the order they are sent:
// SYN, SYN-ACK, ACK, MPA Request, MPA Reply.
func (f IWARPFrames) Handshake() [5]int64 {
	var out [5]int64
	for i := range out {
		p := f.packet()
		switch i {
		case 0, 1:
			p.TCPFlags = topology.TCPFlagSYN
			p.SACKPermitted = f.c.cfg.SACK
		case 3:
			p.MPA = topology.MPARequest
		case 4:
			p.MPA = topology.MPAReply
		}
		p.Seal()
		out[i] = p.WireBytes()
	}
	return out
}

func (f IWARPFrames) packet() topology.Packet {
	p := topology.Packet{EtherType: topology.EtherTypeIPv4, Protocol: topology.IPProtoTCP, Timestamps: f.c.cfg.Timestamps}
	p.MPAPrivate = mpaPrivateData
	return p
}
