package transports

import (
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// IWARPReceiver is the receiving side: the passive side of the set-up (it answers every SYN
// with a SYN-ACK and every MPA Request with an MPA Reply, so the active side's timers recover
// their loss), reassembly of FPDUs in sequence order, delayed and selective ACKs, and the ECN
// echo.
type IWARPReceiver struct {
	tcpConn
	ra       reassembly // in segments; on a persistent connection in stream bytes
	ends     []int64    // persistent: the stream offsets past the messages' last FPDUs heard of, not complete, ascending
	msgs     int64      // persistent: the messages completed
	pending  int        // in-order segments not yet acknowledged
	lastAck  int64      // the segment index the latest ACK named (RFC 7323 Last.ACK.sent)
	ackTimer alarm      // the delayed-ACK timer
	eceState bool       // classic: echo ECE until CWR; DCTCP: the CE state of the last segment
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
			r.dst.at(due, r, tcpOpRx, nil)
		}
	case tcpOpDelAck:
		if r.ackTimer.expired(now) {
			r.ack(now)
		}
	}
}

// onData takes the sender's segments as they arrive: they reach TCP after the NIC's
// processing delay.
func (r *IWARPReceiver) onData(now sim.Time, p *topology.Packet) {
	if r.cfg.NICDelay == 0 {
		r.process(now, p)
		return
	}
	if r.rx.push(p, now+r.cfg.NICDelay) {
		r.dst.at(now+r.cfg.NICDelay, r, tcpOpRx, nil)
	}
}

// process takes a segment once the NIC has handed it to TCP: the SYN, the MPA Request, an
// FPDU.
func (r *IWARPReceiver) process(now sim.Time, p *topology.Packet) {
	th := p.TCP()
	switch {
	case th.Flags&topology.TCPFlagSYN != 0:
		r.synAck(now, p)
	case th.MPA == topology.MPARequest:
		r.tsRecent = th.TSVal
		r.mpaReply(now)
	case th.MPA == topology.MPAFPDU:
		r.fpdu(now, p)
	}
	// A pure ACK (the handshake's third segment) needs nothing.
}

// fpdu takes a data segment: the ECN echo, reassembly, and the ACK policy: every second
// in-order segment at once, a lone one after DelayedAck, and at once the segment that
// completes the message, one out of order (a duplicate ACK with SACK blocks), one that fills
// a gap and a duplicate (RFC 5681 section 4.2, RFC 1122 4.2.3.2).
func (r *IWARPReceiver) fpdu(now sim.Time, p *topology.Packet) {
	if r.flow.Persistent {
		r.fpduStream(now, p)
		return
	}
	th := p.TCP()
	ref := r.base + r.lay.Start(r.ra.nxt)
	k := r.lay.Covered(unwrap(ref, th.Seq-r.isn) - r.base)
	r.echoCE(now, p)
	if r.cfg.Timestamps && k <= r.lastAck && int32(th.TSVal-r.tsRecent) >= 0 {
		r.tsRecent = th.TSVal // RFC 7323 section 4.3
	}
	before := r.ra.nxt
	advanced, _, filled := r.ra.add(k, r.maxBlocks)
	if advanced == 0 {
		r.ack(now)
		return
	}
	r.flow.Delivered += r.lay.PayloadBetween(before, r.ra.nxt)
	if r.ra.nxt == r.lay.Segments() {
		r.reg.complete(r.index, now)
		r.ack(now)
		return
	}
	r.held(now, filled)
}

// held is the ACK policy for an in-order segment that did not complete the message: every
// second one at once, one that filled a gap at once, else the delayed-ACK timer.
func (r *IWARPReceiver) held(now sim.Time, filled bool) {
	r.pending++
	if filled || r.pending >= 2 || r.cfg.DelayedAck == 0 {
		r.ack(now)
		return
	}
	if !r.ackTimer.running() {
		r.ackTimer.set(now + r.cfg.DelayedAck)
	}
}

// echoCE updates the ECN echo for data segment p: classic ECN echoes CE until a CWR;
// DCTCP follows each segment's CE, acknowledging at once what came before a change.
func (r *IWARPReceiver) echoCE(now sim.Time, p *topology.Packet) {
	th := p.TCP()
	ce := p.ECN == topology.ECNCE
	switch r.cfg.ECN {
	case ECNClassic:
		if th.Flags&topology.TCPFlagCWR != 0 {
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
}

// ack sends an ACK for everything in order, with the SACK blocks and the ECN echo.
func (r *IWARPReceiver) ack(now sim.Time) {
	p := r.dst.pool.Get(topology.KindAck)
	th := p.TCP()
	r.frame(p, r.dst, r.src, r.ackHash, topology.TCPPortIWARP, r.sport)
	th.Seq = r.irs + uint32(r.rlen)
	th.AckNum = r.isn + uint32(r.base+r.offset(r.ra.nxt, false))
	th.Flags = topology.TCPFlagACK
	if r.eceState {
		th.Flags |= topology.TCPFlagECE
	}
	if r.cfg.SACK {
		for _, b := range r.ra.recent[:r.ra.nrecent] {
			if int(th.SACKBlocks) == r.maxBlocks {
				break
			}
			th.SACK[th.SACKBlocks] = [2]uint32{r.isn + uint32(r.base+r.offset(b.lo, false)), r.isn + uint32(r.base+r.offset(b.hi, true))}
			th.SACKBlocks++
		}
	}
	th.TSVal, th.TSEcr = tsClock(now), r.tsRecent
	p.SentAt = now
	p.Seal()
	r.pending, r.lastAck = 0, r.ra.nxt
	r.ackTimer.stop()
	r.dst.sendControl(now, p)
}

func (r *IWARPReceiver) cnps() int64 { return 0 }
