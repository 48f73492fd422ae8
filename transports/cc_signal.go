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
	// ccLost is a loss: a negative acknowledgement of a packet lost or, with
	// ccSignal.trimmed, cut to its headers by a trimming switch (a signal of its own: the
	// network is full, not lossy); on TCP, the sender's entry into fast recovery.
	ccLost
	// ccNotified is a congestion notification (DCQCN's CNP from the notification point).
	ccNotified
	// ccTimedOut is a retransmit timeout the flow survives (retries are left).
	ccTimedOut
)

// ccPhase is the sender's loss recovery state, as TCP's congestion control must know it
// (RFC 5681, 6675): the window grows in ccOpen and ccRestart, is held in ccFastRecovery, and
// answers an ECN echo only in ccOpen. RoCE and UET keep no such state for their congestion
// controls: their signals are ccOpen.
type ccPhase uint8

const (
	ccOpen         ccPhase = iota // no loss outstanding
	ccFastRecovery                // fast recovery, or the ACK that enters or ends it
	ccRestart                     // slow start from one segment after a retransmit timeout
)

// ccSignal is one event as a sender's congestion control sees it, whatever packet brought it:
// the transport fills it in from its acknowledgement, NAK, notification or timer, and obeys
// the window or pacing rate the congestion control then gives (issue 39's common signal).
// Sequence numbers count packets (TCP: segments); amounts are in the window's unit (senderCC:
// packets, segments, or UET's bytes). A congestion control reads what its rule needs and
// ignores the rest; none keeps the signal.
type ccSignal struct {
	event ccEvent
	now   sim.Time
	// una and next are the sender's cumulative acknowledgement and next new packet after the
	// event.
	una, next int64
	// psn is the packet the acknowledgement answers: the one whose arrival made the receiver
	// send it (a delay sample's packet), or the NAKed one.
	psn uint32
	// ece is the acknowledgement's ECN echo: the packets it acknowledges came marked.
	ece bool
	// trimmed says a ccLost packet was trimmed, not dropped.
	trimmed bool
	// phase is the sender's loss recovery state (TCP; ccOpen elsewhere).
	phase ccPhase
	// acked is what the acknowledgement newly delivered, cumulatively or selectively (TCP's
	// SACKed segments, UET's bytes the receiver reports received); RoCE's congestion controls
	// count it from una.
	acked int64
	// flight is what is outstanding after the event (TCP: RFC 6675's pipe; UET: the bytes in
	// flight; RoCE: next - una).
	flight int64
	// size is a ccLost or ccTimedOut packet's size in the window's unit (UET: its bytes; 0
	// where every packet counts as one).
	size int64
	// telemetry is the in-band telemetry the acknowledgement echoes (HPCC), or nil.
	telemetry *topology.INT
	// rtt is the acknowledgement's RTT sample: its arrival less the send time of packet psn,
	// 0 when it gives none (a resent packet by Karn's rule, or a transport that keeps no send
	// times for this congestion control: sendTimes). UET gives a NACK's sample too.
	rtt sim.Time
}

// roceSignal is the signal of a RoCE acknowledgement or NAK p, with the requester's una and
// next new PSN after loss recovery took it.
func roceSignal(now sim.Time, p *topology.Packet, una, next uint32) ccSignal {
	s := ccSignal{event: ccAcked, now: now, una: int64(una), next: int64(next), flight: int64(next - una), psn: p.PSN,
		ece: p.IB().BECN, trimmed: p.Trimmed, telemetry: p.INT}
	if p.Kind == topology.KindNak {
		s.event = ccLost
	}
	return s
}
