package transports

import "github.com/fabricsim/fabricsim/topology"

// goBack0 is the loss recovery of old RoCE NICs (Guo et al., "RDMA over Commodity Ethernet at
// Scale", SIGCOMM 2016, section 4: go-back-0): a loss restarts the whole message. The
// responder discards the message at the first gap and NAKs PSN 0; the requester, on that NAK
// or a timeout, sends everything from PSN 0 again. Otherwise it is go-back-N.
type goBack0 struct {
	goBackN
}

// onAck starts the message over on a sequence NAK; an ACK is go-back-N's.
func (g *goBack0) onAck(q *roceSeq, p *topology.Packet) ackActions {
	if p.IB().Syndrome == topology.SyndromeNAKSequence {
		// The responder threw the message away and NAKs its first PSN; send it all again.
		// (On a persistent queue pair the messages before it are complete: a NAK below the
		// oldest message not acknowledged is stale.)
		if p.PSN < q.msgStart {
			return 0
		}
		q.una, q.sndNxt = p.PSN, p.PSN
		return ackRestart | ackSend
	}
	return g.goBackN.onAck(q, p)
}

// timedOut goes back to the first PSN of the message: the whole message again.
func (g *goBack0) timedOut(q *roceSeq) { q.una, q.sndNxt = q.msgStart, q.msgStart }
