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
// A thread that has waited longer than spinFor sleeps on a condition variable, so a run
// beside busier work, or with partitions of unequal load, does not burn a core waiting.
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
	for seen := uint64(0); ; {
		w, ok := b.awaitWindow(seen)
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

// awaitWindow waits for a window after seen; false when the threads are to stop.
func (b *barrier) awaitWindow(seen uint64) (uint64, bool) {
	if w := b.window.Load(); w != seen {
		return w, true
	}
	for deadline, n := time.Now().Add(spinFor), 1; ; n++ {
		if w := b.window.Load(); w != seen {
			return w, true
		}
		if n%spinCheck == 0 && time.Now().After(deadline) {
			break
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
	for deadline, n := time.Now().Add(spinFor), 1; b.pending.Load() != 0; n++ {
		if n%spinCheck == 0 && time.Now().After(deadline) {
			b.mu.Lock()
			for b.pending.Load() != 0 {
				b.waiting = true
				b.finished.Wait()
			}
			b.waiting = false
			b.mu.Unlock()
			break
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
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
