package jobs

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/collective"
	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
)

// flatFabric is a fabric of one partition on which every plan is collective.Build's and every
// post succeeds: what the runtime keeps, without a network.
type flatFabric struct {
	eng   *sim.Engine
	posts int64
}

func (f *flatFabric) Engine() *sim.Engine { return f.eng }
func (f *flatFabric) Partitions() int     { return 1 }
func (f *flatFabric) Partition(string) int {
	return 0
}
func (f *flatFabric) Settle()               {}
func (f *flatFabric) Local(int) *sim.Engine { return f.eng }
func (f *flatFabric) Plan(_ *scenarios.Collective, op, alg string, ranks []string, size, chunk int64) (*collective.Plan, error) {
	return collective.Build(op, alg, len(ranks), size, chunk)
}
func (f *flatFabric) Post(int32, int64) (int64, error) { f.posts++; return f.posts - 1, nil }
func (f *flatFabric) Close(int32) error                { return nil }
func (f *flatFabric) Path(*scenarios.Collective, string, string) (Path, bool) {
	return Path{}, false
}
func (f *flatFabric) Frame(string) (int64, int64) { return 1106, 1024 }

// TestRuntimeKeepsTensOfBytesAMessage: a 512-rank ring allreduce (523,264 messages an
// iteration, 2 channels) over 4 iterations costs the runtime, beyond its plan (shared by the
// iterations), at most 48 bytes a message: its phase, inputs and channels outstanding (3 x
// 4), its release and arrival (2 x 8), a work-request slot per channel (2 x 4), 36 in all,
// with room for the slices' rounding; not a flow record (about 4.4 KB) per message.
func TestRuntimeKeepsTensOfBytesAMessage(t *testing.T) {
	const n, iterations, channels = 512, 4, 2
	c := &scenarios.Collective{Op: collective.AllReduce, Algorithm: collective.Ring, Size: 64 << 20, Iterations: iterations, Channels: channels}
	ranks := make([]string, n)
	for r := range ranks {
		ranks[r] = "h"
	}
	plan := func() uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := collective.Build(c.Op, c.Algorithm, n, c.Size, 0)
		require.NoError(t, err)
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rt := New(&flatFabric{eng: sim.NewEngine()})
	qps := 0
	require.NoError(t, rt.Add(c, ranks, 0, func(string, string, sim.Time, string, int) error { qps++; return nil }))
	runtime.ReadMemStats(&after)
	messages := collective.Count(c.Op, c.Algorithm, n, c.Size, 0) * iterations
	perMessage := float64(after.TotalAlloc-before.TotalAlloc-plan) / float64(messages)
	t.Logf("%d messages: the plan %d bytes (%.0f a message of one iteration), the runtime %.1f bytes a message, %d queue pairs",
		messages, plan, float64(plan)*iterations/float64(messages), perMessage, qps)
	require.Equal(t, n*channels, qps, "a queue pair per channel and pair of ranks")
	require.LessOrEqual(t, perMessage, 48.0)
}
