package hugepages

import (
	"context"
	"testing"
	"time"
)

// TestKeepStopsWithItsContext: a run's advisor must not outlive the run.
func TestKeepStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		Keep(ctx, time.Millisecond)
		close(done)
	}()
	time.Sleep(5 * time.Millisecond)
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Keep did not return after its context was cancelled")
	}
}
