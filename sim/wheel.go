package sim

import "math/bits"

// The near-future wheel: wheelSize buckets of 2^wheelShift ps each (2.048 ns), so it covers
// the next 4.19 us, more than a maximum frame's serialization plus a datacenter cable at
// 100 Gb/s, which is where almost every event of a packet's hop lands. Later events (timers,
// slow or long links) go to the heap.
const (
	wheelShift = 11
	wheelSize  = 2048
	wheelMask  = wheelSize - 1
	wheelWords = wheelSize / 64
)

// bucket holds the wheel's events of one 2.048 ns slot, sorted by (time, key), consumed from
// head. Its backing array is reused, so a bucket allocates only while the run warms up.
type bucket struct {
	items []entry
	head  int
}

// wheel is a timing wheel (a calendar queue with one year) that keeps the exact (time,
// sequence) order of the heap it stands in front of: each bucket is a short sorted run,
// and a bitmap of non-empty buckets finds the next one with a few word operations. Insert
// and removal cost O(1) for the usual event, which lands at the end of its bucket.
type wheel struct {
	buckets [wheelSize]bucket
	full    [wheelWords]uint64 // bit i: bucket i is not empty
	cur     int64              // the absolute slot (time >> wheelShift) of the last event removed
	n       int
}

// insert adds x when it falls within the wheel's span and reports whether it did.
func (w *wheel) insert(x entry) bool {
	abs := int64(x.at) >> wheelShift
	if abs-w.cur >= wheelSize {
		return false
	}
	i := int(abs & wheelMask)
	b := &w.buckets[i]
	items := append(b.items, x)
	// Keep the run sorted: a new event is usually the latest of its slot.
	k := len(items) - 1
	for k > b.head && x.before(items[k-1]) {
		items[k] = items[k-1]
		k--
	}
	items[k] = x
	b.items = items
	w.full[i>>6] |= 1 << (uint(i) & 63)
	w.n++
	return true
}

// first is the bucket holding the wheel's earliest event; the wheel must not be empty.
// Buckets are searched in time order from the current slot: the wheel holds only slots
// cur .. cur+wheelSize-1, so ring order from cur is time order.
func (w *wheel) first() *bucket {
	start := int(w.cur & wheelMask)
	word := start >> 6
	m := w.full[word] &^ (1<<(uint(start)&63) - 1) // bits at or after start in its word
	for {
		if m != 0 {
			return &w.buckets[word<<6|bits.TrailingZeros64(m)]
		}
		word = (word + 1) % wheelWords
		m = w.full[word]
		if word == start>>6 {
			// Wrapped to start's word again: its bits before start are the latest slots.
			m &= 1<<(uint(start)&63) - 1
		}
	}
}

// remove takes the head of b, the earliest event, out of the wheel. The caller moves cur.
func (w *wheel) remove(b *bucket) {
	x := b.items[b.head]
	b.head++
	if b.head == len(b.items) {
		b.items, b.head = b.items[:0], 0
		i := int(int64(x.at) >> wheelShift & wheelMask)
		w.full[i>>6] &^= 1 << (uint(i) & 63)
	}
	w.n--
}
