package sim

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"unsafe"
)

// eface is how the gc compiler lays out an interface value (go/src/runtime/runtime2.go's
// eface, and iface for one with methods: a type or method-table word, then the value's):
// the second word points at the value, for the pointers the engine's handlers and data are.
type eface struct{ typ, data unsafe.Pointer }

// Handler receives the events scheduled for it. Op says which of the handler's actions is
// due and Data carries its argument (typically a pointer, which an interface holds without
// allocating).
type Handler interface {
	Handle(now Time, op int, data any)
}

// maxSlots bounds the number of pending events: the slot index shares a 64-bit word with the
// insertion sequence number (24 bits of slot, 40 of sequence). The sequence numbers
// restart below maxSeq before they outgrow their 40 bits (see renumber), so a run may
// execute any number of events.
const (
	slotBits = 24
	maxSlots = 1 << slotBits
	maxSeq   = 1<<(64-slotBits) - 1 // the largest sequence number a heap key holds
)

// entry is one heap element: the event's time and its (sequence, slot) key. Keeping the
// payload out of the heap keeps the elements 16 bytes wide, so sifting stays in cache.
type entry struct {
	at  Time
	key uint64 // seq<<slotBits | slot; seq is unique, so it alone orders equal times
}

func (a entry) before(b entry) bool {
	return a.at < b.at || (a.at == b.at && a.key < b.key)
}

// event is a pending event: when, its insertion sequence number, what to call, and its link
// in a wheel bucket. Events live in one slab and are named by their index there (a slot),
// which the heap's entries and the wheel's lists use.
type event struct {
	at     Time
	seq    uint64
	target Handler
	data   any
	op     int
	next   int32 // the next event of its wheel bucket, -1 at the tail
}

// Engine is a discrete-event loop. Events run in time order; events scheduled for the same
// time run in the order they were scheduled, so a run is deterministic. The zero value is not
// usable; call NewEngine. An Engine is not safe for concurrent use: run one per goroutine.
//
// Pending events live in a timing wheel when they are due within a few microseconds (a
// packet's next hop), else in a binary heap; the next event is the earlier of the two
// heads by (time, sequence), so the order is exactly the heap's alone.
type Engine struct {
	now      Time
	seq      uint64
	events   []event
	free     int32 // the first free event of the slab, linked through next; -1: none
	near     *wheel
	heap     []entry
	heapAt   Time // heap[0].at, or Never when the heap is empty: one comparison per event
	executed uint64
	stopped  bool
}

// NewEngine returns an engine at time zero with no events.
func NewEngine() *Engine {
	e := &Engine{near: &wheel{}, heap: make([]entry, 0, 64), heapAt: Never, events: make([]event, 0, 1024), free: -1}
	e.near.reset()
	return e
}

// Now is the current simulated time: the time of the event being handled.
func (e *Engine) Now() Time { return e.now }

// Executed is the number of events handled so far.
func (e *Engine) Executed() uint64 { return e.executed }

// Pending is the number of events scheduled but not yet handled.
func (e *Engine) Pending() int { return len(e.heap) + e.near.n }

// At schedules h.Handle(at, op, data). Scheduling in the past is a programming error and
// panics. An event within the wheel's span costs O(1), a later one O(log n) in the heap's
// events; it does not allocate once the engine has grown to its working size.
func (e *Engine) At(at Time, h Handler, op int, data any) {
	if at < e.now {
		panic(fmt.Sprintf("sim: event scheduled at %v, before now (%v)", at, e.now))
	}
	if e.seq == maxSeq {
		e.renumber()
	}
	slot := e.free
	if slot < 0 {
		slot = e.grow()
	}
	evs := e.events
	ev := &evs[slot]
	e.free = ev.next
	e.seq++
	ev.at, ev.seq, ev.target, ev.op = at, e.seq, h, op
	if data != nil || ev.data != nil {
		ev.data = data
	}
	// The wheel's usual cases inline (see wheel.insert for the rest): an empty bucket, or the
	// latest event of its bucket (equal times keep insertion order, and this is the latest
	// inserted).
	w := e.near
	if abs := int64(at) >> wheelShift; abs-w.cur < wheelSize {
		i := int(abs & wheelMask)
		b := &w.buckets[i]
		switch {
		case b.tail < 0:
			ev.next = -1
			b.head, b.tail, b.tailAt = slot, slot, int32(at&slotMask)
			w.full[i>>6] |= 1 << (uint(i) & 63)
		case int32(at&slotMask) >= b.tailAt:
			ev.next = -1
			evs[b.tail].next = slot
			b.tail, b.tailAt = slot, int32(at&slotMask)
		default:
			if !w.insert(evs, slot, b) {
				e.push(entry{at: at, key: e.seq<<slotBits | uint64(slot)})
			}
			return
		}
		b.n++
		w.n++
		return
	}
	e.push(entry{at: at, key: e.seq<<slotBits | uint64(slot)})
}

