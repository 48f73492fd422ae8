package sim

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestBarrierRunsEveryWindowOnceOnEveryThread drives the barrier through both of its ways of
// waiting: windows that follow at once (the threads still spinning) and windows opened after
// a pause longer than spinFor, with one thread slower than spinFor (the threads and the
// coordinator asleep on their condition variables).
func TestBarrierRunsEveryWindowOnceOnEveryThread(t *testing.T) {
	const threads, windows = 4, 60
	var ran [threads]atomic.Int64 // per thread: the sum of the ends it ran
	var count [threads]atomic.Int64
	b := newBarrier()
	b.start(threads, func(i int, end Time) {
		if i == 1 && end%3 == 0 {
			time.Sleep(3 * spinFor) // the coordinator gives up spinning and sleeps
		}
		ran[i].Add(int64(end))
		count[i].Add(1)
	})
	want := int64(0)
	for w := 1; w <= windows; w++ {
		if w%5 == 0 {
			time.Sleep(3 * spinFor) // the threads give up spinning and sleep
		}
		b.open(Time(w), threads-1)
		want += int64(w)
		require.Nil(t, b.wait())
		for i := 1; i < threads; i++ {
			require.Equal(t, int64(w), count[i].Load(), "thread %d after window %d", i, w)
		}
	}
	b.stop()
	for i := 1; i < threads; i++ {
		require.Equal(t, want, ran[i].Load(), "thread %d ran each window's own end", i)
	}
}

// TestBarrierStopsSleepingAndSpinningThreads: stop returns whether the threads are polling
// or asleep.
func TestBarrierStopsSleepingAndSpinningThreads(t *testing.T) {
	for _, pause := range []time.Duration{0, 3 * spinFor} {
		b := newBarrier()
		b.start(3, func(int, Time) {})
		b.open(1, 2)
		require.Nil(t, b.wait())
		time.Sleep(pause)
		done := make(chan struct{})
		go func() { b.stop(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("stop did not return after a pause of %v", pause)
		}
	}
}

// TestBarrierPassesOnTheFirstPanic: a thread's panic reaches the coordinator's wait with its
// thread number, and the barrier goes on working.
func TestBarrierPassesOnTheFirstPanic(t *testing.T) {
	b := newBarrier()
	b.start(3, func(i int, end Time) {
		if end == 1 && i == 2 {
			panic("broken handler")
		}
	})
	defer b.stop()
	b.open(1, 2)
	failed := b.wait()
	require.NotNil(t, failed)
	require.Contains(t, failed, "broken handler (thread 2)")
	b.open(2, 2)
	require.Nil(t, b.wait())
}

// TestBackoffDoublesTheWaitsItSkips: a failed poll skips 1, then 2, 4, ... waits up to
// maxSkip; a poll that works resets it.
func TestBackoffDoublesTheWaitsItSkips(t *testing.T) {
	var s backoff
	require.True(t, s.try())
	skipped := func() int {
		n := 0
		for !s.try() {
			n++
		}
		return n
	}
	for _, want := range []int{1, 2, 4, 8} {
		s.done(false)
		require.Equal(t, want, skipped())
	}
	for range 20 {
		s.done(false)
		skipped()
	}
	s.done(false)
	require.Equal(t, maxSkip, skipped())
	s.done(true)
	require.True(t, s.try())
	s.done(false)
	require.Equal(t, 1, skipped())
}
