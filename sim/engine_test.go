package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

type recorder struct{ got []int }

func (r *recorder) Handle(now Time, op int, data any) { r.got = append(r.got, op) }

func TestEngineOrdersByTimeThenInsertion(t *testing.T) {
	e := NewEngine()
	r := &recorder{}
	// Eight events at one time must run in insertion order (container/heap would not).
	for i := 0; i < 8; i++ {
		e.At(5*Nanosecond, r, i, nil)
	}
	e.At(1*Nanosecond, r, 100, nil)
	e.At(9*Nanosecond, r, 200, nil)
	e.Run(Never)
	require.Equal(t, []int{100, 0, 1, 2, 3, 4, 5, 6, 7, 200}, r.got)
	require.Equal(t, uint64(10), e.Executed())
	require.Equal(t, 9*Nanosecond, e.Now())
}

func TestEngineRunStopsAtUntil(t *testing.T) {
	e := NewEngine()
	r := &recorder{}
	e.At(10*Microsecond, r, 1, nil)
	e.At(30*Microsecond, r, 2, nil)
	e.Run(20 * Microsecond)
	require.Equal(t, []int{1}, r.got)
	require.Equal(t, 20*Microsecond, e.Now())
	require.Equal(t, 1, e.Pending())
}

func TestEngineMatchesSortedOrder(t *testing.T) {
	e := NewEngine()
	rng := rand.New(rand.NewPCG(1, 2))
	var last Time
	count := 0
	h := handlerFunc(func(now Time, op int, data any) {
		if now < last {
			t.Fatalf("time went backwards: %v after %v", now, last)
		}
		last = now
		count++
		if count < 5000 {
			e.After(Time(rng.IntN(1000)), nil2(e), 0, nil)
		}
	})
	selfRef = h
	for i := 0; i < 1000; i++ {
		e.At(Time(rng.IntN(1000)), h, 0, nil)
	}
	e.Run(Never)
	require.Equal(t, 5000+999, count)
}

type handlerFunc func(now Time, op int, data any)

func (f handlerFunc) Handle(now Time, op int, data any) { f(now, op, data) }

var selfRef Handler

func nil2(*Engine) Handler { return selfRef }

func TestEngineSchedulingInThePastPanics(t *testing.T) {
	e := NewEngine()
	e.At(10, &recorder{}, 0, nil)
	e.Run(Never)
	require.Panics(t, func() { e.At(5, &recorder{}, 0, nil) })
}

func TestTxTime(t *testing.T) {
	// 1106 wire bytes at 100 Gb/s: 8848 bits / 1e11 b/s = 88.48 ns exactly.
	require.Equal(t, Time(88480), (100 * Gbps).TxTime(1106))
	// 84 bytes at 40 Gb/s = 16.8 ns.
	require.Equal(t, Time(16800), (40 * Gbps).TxTime(84))
	// 1 byte at 3 bps = 2.666..s, rounded up.
	require.Equal(t, Time(2666666666667), (3 * BitPerSecond).TxTime(1))
	// Large sizes do not overflow: 1 GB at 100 Gb/s = 80 ms.
	require.Equal(t, 80*Millisecond, (100 * Gbps).TxTime(1_000_000_000))
	require.Equal(t, int64(1250), (100 * Gbps).BytesIn(100*Nanosecond))
}

// TestRateTimeProductsSaturate: a serialization or a byte count beyond the 64 bits of its
// result saturates (Never, math.MaxInt64) instead of wrapping negative or panicking.
func TestRateTimeProductsSaturate(t *testing.T) {
	// A 65535-quanta PAUSE, 33,553,920 bit times: at 2 b/s 1.68e19 ps, past Never (9.22e18).
	pauseBytes := int64(65535 * 512 / 8)
	require.Equal(t, Never, (2 * BitPerSecond).TxTime(pauseBytes))
	require.Equal(t, Never, BitPerSecond.TxTime(pauseBytes), "the quotient needs more than 64 bits")
	require.Equal(t, Never, BitPerSecond.TxTime(math.MaxInt64))
	require.Equal(t, Never, (100 * Gbps).TxTime(math.MaxInt64), "n x 8 alone overflows 64 bits")
	// At 4 b/s it fits: 33,553,920 / 4 s = 8,388,480 s.
	require.Equal(t, 8_388_480*Second, (4 * BitPerSecond).TxTime(pauseBytes))
	// The largest exact one: MaxInt64 ps at 8e12 b/s carries MaxInt64 bytes.
	require.Equal(t, Time(math.MaxInt64), Rate(8*Second).TxTime(math.MaxInt64))
	require.Equal(t, int64(math.MaxInt64), Rate(math.MaxInt64).BytesIn(Never))
	require.Equal(t, int64(math.MaxInt64), Rate(8*Second).BytesIn(Never))
	require.Equal(t, int64(math.MaxInt64)/1000, Rate(8*Second/1000).BytesIn(Never))

	require.Equal(t, Never, Never.Plus(1))
	require.Equal(t, Never, (Never - 5).Plus(6))
	require.Equal(t, Never-1, (Never - 5).Plus(4))
	require.Equal(t, Never, MaxDuration.Times(8), "2^63 does not fit")
	require.Equal(t, 7*MaxDuration, MaxDuration.Times(7))
	require.Equal(t, Never, Never.Times(2))
	require.Equal(t, Time(0), Never.Times(0))
}

