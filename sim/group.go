package sim

import (
	"fmt"
	"sync/atomic"
)

// Crossing is what one partition hands to another between two windows: the frames a wire
// carried out of its sending partition in one window, all of which arrive in a later one.
type Crossing interface {
	// Cross takes the frames sent in the window of the given parity into the receiving
	// partition. It is called in the receiving partition, before its next window runs.
	Cross(parity int)
}

// outbox is what an engine of a Group hands to the other partitions: per window parity and
// destination, the crossings that hold frames, the destinations that have some (in the order
// they were first handed one), and the earliest arrival among them. Two parities let a
// partition fill one while the others empty the previous window's.
type outbox struct {
	parity int
	to     [2][][]Crossing
	dests  [2][]int32
	next   [2]Time
}

// Parity is the parity of the Group's window being run (0 for an engine alone).
func (e *Engine) Parity() int {
	if e.out == nil {
		return 0
	}
	return e.out.parity
}

// HandOff asks for c.Cross to be called in partition to before its next window; at is the
// earliest arrival c holds, which must be at or after the end of the current window. The
// caller hands a crossing over once per window, when it first holds a frame of it.
func (e *Engine) HandOff(to int, c Crossing, at Time) {
	o := e.out
	if len(o.to[o.parity][to]) == 0 {
		o.dests[o.parity] = append(o.dests[o.parity], int32(to))
	}
	o.to[o.parity][to] = append(o.to[o.parity][to], c)
	o.next[o.parity] = min(o.next[o.parity], at)
}

// Group runs a fabric cut into partitions, one Engine each, in windows no longer than the
// lookahead: the shortest delay of a link between two partitions, so that nothing a
// partition does in a window can reach another before the window ends. Partitions run a
// window each on its own (on as many goroutines as threads), then hand over the frames that
// crossed. A Global engine holds the events that see the whole fabric; they run between
// windows, with every partition at their time.
//
// Windows lie on a grid of the lookahead from time zero, which depends on the fabric, not on
// the partitioning; Stop takes effect at the end of a grid window, so a run with one
// partition ends exactly where a run with many does, and since events at the same time are
// ordered by keys that belong to lanes (Engine), each lane runs the same events in the same
// order however the fabric is cut.
type Group struct {
	parts   []*Engine
	global  *Engine
	window  Time
	threads int
	windows uint64
	grid    Time // the end of the grid window of the last window run
	now     Time
	stop    atomic.Bool
	budget  uint64 // events the run may still handle (one partition only: Run)
	spent   bool   // the budget ran out with an event due
	// work is the partitions each thread runs, in order.
	work [][]int
	// from is, per window parity and receiving partition, the partitions that handed it
	// something, in increasing order (collect): a partition's intake reads only those, so the
	// hand-over costs what crossed, not the square of the partitions.
	from [2][][]int32
	// after, when not nil, runs after every window (AfterWindow).
	after func(end Time)
}

// NewGroup returns a group of parts partitions run on threads goroutines in windows of
// window, with lanes 0 .. lanes-1, all at time zero and empty.
func NewGroup(parts, threads int, window Time, lanes int) *Group {
	if parts < 1 || threads < 1 || window <= 0 {
		panic(fmt.Sprintf("sim: a group of %d partitions on %d threads in windows of %v", parts, threads, window))
	}
	threads = min(threads, parts)
	g := &Group{window: window, threads: threads, global: NewEngine(), work: make([][]int, threads)}
	g.global.seqs = newSeqs(lanes)
	for p := range g.from {
		g.from[p] = make([][]int32, parts)
	}
	for i := range parts {
		e := NewEngine()
		e.seqs = newSeqs(lanes)
		e.out = &outbox{next: [2]Time{Never, Never}}
		for p := range e.out.to {
			e.out.to[p] = make([][]Crossing, parts)
		}
		g.parts = append(g.parts, e)
		g.work[i%threads] = append(g.work[i%threads], i)
	}
	return g
}

