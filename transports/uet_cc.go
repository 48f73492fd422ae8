package transports

import (
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// UETCC is a UET flow's congestion control, part of UETConfig: the parameters of one scheme,
// whose type says which (*UETNSCC, *SwiftParams, *RCCC); nil is cc nscc, UET's default. A
// scheme checks itself and makes the sender's senderCC, whose window counts bytes (a packet's
// payload and its PDS and SES headers); what more it asks of the transport it says with an
// optional method of its own (RCCC's receiver credit: UETConfig.credit; a window the sender's
// SLEEK and credit target read: uetWindow; the path: uetPathUser; a pacing gap: uetPacer).
// A new scheme is a type in its own file with these two methods (docs/architecture.md).
type UETCC interface {
	// checkUET reports the first value that a flow of cfg cannot run with.
	checkUET(cfg *UETConfig) error
	// newUETCC returns the sender state of a flow of cfg from a NIC of line rate line, whose
	// packets carry hdr bytes of PDS and SES headers.
	newUETCC(cfg *UETConfig, line sim.Rate, hdr int64) senderCC
}

// uetWindow is a UET sender's window congestion control: its window and the largest it may
// reach, in bytes, which SLEEK's out-of-order allowance (uet_loss.go) and RCCC's credit target
// (uet_rccc.go) read.
type uetWindow interface {
	window() (cwnd, maxwnd int64)
}

// uetPathUser is a UET congestion control that reads the flow's path (Registry.SetPath): its
// unloaded RTT, the network's (the longest among the UET flows, Path.NetworkRTT) and its hops.
type uetPathUser interface {
	setUETPath(base, network sim.Time, p Path)
}

// uetPacer is a UET congestion control that holds the next packet for a time after each
// (Swift below one packet's window), where RoCE's take a pacing rate.
type uetPacer interface {
	gap() sim.Time
}

// UETNSCC is cc nscc: NSCC's window (uet_nscc.go); its parameters are UETConfig's
// TargetQDelay and QAGate.
type UETNSCC struct{}

func (*UETNSCC) checkUET(*UETConfig) error { return nil }

func (*UETNSCC) newUETCC(cfg *UETConfig, line sim.Rate, hdr int64) senderCC {
	return &uetNSCC{cfg: cfg, line: line, hdr: hdr}
}

// uetNSCC is cc nscc on the UET sender, as uet-htsim's UecSrc runs it (processAck,
// processNack, rtxTimerExpired). The sender gives:
//   - each ACK: the bytes the receiver newly reports received (they leave the flight), the
//     bytes in flight after its SACKs, its ECN echo and the RTT sample of the PSN that drew
//     it (Karn's rule), which lowers the base RTT and feeds the average delay; then NSCC's
//     per-ACK rule, whether or not the ACK reported new bytes;
//   - a NACK (a trimmed packet): its RTT sample for the base RTT, then NSCC's NACK rule with
//     the packet's bytes, the flight still counting them;
//   - a retransmit timeout: the packet's bytes off the window (mark_packet_for_retransmission).
//
// A data packet asks for an ACK at once (AR) when the window has no room for another of its
// size (sendNewPacket).
type uetNSCC struct {
	c    nscc
	cfg  *UETConfig
	line sim.Rate
	hdr  int64
}

// setUETPath starts NSCC for the flow's base RTT and the network's.
func (c *uetNSCC) setUETPath(base, network sim.Time, _ Path) {
	c.c.init(c.cfg, c.line, base, network, int64(c.cfg.MTU)+c.hdr)
}

func (c *uetNSCC) start() string          { return "" }
func (c *uetNSCC) rate() (sim.Rate, bool) { return 0, false }

func (c *uetNSCC) window() (cwnd, maxwnd int64) { return c.c.cwnd, c.c.maxwnd }

// windowOpen lets a packet go while the flight with it fits cwnd.
func (c *uetNSCC) windowOpen(flight int64) bool { return c.c.cwnd >= flight }

// sent asks for an ACK when another packet of this one's size would not fit the window.
func (c *uetNSCC) sent(p *topology.Packet, flight int64) {
	if flight+int64(p.Payload)+c.hdr >= c.c.cwnd {
		p.UET().AckReq = true
	}
}

// signal takes an ACK, a NACK or a timeout (the type's comment).
func (c *uetNSCC) signal(s ccSignal) ccAck {
	n := &c.c
	switch s.event {
	case ccAcked:
		n.received(s.acked)
		n.inflight = s.flight
		n.onAck(s.now, s.ece, n.sample(s.rtt, s.ece), s.acked)
	case ccLost:
		n.inflight = s.flight
		if s.rtt > 0 { // the NACK's sample, by Karn's rule (UETSender.onNack)
			n.updateBaseRTT(s.rtt)
		}
		n.onNack(s.now, s.size)
	case ccTimedOut:
		n.inflight = s.flight
		n.cwnd = max(n.cwnd-s.size, n.mtu)
	default:
		return 0
	}
	return ccWindow
}

// UETState is what a UET sender's congestion control holds now, for tests and the results:
// NSCC's state, Swift's window in bytes with the base RTT and maxwnd SLEEK reads, and the
// sender's flight and retransmit timeout under any scheme.
type UETState struct {
	Cwnd, MaxWnd, InFlight int64
	BaseRTT, AvgDelay      sim.Time
	TargetQDelay           sim.Time
	RTO                    sim.Time
}

// UETOf is flow i's congestion-control state, false when flow i is no UET flow.
func (r *Registry) UETOf(i int32) (UETState, bool) {
	s, ok := r.senders[i].(*UETSender)
	if !ok {
		return UETState{}, false
	}
	st := UETState{InFlight: s.inflight, BaseRTT: s.baseRTT, RTO: s.rto}
	switch c := s.cc.(type) {
	case *uetNSCC:
		st.Cwnd, st.MaxWnd, st.BaseRTT, st.AvgDelay, st.TargetQDelay = c.c.cwnd, c.c.maxwnd, c.c.baseRTT, c.c.avgDelay, c.c.p.target
	case *uetSwift:
		st.Cwnd, st.MaxWnd, st.BaseRTT = c.cwnd, c.maxwnd, c.base
	}
	return st, true
}
