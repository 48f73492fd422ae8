package transports

import (
	"errors"
	"fmt"
	"math"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// NSCCParams are cc nscc's on a RoCE queue pair: the Ultra Ethernet transport's NSCC
// (uet_nscc.go, after uet-htsim) run by the requester as a window of bytes, on the ECN echo
// each ACK carries in its BTH BECN bit (as cc dctcp's) and the RTT sample of the packet that
// drew it.
type NSCCParams struct {
	// TargetQDelay is the target queueing delay; 0: the flow's unloaded RTT (uet-htsim
	// initNsccParams without trimming: one network RTT).
	TargetQDelay sim.Time
	// QAGate is quick adapt's gate: it cuts the window only if the bytes acknowledged in its
	// period are below maxwnd / 2^QAGate (uet-htsim initNsccParams: 3).
	QAGate int
}

func (p *NSCCParams) check(version int) error {
	if version == 1 {
		return errors.New("NSCC over RoCE v1: it needs ECN marks, and RoCE v1 frames carry no IP header")
	}
	return p.validate()
}

func (*NSCCParams) echoesECN() {}

func (p *NSCCParams) newCC(_ *NIC, cfg *RoCEConfig, line sim.Rate, _ sim.Time, npkts uint32) senderCC {
	return &roceNSCC{p: *p, mss: int64(cfg.MTU), wire: frames.RoCEWireBytes(cfg.Version, int64(cfg.MTU), false),
		line: line, npkts: npkts}
}

func (p *NSCCParams) validate() error {
	switch {
	case p.TargetQDelay < 0:
		return fmt.Errorf("NSCC target queueing delay %v: it is not negative (0: the path's RTT)", p.TargetQDelay)
	case p.QAGate < 0 || p.QAGate > 62:
		return fmt.Errorf("NSCC quick adapt gate %d: from 0 to 62", p.QAGate)
	}
	return nil
}

// roceNSCC is cc nscc on the requester. The window is NSCC's, in bytes of the wire: a data
// packet counts as a full one (wire bytes of an MTU's payload), so the window holds
// floor(cwnd / wire) packets, at least one (NSCC's least window is a packet). Its network RTT
// (the scaling of its gains and its default target) is the flow's own unloaded RTT, given
// with the path (Registry.SetPath): RoCE has no network-wide RTT as uet-htsim's
// network_max_unloaded_rtt. Every data packet asks for an ACK at once (BTH AckReq), as
// every UET packet draws one, so each ACK's RTT is its own packet's. The requester gives:
//   - an ACK: the bytes it newly acknowledges leave the flight, its RTT sample lowers the base
//     RTT and feeds the average delay, then NSCC's per-ACK rule (uet-htsim processAck);
//   - a NAK for a trimmed packet: NSCC's NACK rule (processNack);
//   - a NAK for a lost packet, or a retransmit timeout: the packet's bytes off the window,
//     as uet-htsim's mark_packet_for_retransmission does for a loss it finds itself.
type roceNSCC struct {
	c     nscc
	p     NSCCParams
	mss   int64 // payload bytes of a full packet
	wire  int64 // its wire bytes
	line  sim.Rate
	npkts uint32
	una   uint32
	ready bool // the path has been given
}

// setPath starts NSCC for the flow's unloaded RTT and gives the requester the send times its
// RTT samples need.
func (c *roceNSCC) setPath(s *RoCESender, p Path) {
	s.times = c.begin(p.RoundTrip(c.wire, frames.RoCEAckWireBytes(s.cfg.Version)))
}

// begin starts NSCC for the flow's unloaded RTT base and returns the send times its RTT
// samples need: room for maxwnd's packets and two more, or the flow's packets if fewer. An
// unknown RTT (0: no reverse path) leaves it unstarted, and the flow fails at its start.
func (c *roceNSCC) begin(base sim.Time) *sendTimes {
	if base <= 0 {
		return nil
	}
	cfg := UETConfig{MTU: int(c.mss), TargetQDelay: c.p.TargetQDelay, QAGate: c.p.QAGate}
	c.c.init(&cfg, c.line, base, base, c.wire)
	c.ready = true
	n := math.Ceil(float64(c.c.maxwnd)/float64(c.wire)) + 2
	return newSendTimes(int(min(n, float64(c.npkts))))
}

func (c *roceNSCC) start() string {
	if !c.ready {
		return "cc nscc without the flow's path: NSCC needs its base RTT (Registry.SetPath)"
	}
	return ""
}

func (c *roceNSCC) rate() (sim.Rate, bool) { return 0, false }

// windowOpen lets a new packet go while the flight with it fits cwnd.
func (c *roceNSCC) windowOpen(flight int64) bool {
	return flight*c.wire <= c.c.cwnd
}

// sent asks for an ACK at once.
func (c *roceNSCC) sent(p *topology.Packet, _ int64) { p.IB().AckReq = true }

// signal takes an ACK, a NAK or a timeout (the type's comment); the window may have opened.
func (c *roceNSCC) signal(s ccSignal) ccAck {
	n := &c.c
	n.inflight = (s.next - int64(c.una)) * c.wire
	switch s.event {
	case ccNotified:
		return 0
	case ccTimedOut:
		n.cwnd -= c.wire
		n.bounds()
		return ccWindow
	}
	var newly int64
	if una := uint32(s.una); una > c.una {
		newly, c.una = int64(una-c.una)*c.wire, una
	}
	n.received(newly)
	if s.event == ccLost {
		if s.trimmed {
			n.onNack(s.now, c.wire)
		} else {
			n.cwnd -= c.wire
			n.bounds()
		}
		return ccWindow
	}
	delay := n.sample(s.rtt, s.ece)
	if newly > 0 {
		n.onAck(s.now, s.ece, delay, newly)
	}
	return ccWindow
}

// NSCCOf is RoCE flow i's NSCC window (bytes), its average queueing delay and target, and
// false for a flow without cc nscc.
func (r *Registry) NSCCOf(i int32) (cwnd int64, avgDelay, target sim.Time, ok bool) {
	if s, ok := r.senders[i].(*RoCESender); ok {
		if c, ok := s.cc.(*roceNSCC); ok {
			return c.c.cwnd, c.c.avgDelay, c.c.p.target, true
		}
	}
	return 0, 0, 0, false
}
