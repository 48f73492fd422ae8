package transports

import (
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// senderCC is a sender's congestion control, whatever the transport (issue 39): the RoCE
// requester, the TCP sender of an iWARP connection and the UET sender each hold one, ask it
// for its pacing rate and whether its window lets a packet go, and tell it about each data
// packet sent and each event as a ccSignal: an acknowledgement (with the ECN echo, RTT sample
// or telemetry it carries), a loss (a NAK, a trimmed packet's NACK, TCP's entry into fast
// recovery), a congestion notification, a retransmit timeout. The transport decides when an
// event happens and keeps its loss recovery (what to resend, TCP's fast recovery and RTO
// states); the congestion control decides what the event does to the rate and the window.
// None of its methods allocates.
//
// The window is counted in the transport's unit: packets on RoCE, segments on TCP, bytes on
// UET (a packet's payload and its PDS and SES headers). A scheme offered on a transport is an
// adapter in its own file over the scheme's core, which knows that unit (docs/architecture.md):
//
//	RoCE: none (cc_none.go), DCQCN's reaction point (dcqcn_cc.go), HPCC (hpcc.go), TIMELY
//	      (timely.go), Swift (swift.go), DCTCP (roce_dctcp.go), NSCC (roce_nscc.go)
//	TCP:  NewReno and DCTCP (tcp_cc.go, over newreno.go and dctcp.go)
//	UET:  NSCC (uet_cc.go, over uet_nscc.go), Swift (uet_swift.go), none under RCCC alone,
//	      whose credit is the receiver's (uet_rccc.go)
type senderCC interface {
	// start is the flow's start: "" when it may send, else why it cannot run.
	start() string
	// rate is the pacing rate now and true, or false when the congestion control does not
	// limit the flow below its line rate.
	rate() (sim.Rate, bool)
	// windowOpen reports whether one more packet may go: flight is what would be outstanding
	// with it, in the window's unit (RoCE asks only with a packet outstanding already).
	windowOpen(flight int64) bool
	// sent is a data packet leaving, sealed, with flight outstanding with it (RoCE: sndNxt -
	// una + 1, a resend counted as new; TCP: RFC 6675's pipe after it left; UET: the bytes in
	// flight): it may add headers (and seal again) or ask for an ACK (AckReq).
	sent(p *topology.Packet, flight int64)
	// signal is an event (cc_signal.go) after the transport's loss recovery has taken it. It
	// reports whether the window may have opened, whether the flow has stopped pacing and
	// whether it reduced the window for an ECN echo (ccAck).
	signal(s ccSignal) ccAck
}

// pacingRate is the rate a sender paces at: the lower of its flow's own limit (0: none) and
// its congestion control's rate, 0 for line rate. Every transport obeys it, so a rate-based
// scheme paces on any of them.
func pacingRate(flow sim.Rate, cc senderCC) sim.Rate {
	r := flow
	if c, ok := cc.rate(); ok && (r == 0 || c < r) {
		r = c
	}
	return r
}

// ccAck says what a signal did to a congestion control: ccWindow, its window may have opened
// (the sender goes back on the NIC's schedule if it has data); ccUnpace, it has stopped
// pacing, so the next packet need not wait for the gap the last one's pacing rate set;
// ccReduced, it cut the window for an ECN echo (TCP then sets CWR on its next new segment,
// RFC 3168 section 6.1.2).
type ccAck uint8

const (
	ccWindow ccAck = 1 << iota
	ccUnpace
	ccReduced
)
