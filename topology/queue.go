package topology

import (
	"math/bits"
	"unsafe"

	"github.com/fabricsim/fabricsim/sim"
)

// Queue is a FIFO of packets linked through the packets themselves, so it never allocates.
// It keeps its length in frames and bytes and a time-weighted record of its depth in bytes:
// its mean, maximum and a log-linear histogram of the time spent at each depth (16 buckets per
// power of two above 32 bytes, so quantiles are within about 3%). The histogram counts whole
// picoseconds in integers.
//
// A Queue is one 64-byte cache line, everything a push or a pop reads and writes. The area
// and the histogram, which are not (on a large fabric each line a frame touches is a cache
// miss), are added to through a DepthLog when the queue has one (LogTo).
type Queue struct {
	head, tail *Packet
	// Bytes is the frame bytes queued, Len the frames.
	Bytes int64
	Len   int32
	// Served counts the frames its owner sent from the queue, modulo 2^32 (a switch's
	// deadlock detector compares it between two looks: its progress mark). Popping does not
	// count: a frame that is dropped from a queue was not served.
	Served uint32

	last sim.Time // when Bytes last changed (or the record was last brought up to date)
	// MaxBytes is the largest Bytes ever queued.
	MaxBytes int64
	depth    *depthSums // made when the queue is first non-empty for a while
	log      *DepthLog  // nil: add to depth at once
}

// depthSums is the time-weighted part of a queue's depth record: the area (byte-picoseconds)
// and the picoseconds spent in each histogram bucket. Time at depth 0 is in neither: it is
// the time the histogram does not hold. The area is exact: every partial sum is a whole
// number below 2^53, so the order the log adds in does not change it.
type depthSums struct {
	area float64
	hist []int64
}

// add counts dt picoseconds at depth v (> 0), in its histogram bucket b.
func (d *depthSums) add(v int64, b int, dt sim.Time) {
	if b >= len(d.hist) {
		d.grow(b)
	}
	d.hist[b] += int64(dt)
	d.area += float64(v) * float64(dt)
}

// grow extends the histogram to hold bucket b; a cold path, kept out of add.
//
//go:noinline
func (d *depthSums) grow(b int) {
	d.hist = append(d.hist, make([]int64, b+1-len(d.hist))...)
}

// DepthLog defers the additions to the queues' areas and histograms: a queue appends what it
// would add (a few bytes in a buffer that stays in cache) and the log adds a batch at a time,
// when the buffer is full or a reader asks (Flush). In a batch the additions do not wait for
// one another, so their cache misses overlap, where one by one each stood in the way of a
// frame. One log serves the queues of one simulation; it is not safe for concurrent use.
type DepthLog struct {
	n       int
	entries [depthLogSize]depthEntry
}

// depthLogSize is the entries a DepthLog holds before it adds them: 256 x 32 bytes, 8 KiB.
const depthLogSize = 256

type depthEntry struct {
	sums   *depthSums
	depth  int64
	dt     sim.Time
	bucket int
}

// Flush adds the logged time to the queues' records. It first asks the CPU for every
// record's line, then for every histogram bucket's, then adds: the misses of a batch
// overlap, where one by one each would wait for the one before.
func (l *DepthLog) Flush() {
	es := l.entries[:l.n]
	for i := range es {
		sim.Prefetch(unsafe.Pointer(es[i].sums))
	}
	for i := range es {
		if h := es[i].sums.hist; es[i].bucket < len(h) {
			sim.Prefetch(unsafe.Pointer(&h[es[i].bucket]))
		}
	}
	for i := range es {
		es[i].sums.add(es[i].depth, es[i].bucket, es[i].dt)
	}
	l.n = 0
}

// LogTo makes the queue add its area and histogram through l (nil: at once).
func (q *Queue) LogTo(l *DepthLog) {
	q.flush()
	q.log = l
}

// flush brings the queue's sums up to date with its log.
func (q *Queue) flush() {
	if q.log != nil {
		q.log.Flush()
	}
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
func (q *Queue) Count(k Kind) int64 { return countKind(q.head, k) }

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
// empty adds nothing.
func (q *Queue) setBytes(now sim.Time, v int64) {
	if dt := now - q.last; dt > 0 {
		q.last = now
		if q.Bytes != 0 {
			if q.depth == nil {
				q.depth = &depthSums{}
			}
			if l := q.log; l != nil {
				l.entries[l.n] = depthEntry{q.depth, q.Bytes, dt, depthBucket(q.Bytes)}
				if l.n++; l.n == depthLogSize {
					l.Flush()
				}
			} else {
				q.depth.add(q.Bytes, depthBucket(q.Bytes), dt)
			}
		}
	}
	q.Bytes = v
	q.MaxBytes = max(q.MaxBytes, v)
}

// account brings the record up to now without a change of depth, and the sums up to date.
func (q *Queue) account(now sim.Time) {
	if now > q.last {
		q.setBytes(now, q.Bytes)
	}
	q.flush()
}

// MeanBytes is the time-weighted mean depth over [0, until].
func (q *Queue) MeanBytes(until sim.Time) float64 {
	if until <= 0 {
		return 0
	}
	q.account(until)
	if q.depth == nil {
		return 0
	}
	return q.depth.area / float64(until)
}

// QuantileBytes is the time-weighted p-quantile of the depth over [0, until], as the
// midpoint of its histogram bucket.
func (q *Queue) QuantileBytes(p float64, until sim.Time) float64 {
	q.account(until)
	if until <= 0 || q.depth == nil {
		return 0
	}
	hist := q.depth.hist
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

// DepthTime is one level range of a queue's depth record: the closed range of depths
// [LoBytes, HiBytes] one histogram bucket holds (HiBytes capped at the queue's maximum) and
// the time the queue spent at a depth in it.
type DepthTime struct {
	LoBytes, HiBytes int64
	Time             sim.Time
}

// DepthTimes is the time-weighted distribution of the depth over [0, until], in depth
// order: first the time at depth 0, then every histogram bucket the queue spent time in
// (16 per power of two above 32 bytes, so a range is within about 6% of its low end). The
// times sum to until. A reader's path (results), never the datapath's.
func (q *Queue) DepthTimes(until sim.Time) []DepthTime {
	q.account(until)
	if until <= 0 {
		return nil
	}
	out := []DepthTime{{}}
	rest := until
	if q.depth != nil {
		for b, t := range q.depth.hist {
			if t == 0 {
				continue
			}
			lo, hi := depthBucketRange(b)
			out = append(out, DepthTime{LoBytes: lo, HiBytes: min(hi, q.MaxBytes), Time: sim.Time(t)})
			rest -= sim.Time(t)
		}
	}
	out[0].Time = rest
	return out
}
