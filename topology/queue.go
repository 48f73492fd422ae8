package topology

import (
	"math/bits"
	"unsafe"

	"github.com/fabricsim/fabricsim/sim"
)

// Queue is a FIFO of packets linked through the packets themselves, so it never allocates.
// It keeps its length in frames and bytes and a time-weighted record of its depth in bytes:
// its mean, maximum and a log-linear histogram of the time spent at each depth (16 buckets per
// power of two above 32 bytes, so quantiles are within about 3%). The histogram is allocated
// on first use and counts whole picoseconds in integers.
//
// A Queue is one 64-byte cache line, everything a push or a pop reads and writes but the
// histogram bucket: on a large fabric each line a frame touches is a cache miss.
type Queue struct {
	head, tail *Packet
	// Bytes is the frame bytes queued, Len the frames.
	Bytes int64
	Len   int32

	histLen int32    // the histogram's buckets
	last    sim.Time // when Bytes last changed (or the record was last brought up to date)
	// MaxBytes is the largest Bytes ever queued.
	MaxBytes int64
	area     float64 // byte-picoseconds; exact, every partial sum a whole number below 2^53
	// hist points at the first of histLen buckets, the picoseconds spent at each depth (a
	// slice's pointer without its length and capacity, which would not fit the line).
	hist *int64
}

// Push appends p at time now.
func (q *Queue) Push(now sim.Time, p *Packet) {
	p.next = nil
	if q.tail == nil {
		q.head = p
	} else {
		q.tail.next = p
	}
	q.tail = p
	q.Len++
	q.setBytes(now, q.Bytes+int64(p.Frame))
}

// Peek returns the head without removing it, or nil.
func (q *Queue) Peek() *Packet { return q.head }

// Count is the number of queued packets of kind k. It walks the queue: for audits, not for
// the datapath.
func (q *Queue) Count(k Kind) int64 {
	var n int64
	for p := q.head; p != nil; p = p.next {
		if p.Kind == k {
			n++
		}
	}
	return n
}

// Pop removes and returns the head, or nil.
func (q *Queue) Pop(now sim.Time) *Packet {
	p := q.head
	if p == nil {
		return nil
	}
	q.head = p.next
	if q.head == nil {
		q.tail = nil
	}
	p.next = nil
	q.Len--
	q.setBytes(now, q.Bytes-int64(p.Frame))
	return p
}

// setBytes records that the depth changed to v at now: the time since the last change is
// counted at the old depth, in the histogram and the area. Time at depth 0 is not counted:
// it is what the histogram does not hold (QuantileBytes), so a frame that finds the queue
// empty does not touch the histogram, a cache line of its own.
func (q *Queue) setBytes(now sim.Time, v int64) {
	if dt := now - q.last; dt > 0 {
		q.last = now
		if q.Bytes != 0 {
			b := depthBucket(q.Bytes)
			if b >= int(q.histLen) {
				q.grow(b)
			}
			unsafe.Slice(q.hist, q.histLen)[b] += int64(dt)
			q.area += float64(q.Bytes) * float64(dt)
		}
	}
	q.Bytes = v
	q.MaxBytes = max(q.MaxBytes, v)
}

// histogram is the depth histogram's buckets.
func (q *Queue) histogram() []int64 { return unsafe.Slice(q.hist, q.histLen) }

// grow extends the histogram to hold bucket b; a cold path, kept out of setBytes.
//
//go:noinline
func (q *Queue) grow(b int) {
	h := make([]int64, b+1)
	copy(h, q.histogram())
	q.hist, q.histLen = &h[0], int32(len(h))
}

// account brings the record up to now without a change of depth.
func (q *Queue) account(now sim.Time) {
	if now > q.last {
		q.setBytes(now, q.Bytes)
	}
}

// MeanBytes is the time-weighted mean depth over [0, until].
func (q *Queue) MeanBytes(until sim.Time) float64 {
	if until <= 0 {
		return 0
	}
	q.account(until)
	return q.area / float64(until)
}

// QuantileBytes is the time-weighted p-quantile of the depth over [0, until], as the
// midpoint of its histogram bucket.
func (q *Queue) QuantileBytes(p float64, until sim.Time) float64 {
	q.account(until)
	if until <= 0 {
		return 0
	}
	hist := q.histogram()
	var inHist float64
	for _, t := range hist {
		inHist += float64(t)
	}
	zero := float64(until) - inHist // the time at depth 0, which the histogram does not count
	target := p * float64(until)
	acc := zero
	if acc >= target {
		return 0
	}
	for b, t := range hist {
		acc += float64(t)
		if acc >= target && t > 0 {
			lo, hi := depthBucketRange(b)
			return min(float64(lo+hi)/2, float64(q.MaxBytes)) // the bucket's midpoint, never above the maximum
		}
	}
	return float64(q.MaxBytes)
}

// depthBucket maps a level to its bucket: exact below 32, then 16 per power of two.
func depthBucket(v int64) int {
	if v < 32 {
		return int(v)
	}
	e := bits.Len64(uint64(v)) - 5 // v>>e is in [16, 32)
	return 32 + (e-1)*16 + int(v>>e) - 16
}

// depthBucketRange is the closed range of levels bucket b holds.
func depthBucketRange(b int) (lo, hi int64) {
	if b < 32 {
		return int64(b), int64(b)
	}
	e := (b-32)/16 + 1
	m := int64(16 + (b-32)%16)
	return m << e, (m+1)<<e - 1
}
