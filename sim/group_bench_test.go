package sim

import (
	"fmt"
	"testing"
)

// tick is a partition's one event a window: it schedules itself a window later, so that a
// window holds almost no work and the hand-over between windows is what is timed.
type tick struct {
	e     *Engine
	every Time
}

func (k *tick) Handle(now Time, _ int, _ any) { k.e.At(now+k.every, k, 0, nil) }

// BenchmarkGroupWindow times one window of a group whose partitions each run one event a
// window: the cost of starting and ending a window on every thread (the barrier) and of the
// intake's scan, per window.
func BenchmarkGroupWindow(b *testing.B) {
	for _, c := range [][2]int{{2, 2}, {16, 2}, {64, 2}} {
		b.Run(fmt.Sprintf("parts=%d/threads=%d", c[0], c[1]), func(b *testing.B) {
			const window = 100 * Nanosecond
			g := NewGroup(c[0], c[1], window, c[0]+1)
			for p := range c[0] {
				e := g.Part(p)
				e.AtLane(Lane(p+1), 0, &tick{e: e, every: window}, 0, nil)
			}
			b.ResetTimer()
			g.Run(Time(b.N)*window-1, nil)
			if g.Windows() != uint64(b.N) {
				b.Fatalf("%d windows run, want %d", g.Windows(), b.N)
			}
		})
	}
}
