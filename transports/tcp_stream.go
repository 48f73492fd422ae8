package transports

import (
	"errors"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// A persistent iWARP connection (persistent.go) carries its messages one after another on
// one TCP connection: each message an RDMA WRITE of its own FPDUs (the DDP Last flag and PSH
// on its last), laid out in the stream after the message before (frames.NewLayoutAt), so MPA
// markers keep their places every 512 bytes of the stream. The sender numbers segments
// across messages and keeps the layouts of the messages not acknowledged whole (tcpStream);
// its congestion window, ssthresh, RTT estimate and RTO carry over, and through idle time
// (no restart window: RFC 5681 section 4.1 says a sender SHOULD drop cwnd to its initial
// window after an idle period longer than the RTO, and Linux does so unless
// net.ipv4.tcp_slow_start_after_idle is 0; what an iWARP NIC's offloaded TCP does is not
// publicly documented, so fabricsim keeps cwnd, as a long-lived RDMA connection tuned for
// throughput would). The receiver needs no copy of the sender's layout: it reassembles in
// stream bytes, from each segment's sequence number and length, learns a message's end from
// its last FPDU, and completes messages in order as its in-order point passes their ends.

// tcpStream is a persistent connection's sender-side layout of its messages.
type tcpStream struct {
	msgs  msgRing // the messages not acknowledged whole: first segment, bytes, origin
	total int64   // segments posted
	next  int64   // marker-free stream offset past the last message posted
	acked int64   // messages acknowledged whole
}

// post lays out a message of bytes after those posted; an established, idle sender goes on
// its NIC's schedule.
func (s *IWARPSender) post(bytes int64) error {
	if s.over {
		return errors.New("its connection has stopped")
	}
	st := s.stream
	l := frames.NewLayoutAt(s.cfg.MTU, s.cfg.Timestamps, s.cfg.Markers, bytes, st.next)
	st.msgs.push(qpMsg{start: st.total, size: bytes, at: st.next})
	st.total += l.Segments()
	st.next = l.Next()
	if s.state == tcpEstablished {
		s.src.activate(s.src.eng.Now(), s)
	}
	return nil
}

// layout is the layout of the message that holds segment k, and k's index in it.
// Precondition: k is a posted segment not acknowledged with its whole message.
func (s *IWARPSender) layout(k int64) (frames.Layout, int64) {
	m := s.stream.msgs.find(k)
	return frames.NewLayoutAt(s.cfg.MTU, s.cfg.Timestamps, s.cfg.Markers, m.size, m.at), k - m.start
}

// segments is the number of segments to send: the message's, or all posted.
func (s *IWARPSender) segments() int64 {
	if s.stream == nil {
		return s.lay.Segments()
	}
	return s.stream.total
}

// segEnd is the stream offset just past segment k.
func (s *IWARPSender) segEnd(k int64) int64 {
	if s.stream == nil {
		return s.lay.End(k)
	}
	l, j := s.layout(k)
	return l.End(j)
}

// segStart is the stream offset of segment k's first byte; past the last segment posted, the
// stream's end.
func (s *IWARPSender) segStart(k int64) int64 {
	if s.stream == nil {
		return s.lay.Start(k)
	}
	if k >= s.stream.total {
		end := frames.NewLayoutAt(s.cfg.MTU, s.cfg.Timestamps, s.cfg.Markers, 0, s.stream.next)
		return end.Start(0)
	}
	l, j := s.layout(k)
	return l.Start(j)
}

// covered is the number of segments that end at or before stream offset e (frames.Layout's
// Covered), at least the first of the oldest message held.
func (s *IWARPSender) covered(e int64) int64 {
	if s.stream == nil {
		return s.lay.Covered(e)
	}
	r := &s.stream.msgs
	if r.n == 0 {
		return s.stream.total
	}
	lo, hi := 0, r.n-1 // the last message starting at or before e
	for lo < hi {
		mid := (lo + hi + 1) / 2
		m := r.at(mid)
		if l := frames.NewLayoutAt(s.cfg.MTU, s.cfg.Timestamps, s.cfg.Markers, m.size, m.at); l.Start(0) <= e {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	m := r.at(lo)
	l := frames.NewLayoutAt(s.cfg.MTU, s.cfg.Timestamps, s.cfg.Markers, m.size, m.at)
	return m.start + l.Covered(e)
}

// fill sets the TCP and MPA fields of data segment k (addressing and ACK aside).
func (s *IWARPSender) fill(p *topology.Packet, k int64) {
	if s.stream == nil {
		s.fillFPDU(p, k)
		return
	}
	l, j := s.layout(k)
	l.FillFPDU(p, j)
	p.TCP().Seq = s.isn + uint32(s.base+l.Start(j))
}

// retire drops the messages una now covers whole, reporting each acknowledged.
func (s *IWARPSender) retire(now sim.Time) {
	st := s.stream
	for st.msgs.n > 0 {
		m := st.msgs.at(0)
		if l := frames.NewLayout(s.cfg.MTU, s.cfg.Timestamps, s.cfg.Markers, m.size); m.start+l.Segments() > s.una {
			return
		}
		st.msgs.pop()
		s.reg.messageAcked(s.index, st.acked, now)
		st.acked++
	}
}

// fpduStream takes a data segment of a persistent connection: the ECN echo, reassembly in
// stream bytes, the messages it completes, and the ACK policy of fpdu.
func (r *IWARPReceiver) fpduStream(now sim.Time, p *topology.Packet) {
	th := p.TCP()
	lo := unwrap(r.base+r.ra.nxt, th.Seq-r.isn) - r.base
	hi := lo + frames.SegmentLength(p)
	r.echoCE(now, p)
	if r.cfg.Timestamps && lo <= r.lastAck && int32(th.TSVal-r.tsRecent) >= 0 {
		r.tsRecent = th.TSVal // RFC 7323 section 4.3
	}
	advanced, isNew, filled, passed := r.ra.addSpan(lo, hi, int64(p.Payload), r.maxBlocks)
	if isNew && th.DDPLast {
		k := len(r.ends)
		for k > 0 && r.ends[k-1] > hi {
			k--
		}
		r.ends = append(r.ends, 0)
		copy(r.ends[k+1:], r.ends[k:])
		r.ends[k] = hi
	}
	if advanced == 0 {
		r.ack(now)
		return
	}
	r.flow.Delivered += passed
	k := 0
	for k < len(r.ends) && r.ends[k] <= r.ra.nxt {
		r.msgs++
		r.reg.messageDone(r.index, r.msgs-1, now)
		k++
	}
	if k > 0 {
		r.ends = r.ends[:copy(r.ends, r.ends[k:])]
		r.ack(now) // a message completed: acknowledge at once, as fpdu does its last segment
		return
	}
	r.held(now, filled)
}

// offset is where the receiver's segment (or, persistent, stream byte) k starts, or with
// end where segment k-1 ends, in the stream.
func (r *IWARPReceiver) offset(k int64, end bool) int64 {
	switch {
	case r.flow.Persistent:
		return k
	case end:
		return r.lay.End(k - 1)
	}
	return r.lay.Start(k)
}
