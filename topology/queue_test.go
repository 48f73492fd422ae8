package topology

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/stretchr/testify/require"
)

func TestQueueFIFO(t *testing.T) {
	type item struct {
		kind  Kind
		frame int32
	}
	tests := []struct {
		name  string
		items []item
	}{
		{"one", []item{{KindData, 1086}}},
		{"mixed kinds and sizes", []item{{KindData, 1086}, {KindAck, 66}, {KindData, 200}, {KindCNP, 78}, {KindAck, 66}, {KindPause, 64}}},
		{"many", func() []item {
			var its []item
			for i := 0; i < 100; i++ {
				its = append(its, item{Kind(i % int(NumKinds)), int32(64 + i)})
			}
			return its
		}()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var q Queue
			require.Nil(t, q.Peek())
			require.Nil(t, q.Pop(0))
			pkts := make([]*Packet, len(tc.items))
			var bytes int64
			var maxBytes int64
			count := map[Kind]int64{}
			for i, it := range tc.items {
				pkts[i] = &Packet{Kind: it.kind, Frame: it.frame, PSN: uint32(i)}
				q.Push(sim.Time(i), pkts[i])
				bytes += int64(it.frame)
				maxBytes = max(maxBytes, bytes)
				count[it.kind]++
				require.EqualValues(t, i+1, q.Len)
				require.Equal(t, bytes, q.Bytes)
				require.Same(t, pkts[0], q.Peek())
			}
			for k := Kind(0); k < NumKinds; k++ {
				require.Equal(t, count[k], q.Count(k), k.String())
			}
			for i := range tc.items {
				p := q.Pop(sim.Time(len(tc.items) + i))
				require.Same(t, pkts[i], p, "FIFO order")
				bytes -= int64(p.Frame)
				require.EqualValues(t, len(tc.items)-i-1, q.Len)
				require.Equal(t, bytes, q.Bytes)
			}
			require.Nil(t, q.Pop(1000))
			require.Nil(t, q.Peek())
			require.Zero(t, q.Bytes)
			require.Equal(t, maxBytes, q.MaxBytes)
			require.Positive(t, q.MaxBytes)
			// The queue is reusable after draining.
			q.Push(2000, pkts[0])
			require.Same(t, pkts[0], q.Peek())
			require.Same(t, pkts[0], q.Pop(2001))
		})
	}
}

// bucketMid is the midpoint of the histogram bucket holding level v, derived from the rule:
// exact below 32, then 16 equal buckets per power of two (width 2^k/16 for 2^k <= v < 2^(k+1)).
func bucketMid(v int64) float64 {
	if v < 32 {
		return float64(v)
	}
	k := bits.Len64(uint64(v)) - 1
	w := int64(1) << (k - 4)
	lo := v - v%w
	return float64(lo) + float64(w-1)/2
}

type step struct {
	at    sim.Time
	level int64
}

// refStats computes the time-weighted mean and the q-quantile of a level history over
// [0, until], with the level 0 before the first step, from first principles: sort the
// (level, duration) pieces by level and walk to the q-th fraction of the time.
func refStats(steps []step, until sim.Time, q float64) (mean float64, quantile float64, maxLevel int64) {
	type piece struct {
		level int64
		dt    sim.Time
	}
	var pieces []piece
	last, level := sim.Time(0), int64(0)
	var area float64
	for _, s := range append(steps, step{until, 0}) {
		if s.at > last {
			pieces = append(pieces, piece{level, s.at - last})
			area += float64(level) * float64(s.at-last)
		}
		last, level = s.at, s.level
		if s.at < until {
			maxLevel = max(maxLevel, s.level)
		}
	}
	sort.SliceStable(pieces, func(i, j int) bool { return pieces[i].level < pieces[j].level })
	target := q * float64(until)
	var acc float64
	quantile = math.NaN()
	for _, p := range pieces {
		acc += float64(p.dt)
		if acc >= target {
			// The bucket's midpoint, but a quantile never exceeds the maximum level.
			quantile = min(bucketMid(p.level), float64(maxLevel))
			break
		}
	}
	return area / float64(until), quantile, maxLevel
}

