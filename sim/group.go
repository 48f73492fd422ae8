package sim

import (
	"fmt"
	"runtime/debug"
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
// destination, the crossings that hold frames, and the earliest arrival among them. Two
// parities let a partition fill one while the others empty the previous window's.
type outbox struct {
	parity int
	to     [2][][]Crossing
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
	seqs := make([]uint64, max(lanes, 1))
	for i := range seqs {
		seqs[i] = FirstSeq
	}
	g := &Group{window: window, threads: threads, global: NewEngine(), work: make([][]int, threads)}
	g.global.seqs = seqs
	for i := range parts {
		e := NewEngine()
		e.seqs = seqs
		e.out = &outbox{next: [2]Time{Never, Never}}
		for p := range e.out.to {
			e.out.to[p] = make([][]Crossing, parts)
		}
		g.parts = append(g.parts, e)
		g.work[i%threads] = append(g.work[i%threads], i)
	}
	return g
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

// receive calls the crossings handed to partition p in the window of parity par.
func (g *Group) receive(p, par int) {
	for _, from := range g.parts {
		cs := from.out.to[par][p]
		for i, c := range cs {
			c.Cross(par)
			cs[i] = nil
		}
		from.out.to[par][p] = cs[:0]
	}
}

// receiveAll hands every partition what was sent to it, before the whole fabric's events.
func (g *Group) receiveAll() {
	for par := range 2 {
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
	start, done := g.startThreads()
	defer g.stopThreads(start)
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
		g.runWindow(end, start, done)
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
func (g *Group) runWindow(end Time, start []chan Time, done chan any) {
	par := int(g.windows & 1)
	g.windows++
	for _, e := range g.parts {
		// The frames of the previous window are taken in by their partitions as this one
		// starts, those of the one before were taken in at the previous start.
		e.out.parity, e.out.next = par, [2]Time{Never, Never}
	}
	for _, c := range start {
		c <- end
	}
	g.runThread(0, end)
	var failed any
	for range start {
		if r := <-done; r != nil {
			failed = r
		}
	}
	if failed != nil {
		panic(failed)
	}
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

// startThreads starts the goroutines of threads 1 .. threads-1, each waiting for the end of
// a window on its channel.
func (g *Group) startThreads() ([]chan Time, chan any) {
	start := make([]chan Time, g.threads-1)
	done := make(chan any, g.threads)
	for i := range start {
		start[i] = make(chan Time)
		go func(i int, c chan Time) {
			for end := range c {
				done <- g.runSafely(i, end)
			}
		}(i+1, start[i])
	}
	return start, done
}

// runSafely is runThread that returns a panic's value instead of crashing the program from a
// goroutine the caller cannot recover in.
func (g *Group) runSafely(i int, end Time) (failed any) {
	defer func() {
		if r := recover(); r != nil {
			failed = fmt.Sprintf("%v (thread %d)\n%s", r, i, debug.Stack())
		}
	}()
	g.runThread(i, end)
	return nil
}

func (g *Group) stopThreads(start []chan Time) {
	for _, c := range start {
		close(c)
	}
}