// newSeqs returns the counts of lanes 0 .. lanes-1 of one engine of a group, each at its
// start. Each engine counts for itself: a node's lane schedules only in its own partition's
// engine (and the Global lane's numbers order only the events of the engine they are in),
// so the keys' order within every engine is what one shared count gives, and no two
// threads write one count's cache line (the spines' lanes are neighbours, and a cut splits
// them).
func newSeqs(lanes int) []uint64 {
	seqs := make([]uint64, max(lanes, 1))
	for i := range seqs {
		seqs[i] = FirstSeq
	}
	return seqs
}

// Part is partition i's engine.
func (g *Group) Part(i int) *Engine { return g.parts[i] }

// Parts is the number of partitions.
func (g *Group) Parts() int { return len(g.parts) }

// Threads is the number of goroutines the partitions run on.
func (g *Group) Threads() int { return g.threads }

// AfterWindow makes f run after every window, on the goroutine that called Run, while no
// partition runs: what the partitions lent each other in the window is settled there, with
// no lock on their own paths (the packets a partition took and another gave back), and
// what needs every partition's view of the window is decided. end is the window's end:
// every event before it has run, none at or after it; an event the global engine schedules
// from f runs before any at its time. One function per group; a second call replaces the
// first.
func (g *Group) AfterWindow(f func(end Time)) { g.after = f }

// Global is the engine of the events that see the whole fabric.
func (g *Group) Global() *Engine { return g.global }

// Windows is the number of windows run.
func (g *Group) Windows() uint64 { return g.windows }

// Now is the time the run has reached.
func (g *Group) Now() Time { return g.now }

// Executed is the number of events handled so far, in every engine.
func (g *Group) Executed() uint64 {
	n := g.global.executed
	for _, e := range g.parts {
		n += e.executed
	}
	return n
}

// Stop ends the run at the end of the current grid window. Any partition may call it.
func (g *Group) Stop() { g.stop.Store(true) }

// next is the earliest event of the partitions, frames handed over included.
func (g *Group) next() Time {
	t := Never
	for _, e := range g.parts {
		t = min(t, e.Next(), e.out.next[0], e.out.next[1])
	}
	return t
}

// collect notes, for each partition, which partitions handed it something in the window of
// parity par (their outboxes' dests), in increasing order of the sender. It runs while no
// partition does.
func (g *Group) collect(par int) {
	for s, e := range g.parts {
		o := e.out
		for _, d := range o.dests[par] {
			g.from[par][d] = append(g.from[par][d], int32(s))
		}
		o.dests[par] = o.dests[par][:0]
	}
}

// receive calls the crossings handed to partition p in the window of parity par, sender by
// sender in increasing order (collect).
func (g *Group) receive(p, par int) {
	senders := g.from[par][p]
	for _, s := range senders {
		from := g.parts[s]
		cs := from.out.to[par][p]
		for i, c := range cs {
			c.Cross(par)
			cs[i] = nil
		}
		from.out.to[par][p] = cs[:0]
	}
	g.from[par][p] = senders[:0]
}

// receiveAll hands every partition what was sent to it, before the whole fabric's events.
func (g *Group) receiveAll() {
	for par := range 2 {
		g.collect(par)
		for p := range g.parts {
			g.receive(p, par)
		}
		for _, e := range g.parts {
			e.out.next[par] = Never
		}
	}
}

// Run handles events in order until none is left, the next is later than until, or Stop was
// called and its grid window ended; between, when not nil, is called after every window and
// ends the run when it returns false (a wall-clock limit or a signal: the run ends at the
// end of a window). It reports whether Stop ended the run. Now is then the end of the grid
// window, or until when the run reached it.
func (g *Group) Run(until Time, between func() bool) (stopped bool) {
	stopped, _ = g.RunBudget(until, ^uint64(0), between)
	return stopped
}

