package transports

import (
	"errors"
	"math"

	"github.com/fabricsim/fabricsim/sim"
)

// A persistent UET flow (persistent.go) numbers its packets in one PSN space across its
// messages, each message its own SES request: every packet carries the message's length and
// its offset in it (the SES header's request length and offset, in p.DMALen and
// p.DDPOffset), and start and end of message as a WRITE's place (First/Middle/Last, Only).
// The sender keeps the messages not acknowledged whole in a ring of PSN spans; its NSCC
// window, RCCC credit, SLEEK and entropy state carry over. RUD delivers packets in any
// order, so the receiver learns each message's last PSN from any of its packets and
// completes messages, in order, as the cumulative PSN passes their ends.

// post queues a message of bytes after those posted; an idle started sender goes on its
// NIC's schedule.
func (s *UETSender) post(bytes int64) error {
	if s.over {
		return errors.New("its sender has stopped")
	}
	n := packets(bytes, int(s.mtu))
	if uint64(s.npkts)+uint64(n) > math.MaxUint32/2 {
		return errors.New("its PSNs would pass 2^31 packets")
	}
	s.posted.push(qpMsg{start: int64(s.npkts), size: bytes})
	s.npkts += n
	if s.live {
		s.nic.activate(s.src.eng.Now(), s)
	}
	return nil
}

// payload is the payload bytes of PSN psn of a persistent flow.
func (s *UETSender) payload(psn uint32) int64 {
	first, size, n := s.posted.place(psn, s.mtu)
	if k := psn - first; k == n-1 {
		return size - int64(k)*int64(s.mtu)
	}
	return int64(s.mtu)
}

// retire drops the messages the cumulative PSN now covers whole, reporting each acknowledged.
func (s *UETSender) retire(now sim.Time) {
	for s.posted.n > 0 {
		m := s.posted.at(0)
		if uint32(m.start)+packets(m.size, int(s.mtu)) > s.cum {
			return
		}
		s.posted.pop()
		s.reg.messageAcked(s.index, s.msgsAcked, now)
		s.msgsAcked++
	}
}

// learn records the end of the message of a packet at psn, offset bytes into a message of
// size bytes, unless it is known.
func (r *UETReceiver) learn(psn, offset, size uint32) {
	end := psn - offset/uint32(r.mtu) + packets(int64(size), int(r.mtu))
	k := len(r.ends)
	for k > 0 && r.ends[k-1] >= end {
		if r.ends[k-1] == end {
			return
		}
		k--
	}
	r.ends = append(r.ends, 0)
	copy(r.ends[k+1:], r.ends[k:])
	r.ends[k] = end
}

// messagesIn completes, in order, the messages the cumulative PSN has passed, and reports
// whether there was one.
func (r *UETReceiver) messagesIn(now sim.Time) bool {
	k := 0
	for k < len(r.ends) && r.ends[k] <= r.expected {
		r.msgs++
		r.reg.messageDone(r.index, r.msgs-1, now)
		k++
	}
	if k > 0 {
		r.ends = r.ends[:copy(r.ends, r.ends[k:])]
	}
	return k > 0
}
