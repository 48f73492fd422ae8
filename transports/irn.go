package transports

import (
	"fmt"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// IRNParams configures IRN, the improved RoCE NIC of Mittal et al., "Revisiting Network
// Support for RDMA", SIGCOMM 2018 (section 3): selective retransmission instead of go-back-N,
// packets in flight capped at the path's bandwidth-delay product (BDP-FC), and two retransmit
// timeouts. The paper's main text could not be retrieved where this was written; the
// mechanism follows its section 3.1 as summarised in docs/model.md section 5, and the
// defaults are those its evaluation uses (as a later implementation records them).
type IRNParams struct {
	// RTOLow is the retransmit timeout while fewer than RTOLowPackets packets are in flight,
	// when too few follow a loss to reveal it by a NAK (IRN: RTO_low, 100 us).
	RTOLow sim.Time
	// RTOHigh is the retransmit timeout otherwise, an estimate of the largest round trip
	// (IRN: RTO_high, 320 us).
	RTOHigh sim.Time
	// RTOLowPackets is IRN's N: RTO_low applies below N packets in flight (3).
	RTOLowPackets int
	// ReorderThreshold is how far beyond a PSN a selectively acknowledged one must be for the
	// PSN to count as lost: 1 (or 0) is IRN's rule, a NAK for any later packet; k tolerates
	// reordering by fewer than k packets, as TCP's DupThresh does (RFC 6675, DupThresh 3),
	// for fabrics that spray a flow's packets over paths of different queueing delay.
	ReorderThreshold int
	// BDPCap is the most packets the requester keeps outstanding (sent and not cumulatively
	// acknowledged): BDP-FC. Registry.SetPath computes it from the flow's path
	// (RoCEConfig.BDPCap): BDPCapBytes in whole packets, or, when 0, the packets that fill the
	// path for a round trip. 0 leaves it uncapped.
	BDPCap      int
	BDPCapBytes int64
}

// validate reports a value IRN cannot run with.
func (p *IRNParams) validate() error {
	switch {
	case p.RTOLow <= 0 || p.RTOHigh <= 0:
		return fmt.Errorf("IRN timeouts RTO_low %v and RTO_high %v: both must be positive", p.RTOLow, p.RTOHigh)
	case p.RTOLowPackets < 0:
		return fmt.Errorf("IRN N (RTO_low below N packets in flight) %d: it must not be negative", p.RTOLowPackets)
	case p.BDPCap < 0:
		return fmt.Errorf("IRN BDP cap %d packets: it must not be negative", p.BDPCap)
	case p.ReorderThreshold < 0:
		return fmt.Errorf("IRN reorder threshold %d packets: it must not be negative", p.ReorderThreshold)
	}
	return nil
}

// irnSender is the selective-repeat state of an IRN requester. The requester's sndNxt is the
// next new PSN (it never goes back) and una the cumulative acknowledgement.
//
// The responder NAKs every out-of-order packet with the cumulative acknowledgement and the
// PSN that arrived (a one-packet SACK); the requester records that PSN in sacked. The rules
// are IRN's section 3.1, as docs/model.md section 5 gives them: a NAK or a timeout puts the
// requester in recovery; the first packet it resends is the one at una, and a later one is
// lost only if a higher PSN has been selectively acknowledged; it resends the lost packets,
// each once, ahead of new packets, and when none is left sends new packets within the BDP
// cap; recovery ends when the cumulative acknowledgement passes recoverSeq, the last new
// packet sent before it began. A timeout is the one event that says more: no response came for a whole RTO, so
// every outstanding packet not selectively acknowledged is lost, and the pass starts again
// at una, as the IB timer's expiry means (IBA o9-85: it detects the persistent absence of
// responses) and as ConWeave's ns-3 IRN does (conweave-project/conweave-ns3,
// src/point-to-point/model/rdma-hw.cc, RdmaHw::HandleTimeout, lines 855-876: "Assume
// Outstanding Packets are lost"; RecoverQueue, line 710, goes back to snd_una, and
// rdma-queue-pair.cc, RdmaQueuePair::GetBytesLeft, lines 94-106, skips what was SACKed).
// Without it a timeout resent the packet at una alone, and a flow whose tail was lost
// whole (an incast's) regained one packet per timeout. A lost retransmission is found by
// the timeout: the SACKs above it were counted when its hole was revealed.
type irnSender struct {
	p           IRNParams
	ackInterval int    // the responder's (RoCEConfig.AckInterval)
	sacked      psnSet // PSNs at or above una the responder holds
	lostBelow   uint32 // in recovery, an unacknowledged PSN below this one is lost
	retxNext    uint32 // the next PSN recovery looks at
	recoverSeq  uint32
	recovery    bool
	// trimmed are the PSNs switches trimmed (a NAK flagged trimmed names each), resent
	// first and each alone, in the order reported, from trimHead on; trimResent are those
	// resent so, which recovery does not resend again (a timeout forgets them).
	trimmed    []uint32
	trimHead   int
	trimResent psnSet
	fromTrim   bool // next chose trimmed[trimHead]
}

// next is the next trimmed packet, else the next lost one, else a new one within the BDP cap.
func (ir *irnSender) next(q *roceSeq) (uint32, int) {
	if psn, ok := ir.nextTrimmed(q.una); ok {
		return psn, sendResend
	}
	if lost, ok := ir.nextLost(q.una); ok {
		return lost, sendResend
	}
	if q.sndNxt < q.total && ir.mayAdmit(q.sndNxt-q.una) {
		return q.sndNxt, sendNew
	}
	return 0, sendNone
}

// sending moves recovery past a resent packet; a new packet that fills a BDP cap below the
// ACK interval asks for an ACK (see fills).
func (ir *irnSender) sending(q *roceSeq, psn uint32, kind int) bool {
	if kind == sendResend && ir.fromTrim {
		ir.trimHead++
		ir.trimResent.add(psn)
		return false
	}
	if kind == sendResend {
		ir.retxNext = psn + 1
		return false
	}
	return ir.fills(psn+1-q.una, ir.ackInterval)
}

// onAck takes an ACK or NAK: the cumulative acknowledgement moves una (and may end
// recovery); a NAK's selectively acknowledged PSN marks those below it lost and starts
// recovery. Progress restarts the timer, which is then RTO_low or RTO_high.
func (ir *irnSender) onAck(q *roceSeq, p *topology.Packet) ackActions {
	var a ackActions
	ib := p.IB()
	acked := ackedThrough(p)
	progress := acked > q.una
	if progress {
		q.una = acked
		a |= ackProgress
		ir.acked(acked)
	}
	switch {
	case q.una >= q.total:
		// Everything is acknowledged: a NAK that arrives now was overtaken by a later ACK
		// (replies sprayed over planes or paths reorder), and names nothing to resend.
	case ib.Syndrome == topology.SyndromeNAKSequence && ib.HasSACK && p.Trimmed:
		ir.trimmed = append(ir.trimmed, ib.SACKPSN)
	case ib.Syndrome == topology.SyndromeNAKSequence && ib.HasSACK:
		ir.nak(q.una, q.sndNxt, ib.SACKPSN)
	}
	switch {
	case q.una >= q.total:
		return a | ackStop // all acknowledged
	case q.una == q.maxSent:
		a |= ackStop // nothing outstanding: the next packet sent arms the timer
	case progress:
		a |= ackRestart
	}
	return a | ackSendIfData
}

// timedOut resends what the responder does not hold; new packets keep their PSNs.
func (ir *irnSender) timedOut(q *roceSeq) { ir.timedOutAt(q.una, q.sndNxt) }

// rto is RTO_low or RTO_high by the packets in flight.
func (ir *irnSender) rto(q *roceSeq) sim.Time { return ir.rtoFor(q.maxSent - q.una) }

func (ir *irnSender) timeouts() string {
	return fmt.Sprintf("%v (RTO_low) or %v (RTO_high)", ir.p.RTOLow, ir.p.RTOHigh)
}

// nak takes a NAK whose selectively acknowledged PSN is psn, with una and sndNxt as they
// stand after its cumulative acknowledgement: every unacknowledged PSN below psn is lost
// (below psn - ReorderThreshold + 1 with a threshold), and recovery begins, unless it is on,
// with the packet at una.
func (ir *irnSender) nak(una, sndNxt, psn uint32) {
	ir.sacked.add(psn)
	if k := uint32(max(ir.p.ReorderThreshold, 1)); k > 1 {
		if psn < una+k {
			return // reordered by fewer than k packets, perhaps
		}
		psn -= k - 1
	}
	if !ir.recovery {
		ir.recovery, ir.recoverSeq, ir.retxNext = true, sndNxt-1, una
		ir.lostBelow = max(ir.lostBelow, una+1)
	}
	ir.lostBelow = max(ir.lostBelow, psn)
}

// timedOutAt takes a retransmit timeout with una and sndNxt: every outstanding PSN not
// selectively acknowledged is lost, and recovery starts (again) at una, for what was sent
// before now.
func (ir *irnSender) timedOutAt(una, sndNxt uint32) {
	ir.trimResent.clearAll()
	ir.recovery, ir.recoverSeq, ir.retxNext = true, sndNxt-1, una
	ir.lostBelow = max(ir.lostBelow, sndNxt)
}

// nextTrimmed returns the next trimmed PSN to resend, skipping those acknowledged since;
// false when there is none.
func (ir *irnSender) nextTrimmed(una uint32) (uint32, bool) {
	ir.fromTrim = false
	for ir.trimHead < len(ir.trimmed) {
		if p := ir.trimmed[ir.trimHead]; p >= una && !ir.sacked.has(p) {
			ir.fromTrim = true
			return p, true
		}
		ir.trimHead++
	}
	ir.trimmed, ir.trimHead = ir.trimmed[:0], 0 // reuse the space: no allocation per trim
	return 0, false
}

// nextLost returns the next PSN recovery resends, or false when none is due now.
func (ir *irnSender) nextLost(una uint32) (uint32, bool) {
	if !ir.recovery {
		return 0, false
	}
	p := max(ir.retxNext, una)
	for p < ir.lostBelow && (ir.sacked.has(p) || ir.trimResent.has(p)) {
		p++
	}
	ir.retxNext = p
	return p, p < ir.lostBelow
}

// acked advances the cumulative acknowledgement to una and ends recovery once it passes
// recoverSeq.
func (ir *irnSender) acked(una uint32) {
	ir.sacked.advance(una)
	ir.trimResent.advance(una)
	if ir.recovery && una > ir.recoverSeq {
		ir.recovery = false
	}
}

// rtoFor is the retransmit timeout for inFlight packets outstanding.
func (ir *irnSender) rtoFor(inFlight uint32) sim.Time {
	if inFlight < uint32(ir.p.RTOLowPackets) {
		return ir.p.RTOLow
	}
	return ir.p.RTOHigh
}

// mayAdmit reports whether BDP-FC lets a new packet go with inFlight outstanding.
func (ir *irnSender) mayAdmit(inFlight uint32) bool {
	return ir.p.BDPCap == 0 || inFlight < uint32(ir.p.BDPCap)
}

// fills reports whether a new packet that brings the packets outstanding to outstanding fills
// a BDP cap smaller than the responder's ACK interval: then the requester asks for an ACK on
// it (BTH AckReq, IBA 9.2.3), since the responder's coalesced ACK, one per ackInterval
// packets, would never come and the flow would wait for a timeout at every cap. With a cap
// of at least ackInterval packets (the automatic cap adds ackInterval - 1 to the path's
// BDP) the coalesced ACKs keep coming and nothing is asked.
func (ir *irnSender) fills(outstanding uint32, ackInterval int) bool {
	c := ir.p.BDPCap
	return c > 0 && c < ackInterval && outstanding >= uint32(c)
}

// psnSet is a set of PSNs at or above base, a ring of bits that grows when a PSN falls beyond
// it. It allocates nothing until the first PSN is added: a flow without loss never pays for it.
type psnSet struct {
	base uint32   // no PSN below it is held
	bits []uint64 // PSN q is bit q mod span, for q in [base, base+span)
	n    int      // PSNs held
}

func (s *psnSet) span() uint32 { return uint32(len(s.bits)) * 64 }

func (s *psnSet) bit(q uint32) (word int, mask uint64) {
	i := q & (s.span() - 1)
	return int(i >> 6), 1 << (i & 63)
}

// has reports whether q is in the set.
func (s *psnSet) has(q uint32) bool {
	if s.n == 0 || q < s.base || q-s.base >= s.span() {
		return false
	}
	w, m := s.bit(q)
	return s.bits[w]&m != 0
}

// add puts q in the set; a PSN below base is ignored.
func (s *psnSet) add(q uint32) {
	if q < s.base {
		return
	}
	for q-s.base >= s.span() {
		s.grow()
	}
	w, m := s.bit(q)
	if s.bits[w]&m == 0 {
		s.bits[w] |= m
		s.n++
	}
}

// advance drops every PSN below to and makes to the base.
func (s *psnSet) advance(to uint32) {
	if to <= s.base {
		return
	}
	if s.n > 0 {
		if to-s.base >= s.span() {
			clear(s.bits)
			s.n = 0
		} else {
			for q := s.base; q < to && s.n > 0; q++ {
				if w, m := s.bit(q); s.bits[w]&m != 0 {
					s.bits[w] &^= m
					s.n--
				}
			}
		}
	}
	s.base = to
}

// clearAll empties the set, keeping its base and its space.
func (s *psnSet) clearAll() {
	clear(s.bits)
	s.n = 0
}

// grow doubles the span (at least 128 PSNs), keeping the PSNs held.
func (s *psnSet) grow() {
	old := *s
	s.bits = make([]uint64, max(2, 2*len(old.bits)))
	s.n = 0
	for q := old.base; old.n > 0 && q-old.base < old.span(); q++ {
		if old.has(q) {
			s.add(q)
			old.n--
		}
	}
}
