package transports

import (
	"errors"
	"fmt"
	"math"

	"github.com/fabricsim/fabricsim/ecn"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// RoCEConfig is the configuration of a RoCE queue pair.
type RoCEConfig struct {
	// Version is 2 (IB transport over IPv4/UDP, routable, ECN-capable) or 1 (IB transport
	// with a GRH directly over Ethernet, EtherType 0x8915, priority in the 802.1Q PCP: it
	// cannot cross a router and has no ECN field). 0 is 2.
	Version int
	// GoBack0 makes loss recovery restart the whole message, as old NICs did (Guo et al.,
	// SIGCOMM 2016), instead of going back to the lost packet (go-back-N).
	GoBack0 bool
	// MTU is the IB path MTU: payload bytes per packet (256, 512, 1024, 2048 or 4096).
	MTU int
	// RetransmitTimeout is the local ACK timeout: with packets outstanding and no ACK
	// progress for this long, the requester goes back to the oldest unacknowledged PSN.
	// IBA: 4.096 us x 2^timeout.
	RetransmitTimeout sim.Time
	// RetryLimit is how many timeouts in a row the requester tolerates before the flow fails
	// (IBA retry_cnt, at most 7).
	RetryLimit int
	// AckInterval is how many in-order packets the responder takes per coalesced ACK; the last
	// packet of a message is always acknowledged at once.
	AckInterval int
	// CC is the congestion control (roce_cc.go): DCQCN, HPCC, TIMELY, Swift, DCTCP, NSCC,
	// or none (nil).
	CC RoCECC
	// CNPPriority is the traffic class of the CNPs the responder sends.
	CNPPriority uint8
	// IRN, when not nil, replaces go-back-N by IRN's selective repeat with BDP-FC and its
	// two timeouts (irn.go); RetransmitTimeout is then unused.
	IRN *IRNParams
	// SourcePort is how a RoCE v2 queue pair's UDP source port is chosen (0:
	// SourcePortRandom); RoCE v1 has no UDP header.
	SourcePort SourcePort
}

// Validate reports the first value of c that a queue pair cannot run with, as etcd raft's
// Config.validate does for a node; nil when there is none. It checks what the transport needs,
// not what a scenario allows (the scenario's validation is stricter: IB path MTUs only, say).
func (c *RoCEConfig) Validate() error {
	switch {
	case c.Version < 0 || c.Version > 2:
		return fmt.Errorf("RoCE version %d: it is 1 or 2", c.Version)
	case c.MTU < 1:
		return fmt.Errorf("RoCE MTU %d: a packet carries at least one payload byte", c.MTU)
	case c.RetransmitTimeout <= 0:
		return fmt.Errorf("RoCE retransmit timeout %v: it must be positive", c.RetransmitTimeout)
	case c.RetryLimit < 0:
		return fmt.Errorf("RoCE retry limit %d: it must not be negative", c.RetryLimit)
	case c.AckInterval < 1:
		return fmt.Errorf("RoCE ACK interval %d: an ACK covers at least one packet", c.AckInterval)
	case int(c.CNPPriority) >= topology.NumPriorities:
		return fmt.Errorf("CNP priority %d: there are %d priorities", c.CNPPriority, topology.NumPriorities)
	case c.SourcePort > SourcePortPerPacket:
		return fmt.Errorf("source port rule %d: it is random, qpn or per-packet", c.SourcePort)
	case c.IRN != nil && c.GoBack0:
		return errors.New("IRN and go-back-0 are two loss recoveries: choose one")
	}
	if c.IRN != nil {
		if err := c.IRN.validate(); err != nil {
			return err
		}
	}
	if c.CC == nil {
		return nil
	}
	return c.CC.check(c.Version)
}

// qpBase is the first queue-pair number handed out; QPNs 0 and 1 are special in IBA.
const qpBase = 0x100

// qp holds what a requester and its responder share: the flow, the addresses and the
// framing.
type qp struct {
	reg      *Registry
	flow     *Flow
	index    int32
	qpn      uint32
	sport    uint16
	ipid     uint16 // the IPv4 identification of the next datagram this side sends
	cross    bool
	version  uint8 // cfg.Version
	priority uint8 // flow.Priority
	// The ends' addresses and TTLs, kept here so that building a frame reads the queue pair
	// alone, not the two NICs and the flow (on a large fabric, each a cache miss).
	srcTTL, dstTTL uint8
	srcID, dstID   topology.NodeID
	srcIP, dstIP   topology.IPv4
	dataHash       uint32 // ECMP hash of the data direction
	ackHash        uint32 // of the reverse direction
	npkts          uint32 // the message's packets; 0 for a persistent flow
	mtu            int32
	persistent     bool // Flow.Persistent: messages are posted (roce_qp.go)
	src, dst       *NIC
	cfg            RoCEConfig
}

// RoCESender is the requester side of a queue pair: it segments the message into packets and
// tracks PSNs; its loss recovery (roce_recovery.go: go-back-N, go-back-0 or IRN's selective
// repeat) picks what goes next, and its congestion control (roce_cc.go: none, DCQCN, HPCC,
// TIMELY or Swift) paces it and holds its window.
type RoCESender struct {
	qp
	roceSeq
	nic *NIC
	rec roceRecovery
	cc  senderCC
	// times holds the send times of the packets in flight when the congestion control reads
	// RTT samples from the signal (ccSignal.rtt), else nil.
	times    *sendTimes
	sched    schedSlot // its place on the NIC's schedule
	timer    alarm     // the retransmit timer
	timeouts int       // consecutive timeouts without progress
	over     bool
	sprayed  uint32  // SourcePortPerPacket: the data packets sent, each one's entropy
	live     bool    // it has started (a message posted before waits for the start)
	posted   msgRing // persistent: the messages not yet acknowledged whole, PSN spans
	acked    int64   // persistent: the messages acknowledged whole
}

// RoCEReceiver is the responder side: it accepts packets in PSN order, acknowledges them in
// coalesced ACKs and sends one NAK per sequence gap.
type RoCEReceiver struct {
	qp
	nic      *NIC
	ePSN     uint32 // expected PSN
	sinceAck int
	nakSent  bool // a NAK for the current gap is out (IBA C9-114: one NAK per gap)
	dupAcked bool
	lastDup  uint32                 // PSN of the latest duplicate; one at or below it starts a new burst
	held     psnSet                 // IRN: the packets received beyond a gap
	np       *ecn.NotificationPoint // DCQCN, nil without congestion control
	pacer    *cnpPacer              // np's pacer: the flow's own, or the NIC port's
	echo     *topology.INT          // HPCC: the telemetry the next ACK echoes
	inMsg                           // persistent: the message being received (roce_qp.go)
	// ce is DCTCP's CE state (cc dctcp; RFC 8257 section 3.2): whether the latest data
	// packet came marked, which each ACK echoes in its BTH BECN bit.
	ce bool
}

const (
	opStart = iota
	opTimer
)

// StartRoCE creates the queue pair of flow i between NICs src and dst and schedules its start;
// cross says whether the two hosts are in different subnets. When the configuration, the
// flow or a NIC is one the queue pair cannot run with, it returns why and ends the flow as
// failed, without setting up endpoints.
func (r *Registry) StartRoCE(i int32, src, dst *NIC, cross bool, cfg RoCEConfig) error {
	f := r.Flows[i]
	err := r.checkStart(f, src, dst, cfg.Validate())
	if err == nil && (f.Size+int64(cfg.MTU)-1)/int64(cfg.MTU) > math.MaxUint32 {
		err = fmt.Errorf("a message of %d bytes is more than 2^32 packets of %d bytes", f.Size, cfg.MTU)
	}
	if err != nil {
		return r.refuse(i, err)
	}
	npkts := packets(f.Size, cfg.MTU)
	if f.Persistent {
		npkts = 0 // messages come by Post
	}
	qpn := qpBase + uint32(i)
	q := qp{reg: r, flow: f, index: i, qpn: qpn, sport: r.sourcePort(cfg.SourcePort, qpn, i), src: src, dst: dst, cross: cross,
		npkts: npkts, mtu: int32(cfg.MTU), persistent: f.Persistent, cfg: cfg, version: uint8(cfg.Version), priority: f.Priority,
		srcTTL: src.TTL, dstTTL: dst.TTL, srcID: src.ID, dstID: dst.ID, srcIP: src.IP, dstIP: dst.IP}
	if cfg.Version == 1 {
		// No IP or UDP: an L2 switch hashes on the MAC addresses, so every queue pair
		// between two hosts takes the same path.
		q.dataHash = topology.FlowHash(topology.IPv4(src.ID), topology.IPv4(dst.ID), 0, 0, 0)
		q.ackHash = topology.FlowHash(topology.IPv4(dst.ID), topology.IPv4(src.ID), 0, 0, 0)
	} else {
		q.dataHash = topology.FlowHash(src.IP, dst.IP, topology.IPProtoUDP, q.sport, topology.UDPPortRoCEv2)
		q.ackHash = topology.FlowHash(dst.IP, src.IP, topology.IPProtoUDP, q.sport, topology.UDPPortRoCEv2)
	}
	s := &RoCESender{qp: q, roceSeq: roceSeq{total: npkts}, nic: src}
	s.timer = newAlarm(src, s, opTimer)
	s.rec = newRoCERecovery(&cfg)
	ccPkts := npkts
	if f.Persistent {
		ccPkts = math.MaxUint32 // no end known
	}
	s.cc = newRoCECC(src, &cfg, src.Wire.Params.Rate, f.Start, ccPkts)
	rcv := &RoCEReceiver{qp: q, nic: dst}
	if p := cfg.dcqcn(); p != nil {
		if p.PortPacing {
			rcv.pacer = dst.portPacer(p)
		} else {
			rcv.pacer = newCNPPacer(dst, p)
		}
		rcv.np = &ecn.NotificationPoint{Pacer: &rcv.pacer.Pacer, Flow: i}
	}
	r.senders[i] = s
	s.slot().dst = dst.ID
	r.receivers[i] = rcv
	src.at(f.Start, s, opStart, nil)
	return nil
}

// Handle implements sim.Handler: the flow's start and its retransmit timer.
func (s *RoCESender) Handle(now sim.Time, op int, _ any) {
	switch op {
	case opStart:
		if reason := s.cc.start(); reason != "" {
			s.fail(reason)
			return
		}
		s.live = true
		s.nic.activate(now, s)
	case opTimer:
		if s.timer.expired(now) && !s.over {
			s.timeout(now)
		}
	}
}

// fail ends the flow as failed, for reason.
func (s *RoCESender) fail(reason string) {
	s.over = true
	s.reg.fail(s.flow, s.src.eng.Now(), reason)
}

// Rate is the flow's sending rate limit now: its congestion control's rate, its own pacing
// rate (the lower of the two), or 0 for line rate.
func (s *RoCESender) Rate() sim.Rate { return pacingRate(s.flow.Rate, s.cc) }

// hasData reports whether the loss recovery has a packet to send, and for a new one whether
// the congestion control's window lets it go (it always does with nothing outstanding).
func (s *RoCESender) hasData() bool {
	if s.over {
		return false
	}
	switch _, kind := s.rec.next(&s.roceSeq); kind {
	case sendResend:
		return true
	case sendNew:
		return s.sndNxt == s.una || s.cc.windowOpen(int64(s.sndNxt-s.una)+1)
	}
	return false
}

// emit builds the next data packet. Precondition: hasData.
func (s *RoCESender) emit(now sim.Time) *topology.Packet {
	psn, kind := s.rec.next(&s.roceSeq)
	p := s.src.pool.Get(topology.KindData)
	ib := p.IB()
	s.frame(p, false)
	p.PSN = psn
	if s.cfg.SourcePort == SourcePortPerPacket && s.cfg.Version != 1 {
		s.spray(p, s.sprayed)
		s.sprayed++
	}
	first, size, n := uint32(0), s.flow.Size, s.npkts
	if s.persistent {
		first, size, n = s.posted.place(psn, s.mtu)
	}
	k := psn - first // the packet's place in its message
	p.Payload = s.mtu
	last := k == n-1
	if last {
		p.Payload = int32(size - int64(k)*int64(s.mtu))
	}
	switch {
	case n == 1:
		ib.Opcode, ib.HasRETH = topology.OpWriteOnly, true
	case k == 0:
		ib.Opcode, ib.HasRETH = topology.OpWriteFirst, true
	case last:
		ib.Opcode = topology.OpWriteLast
	default:
		ib.Opcode = topology.OpWriteMiddle
	}
	if ib.HasRETH {
		ib.DMALen = uint32(min(size, 1<<32-1))
	}
	ib.AckReq = s.rec.sending(&s.roceSeq, psn, kind) || last
	if s.cfg.Version != 1 {
		p.ECN = topology.ECNECT0 // RoCE v2 data is ECN-capable (DCQCN's marks ride on it)
		p.Trimmable = true       // its responder NAKs a trimmed packet (onData, onDataIRN)
	}
	p.SentAt = now
	p.Seal()
	s.cc.sent(p, int64(s.sndNxt-s.una)+1)
	if s.times != nil {
		s.times.sent(psn, now)
	}
	if psn < s.maxSent {
		s.flow.Retransmitted++
	}
	if psn == s.sndNxt {
		s.sndNxt++
	}
	s.maxSent = max(s.maxSent, psn+1)
	if r := s.Rate(); r > 0 {
		s.sched.readyAt = now + r.TxTime(p.WireBytes())
	}
	if !s.timer.running() {
		s.timer.set(now + s.rec.rto(&s.roceSeq))
	}
	return p
}

// onAck takes an ACK or NAK: the loss recovery moves the sequence state and says what
// follows (ackActions), then the congestion control sees it.
func (s *RoCESender) onAck(now sim.Time, p *topology.Packet) {
	if s.over {
		return
	}
	a := s.rec.onAck(&s.roceSeq, p)
	if s.persistent {
		s.retire(now)
	}
	if a&ackProgress != 0 {
		s.timeouts = 0
	}
	if a&ackRestart != 0 {
		s.timer.set(now + s.rec.rto(&s.roceSeq))
	}
	if a&ackStop != 0 {
		s.timer.stop()
	}
	if a&ackSend != 0 || a&ackSendIfData != 0 && s.hasData() {
		s.nic.activate(now, s)
	}
	sig := roceSignal(now, p, s.una, s.sndNxt)
	if s.times != nil && sig.event == ccAcked {
		sig.rtt = s.times.sample(p.PSN, now)
	}
	c := s.cc.signal(sig)
	if c&ccUnpace != 0 {
		s.sched.readyAt = min(s.sched.readyAt, now)
	}
	if c != 0 && s.hasData() {
		s.nic.activate(now, s)
	}
}

// timeout is the retransmit timer's expiry: one more retry, or, past the retry limit, the
// flow fails.
func (s *RoCESender) timeout(now sim.Time) {
	if s.una >= s.total {
		return
	}
	s.timeouts++
	s.flow.Timeouts++
	if s.timeouts > s.cfg.RetryLimit {
		s.fail(fmt.Sprintf("retry limit exhausted: %d retransmit timeouts of %s in a row without progress (retry_limit %d)",
			s.timeouts, s.rec.timeouts(), s.cfg.RetryLimit))
		return
	}
	s.rec.timedOut(&s.roceSeq)
	s.cc.signal(ccSignal{event: ccTimedOut, now: now, una: int64(s.una), next: int64(s.sndNxt), flight: int64(s.sndNxt - s.una)})
	s.nic.activate(now, s)
}

func (r *RoCEReceiver) onData(now sim.Time, p *topology.Packet) {
	if p.INT != nil {
		r.hpccKeep(p)
	}
	if r.cfg.echoesECN() {
		r.dctcpEcho(now, p.ECN == topology.ECNCE)
	}
	if r.np != nil {
		r.pacer.Arrived(now) // the first packet starts the window timer (ecn.NPWindow)
		if p.ECN == topology.ECNCE {
			if cnp, wake := r.np.Marked(now); cnp {
				r.cnp(now)
			} else if wake != sim.Never {
				r.pacer.arm(wake) // answered at the window's end (ecn.NPWindow, ecn.NPPaper)
			}
		}
	}
	if r.cfg.IRN != nil {
		r.onDataIRN(now, p)
		return
	}
	if r.cfg.GoBack0 && p.PSN == r.start && r.ePSN > r.start && (r.persistent || r.ePSN < r.npkts) {
		// The requester started the message over: so does the responder.
		r.ePSN, r.flow.Delivered, r.nakSent = r.start, r.base, false
	}
	switch {
	case p.PSN == r.ePSN && !p.Trimmed && r.persistent:
		r.nakSent, r.dupAcked = false, false
		r.inOrder(now, r.take(now, p.PSN, p.IB().DMALen) || p.IB().AckReq)
	case p.PSN == r.ePSN && !p.Trimmed:
		r.ePSN++
		r.flow.Delivered += int64(p.Payload)
		r.nakSent, r.dupAcked = false, false
		r.inOrder(now, p.IB().AckReq)
	case p.PSN >= r.ePSN:
		// Out of sequence, or the expected packet trimmed to its headers by a switch: a
		// gap. Discard, and NAK once per gap (IBA C9-114: a trimmed resend inside the same
		// gap is found by the timeout, as a lost one is; NAKing each one instead makes
		// every trim a go-back whose resends are trimmed again). Go-back-0 discards the
		// whole message and asks for it from the start.
		if !r.nakSent {
			r.nakSent = true
			if r.cfg.GoBack0 {
				r.ePSN, r.flow.Delivered = r.start, r.base
			}
			r.flow.NAKs++
			r.ack(now, topology.SyndromeNAKSequence, r.ePSN)
		}
	case !p.Trimmed:
		r.duplicate(now, p.PSN)
	}
}

// inOrder acknowledges what the responder holds in order after a packet took it further: at
// once for the message's last packet (which completes the flow) or when ackNow, else every
// AckInterval packets.
func (r *RoCEReceiver) inOrder(now sim.Time, ackNow bool) {
	r.sinceAck++
	if r.ePSN == r.npkts {
		r.reg.complete(r.index, now)
		r.ack(now, topology.SyndromeACK, r.ePSN-1)
	} else if ackNow || r.sinceAck >= r.cfg.AckInterval {
		r.ack(now, topology.SyndromeACK, r.ePSN-1)
	}
}

// duplicate takes a packet below ePSN: the requester went back further than needed (a lost
// ACK). One ACK per burst of duplicates tells it where the responder is; a PSN that does not
// follow the previous duplicate's starts a new burst (the requester went back again, so that
// ACK was lost too).
func (r *RoCEReceiver) duplicate(now sim.Time, psn uint32) {
	if (!r.dupAcked || psn <= r.lastDup) && r.ePSN > 0 {
		r.dupAcked = true
		r.ack(now, topology.SyndromeACK, r.ePSN-1)
	}
	r.lastDup = psn
}

// onDataIRN is IRN's responder: it keeps packets beyond a gap, NAKs each one with the
// cumulative acknowledgement and its own PSN, and acknowledges at once the packet that fills
// a gap.
func (r *RoCEReceiver) onDataIRN(now sim.Time, p *topology.Packet) {
	switch {
	case p.Trimmed:
		// A switch cut the packet to its headers: NAK that PSN at once, flagged trimmed, so
		// that the requester resends it alone (unless a copy is already here).
		if p.PSN >= r.ePSN && !r.held.has(p.PSN) {
			r.flow.NAKs++
			n := r.control(now, topology.SyndromeNAKSequence, r.ePSN)
			n.IB().HasSACK, n.IB().SACKPSN, n.Trimmed = true, p.PSN, true
			r.send(now, n)
		}
	case p.PSN == r.ePSN:
		filled := r.held.n > 0
		if r.persistent {
			done := r.take(now, p.PSN, p.IB().DMALen)
			for r.held.has(r.ePSN) {
				done = r.take(now, r.ePSN, r.heldLen(r.ePSN)) || done
			}
			filled = filled || done
		} else {
			r.accept(p.PSN)
			for r.held.has(r.ePSN) {
				r.accept(r.ePSN)
			}
		}
		r.held.advance(r.ePSN)
		r.dupAcked = false
		r.inOrder(now, filled || p.IB().AckReq)
	case p.PSN > r.ePSN:
		if r.persistent && p.IB().HasRETH && !r.held.has(p.PSN) {
			r.firsts = append(r.firsts, heldFirst{p.PSN, p.IB().DMALen})
		}
		r.held.add(p.PSN)
		r.flow.NAKs++
		n := r.control(now, topology.SyndromeNAKSequence, r.ePSN)
		n.IB().HasSACK, n.IB().SACKPSN = true, p.PSN
		r.send(now, n)
	default:
		r.duplicate(now, p.PSN)
	}
}

// accept takes the packet at ePSN in order.
func (r *RoCEReceiver) accept(psn uint32) {
	if psn == r.npkts-1 {
		r.flow.Delivered += r.flow.Size - int64(psn)*int64(r.mtu)
	} else {
		r.flow.Delivered += int64(r.mtu)
	}
	r.ePSN++
}

func (r *RoCEReceiver) ack(now sim.Time, syndrome uint8, psn uint32) {
	r.send(now, r.control(now, syndrome, psn))
}

// control builds an acknowledgement: an ACK of every PSN up to psn, or a NAK of psn.
func (r *RoCEReceiver) control(now sim.Time, syndrome uint8, psn uint32) *topology.Packet {
	kind := topology.KindAck
	if syndrome != topology.SyndromeACK {
		kind = topology.KindNak
	}
	p := r.dst.pool.Get(kind)
	ib := p.IB()
	r.frame(p, true)
	ib.Opcode = topology.OpAcknowledge
	ib.HasAETH, ib.Syndrome, p.PSN = true, syndrome, psn
	ib.MSN = 0
	if syndrome == topology.SyndromeACK && psn == r.npkts-1 {
		ib.MSN = 1
	}
	if r.persistent {
		ib.MSN = uint32(r.msgs) & 0xFFFFFF // AETH MSN, 24 bits: the messages completed (docs/model.md section 16)
	}
	if r.echo != nil {
		p.INT, r.echo = r.echo, nil // HPCC: the responder echoes the telemetry
	}
	ib.BECN = r.ce
	p.SentAt = now
	return p
}

// send seals an acknowledgement and queues it.
func (r *RoCEReceiver) send(now sim.Time, p *topology.Packet) {
	p.Seal()
	r.sinceAck = 0
	r.nic.sendControl(now, p)
}

// cnp sends a congestion notification to the requester: a RoCE v2 packet with BTH opcode
// 0x81 and 16 reserved bytes, at the CNP priority (IBA annex A17).
func (r *RoCEReceiver) cnp(now sim.Time) {
	p := r.dst.pool.Get(topology.KindCNP)
	r.frame(p, true)
	p.IB().Opcode = topology.OpCNP
	p.Priority = r.cfg.CNPPriority
	p.DSCP = r.cfg.CNPPriority << 3
	p.SentAt = now
	p.Seal()
	r.nic.sendControl(now, p)
}

func (r *RoCEReceiver) cnps() int64 {
	if r.np != nil {
		return r.np.CNPs
	}
	return 0
}

func (s *RoCESender) slot() *schedSlot { return &s.sched }
func (s *RoCESender) stop()            { s.over = true; s.timer.stop() }
func (s *RoCESender) class() uint8     { return s.priority }
func (s *RoCESender) hash() uint32     { return s.dataHash }
func (s *RoCESender) rate() sim.Rate   { return s.Rate() }

// onControl takes the responder's ACKs, NAKs and CNPs.
func (s *RoCESender) onControl(now sim.Time, p *topology.Packet) {
	if p.Kind == topology.KindCNP {
		if !s.over {
			s.cc.signal(ccSignal{event: ccNotified, now: now, una: int64(s.una), next: int64(s.sndNxt), flight: int64(s.sndNxt - s.una)})
		}
		return
	}
	s.onAck(now, p)
}