func TestQueueDepthRecord(t *testing.T) {
	ns := sim.Nanosecond
	tests := []struct {
		name  string
		steps []step
		until sim.Time
		// hand-checked expectations for a few quantiles, on top of the reference.
		want map[float64]float64
	}{
		{
			// level 0 for 500ns, 40 for 100ns, 10 for 300ns, 80 for 100ns.
			name:  "brief example",
			steps: []step{{500 * ns, 40}, {600 * ns, 10}, {900 * ns, 80}},
			until: 1000 * ns,
			// 50% of the time at 0; 80% at or below 10; 90% at or below 40 (bucket 40..41);
			// the rest at 80 (bucket 80..83).
			// 80 is in the bucket 80..83, midpoint 81.5, but a quantile stops at the maximum, 80.
			want: map[float64]float64{0.5: 0, 0.6: 10, 0.8: 10, 0.85: 40.5, 0.9: 40.5, 0.95: 80, 1: 80},
		},
		{
			name:  "busy from time zero, back to zero later",
			steps: []step{{0, 10}, {100 * ns, 0}},
			until: 1000 * ns,
			want:  map[float64]float64{0.5: 0, 0.9: 0, 0.95: 10},
		},
		{
			name:  "exact below 32",
			steps: []step{{0, 31}, {100 * ns, 1}, {200 * ns, 0}},
			until: 400 * ns,
			want:  map[float64]float64{0.25: 0, 0.5: 0, 0.75: 1, 1: 31},
		},
		{
			name:  "large levels",
			steps: []step{{10 * ns, 1 << 20}, {20 * ns, 3000}, {50 * ns, 100_000}, {90 * ns, 0}},
			until: 100 * ns,
		},
		{
			name:  "never used",
			steps: nil,
			until: 1000 * ns,
			want:  map[float64]float64{0.5: 0, 1: 0},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var d Queue
			for _, s := range tc.steps {
				d.setBytes(s.at, s.level)
			}
			mean, _, maxLevel := refStats(tc.steps, tc.until, 0.5)
			require.InDelta(t, mean, d.MeanBytes(tc.until), 1e-9)
			require.Equal(t, maxLevel, d.MaxBytes)
			require.Equal(t, maxLevel > 0, d.MaxBytes > 0)
			for _, q := range []float64{0.1, 0.25, 0.5, 0.6, 0.75, 0.85, 0.9, 0.95, 0.99, 1} {
				_, want, _ := refStats(tc.steps, tc.until, q)
				require.Equal(t, want, d.QuantileBytes(q, tc.until), "q=%v", q)
			}
			for q, want := range tc.want {
				require.Equal(t, want, d.QuantileBytes(q, tc.until), "hand-checked q=%v", q)
			}
			// Asking again gives the same answers (accounting up to until is idempotent).
			require.InDelta(t, mean, d.MeanBytes(tc.until), 1e-9)
		})
	}
}

func TestQueueDepthBriefExampleByHand(t *testing.T) {
	ns := sim.Nanosecond
	var d Queue
	d.setBytes(500*ns, 40)
	d.setBytes(600*ns, 10)
	d.setBytes(900*ns, 80)
	require.InDelta(t, float64(40*100+10*300+80*100)/1000, d.MeanBytes(1000*ns), 1e-12)
	require.Equal(t, 0.0, d.QuantileBytes(0.5, 1000*ns))
	require.Equal(t, int64(80), d.MaxBytes)
}

