package transports

import (
	"errors"
	"math"

	"github.com/fabricsim/fabricsim/sim"
)

// A persistent RoCE queue pair (persistent.go) numbers its packets in one PSN space across its
// messages: message k takes the PSNs after message k-1's, each message an RDMA WRITE of its
// own (WRITE Only, or First/Middle/Last with the RETH and the message's DMA length on the
// first), and the last packet of each asks for an ACK. The requester keeps the messages it
// has not seen acknowledged whole in a ring of PSN spans (roceSeq.total grows as messages
// are posted); the responder learns each message's length from the RETH of its first packet,
// as an RNIC does, completes a message when its last packet is in order, and counts the
// messages in the ACKs' MSN. Loss recovery and congestion control are the queue pair's,
// unchanged from message to message: a go-back-N NAK or timeout may go back into an earlier
// message; go-back-0 restarts the message being received, not the queue pair's first.

// packets is how many packets of mtu payload bytes a message of size bytes takes: an empty
// WRITE is one packet.
func packets(size int64, mtu int) uint32 {
	return uint32(max((size+int64(mtu)-1)/int64(mtu), 1))
}

// post queues a message of bytes after those posted; an idle started requester goes on its
// NIC's schedule.
func (s *RoCESender) post(bytes int64) error {
	if s.over {
		return errors.New("its queue pair has stopped")
	}
	n := packets(bytes, int(s.mtu))
	if uint64(s.total)+uint64(n) > math.MaxUint32 {
		return errors.New("its PSNs would pass 2^32 packets")
	}
	if s.posted.n == 0 {
		s.msgStart = s.total
	}
	s.posted.push(qpMsg{start: int64(s.total), size: bytes})
	s.total += n
	if s.live {
		s.nic.activate(s.src.eng.Now(), s)
	}
	return nil
}

// retire drops the messages the cumulative acknowledgement now covers whole, reporting each
// acknowledged (the requester's completion), and moves msgStart to the oldest left.
func (s *RoCESender) retire(now sim.Time) {
	for s.posted.n > 0 {
		m := s.posted.at(0)
		end := uint32(m.start) + packets(m.size, int(s.mtu))
		if end > s.una {
			s.msgStart = uint32(m.start)
			return
		}
		s.posted.pop()
		s.reg.messageAcked(s.index, s.acked, now)
		s.acked++
	}
	s.msgStart = s.total
}

// inMsg is what a persistent queue pair's responder knows of the message it is receiving.
// start and base are also go-back-0's restart point on a queue pair of one message (both 0).
type inMsg struct {
	start  uint32      // the message's first PSN
	end    uint32      // one past its last PSN, once its first packet is taken
	size   int64       // its bytes (the RETH's DMA length)
	base   int64       // Delivered before it
	msgs   int64       // the messages completed
	firsts []heldFirst // IRN: first packets held beyond a gap, with their DMA lengths
}

// heldFirst is a message's first packet that IRN's responder holds beyond a gap.
type heldFirst struct {
	psn uint32
	len uint32
}

// take accepts the packet at ePSN of a persistent queue pair, whose RETH (when it is a
// message's first) says dma bytes, and reports whether it completed a message.
func (r *RoCEReceiver) take(now sim.Time, psn, dma uint32) bool {
	if psn == r.start {
		r.size = int64(dma)
		r.end = psn + packets(r.size, int(r.mtu))
	}
	r.ePSN++
	if psn+1 < r.end {
		r.flow.Delivered += int64(r.mtu)
		return false
	}
	r.flow.Delivered += r.size - int64(psn-r.start)*int64(r.mtu)
	r.start, r.base = r.ePSN, r.flow.Delivered
	r.msgs++
	r.reg.messageDone(r.index, r.msgs-1, now)
	return true
}

// heldLen is the DMA length of held packet psn when it is the first of the message being
// received (and forgets it), else 0.
func (r *RoCEReceiver) heldLen(psn uint32) uint32 {
	if psn != r.start {
		return 0
	}
	for k, h := range r.firsts {
		if h.psn == psn {
			last := len(r.firsts) - 1
			r.firsts[k] = r.firsts[last]
			r.firsts = r.firsts[:last]
			return h.len
		}
	}
	return 0
}
