package sim

import (
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// barrier starts a window on every thread of a Group and waits for all of them to finish
// it. The coordinating goroutine publishes the window's end and bumps a count of windows;
// each other thread watches the count, runs its partitions, and takes one off the threads
// still running. Both sides spin for a while before they sleep: windows on a large fabric
// follow each other within microseconds, where waking a sleeping goroutine through a channel
// costs a few microseconds per thread, one after another (docs/performance.md, round six).
// A side that has polled for spinFor sleeps on a condition variable; and a side whose polling
// came to nothing polls again only after a number of windows that doubles with each failure
// in a row (a backoff): on a machine with more runnable threads than cores, or with
// partitions of unequal load, the other side is not coming soon, and polling would only take
// the core from it (measured: polling for 50 us every window on this 2-core machine under
// load made every window 150 us; docs/performance.md).
type barrier struct {
	// The fields the threads poll each have a cache line of their own: the coordinator
	// writes window and end once a window, the threads pending once each.
	window  atomic.Uint64 // windows started; a thread runs window w once it sees w
	_       [56]byte
	end     atomic.Int64 // the current window's end (a Time)
	_       [56]byte
	pending atomic.Int32 // threads of the current window still running
	_       [60]byte

	mu       sync.Mutex
	started  sync.Cond // a window started, or the threads are to stop
	finished sync.Cond // the last thread finished its window
	sleepers int       // threads asleep on started (under mu)
	waiting  bool      // the coordinator asleep on finished (under mu)
	spin     backoff   // the coordinator's
	closed   bool      // the threads are to return (under mu)
	failed   any       // the first panic of a thread, with its stack (under mu)
	threads  sync.WaitGroup
}

// spinFor is how long a thread polls before it sleeps: about as long as waking a sleeping
// goroutine takes, a few times over, so that a thread that sleeps has lost little by it.
const spinFor = 50 * time.Microsecond

// spinCheck is how many polls go between two readings of the clock while spinning.
const spinCheck = 64

func newBarrier() *barrier {
	b := &barrier{}
	b.started.L = &b.mu
	b.finished.L = &b.mu
	return b
}

// start runs run(i, end) on threads 1 .. n-1, each on a goroutine of its own, once for every
// window the coordinator opens, until stop.
func (b *barrier) start(n int, run func(i int, end Time)) {
	for i := 1; i < n; i++ {
		b.threads.Add(1)
		go b.thread(i, run)
	}
}

// thread is thread i's life: wait for a window, run it, say so.
func (b *barrier) thread(i int, run func(i int, end Time)) {
	defer b.threads.Done()
	var spin backoff
	for seen := uint64(0); ; {
		w, ok := b.awaitWindow(seen, &spin)
		if !ok {
			return
		}
		seen = w
		if failed := runSafely(i, Time(b.end.Load()), run); failed != nil {
			b.mu.Lock()
			if b.failed == nil {
				b.failed = failed
			}
			b.mu.Unlock()
		}
		if b.pending.Add(-1) == 0 {
			b.mu.Lock()
			if b.waiting {
				b.finished.Signal()
			}
			b.mu.Unlock()
		}
	}
}

// awaitWindow waits for a window after seen, polling first if spin says so; false when the
// threads are to stop.
func (b *barrier) awaitWindow(seen uint64, spin *backoff) (uint64, bool) {
	if w := b.window.Load(); w != seen {
		return w, true
	}
	if spin.try() {
		ok := poll(func() bool { return b.window.Load() != seen })
		spin.done(ok)
		if ok {
			return b.window.Load(), true
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.window.Load() == seen && !b.closed {
		b.sleepers++
		b.started.Wait()
		b.sleepers--
	}
	w := b.window.Load()
	return w, w != seen
}

// poll reports whether ready became true within spinFor.
func poll(ready func() bool) bool {
	for deadline, n := time.Now().Add(spinFor), 1; ; n++ {
		if ready() {
			return true
		}
		if n%spinCheck == 0 && time.Now().After(deadline) {
			return false
		}
	}
}

// backoff decides when a side of the barrier polls: always while polling works; after a
// failure, not for the next 1, then 2, 4, ... up to maxSkip waits.
type backoff struct {
	skip, next uint32
}

// maxSkip is the most waits a backoff lets go by without polling.
const maxSkip = 1024

// try reports whether to poll this time.
func (s *backoff) try() bool {
	if s.skip > 0 {
		s.skip--
		return false
	}
	return true
}

// done takes the outcome of a poll.
func (s *backoff) done(ok bool) {
	if ok {
		s.next = 0
		return
	}
	s.next = min(max(2*s.next, 1), maxSkip)
	s.skip = s.next
}

// open starts a window that ends at end on every other thread.
func (b *barrier) open(end Time, others int) {
	b.end.Store(int64(end))
	b.pending.Store(int32(others))
	b.window.Add(1)
	b.mu.Lock()
	if b.sleepers > 0 {
		b.started.Broadcast()
	}
	b.mu.Unlock()
}

// wait waits for every other thread to finish the window, and returns the first panic one
// met, or nil.
func (b *barrier) wait() any {
	done := b.pending.Load() == 0
	if !done && b.spin.try() {
		done = poll(func() bool { return b.pending.Load() == 0 })
		b.spin.done(done)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for !done && b.pending.Load() != 0 {
		b.waiting = true
		b.finished.Wait()
	}
	b.waiting = false
	failed := b.failed
	b.failed = nil
	return failed
}

// stop makes the threads return, once they have finished the window they run, and waits
// for them.
func (b *barrier) stop() {
	b.mu.Lock()
	b.closed = true
	b.started.Broadcast()
	b.mu.Unlock()
	b.threads.Wait()
}

// runSafely is run(i, end) that returns a panic's value, with the thread and its stack,
// instead of crashing the program from a goroutine the caller cannot recover in.
func runSafely(i int, end Time, run func(i int, end Time)) (failed any) {
	defer func() {
		if r := recover(); r != nil {
			failed = fmt.Sprintf("%v (thread %d)\n%s", r, i, debug.Stack())
		}
	}()
	run(i, end)
	return nil
}
