package transports

import (
	"errors"
	"fmt"
	"math"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// The Ultra Ethernet transport's reliable unordered delivery (RUD; UE Specification 1.0,
// summarised in Hoefler et al., "Ultra Ethernet's Design Principles and Architectural
// Innovations", arXiv 2508.08906), as the consortium's simulator models it
// (ultraethernet/uet-htsim, htsim/sim/uec.cpp: UecSrc and UecSink; cited below by function):
// every packet has a PSN and may arrive in any order; the receiver keeps what arrives, and
// acknowledges with a cumulative PSN and a 64-bit SACK bitmap, coalescing ACKs (uet_receiver.go);
// the sender resends what a NACK (a trimmed packet) names, what the out-of-order count says
// is lost (SLEEK, uet_loss.go), and, one packet at a time, what a timeout finds; NSCC
// (uet_nscc.go) holds the window, RCCC (uet_rccc.go) the receiver's credit, or both; each
// packet's entropy, its UDP source port, is chosen per packet (uet_entropy.go).
// docs/model.md section 13.

// UETConfig is the configuration of a UET flow (a PDC, packet delivery context, in the
// specification's words).
type UETConfig struct {
	// MTU is the payload bytes per packet (uet-htsim UecSrc::_mss: 4096).
	MTU int
	// AckBytes is how many bytes the receiver takes before it acknowledges (uet-htsim
	// UecSink::_bytes_unacked_threshold: 16384); an ECN-marked packet, one that asks for an
	// ACK (AR) and the first packet are acknowledged at once.
	AckBytes int64
	// Entropy is the entropy scheme (EntropyREPS or EntropyOblivious); Paths the number of
	// entropy values it picks from (uet-htsim main_uec.cpp path_entropy_size: 64).
	Entropy EntropyScheme
	Paths   int
	// RTO is the retransmit timeout of each packet; 0: derived from the path (SetUETRTT).
	RTO sim.Time
	// TargetQDelay is NSCC's target queueing delay; 0: derived from the network's RTT
	// (uet-htsim UecSrc::initNsccParams: 0.75 x RTT with trimming, 1 x without).
	TargetQDelay sim.Time
	// QAGate is quick adapt's gate: it cuts the window only if the bytes acknowledged in its
	// period are below maxwnd / 2^QAGate (uet-htsim initNsccParams: 3).
	QAGate int
	// AckPriority is the traffic class of the receiver's ACKs and NACKs: uet-htsim serves them
	// in its switches' header queue ahead of data, with trimmed headers (CompositeQueue: every
	// header-only packet goes to _enqueued_high, served 100000:1).
	AckPriority uint8
	// Trimming says the fabric trims packets (switch.trimming): NSCC's default target and
	// REPS's freezing after a timeout depend on it.
	Trimming bool
	// CC is the congestion control: NSCC's window, RCCC's receiver credit (uet_rccc.go),
	// both, or Swift's window (uet_swift.go).
	CC UETCC
	// Swift is Swift's parameters, when CC is CCSwift.
	Swift SwiftParams
	// SLEEK turns on SLEEK's out-of-order loss detection under NSCC (uet_loss.go; uet-htsim
	// runs it only with -sleek, main_uec.cpp 362, and _sender_based_cc, uec.cpp 1065).
	SLEEK bool
}

// Validate reports the first value of c that a flow cannot run with.
func (c *UETConfig) Validate() error {
	switch {
	case c.MTU < 1:
		return fmt.Errorf("UET MTU %d: a packet carries at least one payload byte", c.MTU)
	case c.AckBytes < 1:
		return fmt.Errorf("UET ACK coalescing %d bytes: at least 1", c.AckBytes)
	case c.Entropy > EntropyOblivious:
		return fmt.Errorf("UET entropy scheme %d: it is reps or oblivious", c.Entropy)
	case c.Paths < 1 || c.Paths > 1<<14 || c.Paths&(c.Paths-1) != 0:
		return fmt.Errorf("UET paths %d: a power of two from 1 to 16384", c.Paths)
	case c.RTO < 0 || c.TargetQDelay < 0:
		return errors.New("UET rto and target_qdelay must not be negative")
	case c.QAGate < 0 || c.QAGate > 62:
		return fmt.Errorf("UET quick adapt gate %d: from 0 to 62", c.QAGate)
	case int(c.AckPriority) >= topology.NumPriorities:
		return fmt.Errorf("UET ACK priority %d: there are %d priorities", c.AckPriority, topology.NumPriorities)
	case c.CC > CCSwift:
		return fmt.Errorf("UET congestion control %d: it is nscc, rccc, both or swift", c.CC)
	case c.CC.swift():
		return c.Swift.validate()
	}
	return nil
}

// WireBytes is the wire size of a data packet of c's flows carrying payload bytes: a
// RUD_CC_REQ under RCCC, a RUD request otherwise (frames.UETWireBytes).
func (c *UETConfig) WireBytes(payload int64) int64 { return frames.UETWireBytes(payload, c.CC.rccc()) }

// uetRec is the sender's record of one PSN.
type uetRec struct {
	sentAt  sim.Time
	size    int32 // bytes as the window counts them
	state   uint8
	sends   uint8 // transmissions, saturating at 255
	entropy uint16
}

// karn is Karn's rule for an ACK or NACK of r echoing retx: its time since r was sent is an
// RTT sample only when it answers that transmission, the first of one sent once, or a resend
// of one sent twice (the echo tells the resend from the original).
func (r *uetRec) karn(retx bool) bool { return r.sends == 1 && !retx || r.sends == 2 && retx }

// PSN states of a uetRec.
const (
	recFlight uint8 = iota + 1 // sent, not known received
	recRtx                     // to be sent again (the retransmit queue)
	recDone                    // acknowledged
)

// uetSendTime is one transmission, in the order they were sent: the retransmit timer runs
// for the oldest still in flight (uet-htsim UecSrc::_send_times).
type uetSendTime struct {
	at  sim.Time
	psn uint32
}

// UETSender is a UET flow's sending side.
type UETSender struct {
	qp
	nic   *NIC
	cfg   UETConfig
	sched schedSlot
	timer alarm
	over  bool
	cc    nscc
	sw    *Swift // cc swift's window, else nil
	mp    entropyChooser

	recs     []uetRec // ring, indexed by PSN & (len - 1), for cum <= PSN < highest
	cum      uint32   // the cumulative PSN: every PSN below it is acknowledged
	highest  uint32   // the next new PSN
	rtxN     int      // PSNs in the retransmit queue
	rtxScan  uint32   // no PSN below it is queued for retransmission
	times    []uetSendTime
	tHead    int // times[tHead:tLen] (a ring of len(times)) are the live entries
	tLen     int
	recvd    uint32 // the receiver's received bytes last reported
	rto      sim.Time
	hdr      int64 // PDS and SES header bytes of a data packet, which the window counts
	rtxBytes int64 // bytes in the retransmit queue, as the window counts them
	rc       rcccSender

	// asked is one past the newest PSN that asked for an ACK, by its AR bit or an ACK_REQ:
	// the receiver may hold its ACK for the new packets from there on (askForAck).
	asked uint32

	// SLEEK loss recovery (uet-htsim UecSrc::runSleek).
	lossMode       bool
	recoverySeq    uint32
	highestRtxSent uint32

	baseRTT, networkRTT sim.Time

	live      bool    // it has started (a message posted before waits for the start)
	newBytes  int64   // payload bytes of the PSNs below highest
	posted    msgRing // persistent: the messages not yet acknowledged whole (uet_qp.go)
	msgsAcked int64   // persistent: the messages acknowledged whole
}

// StartUET creates the PDC of flow i between NICs src and dst and schedules its start; cross
// says whether the two hosts are in different subnets. Call SetUETRTT before the start.
func (r *Registry) StartUET(i int32, src, dst *NIC, cross bool, cfg UETConfig) error {
	f := r.Flows[i]
	err := r.checkStart(f, src, dst, cfg.Validate())
	if err == nil && (f.Size+int64(cfg.MTU)-1)/int64(cfg.MTU) > math.MaxUint32/2 {
		err = fmt.Errorf("a message of %d bytes is more than 2^31 packets of %d bytes", f.Size, cfg.MTU)
	}
	if err != nil {
		return r.refuse(i, err)
	}
	s, rcv := r.newUET(i, src, dst, cross, cfg)
	r.senders[i] = s
	s.slot().dst = dst.ID
	r.receivers[i] = rcv
	src.at(f.Start, s, opStart, nil)
	return nil
}

// newUET makes the two ends of UET flow i.
func (r *Registry) newUET(i int32, src, dst *NIC, cross bool, cfg UETConfig) (*UETSender, *UETReceiver) {
	f := r.Flows[i]
	npkts := packets(f.Size, cfg.MTU)
	if f.Persistent {
		npkts = 0 // messages come by Post
	}
	q := qp{persistent: f.Persistent, reg: r, flow: f, index: i, qpn: qpBase + uint32(i), sport: ephemeralPort(r.draw("uet", i)), src: src, dst: dst, cross: cross,
		npkts: npkts, mtu: int32(cfg.MTU), version: 2, priority: f.Priority,
		srcTTL: src.TTL, dstTTL: dst.TTL, srcID: src.ID, dstID: dst.ID, srcIP: src.IP, dstIP: dst.IP}
	q.dataHash = topology.FlowHash(src.IP, dst.IP, topology.IPProtoUDP, q.sport, topology.UDPPortUET)
	q.ackHash = topology.FlowHash(dst.IP, src.IP, topology.IPProtoUDP, q.sport, topology.UDPPortUET)
	s := &UETSender{qp: q, nic: src, cfg: cfg, recs: make([]uetRec, 64), times: make([]uetSendTime, 64), hdr: frames.UETHeaderBytes}
	if cfg.CC.rccc() {
		s.hdr += topology.PDSRUDCCHeader - topology.PDSRUDHeader
		s.rc.frame = frames.UETWireBytes(0, true) - s.hdr
	}
	s.rc.lastRequest = -1
	if cfg.CC.swift() {
		s.sw = newUETSwift(&cfg, src.Wire.Params.Rate)
	}
	s.timer = newAlarm(src, s, opTimer)
	s.mp = newEntropyChooser(cfg.Entropy, cfg.Paths, cfg.Trimming, sim.Stream(r.Seed, fmt.Sprintf("uet-entropy:%d", i)))
	return s, newUETReceiver(q, dst, cfg)
}

// SetUETRTT gives UET flow i its base RTT (its own path's, empty: NSCC's starting base_rtt
// and BDP), the network's (the longest unloaded RTT among the flows: NSCC's scaling and its
// default target delay) and, when the configuration has none, its retransmit timeout. It
// reports whether flow i is a UET flow.
func (r *Registry) SetUETRTT(i int32, base, network, rto sim.Time) bool {
	s, ok := r.senders[i].(*UETSender)
	if ok {
		s.baseRTT, s.networkRTT = base, max(network, base)
		if s.cfg.RTO == 0 {
			s.rto = rto
		}
		if rv, isUET := r.receivers[i].(*UETReceiver); isUET && s.cfg.CC.rccc() {
			// The receiver's pacer keeps to the sender's configured maxwnd
			// (getConfiguredMaxWnd), known here, before the run: the two ends may run in
			// different partitions.
			rv.rc.maxwnd = nsccMaxWnd(base, s.nic.Wire.Params.Rate)
		}
	}
	return ok
}

// UETDefaultRTO is uet-htsim's retransmit timeout (datacenter/main_uec.cpp: min RTO = 15 us +
// 6 x queue size x 8 / link speed): 15 us plus six times drain, the time a full switch queue
// takes to drain at line rate.
func UETDefaultRTO(drain sim.Time) sim.Time { return 15*sim.Microsecond + 6*drain }

// Handle implements sim.Handler: the flow's start and its retransmit timer.
func (s *UETSender) Handle(now sim.Time, op int, _ any) {
	switch op {
	case opStart:
		if s.flow.Status != Pending {
			return
		}
		if s.baseRTT <= 0 {
			s.fail("UET flow started without a base RTT (no path)")
			return
		}
		if s.cfg.RTO > 0 {
			s.rto = s.cfg.RTO
		}
		if s.rto <= 0 {
			s.fail("UET flow started without a retransmit timeout")
			return
		}
		s.cc.init(&s.cfg, s.nic.Wire.Params.Rate, s.baseRTT, s.networkRTT, int64(s.mtu)+s.hdr)
		if s.cfg.CC.rccc() {
			// startConnection: a speculative credit of the configured maxwnd, which the
			// receiver's pacer also keeps to (getConfiguredMaxWnd).
			s.rc.maxwnd = s.cc.maxwnd
			s.rc.credit, s.rc.speculating = s.rc.maxwnd, true
		}
		if s.sw != nil {
			s.swiftWindow()
		}
		s.live = true
		s.nic.activate(now, s)
	case opTimer:
		if s.timer.expired(now) && !s.over {
			s.timerFired(now)
		}
	}
}

func (s *UETSender) fail(reason string) {
	s.over = true
	s.timer.stop()
	s.reg.fail(s.flow, s.src.eng.Now(), reason)
}

func (s *UETSender) rec(psn uint32) *uetRec { return &s.recs[psn&uint32(len(s.recs)-1)] }

// size is PSN psn's size as the window counts it.
func (s *UETSender) size(psn uint32) int64 {
	pl := int64(s.mtu)
	if s.persistent {
		pl = s.payload(psn)
	} else if psn == s.npkts-1 {
		pl = s.flow.Size - int64(psn)*int64(s.mtu)
	}
	return pl + s.hdr
}

// nextRtx is the lowest PSN in the retransmit queue (uet-htsim's _rtx_queue.begin()).
func (s *UETSender) nextRtx() uint32 {
	psn := max(s.rtxScan, s.cum)
	for ; psn < s.highest && s.rec(psn).state != recRtx; psn++ {
	}
	s.rtxScan = psn
	return psn
}

// next is the PSN that goes next, a resend or a new one, and whether the window lets it go
// (uet-htsim UecSrc::sendPacket, can_send_NSCC and can_send_RCCC).
func (s *UETSender) next() (psn uint32, resend, ok bool) {
	if s.over {
		return 0, false, false
	}
	switch {
	case s.rtxN > 0:
		psn, resend = s.nextRtx(), true
	case s.highest < s.npkts:
		psn = s.highest
	default:
		return 0, false, false
	}
	if s.cfg.CC.rccc() && s.rc.credit <= 0 {
		return psn, resend, false // can_send_RCCC: any credit at all lets a packet go
	}
	if !s.cfg.CC.window() {
		return psn, resend, true
	}
	fits := s.cc.cwnd >= s.cc.inflight+s.size(psn)
	return psn, resend, fits || s.lossMode && s.rtxN > 0
}

func (s *UETSender) hasData() bool { _, _, ok := s.next(); return ok }

// emit builds the next data packet. Precondition: hasData.
func (s *UETSender) emit(now sim.Time) *topology.Packet {
	psn, resend, _ := s.next()
	size := s.size(psn)
	if !resend {
		if s.highest-s.cum == uint32(len(s.recs)) {
			s.grow()
		}
		s.highest++
		s.newBytes += size - s.hdr
	}
	r := s.rec(psn)
	if !resend {
		*r = uetRec{} // the ring's slot held an older PSN
	}
	if resend {
		s.rtxN--
		s.rtxBytes -= size
		s.flow.Retransmitted++
	}
	s.cc.inflight += size
	p := s.src.pool.Get(topology.KindData)
	ue := p.UET()
	s.frame(p, false)
	frames.UETStack(p)
	p.PSN = psn
	p.Payload = int32(size - s.hdr)
	first, msize, n := uint32(0), s.flow.Size, s.npkts
	if s.persistent {
		first, msize, n = s.posted.place(psn, s.mtu)
	}
	k := psn - first // the packet's place in its message
	ue.DMALen = uint32(min(msize, math.MaxUint32))
	ue.Offset = k * uint32(s.mtu)
	ue.Opcode = topology.OpWriteMiddle // the SES start and end of message, as a WRITE's place
	switch {
	case n == 1:
		ue.Opcode = topology.OpWriteOnly
	case k == 0:
		ue.Opcode = topology.OpWriteFirst
	case k == n-1:
		ue.Opcode = topology.OpWriteLast
	}
	// uet-htsim sendNewPacket: AR on the last packet, when the window is full or the credit
	// spent; a resend always asks (sendRtxPacket). Under Swift every packet asks
	// (uet_swift.go).
	full := s.cfg.CC.window() && s.cc.inflight+size >= s.cc.cwnd || s.sw != nil
	if s.cfg.CC.rccc() {
		s.rc.credit -= size + s.rc.frame // spendCredit, in wire bytes
		ue.CCReq, ue.Credit = true, uint32(s.pullTarget())
		full = full || s.rc.credit <= 0
	}
	ue.AckReq = resend || k == n-1 || full
	if ue.AckReq && !resend {
		s.asked = psn + 1
	}
	ue.Retx = r.sends > 0
	ev := s.mp.next(now)
	s.entropy(p, ev)
	p.ECN = topology.ECNECT0
	p.Trimmable = true // the receiver NACKs a trimmed packet at once
	p.SentAt = now
	p.Seal()
	*r = uetRec{sentAt: now, size: int32(size), state: recFlight, sends: min(r.sends, 254) + 1, entropy: ev}
	s.pushTime(now, psn)
	if rt := s.flow.Rate; rt > 0 {
		s.sched.readyAt = now + rt.TxTime(p.WireBytes())
	}
	if s.sw != nil {
		s.swiftPace(now)
	}
	if !s.timer.running() {
		s.timer.set(now + s.rto)
	}
	return p
}

// entropy sets p's entropy value ev and the UDP source port and ECMP hash it makes: the
// flow's port mixed with ev, in 0xC000-0xFFFF.
func (s *UETSender) entropy(p *topology.Packet, ev uint16) {
	p.UET().Entropy = ev
	p.SrcPort = ephemeralPort(uint64(topology.FlowHash(topology.IPv4(ev), topology.IPv4(s.qpn), 0, s.sport, 0)))
	p.Hash = topology.FlowHash(s.srcIP, s.dstIP, topology.IPProtoUDP, p.SrcPort, topology.UDPPortUET)
}

// grow doubles the PSN ring (at most once per doubling of the flow's outstanding PSNs).
func (s *UETSender) grow() {
	n := make([]uetRec, 2*len(s.recs))
	for psn := s.cum; psn < s.highest; psn++ {
		n[psn&uint32(len(n)-1)] = *s.rec(psn)
	}
	s.recs = n
}

// acked marks PSN psn received (uet-htsim handleAckno, handleCumulativeAck): one queued for
// retransmission leaves the queue and its bytes, taken out of flight when it was queued,
// go back in, since the receiver's byte count will take them out.
func (s *UETSender) acked(r *uetRec) {
	if r.state == recRtx {
		s.rtxN--
		s.rtxBytes -= int64(r.size)
		s.cc.inflight += int64(r.size)
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
	s.cc.received(newly)
	delay, sample := s.cc.avgDelay, sim.Time(0)
	if p.PSN >= s.cum && p.PSN < s.highest && !ue.AckRequest {
		if r := s.rec(p.PSN); r.state == recFlight && r.karn(ue.Retx) {
			raw := now - r.sentAt
			sample = raw
			s.cc.updateBaseRTT(raw)
			if raw >= s.cc.baseRTT {
				s.cc.updateDelay(raw, true, ue.ECNEcho)
				delay = raw - s.cc.baseRTT
			}
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
	if s.cfg.CC.nscc() {
		s.cc.onAck(now, ue.ECNEcho, delay, newly)
	} else if s.sw != nil {
		s.swiftAck(now, sample, newly)
	}
	s.stopSpeculating()
	if s.cfg.CC.window() && s.cfg.SLEEK { // uet-htsim: _sender_based_cc && _enable_sleek (processAck, uec.cpp 1642)
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
	if r.karn(p.UET().Retx) {
		// A NACK for a packet sent again since is the original's: timed from the resend
		// it would be a fraction of the path's RTT, and maxwnd, 1.5 BDP of the base RTT,
		// would fall with it (uet-htsim processNack takes that sample unless
		// update_base_rtt_on_nack is off, uec.cpp 1566-1569).
		s.cc.updateBaseRTT(now - r.sentAt)
	}
	if s.cfg.CC.nscc() {
		s.cc.onNack(now, int64(r.size))
	} else if s.sw != nil {
		s.swiftLoss(now)
	}
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
func (s *UETSender) rate() sim.Rate   { return s.flow.Rate }

// UETState is what a UET sender's NSCC holds now, for tests and the results.
type UETState struct {
	Cwnd, MaxWnd, InFlight int64
	BaseRTT, AvgDelay      sim.Time
	TargetQDelay           sim.Time
	RTO                    sim.Time
}

// UETOf is flow i's NSCC state, false when flow i is no UET flow.
func (r *Registry) UETOf(i int32) (UETState, bool) {
	s, ok := r.senders[i].(*UETSender)
	if !ok {
		return UETState{}, false
	}
	c := &s.cc
	return UETState{Cwnd: c.cwnd, MaxWnd: c.maxwnd, InFlight: c.inflight, BaseRTT: c.baseRTT, AvgDelay: c.avgDelay,
		TargetQDelay: c.p.target, RTO: s.rto}, true
}
