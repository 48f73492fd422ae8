package transports

import (
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// UETReceiver is a UET flow's receiving side, uet-htsim's UecSink (htsim/sim/uec.cpp:
// processData, processTrimmed, sack, buildSackBitmap, sackBitmapBase, shouldSack): it takes
// packets in any order, keeps which PSNs beyond the cumulative one it holds, and acknowledges
// with the cumulative PSN and a 64-bit SACK bitmap once AckBytes have come since the last
// ACK, or at once for the first packet, an ECN-marked one, one that asks (AR), a duplicate,
// and, after an AR, when the out-of-order packets are all in; and at once when the sender
// asks with an ACK_REQ control packet (onRequest). A trimmed packet is NACKed at
// once (or SACKed when a copy is already here). RUD delivers each packet's payload where it
// belongs as it arrives: the flow completes when every PSN is in.
type UETReceiver struct {
	qp
	nic        *NIC
	ackBytes   int64
	ackPrio    uint8
	held       []bool // ring by PSN & (len - 1): received, for expected < PSN < expected + len
	expected   uint32 // the next PSN not received (the cumulative PSN)
	ooo        int    // packets held beyond expected
	gotAny     bool
	ackRequest bool
	accepted   int64  // bytes since the last ACK
	recvd      uint32 // bytes received, headers included (NSCC's rcvd_bytes), modulo 2^32
	rccc       bool   // the flow runs RCCC: the receiver's NIC grants it credit
	rc         rcccReceiver
	ends       []uint32 // persistent: one past the last PSN of each message heard of, not complete, ascending
	msgs       int64    // persistent: the messages completed
}

func newUETReceiver(q qp, nic *NIC, cfg UETConfig) *UETReceiver {
	return &UETReceiver{qp: q, nic: nic, ackBytes: cfg.AckBytes, ackPrio: cfg.AckPriority, held: make([]bool, 64), rccc: cfg.credit()}
}

func (r *UETReceiver) has(psn uint32) bool {
	return psn >= r.expected && psn-r.expected < uint32(len(r.held)) && r.held[psn&uint32(len(r.held)-1)]
}

func (r *UETReceiver) hold(psn uint32) {
	for psn-r.expected >= uint32(len(r.held)) {
		n := make([]bool, 2*len(r.held))
		for k := r.expected; k != r.expected+uint32(len(r.held)); k++ {
			n[k&uint32(len(n)-1)] = r.held[k&uint32(len(r.held)-1)]
		}
		r.held = n
	}
	r.held[psn&uint32(len(r.held)-1)] = true
}

func (r *UETReceiver) onData(now sim.Time, p *topology.Packet) {
	ue := p.UET()
	if p.Trimmed {
		r.trimmed(now, p)
		return
	}
	size := int64(p.Payload) + frames.UETHeaderBytes
	if ue.CCReq {
		size += topology.PDSRUDCCHeader - topology.PDSRUDHeader
		r.heard(now, ue.Credit)
	}
	r.accepted += size
	ce := p.ECN == topology.ECNCE
	if p.PSN < r.expected || r.has(p.PSN) {
		// A duplicate: the sender is confused, acknowledge at once.
		ref := r.sackBase(p.PSN)
		if ce {
			ref = p.PSN
		}
		r.sack(now, p, ref, ce)
		r.accepted = 0
		return
	}
	if r.persistent {
		r.learn(p.PSN, p.UET().Offset, p.UET().DMALen)
	}
	force := !r.gotAny
	r.gotAny = true
	r.recvd += uint32(size)
	r.flow.Delivered += int64(p.Payload)
	if ue.AckReq {
		force, r.ackRequest = true, true
	}
	if p.PSN == r.expected {
		r.expected++
		for r.has(r.expected) {
			r.held[r.expected&uint32(len(r.held)-1)] = false
			r.expected++
			r.ooo--
		}
		if r.ooo == 0 && r.ackRequest {
			force, r.ackRequest = true, false
		}
	} else {
		r.hold(p.PSN)
		r.ooo++
	}
	if r.persistent && r.messagesIn(now) {
		force = true
	}
	if r.expected == r.npkts && r.flow.receiverOpen() {
		r.reg.complete(r.index, now) // a collective's next messages wait for this (OnComplete)
		force = true
	}
	if ce || r.accepted >= r.ackBytes || force {
		ref := r.sackBase(p.PSN)
		if ce || ue.AckReq {
			ref = p.PSN
		}
		r.sack(now, p, ref, ce)
		r.accepted = 0
	}
}

// sackBase is the SACK bitmap's first PSN for an ACK drawn by psn: the 64 PSNs up to psn,
// but none at or below the cumulative one (sackBitmapBase).
func (r *UETReceiver) sackBase(psn uint32) uint32 {
	return uint32(max(int64(psn)-63, int64(r.expected)+1))
}

// trimmed answers a packet a switch cut to its headers (processTrimmed).
func (r *UETReceiver) trimmed(now sim.Time, p *topology.Packet) {
	ue := p.UET()
	if p.PSN < r.expected || r.has(p.PSN) {
		r.sack(now, p, r.sackBase(p.PSN), false)
		return
	}
	if ue.CCReq { // the sender resends: it wants credit for it (processTrimmed)
		r.asked(now, ue.Credit)
	}
	r.flow.NAKs++
	n := r.dst.pool.Get(topology.KindNak)
	r.frame(n, true)
	frames.UETStack(n)
	nu := n.UET()
	n.PSN, nu.Entropy, nu.ECNEcho, nu.Retx = p.PSN, ue.Entropy, p.ECN == topology.ECNCE, ue.Retx
	r.control(n, now)
	n.Seal()
	r.nic.sendControl(now, n)
}

// sack sends an ACK for data packet p with the SACK bitmap from PSN ref (sack,
// buildSackBitmap: bit i says PSN ref + i is held).
func (r *UETReceiver) sack(now sim.Time, p *topology.Packet, ref uint32, ce bool) {
	ue := p.UET()
	var bitmap uint64
	for i := range uint32(64) {
		if r.has(ref + i) {
			bitmap |= 1 << i
		}
	}
	a := r.dst.pool.Get(topology.KindAck)
	r.frame(a, true)
	frames.UETStack(a)
	au := a.UET()
	a.PSN, au.CumPSN, au.SACKBase, au.SACKBitmap = p.PSN, r.expected, ref, bitmap
	au.RecvdBytes, au.OOO = r.recvd, uint16(min(r.ooo, 0xFFFF))
	au.ECNEcho, au.Retx, au.Entropy = ce, ue.Retx, ue.Entropy
	au.AckRequest = p.Kind == topology.KindCredit // it answers an ACK_REQ
	r.control(a, now)
	a.Seal()
	r.nic.sendControl(now, a)
}

// control puts an ACK or NACK in the ACK class (its DSCP the class selector, RFC 2474).
func (r *UETReceiver) control(p *topology.Packet, now sim.Time) {
	p.Priority, p.DSCP = r.ackPrio, r.ackPrio<<3
	p.SentAt = now
}

func (r *UETReceiver) cnps() int64 { return 0 }

// onRequest takes a PDS control packet from the sender: a CREDIT_REQ (the sender has no
// credit and something to send: processRts) or an ACK_REQ, which it answers with an ACK at
// once, whatever it holds back for coalescing (uet.go, askForAck).
func (r *UETReceiver) onRequest(now sim.Time, p *topology.Packet) {
	if ue := p.UET(); ue.CreditRequest {
		r.asked(now, ue.Credit)
		return
	}
	r.sack(now, p, r.sackBase(max(p.PSN, r.expected)), false)
	r.accepted = 0
}