// grow adds a free event to the slab, which has none, and returns it; its next is -1, so the
// free list stays empty once it is taken.
func (e *Engine) grow() int32 {
	if len(e.events) >= maxSlots {
		panic(fmt.Sprintf("sim: more than %d pending events", maxSlots))
	}
	e.events = append(e.events, event{next: -1})
	return int32(len(e.events) - 1)
}

// renumber gives the pending events the sequence numbers 1, 2, ... in their (time,
// sequence) order, and the next event the one after: the order of the heap and of the
// wheel's lists is unchanged, since both sort by (time, sequence) and the new numbers keep
// the old ones' order, but the numbers are back far below maxSeq. With at most maxSlots
// events pending it runs once per 2^40 - 2^24 events at the most (after about 30 hours of
// a large fabric's run at 10 M events a second); a heap key of 40 bits that wrapped
// instead would put an event before earlier ones of its time.
func (e *Engine) renumber() {
	pending := make([]int32, 0, e.Pending())
	for _, h := range e.heap {
		pending = append(pending, int32(h.key&(maxSlots-1)))
	}
	for i := range e.near.buckets {
		for s := e.near.buckets[i].head; s >= 0; s = e.events[s].next {
			pending = append(pending, s)
		}
	}
	evs := e.events
	slices.SortFunc(pending, func(a, b int32) int {
		if c := cmp.Compare(evs[a].at, evs[b].at); c != 0 {
			return c
		}
		return cmp.Compare(evs[a].seq, evs[b].seq)
	})
	for i, s := range pending {
		evs[s].seq = uint64(i + 1)
	}
	for i, h := range e.heap {
		s := h.key & (maxSlots - 1)
		e.heap[i].key = evs[s].seq<<slotBits | s
	}
	e.seq = uint64(len(pending))
}

// After schedules h.Handle at d after now.
func (e *Engine) After(d Time, h Handler, op int, data any) { e.At(e.now+d, h, op, data) }

// Stop makes Run return after the event being handled.
func (e *Engine) Stop() { e.stopped = true }

// Run handles events in order until none is left, the next is later than until, or Stop is
// called. When it returns because of until, Now is until. It reports whether it was stopped.
func (e *Engine) Run(until Time) (stopped bool) {
	stopped, _ = e.RunBudget(until, math.MaxUint64)
	return stopped
}

