package sim

import "math/bits"

// The near-future wheel: wheelSize buckets of 2^wheelShift ps each (256 ps), so it covers
// the next 4.19 us, more than a maximum frame's serialization plus a datacenter cable at
// 100 Gb/s, which is where almost every event of a packet's hop lands. Later events (timers,
// slow or long links) go to the heap. Buckets are narrow so that a large fabric (1,024 hosts
// make about 20 events per simulated nanosecond) seldom crowds one past maxWalk, which would
// send its out-of-order inserts to the heap.
const (
	wheelShift = 8
	wheelSize  = 16384
	wheelMask  = wheelSize - 1
	wheelWords = wheelSize / 64
	slotMask   = 1<<wheelShift - 1 // a time's offset within its slot
)

// maxWalk bounds the events an insert steps over in a bucket before it leaves the event to
// the heap.
const maxWalk = 8

// bucket is one 256 ps slot of the wheel: a list of events linked through their next
// fields, sorted by (time, key), from head to tail; -1 ends it (or marks it empty).
type bucket struct {
	head, tail int32
	n          int32 // events in the list
	// tailAt is the tail's time within the slot (the bucket's events share the rest of
	// their time): an insert compares with it, not with the tail event, a cache line away.
	tailAt int32
}

// wheel is a timing wheel (a calendar queue with one year) that keeps the exact (time,
// sequence) order of the heap it stands in front of: each bucket is a short sorted list of
// the engine's events, and a bitmap of non-empty buckets finds the next one with a few word
// operations. The lists run through the events themselves, so an insert touches the bucket
// (8 bytes) and the event it goes behind, and costs O(1) for the usual event, the latest of
// its slot.
type wheel struct {
	buckets [wheelSize]bucket
	full    [wheelWords]uint64 // bit i: bucket i is not empty
	cur     int64              // the absolute slot (time >> wheelShift) of the last event removed
	n       int
}

func (w *wheel) reset() {
	for i := range w.buckets {
		w.buckets[i] = bucket{head: -1, tail: -1}
	}
}

// insert links event s of evs into bucket b, where it falls by (time, key) and where it is
// earlier than the latest event (Engine.At handles an empty bucket
// and a latest event itself), and reports whether it did. It walks the list to the event's
// place, unless the list is long (a crowded wheel); then the heap takes it, which keeps the
// order as well, since the engine runs the earlier of the two heads.
func (w *wheel) insert(evs []event, s int32, b *bucket) bool {
	if b.n > maxWalk {
		return false
	}
	x := &evs[s]
	prev, c := int32(-1), b.head
	for k := 0; evs[c].before(x); k++ {
		if k == maxWalk {
			return false
		}
		prev, c = c, evs[c].next
	}
	x.next = c
	if prev < 0 {
		b.head = s
	} else {
		evs[prev].next = s
	}
	b.n++
	w.n++
	return true
}

// first is the index of the bucket holding the wheel's earliest event; the wheel must not be
// empty. Buckets are searched in time order from the current slot: the wheel holds only
// slots cur .. cur+wheelSize-1, so ring order from cur is time order.
func (w *wheel) first() int {
	start := int(w.cur & wheelMask)
	word := start >> 6
	m := w.full[word] &^ (1<<(uint(start)&63) - 1) // bits at or after start in its word
	for {
		if m != 0 {
			return word<<6 | bits.TrailingZeros64(m)
		}
		word = (word + 1) % wheelWords
		m = w.full[word]
		if word == start>>6 {
			// Wrapped to start's word again: its bits before start are the latest slots.
			m &= 1<<(uint(start)&63) - 1
		}
	}
}

// after is the first non-empty bucket after bucket i in time order (the ring from cur's
// bucket), or -1 if there is none before the wheel's end.
func (w *wheel) after(i int, cur int64) int {
	c := int(cur & wheelMask)
	for k := (i-c)&wheelMask + 1; k < wheelSize; {
		j := (c + k) & wheelMask
		if m := w.full[j>>6] >> (uint(j) & 63); m != 0 {
			if k += bits.TrailingZeros64(m); k < wheelSize {
				return (c + k) & wheelMask
			}
			return -1
		}
		k += 64 - j&63
	}
	return -1
}

// remove unlinks the head of bucket i, the earliest event, whose next is next. The caller
// moves cur.
func (w *wheel) remove(i int, next int32) {
	b := &w.buckets[i]
	b.head = next
	b.n--
	if next < 0 {
		b.tail = -1
		w.full[i>>6] &^= 1 << (uint(i) & 63)
	}
	w.n--
}