func TestTimeString(t *testing.T) {
	require.Equal(t, "1.5us", (1500 * Nanosecond).String())
	require.Equal(t, "100Gbps", (100 * Gbps).String())
	require.Equal(t, "12ps", Time(12).String())
}

func TestStreamsAreIndependentAndDeterministic(t *testing.T) {
	a1, a2, b := Stream(1, "link:a"), Stream(1, "link:a"), Stream(1, "link:b")
	x, y, z := a1.Uint64(), a2.Uint64(), b.Uint64()
	require.Equal(t, x, y)
	require.NotEqual(t, x, z)
	require.NotEqual(t, x, Stream(2, "link:a").Uint64())
}

type nop struct{}

func (nop) Handle(Time, int, any) {}

// benchHold is the classic hold model: with n events pending, pop one and push one a random
// delay later, so the queue size stays at n.
func benchHold(b *testing.B, n int) {
	e := NewEngine()
	rng := rand.New(rand.NewPCG(1, 1))
	delays := make([]Time, 4096)
	for i := range delays {
		delays[i] = Time(rng.IntN(int(10 * Microsecond)))
	}
	var h *holder
	h = &holder{e: e, delays: delays}
	for i := 0; i < n; i++ {
		e.At(delays[i%len(delays)], h, 0, nil)
	}
	h.left = b.N
	b.ReportAllocs()
	b.ResetTimer()
	e.Run(Never)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

type holder struct {
	e      *Engine
	delays []Time
	i      int
	left   int
}

func (h *holder) Handle(now Time, op int, data any) {
	h.left--
	if h.left <= 0 {
		h.e.Stop()
		return
	}
	h.i++
	h.e.After(h.delays[h.i&4095], h, 0, data)
}

func BenchmarkEngine10k(b *testing.B) { benchHold(b, 10_000) }
func BenchmarkEngine1M(b *testing.B)  { benchHold(b, 1_000_000) }

// chain schedules a cascade: each event records itself and schedules two more, a few ps
// apart, until depth runs out, so the heap holds many events with equal and distinct times.
type chain struct {
	e    *Engine
	log  []string
	left int
}

func (c *chain) Handle(now Time, op int, _ any) {
	c.log = append(c.log, fmt.Sprintf("%d@%d", op, now))
	if c.left <= 0 {
		return
	}
	c.left--
	c.e.After(Time(op%3), c, op+1, nil)
	c.e.After(Time(op%5), c, op+2, nil)
}

func TestRunBudgetCutsARunWithoutChangingIt(t *testing.T) {
	run := func(budget uint64) ([]string, Time, uint64) {
		c := &chain{e: NewEngine(), left: 500}
		c.e.At(0, c, 0, nil)
		calls := uint64(0)
		for {
			calls++
			stopped, exhausted := c.e.RunBudget(400, budget)
			require.False(t, stopped)
			if !exhausted {
				break
			}
			require.Equal(t, budget*calls, c.e.Executed(), "a budget is exact")
		}
		return c.log, c.e.Now(), calls
	}
	whole, end, _ := run(math.MaxUint64)
	for _, b := range []uint64{1, 7, 100} {
		cut, cutEnd, calls := run(b)
		require.Equal(t, whole, cut, "budget %d: same events in the same order", b)
		require.Equal(t, end, cutEnd, "budget %d: Now ends at until", b)
		require.Greater(t, calls, uint64(1))
	}
	require.Equal(t, Time(400), end)
}

// TestRunBudgetOfExactlyTheEventsNeeded: a budget equal to the events a run handles before
// until ends the run (not exhausted, Now at until), whether or not an event later than
// until is pending; one event fewer is exhausted.
func TestRunBudgetOfExactlyTheEventsNeeded(t *testing.T) {
	start := func(later bool) *chain {
		c := &chain{e: NewEngine(), left: 500}
		c.e.At(0, c, 0, nil)
		if later {
			c.e.At(10_000, c, -1, nil) // a timer past until, as a run's retransmit timers are
		}
		return c
	}
	for _, later := range []bool{false, true} {
		whole := start(later)
		whole.e.Run(400)
		need := whole.e.Executed()
		require.Greater(t, need, uint64(500))

		c := start(later)
		stopped, exhausted := c.e.RunBudget(400, need)
		require.False(t, stopped)
		require.False(t, exhausted, "later event %v: a budget of exactly the %d events needed ends the run", later, need)
		require.Equal(t, Time(400), c.e.Now())
		require.Equal(t, whole.log, c.log)

		c = start(later)
		_, exhausted = c.e.RunBudget(400, need-1)
		require.True(t, exhausted, "later event %v: one event short", later)
	}
}

// TestEngineOrdersEqualTimesByLaneThenLanesOwnCount: events due at one time run by the lane
// that scheduled them, then that lane's count, whatever order they were scheduled in: lane
// 2's events scheduled first run after lane 1's, in lane 2's own order, in the wheel and in
// the heap alike.
func TestEngineOrdersEqualTimesByLaneThenLanesOwnCount(t *testing.T) {
	for _, at := range []Time{Microsecond, Millisecond} { // the wheel, then the heap
		e := NewEngine()
		e.SetLanes(3)
		r := &recorder{}
		var starter handlerFunc2 = func(now Time, op int, _ any) {
			for k := 0; k < 3; k++ {
				e.AtLane(e.Lane(), at, r, op*10+k, nil) // from lane op: op*10, op*10+1, op*10+2
			}
		}
		e.AtLane(2, 0, starter, 2, nil)
		e.AtLane(1, 1, starter, 1, nil)
		e.Run(Never)
		require.Equal(t, []int{10, 11, 12, 20, 21, 22}, r.got, "at %v", at)
	}
}

// TestEngineWheelAndHeapKeepOneOrder schedules, from inside handlers, events near (within
// the wheel's span), far (in the heap) and at equal times, across many turns of the wheel,
// and checks that they run in (time, insertion) order.
func TestEngineWheelAndHeapKeepOneOrder(t *testing.T) {
	checkOneOrder(t, func(*Engine) {})
}

// checkOneOrder is TestEngineWheelAndHeapKeepOneOrder on an engine that setup has changed.
func checkOneOrder(t *testing.T, setup func(*Engine)) {
	t.Helper()
	e := NewEngine()
	setup(e)
	rng := rand.New(rand.NewPCG(3, 4))
	type ev struct {
		at  Time
		seq int
	}
	var ran []ev
	seq := 0
	var h handlerFunc2
	h = func(now Time, op int, _ any) {
		ran = append(ran, ev{now, op})
		if seq >= 200_000 {
			return
		}
		for k := 0; k < 1+rng.IntN(2); k++ {
			var d Time
			switch rng.IntN(4) {
			case 0:
				d = Time(rng.IntN(3)) // equal or nearly equal times
			case 1:
				d = Time(rng.IntN(5000)) * Nanosecond / 1000 // within the wheel
			case 2:
				d = Time(rng.IntN(5000)) * Nanosecond // past the wheel: the heap
			default:
				d = Time(rng.IntN(1500)) * Nanosecond // either side of the wheel's edge
			}
			seq++
			e.After(d, h, seq, nil)
		}
	}
	for i := 0; i < 50; i++ {
		seq++
		e.At(Time(rng.IntN(10_000)), h, seq, nil)
	}
	e.Run(Never)
	require.Greater(t, len(ran), 100_000)
	for i := 1; i < len(ran); i++ {
		a, b := ran[i-1], ran[i]
		if b.at < a.at || (b.at == a.at && b.seq < a.seq) {
			t.Fatalf("event %d (seq %d at %v) ran after seq %d at %v", i, b.seq, b.at, a.seq, a.at)
		}
	}
	require.Equal(t, 0, e.Pending())
}

type handlerFunc2 func(now Time, op int, data any)

func (f handlerFunc2) Handle(now Time, op int, data any) { f(now, op, data) }