// RunBudget is Run that also returns once it has handled budget events while an event due by
// until is still pending, reporting that with exhausted (Now is then the last event's time,
// not until); a budget that runs out with the run's last event is not exhausted, so a bound
// of exactly the events a run needs lets it end as it would unbounded. The events handled, and their
// order, are the same whether a run goes in one call or in many budgets, so a caller may cut
// a run into budgets to look at the clock or a signal between them without changing it.
func (e *Engine) RunBudget(until Time, budget uint64) (stopped, exhausted bool) {
	e.stopped = false
	w := e.near
	for !e.stopped {
		var ev *event
		var slot int32
		bi := -1 // the wheel bucket the event comes from, -1 for the heap
		switch {
		case w.n > 0:
			bi = w.first()
			slot = w.buckets[bi].head
			ev = &e.events[slot]
			if e.heapAt <= ev.at {
				if h := e.heap[0]; h.at < ev.at || h.key>>slotBits < ev.seq {
					slot, bi = int32(h.key&(maxSlots-1)), -1
					ev = &e.events[slot]
				}
			}
		case len(e.heap) > 0:
			slot = int32(e.heap[0].key & (maxSlots - 1))
			ev = &e.events[slot]
		default:
			return e.finish(until)
		}
		at := ev.at
		if at > until {
			break
		}
		// The budget is looked at only for an event that would run: a run whose budget ends
		// with its last event due by until has ended, not been cut short.
		if budget == 0 {
			return false, true
		}
		budget--
		if bi >= 0 {
			w.remove(bi, ev.next)
			if w.n > denseWheel {
				e.prefetchNext(ev.next)
			}
		} else {
			e.pop()
		}
		w.cur = int64(at) >> wheelShift
		target, op, data := ev.target, ev.op, ev.data
		ev.next, e.free = e.free, slot
		e.now = at
		e.executed++
		target.Handle(at, op, data)
	}
	return e.finish(until)
}

// denseWheel is the pending events above which the wheel counts as dense (one per eight
// buckets): a large fabric, whose events' lines do not stay in cache. The engine prefetches
// only then; on a small fabric the prefetches and bucket searches cost instructions and
// save nothing (the lines are in cache).
const denseWheel = wheelSize / 8

// prefetchNext starts the cache misses of the event that will most likely run next: the one
// behind the event just taken from its wheel bucket (slot next), or else the head of the
// next non-empty bucket. It fetches that event's handler and data (for a wire, its
// frame-path line and the arriving frame) and the event after it. On a large fabric these
// lines were last touched microseconds ago, out of the L2 cache; fetched while the current
// event runs, they are there when the next one starts, instead of one miss after another.
// It is a hint: an event scheduled meanwhile may run first, and the order does not depend
// on it.
func (e *Engine) prefetchNext(next int32) {
	w := e.near
	if next < 0 {
		next = w.buckets[w.first()].head
	}
	n := &e.events[next]
	Prefetch((*eface)(unsafe.Pointer(&n.target)).data)
	if d := (*eface)(unsafe.Pointer(&n.data)).data; d != nil {
		Prefetch(d)
	}
	nn := n.next
	if nn < 0 {
		// The next event is its bucket's last: the one after it heads a later bucket.
		if b := w.after(int(int64(n.at)>>wheelShift&wheelMask), w.cur); b >= 0 {
			nn = w.buckets[b].head
		}
	}
	if nn >= 0 {
		Prefetch(unsafe.Pointer(&e.events[nn]))
	}
}

// finish ends RunBudget when no event is due by until, or Stop was called.
func (e *Engine) finish(until Time) (stopped, exhausted bool) {
	if !e.stopped && until != Never && e.now < until {
		e.now = until
	}
	return e.stopped, false
}

func (e *Engine) push(x entry) {
	h := append(e.heap, x)
	i := len(h) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !x.before(h[parent]) {
			break
		}
		h[i] = h[parent]
		i = parent
	}
	h[i] = x
	e.heap = h
	e.heapAt = h[0].at
}

// pop removes heap[0].
func (e *Engine) pop() {
	n := len(e.heap) - 1
	x := e.heap[n]
	e.heap = e.heap[:n]
	e.heapAt = Never
	if n > 0 {
		e.siftDown(x)
		e.heapAt = e.heap[0].at
	}
}

// siftDown puts x in place of heap[0] and restores the heap order. It walks the hole left by
// the old top down to a leaf along the smaller children, then sifts x up from there (Floyd's
// bottom-up variant): x is usually a late event that belongs near the bottom, so this costs
// one comparison per level instead of two.
func (e *Engine) siftDown(x entry) {
	h := e.heap
	n := len(h)
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && h[r].before(h[l]) {
			c = r
		}
		h[i] = h[c]
		i = c
	}
	for i > 0 {
		parent := (i - 1) / 2
		if !x.before(h[parent]) {
			break
		}
		h[i] = h[parent]
		i = parent
	}
	h[i] = x
}
