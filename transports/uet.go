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
// is lost (SLEEK, uet_loss.go), and, one packet at a time, what a timeout finds (the answers'
// side in uet_ack.go); its congestion control is a senderCC (uet_cc.go): NSCC's window
// (uet_nscc.go) or Swift's (uet_swift.go), and RCCC's credit (uet_rccc.go), granted by the
// receiver, alone or with NSCC's; each packet's entropy, its UDP source port, is chosen per
// packet (uet_entropy.go). docs/model.md section 13.

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
	// RTO is the retransmit timeout of each packet; 0: UETDefaultRTO of the time QueueBytes
	// take at the sender's line rate.
	RTO sim.Time
	// QueueBytes is the deepest queue a switch port may hold, bytes, whose drain time the
	// default RTO counts (uet-htsim main_uec.cpp's queue size); 0: none, an RTO of 15 us.
	QueueBytes int64
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
	// CC is the congestion control (uet_cc.go): NSCC's window (nil or *UETNSCC), RCCC's
	// receiver credit with or without NSCC's window (*RCCC, uet_rccc.go), or Swift's window
	// (*SwiftParams, uet_swift.go).
	CC UETCC
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
	case c.RTO < 0 || c.TargetQDelay < 0 || c.QueueBytes < 0:
		return errors.New("UET rto, target_qdelay and the queue the default RTO drains must not be negative")
	case c.QAGate < 0 || c.QAGate > 62:
		return fmt.Errorf("UET quick adapt gate %d: from 0 to 62", c.QAGate)
	case int(c.AckPriority) >= topology.NumPriorities:
		return fmt.Errorf("UET ACK priority %d: there are %d priorities", c.AckPriority, topology.NumPriorities)
	case c.CC != nil:
		return c.CC.checkUET(c)
	}
	return nil
}

// WireBytes is the wire size of a data packet of c's flows carrying payload bytes: a
// RUD_CC_REQ under RCCC, a RUD request otherwise (frames.UETWireBytes).
func (c *UETConfig) WireBytes(payload int64) int64 { return frames.UETWireBytes(payload, c.credit()) }

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
	// cc is the congestion control (uet_cc.go); win and pace are it when it keeps a window
	// of bytes (NSCC, Swift) and when it spaces packets by a time (Swift), else nil; credit
	// says the receiver grants credit (RCCC: rc).
	cc     senderCC
	win    uetWindow
	pace   uetPacer
	credit bool
	mp     entropyChooser

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
	inflight int64 // bytes in flight, as the window counts them: sent, not reported received, not queued again
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
// says whether the two hosts are in different subnets. Call SetPath before the start.
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
	if cfg.CC == nil {
		cfg.CC = &UETNSCC{}
	}
	s := &UETSender{qp: q, nic: src, cfg: cfg, recs: make([]uetRec, 64), times: make([]uetSendTime, 64), hdr: frames.UETHeaderBytes,
		credit: cfg.credit()}
	if s.credit {
		s.hdr += topology.PDSRUDCCHeader - topology.PDSRUDHeader
		s.rc.frame = frames.UETWireBytes(0, true) - s.hdr
	}
	s.rc.lastRequest = -1
	s.cc = cfg.CC.newUETCC(&s.cfg, src.Wire.Params.Rate, s.hdr)
	s.win, _ = s.cc.(uetWindow)
	s.pace, _ = s.cc.(uetPacer)
	s.timer = newAlarm(src, s, opTimer)
	s.mp = newEntropyChooser(cfg.Entropy, cfg.Paths, cfg.Trimming, sim.Stream(r.Seed, fmt.Sprintf("uet-entropy:%d", i)))
	return s, newUETReceiver(q, dst, cfg)
}

// setPath gives the flow its base RTT (a full packet out and its ACK back on the empty path:
// NSCC's starting base_rtt and BDP, RCCC's maxwnd), the network's (Path.NetworkRTT, at least
// its own: NSCC's scaling and its default target delay, RCCC's credit requests), its
// retransmit timeout unless configured, and its congestion control the path. Without a
// reverse path there is no RTT: the flow fails at its start.
func (s *UETSender) setPath(rv *UETReceiver, p Path) {
	base := s.cfg.RTT(p)
	if base <= 0 {
		return
	}
	s.baseRTT, s.networkRTT = base, max(p.NetworkRTT, base)
	if s.cfg.RTO == 0 {
		s.rto = UETDefaultRTO(s.nic.Wire.Params.Rate.TxTime(s.cfg.QueueBytes))
	}
	if s.credit {
		// The receiver's pacer keeps to the sender's configured maxwnd (getConfiguredMaxWnd),
		// known here, before the run: the two ends may run in different partitions.
		rv.rc.maxwnd = nsccMaxWnd(base, s.nic.Wire.Params.Rate)
	}
	if c, ok := s.cc.(uetPathUser); ok {
		c.setUETPath(s.baseRTT, s.networkRTT, p)
	}
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
		if reason := s.cc.start(); reason != "" {
			s.fail(reason)
			return
		}
		if s.credit {
			// startConnection: a speculative credit of the configured maxwnd, which the
			// receiver's pacer also keeps to (getConfiguredMaxWnd).
			s.rc.maxwnd = nsccMaxWnd(s.baseRTT, s.nic.Wire.Params.Rate)
			s.rc.credit, s.rc.speculating = s.rc.maxwnd, true
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
	if s.credit && s.rc.credit <= 0 {
		return psn, resend, false // can_send_RCCC: any credit at all lets a packet go
	}
	return psn, resend, s.cc.windowOpen(s.inflight+s.size(psn)) || s.lossMode && s.rtxN > 0
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
	s.inflight += size
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
	// uet-htsim sendNewPacket: AR on the last packet, when the credit is spent or the window
	// full (the congestion control's sent); a resend always asks (sendRtxPacket).
	ue.AckReq = resend || k == n-1
	if s.credit {
		s.rc.credit -= size + s.rc.frame // spendCredit, in wire bytes
		ue.CCReq, ue.Credit = true, uint32(s.pullTarget())
		ue.AckReq = ue.AckReq || s.rc.credit <= 0
	}
	ue.Retx = r.sends > 0
	ev := s.mp.next(now)
	s.entropy(p, ev)
	p.ECN = topology.ECNECT0
	p.Trimmable = true // the receiver NACKs a trimmed packet at once
	p.SentAt = now
	p.Seal()
	s.cc.sent(p, s.inflight)
	if ue.AckReq && !resend {
		s.asked = psn + 1
	}
	*r = uetRec{sentAt: now, size: int32(size), state: recFlight, sends: min(r.sends, 254) + 1, entropy: ev}
	s.pushTime(now, psn)
	if rt := s.rate(); rt > 0 {
		s.sched.readyAt = now + rt.TxTime(p.WireBytes())
	}
	if s.pace != nil {
		if d := s.pace.gap(); d > 0 {
			s.sched.readyAt = max(s.sched.readyAt, now+d)
		}
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
