package transports

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/fabricsim/fabricsim/sim"
)

// A persistent flow is a queue pair (or a TCP connection, for iWARP) that lives for a whole
// job, as NCCL keeps one QP per channel and peer (NCCL_IB_QPS_PER_CONNECTION): it is opened
// with Flow.Persistent set and no bytes, then each message is posted on it with
// Registry.Post, as a work request on the NIC's send queue. The sender sends the messages in
// order, back to back, each its own RDMA WRITE, with one congestion control and loss recovery
// state throughout (its rate, window and sequence numbers carry over from message to
// message and through idle time). The receiver reports each message as it completes, in
// order (Registry.OnMessage); the requester may report it acknowledged (Registry.OnAcked).
// Registry.Close says no message follows: the flow then completes once every posted message
// has.
//
// Memory: a message costs its sender one qpMsg (24 bytes) in a ring from posting until it is
// acknowledged, and nothing after; the per-QP records are allocated once, when the flow
// starts.

// qpMsg is a message posted on a persistent flow and not yet acknowledged: where it starts in
// the flow's sequence space (a PSN for RoCE and UET, a byte offset for iWARP's TCP) and its
// bytes.
type qpMsg struct {
	start int64
	size  int64
	at    int64 // iWARP: the marker-free stream offset of its first FPDU (frames.NewLayoutAt)
}

// msgRing is a FIFO of the messages a persistent flow's sender holds, oldest first. It grows
// by doubling, so posting allocates only while the number outstanding reaches a new high.
type msgRing struct {
	buf     []qpMsg
	head, n int
}

// push appends m.
func (r *msgRing) push(m qpMsg) {
	if r.n == len(r.buf) {
		buf := make([]qpMsg, max(4, 2*len(r.buf)))
		for k := 0; k < r.n; k++ {
			buf[k] = r.buf[(r.head+k)%len(r.buf)]
		}
		r.buf, r.head = buf, 0
	}
	r.buf[(r.head+r.n)%len(r.buf)] = m
	r.n++
}

// at is the k-th message from the oldest. Precondition: k < n.
func (r *msgRing) at(k int) *qpMsg { return &r.buf[(r.head+k)%len(r.buf)] }

// pop drops the oldest message. Precondition: n > 0.
func (r *msgRing) pop() {
	r.head = (r.head + 1) % len(r.buf)
	r.n--
}

// find is the message whose span holds seq: the last one starting at or before it
// (binary search; the starts increase). Precondition: n > 0 and seq >= at(0).start.
func (r *msgRing) find(seq int64) *qpMsg {
	lo, hi := 0, r.n-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if r.at(mid).start <= seq {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return r.at(lo)
}

// place is where packet psn falls among the messages: its message's first PSN, bytes and
// packets of mtu payload bytes. Precondition as find's, with starts counted in packets.
func (r *msgRing) place(psn uint32, mtu int32) (first uint32, size int64, n uint32) {
	m := r.find(int64(psn))
	return uint32(m.start), m.size, packets(m.size, int(mtu))
}

// poster is a sender that takes messages on a persistent flow.
type poster interface {
	// post queues a message of bytes, after those posted before it, at its engine's now.
	post(bytes int64) error
}

// maxMessage is the largest message a work request may carry: the RETH's DMA length is 32
// bits (IBA 9.3.3.3: DMA Length, 4 bytes).
const maxMessage = math.MaxUint32

// Post queues a message of bytes on persistent flow i, at the time of the sender's engine, and
// returns its number on the flow (from 0, in posting order; OnMessage names it so). The
// sender sends it after every message posted before, at once when it is idle. Call it where
// the flow's sender runs (its partition, in a Deferred registry), after the flow has been
// started with its transport's Start; a message posted before the flow's Start time waits
// for it.
func (r *Registry) Post(i int32, bytes int64) (int64, error) {
	if i < 0 || int(i) >= len(r.Flows) {
		return 0, fmt.Errorf("post on flow index %d: there are %d flows", i, len(r.Flows))
	}
	f := r.Flows[i]
	switch {
	case !f.Persistent:
		return 0, fmt.Errorf("post on flow %d: it is not persistent (Flow.Persistent), it carries one message of its own", f.ID)
	case f.closed:
		return 0, fmt.Errorf("post on flow %d: it was closed", f.ID)
	case f.Status != Pending || f.failed:
		return 0, fmt.Errorf("post on flow %d: it has ended (%v)", f.ID, f.Status)
	case bytes < 0 || bytes > maxMessage:
		return 0, fmt.Errorf("post of %d bytes on flow %d: a message is 0 to %d bytes (the RETH's 32-bit DMA length)",
			bytes, f.ID, int64(maxMessage))
	}
	s, ok := r.senders[i].(poster)
	if !ok {
		return 0, fmt.Errorf("post on flow %d: its transport %q takes no messages on a persistent flow, or it was not started",
			f.ID, f.Transport)
	}
	// The flow counts the message first: the sender may send at once, and read the bytes
	// posted.
	n := f.Posted
	f.Posted++
	f.Size += bytes
	if err := s.post(bytes); err != nil {
		f.Posted--
		f.Size -= bytes
		return 0, fmt.Errorf("post on flow %d: %w", f.ID, err)
	}
	return n, nil
}

// Close says that no message follows on persistent flow i: it completes (at the time its
// last message completed) once every message posted has, at once if they all have. Call it
// where the flow's sender runs. In a Deferred registry the receiver ends the flow when its
// last message completes after the close, and Settle ends one whose messages had all
// completed before it.
func (r *Registry) Close(i int32) error {
	if i < 0 || int(i) >= len(r.Flows) {
		return fmt.Errorf("close of flow index %d: there are %d flows", i, len(r.Flows))
	}
	f := r.Flows[i]
	if !f.Persistent {
		return fmt.Errorf("close of flow %d: it is not persistent", f.ID)
	}
	if f.closed {
		return nil
	}
	f.closed = true
	atomic.StoreInt64(&f.final, f.Posted)
	if !r.Deferred && f.Messages == f.Posted {
		r.complete(i, max(f.lastMsg, f.Start))
	}
	return nil
}

// messageDone is the receiver of persistent flow i completing its message msg (from 0) at
// now: it counts it, reports it, and completes the flow when it was the last after a Close.
func (r *Registry) messageDone(i int32, msg int64, now sim.Time) {
	f := r.Flows[i]
	f.Messages, f.lastMsg = msg+1, now
	if r.OnMessage != nil {
		r.OnMessage(i, msg, now)
	}
	if n := atomic.LoadInt64(&f.final); n > 0 && msg+1 == n {
		r.complete(i, now)
	}
}

// messageAcked is the sender of persistent flow i learning that its message msg is
// acknowledged whole, at now.
func (r *Registry) messageAcked(i int32, msg int64, now sim.Time) {
	if r.OnAcked != nil {
		r.OnAcked(i, msg, now)
	}
}

// settleClosed ends a closed persistent flow f of a Deferred registry whose messages had all
// completed when it was closed.
func (r *Registry) settleClosed(f *Flow) {
	if f.Persistent && f.closed && f.ends == 0 && f.Messages == f.final && !f.failed {
		f.done, f.Finish = true, max(f.lastMsg, f.Start)
		r.ended(f)
	}
}
