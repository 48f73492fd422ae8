package transports

import (
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// ccEvent is what a congestion control is told happened (ccSignal.event).
type ccEvent uint8

const (
	// ccAcked is an acknowledgement: what it acknowledges cumulatively, its ECN echo, its
	// telemetry.
	ccAcked ccEvent = iota
	// ccLost is a negative acknowledgement: a packet lost, or, with ccSignal.trimmed, cut to
	// its headers by a trimming switch (a signal of its own: the network is full, not lossy).
	ccLost
	// ccNotified is a congestion notification (DCQCN's CNP from the notification point).
	ccNotified
	// ccTimedOut is a retransmit timeout the flow survives (retries are left).
	ccTimedOut
)

// ccSignal is one event as a sender's congestion control sees it, whatever packet brought it:
// the transport fills it in from its acknowledgement, NAK, notification or timer, and obeys
// the window or pacing rate the congestion control then gives (issue 39's common signal).
// Sequence numbers count packets. A congestion control reads what its rule needs and ignores
// the rest; none keeps the signal.
type ccSignal struct {
	event ccEvent
	now   sim.Time
	// una and next are the sender's cumulative acknowledgement and next new packet after the
	// event.
	una, next uint32
	// psn is the packet the acknowledgement answers: the one whose arrival made the receiver
	// send it (a delay sample's packet), or the NAKed one.
	psn uint32
	// ece is the acknowledgement's ECN echo: the packets it acknowledges came marked.
	ece bool
	// trimmed says a ccLost packet was trimmed, not dropped.
	trimmed bool
	// telemetry is the in-band telemetry the acknowledgement echoes (HPCC), or nil.
	telemetry *topology.INT
	// rtt is the acknowledgement's RTT sample: its arrival less the send time of packet psn,
	// 0 when it gives none (a NAK, a resent packet, or a transport that keeps no send times
	// for this congestion control: sendTimes).
	rtt sim.Time
}

// roceSignal is the signal of a RoCE acknowledgement or NAK p, with the requester's una and
// next new PSN after loss recovery took it.
func roceSignal(now sim.Time, p *topology.Packet, una, next uint32) ccSignal {
	s := ccSignal{event: ccAcked, now: now, una: una, next: next, psn: p.PSN,
		ece: p.IB().BECN, trimmed: p.Trimmed, telemetry: p.INT}
	if p.Kind == topology.KindNak {
		s.event = ccLost
	}
	return s
}
