package transports

import (
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// roceSeq is a RoCE requester's sequence state, which its loss recovery reads and moves.
// PSNs count from 0 within the flow.
type roceSeq struct {
	una     uint32 // oldest PSN not acknowledged
	sndNxt  uint32 // next PSN to send (go-back-N goes back; IRN: the next new one)
	maxSent uint32 // one past the highest PSN ever sent
	total   uint32 // the message's packets (a persistent queue pair's: all posted so far)
	// msgStart is the first PSN of the oldest message not acknowledged whole (0 on a queue
	// pair of one message): where go-back-0 starts over.
	msgStart uint32
}

// Kinds of packet a loss recovery lets go next.
const (
	sendNone   = iota // nothing now
	sendNew           // the packet at sndNxt, subject to the congestion control's window
	sendResend        // a packet below sndNxt that recovery resends ahead of new ones
)

// ackActions says what the requester does after its loss recovery has taken an ACK or NAK,
// in this order: ackProgress resets the count of timeouts in a row; ackRestart sets the
// retransmit timer to now plus the recovery's rto; ackStop stops it; ackSend puts the
// requester on its NIC's schedule, ackSendIfData only if it has a packet to send.
type ackActions uint8

const (
	ackProgress ackActions = 1 << iota
	ackRestart
	ackStop
	ackSend
	ackSendIfData
)

// roceRecovery is a RoCE requester's loss recovery, as lossRecovery is a TCP sender's: it
// decides which PSN goes next and what an ACK, a NAK (with its selective acknowledgement) or
// a retransmit timeout does to the sequence state. The requester owns the timer, the retry
// count and the NIC's schedule, and does what the recovery's answers say. The
// implementations are pure state machines: go-back-N (gbn_recovery.go), go-back-0
// (gb0_recovery.go), IRN's selective repeat (irn.go). None of its methods allocates but
// IRN's, which grows its SACK bitmap on the first losses of a flow.
type roceRecovery interface {
	// next is the PSN to send next and its kind (sendNone: none now).
	next(q *roceSeq) (psn uint32, kind int)
	// sending is the packet next chose leaving, before the sequence state moves; it reports
	// whether the packet asks for an ACK at once (BTH AckReq).
	sending(q *roceSeq, psn uint32, kind int) bool
	// onAck takes ACK or NAK p.
	onAck(q *roceSeq, p *topology.Packet) ackActions
	// timedOut takes a retransmit timeout (with packets unacknowledged, and retries left):
	// the requester then goes back on its NIC's schedule.
	timedOut(q *roceSeq)
	// rto is the retransmit timeout now.
	rto(q *roceSeq) sim.Time
	// timeouts names the retransmit timeout, for the reason a flow failed.
	timeouts() string
}

// newRoCERecovery returns the loss recovery cfg asks for.
func newRoCERecovery(cfg *RoCEConfig) roceRecovery {
	switch {
	case cfg.IRN != nil:
		return &irnSender{p: *cfg.IRN, ackInterval: cfg.AckInterval}
	case cfg.GoBack0:
		return &goBack0{goBackN{timeout: cfg.RetransmitTimeout}}
	}
	return &goBackN{timeout: cfg.RetransmitTimeout}
}

// ackedThrough is what ACK or NAK p acknowledges cumulatively: every PSN below the result.
// An ACK acknowledges every PSN up to p.PSN; a sequence NAK every PSN before it.
func ackedThrough(p *topology.Packet) uint32 {
	if p.IB().Syndrome == topology.SyndromeNAKSequence {
		return p.PSN
	}
	return p.PSN + 1
}
