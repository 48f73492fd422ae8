package transports

import (
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// goBackN is RoCE's standard loss recovery (IBA 9.7.5): the responder NAKs the first packet
// out of sequence and discards what follows; the requester goes back to the PSN the NAK
// names, or, when the local ACK timer expires with no progress, to the oldest
// unacknowledged one, and sends everything from there again.
type goBackN struct {
	timeout sim.Time // the local ACK timeout (RoCEConfig.RetransmitTimeout)
}

// next is the packet at sndNxt while the message has one.
func (g *goBackN) next(q *roceSeq) (uint32, int) {
	if q.sndNxt < q.total {
		return q.sndNxt, sendNew
	}
	return 0, sendNone
}

func (g *goBackN) sending(*roceSeq, uint32, int) bool { return false }

// onAck moves una to what p acknowledges (restarting the timer on progress), and on a
// sequence NAK within the outstanding PSNs goes back to the PSN it names.
func (g *goBackN) onAck(q *roceSeq, p *topology.Packet) ackActions {
	var a ackActions
	if acked := ackedThrough(p); acked > q.una {
		q.una = acked
		a |= ackProgress | ackRestart
	}
	if q.sndNxt < q.una {
		q.sndNxt = q.una
	}
	if q.una >= q.total {
		return a | ackStop // all acknowledged
	}
	if q.una == q.sndNxt {
		a |= ackStop // nothing outstanding: the next packet sent arms the timer
	}
	if p.IB().Syndrome == topology.SyndromeNAKSequence && p.PSN < q.sndNxt && p.PSN >= q.una {
		q.sndNxt = p.PSN // go back N
		a |= ackSend
	}
	return a
}

// timedOut goes back to una. The resend arms the timer when it leaves: a retry waiting for
// the link is no retry yet.
func (g *goBackN) timedOut(q *roceSeq) { q.sndNxt = q.una }

func (g *goBackN) rto(*roceSeq) sim.Time { return g.timeout }

func (g *goBackN) timeouts() string { return g.timeout.String() }