// RunBudget is Run that also returns, with exhausted, once it has handled budget events
// while one is still due by until (Engine.RunBudget): a cut at an exact event, which only a
// group of one partition can make the same way every time, so a budget needs one.
func (g *Group) RunBudget(until Time, budget uint64, between func() bool) (stopped, exhausted bool) {
	if budget != ^uint64(0) && len(g.parts) > 1 {
		panic("sim: a budget of events needs a group of one partition")
	}
	g.budget, g.spent = budget, false
	g.stop.Store(false)
	g.grid = Never
	b := g.startThreads()
	defer b.stop()
	for {
		t, tg := g.next(), g.global.Next()
		if g.stop.Load() && min(t, tg) >= g.grid && g.grid <= until {
			// Stop was called in the grid window that ended at g.grid, and nothing is left
			// before its end (the whole fabric's events may have cut it in pieces).
			g.setNow(g.grid)
			return true, false
		}
		if min(t, tg) == Never || (t > until && tg > until) {
			if until != Never {
				g.setNow(until)
			}
			return false, false
		}
		if tg <= t {
			// Every partition is at tg (what its nodes read as the time now), with nothing of
			// its own before it, and holds every frame sent to it.
			g.receiveAll()
			g.setNow(tg)
			before := g.global.executed
			_, spent := g.global.RunBudget(tg, g.budget)
			// What the whole fabric's events sent across partitions is taken in now: the
			// next window may be the first, which takes nothing in.
			g.receiveAll()
			if g.budget != ^uint64(0) {
				g.budget -= g.global.executed - before
			}
			if spent {
				return false, true
			}
			continue
		}
		grid := (t/g.window + 1) * g.window
		end := min(grid, tg)
		if until < end {
			end = until + 1
		}
		g.runWindow(end, b)
		if g.spent {
			g.now = g.parts[0].now
			return false, true
		}
		g.now = max(g.now, end-1)
		g.grid = grid
		if between != nil && !between() {
			g.setNow(end) // every event before end has run, none after
			return false, false
		}
	}
}

// setNow moves every engine's clock to t, which no pending event precedes.
func (g *Group) setNow(t Time) {
	g.now = t
	g.global.now = max(g.global.now, t)
	for _, e := range g.parts {
		e.now = max(e.now, t)
	}
}

// runWindow runs every partition's events due before end: this goroutine the first
// thread's partitions, the others theirs.
func (g *Group) runWindow(end Time, b *barrier) {
	par := int(g.windows & 1)
	g.windows++
	for _, e := range g.parts {
		// The frames of the previous window are taken in by their partitions as this one
		// starts, those of the one before were taken in at the previous start.
		e.out.parity, e.out.next = par, [2]Time{Never, Never}
	}
	if g.threads > 1 {
		b.open(end, g.threads-1)
	}
	g.runThread(0, end)
	if g.threads > 1 {
		if failed := b.wait(); failed != nil {
			panic(failed)
		}
	}
	g.collect(par)
	if g.after != nil {
		g.after(end)
	}
}

// runThread runs thread i's partitions up to end: each first takes the frames handed to it
// in the previous window.
func (g *Group) runThread(i int, end Time) {
	prev := int(g.windows-1)&1 ^ 1
	for _, p := range g.work[i] {
		if g.windows > 1 {
			g.receive(p, prev)
		}
		if g.budget != ^uint64(0) { // one partition (RunBudget)
			e := g.parts[p]
			before := e.executed
			_, g.spent = e.RunBudget(end-1, g.budget)
			g.budget -= e.executed - before
			continue
		}
		g.parts[p].RunBudget(end-1, ^uint64(0))
	}
}

// startThreads starts the goroutines of threads 1 .. threads-1, each waiting at the barrier
// for a window to run.
func (g *Group) startThreads() *barrier {
	b := newBarrier()
	b.start(g.threads, g.runThread)
	return b
}