func TestDepthBucketConsistency(t *testing.T) {
	var values []int64
	for v := int64(0); v <= 1<<16; v++ {
		values = append(values, v)
	}
	for e := 17; e < 63; e++ {
		p := int64(1) << e
		values = append(values, p-1, p, p+1, p+p/3)
	}
	values = append(values, math.MaxInt64)
	prevB, prevHi := -1, int64(-1)
	for _, v := range values {
		b := depthBucket(v)
		lo, hi := depthBucketRange(b)
		require.LessOrEqual(t, lo, v, "v=%d bucket %d", v, b)
		require.GreaterOrEqual(t, hi, v, "v=%d bucket %d", v, b)
		require.Equal(t, depthBucket(lo), b, "lo of bucket %d maps back", b)
		require.Equal(t, depthBucket(hi), b, "hi of bucket %d maps back", b)
		if v < 32 {
			require.Equal(t, lo, hi, "exact below 32")
			require.Equal(t, int(v), b)
		} else {
			// 16 buckets per power of two: width <= lo/16, so the midpoint is within ~3%.
			require.LessOrEqual(t, (hi-lo+1)*16, lo, "v=%d", v)
			require.Equal(t, bucketMid(v), float64(lo)+float64(hi-lo)/2, "v=%d", v)
		}
		require.GreaterOrEqual(t, b, prevB, "buckets are monotone in v")
		if v <= 1<<16 && b != prevB {
			// Dense part: consecutive values; buckets advance one at a time with no gap.
			require.Equal(t, prevB+1, b, "v=%d", v)
			require.Equal(t, prevHi+1, lo, "v=%d: bucket %d starts right after bucket %d", v, b, prevB)
		}
		if b != prevB {
			prevB, prevHi = b, hi
		}
	}
	// Every bucket up to the largest is contiguous with the next.
	last := depthBucket(math.MaxInt64)
	for b := 0; b < last; b++ {
		_, hi := depthBucketRange(b)
		lo, _ := depthBucketRange(b + 1)
		require.Equal(t, hi+1, lo, "bucket %d and %d", b, b+1)
	}
	_, hi := depthBucketRange(last)
	require.Equal(t, int64(math.MaxInt64), hi)
}

// TestDepthLogChangesNoRecord drives queues that share a DepthLog and the same queues without
// one through the same random pushes and pops, more than the log holds, and checks that every
// record comes out the same, to the bit: the log only changes when the sums are added.
func TestDepthLogChangesNoRecord(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	var log DepthLog
	var logged, direct [3]Queue
	for i := range logged {
		logged[i].LogTo(&log)
	}
	now := sim.Time(0)
	for step := 0; step < 5*depthLogSize; step++ {
		now += sim.Time(r.IntN(3)) * 100 * sim.Nanosecond
		i := r.IntN(len(logged))
		if r.IntN(2) == 0 || direct[i].Len == 0 {
			frame := int32(64 + r.IntN(4096))
			logged[i].Push(now, &Packet{Frame: frame})
			direct[i].Push(now, &Packet{Frame: frame})
		} else {
			logged[i].Pop(now)
			direct[i].Pop(now)
		}
	}
	require.Positive(t, log.n, "some additions are still in the log")
	until := now + sim.Microsecond
	for i := range logged {
		require.Equal(t, direct[i].MeanBytes(until), logged[i].MeanBytes(until), "queue %d", i)
		for _, p := range []float64{0.1, 0.5, 0.9, 0.99, 1} {
			require.Equal(t, direct[i].QuantileBytes(p, until), logged[i].QuantileBytes(p, until), "queue %d, p %v", i, p)
		}
		require.Equal(t, direct[i].depth.hist, logged[i].depth.hist, "queue %d", i)
	}
}

// TestQueueDepthTimes: the brief example's record as a distribution, by hand: 500 ns at 0,
// 300 ns at 10 (exact below 32), 100 ns at 40 (the bucket 40..41) and 100 ns at 80 (the
// bucket 80..83, cut at the maximum 80); the times sum to the run.
func TestQueueDepthTimes(t *testing.T) {
	ns := sim.Nanosecond
	var d Queue
	d.setBytes(500*ns, 40)
	d.setBytes(600*ns, 10)
	d.setBytes(900*ns, 80)
	require.Equal(t, []DepthTime{{0, 0, 500 * ns}, {10, 10, 300 * ns}, {40, 41, 100 * ns}, {80, 80, 100 * ns}}, d.DepthTimes(1000*ns))
	var never Queue
	require.Equal(t, []DepthTime{{0, 0, 1000 * ns}}, never.DepthTimes(1000*ns))
	require.Nil(t, never.DepthTimes(0))
}
