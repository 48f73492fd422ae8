package sim

import (
	"fmt"
	"math"
)

// Handler receives the events scheduled for it. Op says which of the handler's actions is
// due and Data carries its argument (typically a pointer, which an interface holds without
// allocating).
type Handler interface {
	Handle(now Time, op int, data any)
}

// maxSlots bounds the number of pending events: the slot index shares a 64-bit word with the
// insertion sequence number (24 bits of slot, 40 of sequence).
const (
	slotBits = 24
	maxSlots = 1 << slotBits
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

type payload struct {
	target Handler
	data   any
	op     int
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
	near     *wheel
	heap     []entry
	slots    []payload
	free     []int32
	executed uint64
	stopped  bool
}

// NewEngine returns an engine at time zero with no events.
func NewEngine() *Engine {
	return &Engine{near: &wheel{}, heap: make([]entry, 0, 64), slots: make([]payload, 0, 1024)}
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
	var slot int32
	if n := len(e.free); n > 0 {
		slot = e.free[n-1]
		e.free = e.free[:n-1]
		e.slots[slot] = payload{h, data, op}
	} else {
		if len(e.slots) >= maxSlots {
			panic(fmt.Sprintf("sim: more than %d pending events", maxSlots))
		}
		slot = int32(len(e.slots))
		e.slots = append(e.slots, payload{h, data, op})
	}
	e.seq++
	x := entry{at: at, key: e.seq<<slotBits | uint64(slot)}
	if !e.near.insert(x) {
		e.push(x)
	}
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

// RunBudget is Run that also returns once it has handled budget events, reporting that with
// exhausted (Now is then the last event's time, not until). The events handled, and their
// order, are the same whether a run goes in one call or in many budgets, so a caller may cut
// a run into budgets to look at the clock or a signal between them without changing it.
func (e *Engine) RunBudget(until Time, budget uint64) (stopped, exhausted bool) {
	e.stopped = false
	for !e.stopped {
		var top entry
		var b *bucket
		switch {
		case e.near.n > 0:
			b = e.near.first()
			top = b.items[b.head]
			if len(e.heap) > 0 && e.heap[0].before(top) {
				top, b = e.heap[0], nil
			}
		case len(e.heap) > 0:
			top = e.heap[0]
		default:
			return e.finish(until)
		}
		if budget == 0 {
			return false, true
		}
		budget--
		if top.at > until {
			break
		}
		if b != nil {
			e.near.remove(b)
		} else {
			e.pop()
		}
		e.near.cur = int64(top.at) >> wheelShift
		slot := int32(top.key & (maxSlots - 1))
		p := e.slots[slot]
		e.slots[slot] = payload{}
		e.free = append(e.free, slot)
		e.now = top.at
		e.executed++
		p.target.Handle(top.at, p.op, p.data)
	}
	return e.finish(until)
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
}

// pop removes heap[0].
func (e *Engine) pop() {
	n := len(e.heap) - 1
	x := e.heap[n]
	e.heap = e.heap[:n]
	if n > 0 {
		e.siftDown(x)
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
