package sim

import (
	"fmt"
	"math"
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

// Lane names what an event belongs to, for the order of events due at the same
// picosecond: a node of the fabric, or Global (setup and the events that see the whole
// fabric: samples, faults, collectives). An event is ordered by its time, then by the lane
// that scheduled it and that lane's own count of events scheduled (or, for a frame's
// arrival, the receiving node's lane and a number the wire gives it: AtKey). The key depends only on what each lane did, never on
// the order in which the engine ran other lanes' events, so a fabric cut into partitions,
// each with its own engine, runs every lane's events in the same order as one engine does
// (Group).
type Lane uint32

// Global is the lane of the setup and of the events that see the whole fabric.
const Global Lane = 0

// FirstSeq is the first sequence number a lane gives the events it schedules: the numbers
// below it are left for keys a caller numbers itself (AtKey), which run before the lane's
// own at the same time.
const FirstSeq = 1 << 63

// maxSlots bounds the number of pending events: slots are 32-bit indices.
const maxSlots = 1 << 31

// entry is one heap element: the event's time, its key (the lane that scheduled it and that
// lane's sequence number) and its slot. Keeping the payload out of the heap keeps the
// elements 24 bytes wide, so sifting stays in cache.
type entry struct {
	at   Time
	seq  uint64
	by   Lane
	slot int32
}

func (a entry) before(b entry) bool {
	return a.at < b.at || (a.at == b.at && (a.by < b.by || (a.by == b.by && a.seq < b.seq)))
}

// event is a pending event: when, its key (by, seq), what to call, the lane it runs in, and
// its link in a wheel bucket. Events live in one slab and are named by their index there (a
// slot), which the heap's entries and the wheel's lists use. It is 64 bytes, a cache line.
type event struct {
	at     Time
	seq    uint64
	target Handler
	data   any
	op     int32
	next   int32 // the next event of its wheel bucket, -1 at the tail
	by     Lane  // the lane that scheduled it (with seq, its key)
	lane   Lane  // the lane it runs in: the lane of the events it schedules
}

// before reports whether event a runs before event b: by time, then key.
func (a *event) before(b *event) bool {
	return a.at < b.at || (a.at == b.at && (a.by < b.by || (a.by == b.by && a.seq < b.seq)))
}

// Engine is a discrete-event loop. Events run in time order; events due at the same time run
// in the order of their keys (the lane that scheduled each and that lane's count), so a run is
// deterministic and does not depend on how a Group cuts the fabric into engines. The zero
// value is not usable; call NewEngine. An Engine is not safe for concurrent use: run one per
// goroutine.
//
// Pending events live in a timing wheel when they are due within a few microseconds (a
// packet's next hop), else in a binary heap; the next event is the earlier of the two
// heads by (time, key), so the order is exactly the heap's alone.
type Engine struct {
	now      Time
	lane     Lane     // the lane of the event being handled (Global outside Run)
	seqNow   uint64   // the sequence number of the event being handled
	seqs     []uint64 // per lane: events it has scheduled (each of a Group's engines its own: newSeqs)
	events   []event
	free     int32 // the first free event of the slab, linked through next; -1: none
	near     *wheel
	heap     []entry
	heapAt   Time // heap[0].at, or Never when the heap is empty: one comparison per event
	executed uint64
	stopped  bool
	out      *outbox // frames bound for other partitions (Group), nil alone
}

// NewEngine returns an engine at time zero with no events, whose one lane is Global
// (SetLanes adds more).
func NewEngine() *Engine {
	e := &Engine{near: &wheel{}, heap: make([]entry, 0, 64), heapAt: Never, events: make([]event, 0, 1024), free: -1,
		seqs: []uint64{FirstSeq}}
	e.near.reset()
	return e
}

// SetLanes makes room for lanes 0 .. n-1 to schedule events. A Group's engines have the
// lanes NewGroup gave them, which cannot grow.
func (e *Engine) SetLanes(n int) {
	if e.out != nil && n > len(e.seqs) {
		panic(fmt.Sprintf("sim: lane %d of a group of %d lanes", n-1, len(e.seqs)))
	}
	for len(e.seqs) < n {
		e.seqs = append(e.seqs, FirstSeq)
	}
}

// Now is the current simulated time: the time of the event being handled.
func (e *Engine) Now() Time { return e.now }

// Lane is the lane of the event being handled, Global outside Run.
func (e *Engine) Lane() Lane { return e.lane }

// Executed is the number of events handled so far.
func (e *Engine) Executed() uint64 { return e.executed }

// Pending is the number of events scheduled but not yet handled.
func (e *Engine) Pending() int { return len(e.heap) + e.near.n }

// At schedules h.Handle(at, op, data) in the current lane. Scheduling in the past is a
// programming error and panics. An event within the wheel's span costs O(1), a later one
// O(log n) in the heap's events; it does not allocate once the engine has grown to its
// working size.
func (e *Engine) At(at Time, h Handler, op int, data any) {
	e.put(at, h, op, data, uint64(e.lane)<<32|uint64(e.lane), 0)
}

// AtLane schedules h.Handle(at, op, data) to run in lane: a node's first event scheduled
// from the setup or from the whole fabric's events, or an event of another lane.
func (e *Engine) AtLane(lane Lane, at Time, h Handler, op int, data any) {
	e.put(at, h, op, data, uint64(e.lane)<<32|uint64(lane), 0)
}

// AtKey schedules h.Handle(at, op, data) in lane with the key (by, seq), which the caller
// numbers itself: a wire numbers the arrivals of its frames. Keys must be unique, and seq
// above 0.
func (e *Engine) AtKey(lane, by Lane, seq uint64, at Time, h Handler, op int, data any) {
	e.put(at, h, op, data, uint64(by)<<32|uint64(lane), seq)
}

// put schedules h.Handle(at, op, data) with the key (lanes>>32, seq) in lane uint32(lanes);
// seq 0 takes the next number of lane lanes>>32's own count. The two lanes share a word so
// that the arguments fit the registers of Go's calling convention: this is the one call per
// event of every scheduling path (At, AtLane, AtKey and AtNext inline to it).
func (e *Engine) put(at Time, h Handler, op int, data any, lanes, seq uint64) {
	if seq == 0 {
		s := &e.seqs[lanes>>32]
		*s++
		seq = *s
	}
	if at < e.now {
		panic(fmt.Sprintf("sim: event scheduled at %v, before now (%v)", at, e.now))
	}
	slot := e.free
	if slot < 0 {
		slot = e.grow()
	}
	evs := e.events
	ev := &evs[slot]
	e.free = ev.next
	by := Lane(lanes >> 32)
	ev.at, ev.seq, ev.target, ev.op, ev.by, ev.lane = at, seq, h, int32(op), by, Lane(lanes)
	if data != nil || ev.data != nil {
		ev.data = data
	}
	// The wheel's usual cases inline (see wheel.insert for the rest): an empty bucket, or the
	// latest event of its bucket.
	w := e.near
	if abs := int64(at) >> wheelShift; abs-w.cur < wheelSize {
		i := int(abs & wheelMask)
		b := &w.buckets[i]
		switch {
		case b.tail < 0:
			ev.next = -1
			b.head, b.tail, b.tailAt = slot, slot, int32(at&slotMask)
			w.full[i>>6] |= 1 << (uint(i) & 63)
		case int32(at&slotMask) > b.tailAt || (int32(at&slotMask) == b.tailAt && evs[b.tail].before(ev)):
			ev.next = -1
			evs[b.tail].next = slot
			b.tail, b.tailAt = slot, int32(at&slotMask)
		default:
			if !w.insert(evs, slot, b) {
				e.push(entry{at: at, seq: seq, by: by, slot: slot})
			}
			return
		}
		b.n++
		w.n++
		return
	}
	e.push(entry{at: at, seq: seq, by: by, slot: slot})
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
				if h := e.heap[0]; h.at < ev.at || h.by < ev.by || (h.by == ev.by && h.seq < ev.seq) {
					slot, bi = h.slot, -1
					ev = &e.events[slot]
				}
			}
		case len(e.heap) > 0:
			slot = e.heap[0].slot
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
			e.lane = Global
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
		e.lane, e.seqNow = ev.lane, ev.seq
		ev.next, e.free = e.free, slot
		e.now = at
		e.executed++
		target.Handle(at, int(op), data)
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

// finish ends RunBudget when no event is due by until, or Stop was called. Events scheduled
// between two runs are the setup's or the whole fabric's: they are the Global lane's.
func (e *Engine) finish(until Time) (stopped, exhausted bool) {
	e.lane = Global
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

// AtNext schedules h.Handle(at, op, data) in the current lane with the key step after the
// current event's: a wire's next arrival after the one being handled.
func (e *Engine) AtNext(step uint64, at Time, h Handler, op int, data any) {
	e.put(at, h, op, data, uint64(e.lane)<<32|uint64(e.lane), e.seqNow+step)
}

// Next is the time of the earliest pending event, Never when there is none.
func (e *Engine) Next() Time {
	t := e.heapAt
	if w := e.near; w.n > 0 {
		t = min(t, e.events[w.buckets[w.first()].head].at)
	}
	return t
}
