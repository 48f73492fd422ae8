package topology

import (
	"math/bits"

	"github.com/fabricsim/fabricsim/sim"
)

// Queue is a FIFO of packets linked through the packets themselves, so it never allocates.
// It keeps its length in frames and bytes and a time-weighted record of its depth.
type Queue struct {
	head, tail *Packet
	Len        int
	Bytes      int64
	Depth      DepthRecorder
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
	q.Bytes += int64(p.Frame)
	q.Depth.Set(now, q.Bytes)
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
	q.Bytes -= int64(p.Frame)
	q.Depth.Set(now, q.Bytes)
	return p
}

// DepthRecorder integrates a level (a queue's bytes) over time: its mean, maximum and a
// log-linear histogram of time spent at each level (16 buckets per power of two above 32
// bytes, so quantiles are within about 3%). The histogram is allocated on first use. It
// counts whole picoseconds in integers: the float64 sums it had before were exact (every
// partial sum a whole number below 2^53), so its quantiles are the same, for less work on
// every enqueue and dequeue.
type DepthRecorder struct {
	last  sim.Time
	level int64
	Max   int64
	area  float64 // byte-picoseconds
	hist  []int64 // picoseconds spent in each bucket
	Used  bool    // the level was ever above zero
}

// Set records that the level changed to v at time now. It is account and the level's update
// in one call: it runs on every enqueue and dequeue.
func (d *DepthRecorder) Set(now sim.Time, v int64) {
	if dt := now - d.last; dt > 0 {
		d.last = now
		if d.level != 0 || d.hist != nil {
			b := depthBucket(d.level)
			if b >= len(d.hist) {
				d.grow(b)
			}
			d.hist[b] += int64(dt)
			d.area += float64(d.level) * float64(dt)
		}
	}
	d.level = v
	if v > d.Max {
		d.Max = v
		d.Used = true // v > Max >= 0
	}
}

// add counts dt at the current level: in its histogram bucket and in the area (Set does the
// same inline).
func (d *DepthRecorder) add(dt sim.Time) {
	b := depthBucket(d.level)
	if b >= len(d.hist) {
		d.grow(b)
	}
	d.hist[b] += int64(dt)
	d.area += float64(d.level) * float64(dt)
}

// grow extends the histogram to hold bucket b; a cold path, kept out of Set.
//
//go:noinline
func (d *DepthRecorder) grow(b int) {
	d.hist = append(d.hist, make([]int64, b+1-len(d.hist))...)
}

func (d *DepthRecorder) account(now sim.Time) {
	dt := now - d.last
	if dt <= 0 {
		return
	}
	d.last = now
	if d.level == 0 && d.hist == nil {
		return // all time at zero until the first packet: Mean and Quantile count it from until
	}
	d.add(dt)
}

// Mean is the time-weighted mean level over [0, until].
func (d *DepthRecorder) Mean(until sim.Time) float64 {
	if until <= 0 {
		return 0
	}
	d.account(until)
	return d.area / float64(until)
}

// Quantile is the time-weighted q-quantile of the level over [0, until], as the midpoint of
// its histogram bucket.
func (d *DepthRecorder) Quantile(q float64, until sim.Time) float64 {
	d.account(until)
	if until <= 0 {
		return 0
	}
	var inHist float64
	for _, t := range d.hist {
		inHist += float64(t)
	}
	zero := float64(until) - inHist // time at zero before the histogram existed
	target := q * float64(until)
	acc := zero
	if acc >= target {
		return 0
	}
	for b, t := range d.hist {
		acc += float64(t)
		if acc >= target && t > 0 {
			lo, hi := depthBucketRange(b)
			return min(float64(lo+hi)/2, float64(d.Max)) // the bucket's midpoint, never above the maximum
		}
	}
	return float64(d.Max)
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
