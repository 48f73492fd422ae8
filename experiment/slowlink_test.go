package experiment

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/transports"
)

// TestSlowestLinkRuns: pfc-storm with x's link at MinLinkRate, where x's 65535-quanta PAUSEs
// last 33,553,920 / 30 s (13 days), runs (to its stop, or until its flows fail) with no negative time in its document;
// below MinLinkRate it is refused (before the bound: "internal error ... integer overflow"
// at 1 b/s, negative pause times at 2 b/s).
func TestSlowestLinkRuns(t *testing.T) {
	text, _ := scenarios.BundledYAML("pfc-storm")
	f := load(t, string(text), "topology.links.3.rate="+scenarios.MinLinkRate.String())
	for i := range f.Variants() {
		v, err := Run(f.Scenario(i), nil)
		require.NoError(t, err)
		require.Positive(t, v.SimTimeUS, v.Name)
		require.LessOrEqual(t, v.SimTimeUS, 10*sim.Millisecond.Microseconds(), "%s: at most its stop", v.Name)
		noNegativeTime(t, v)
	}
	_, problems, _ := scenarios.Load("pfc-storm.yaml", text, overrides(t, "topology.links.3.rate=1bps"))
	require.NotEmpty(t, problems)
	require.Contains(t, problems[0].Error(), "MinLinkRate")
}

func noNegativeTime(t *testing.T, v *results.Variant) {
	t.Helper()
	require.GreaterOrEqual(t, v.PFC.PausedTimeUS, 0.0, v.Name)
	for _, q := range v.Queues {
		require.GreaterOrEqual(t, q.MeanBytes, 0.0, "%s: %s:%d", v.Name, q.Node, q.Port)
	}
	for _, l := range v.Links {
		require.GreaterOrEqual(t, l.Utilization, 0.0, "%s: %s->%s", v.Name, l.From, l.To)
		require.LessOrEqual(t, l.Utilization, 1.0, "%s: %s->%s", v.Name, l.From, l.To)
	}
	for _, fl := range v.PerFlow {
		if fl.FinishUS != nil {
			require.GreaterOrEqual(t, *fl.FinishUS, fl.StartUS, "%s: flow %d", v.Name, fl.ID)
		}
	}
}

// TestPipelineSaturates: the ideal completion time of 2^32 - 1 full packets at 30 b/s
// (1106 x 8 / 30 s each: 1.26e27 ps in all) saturates at sim.Never instead of wrapping
// negative; at 100 Gb/s it is the closed form, the packets back to back behind the first.
func TestPipelineSaturates(t *testing.T) {
	wire := func(int64) int64 { return 1106 }
	n := int64(1<<32 - 1)
	slow := []transports.PathHop{{Rate: scenarios.MinLinkRate, Delay: sim.Microsecond}, {Rate: scenarios.MinLinkRate, Delay: sim.Microsecond}}
	require.Equal(t, sim.Never, transports.Pipeline(slow, 0, n, 0, 1, wire))
	fast := []transports.PathHop{{Rate: 100 * sim.Gbps, Delay: sim.Microsecond}, {Rate: 100 * sim.Gbps, Delay: sim.Microsecond}}
	tx := (100 * sim.Gbps).TxTime(1106)
	require.Equal(t, tx+sim.Microsecond+sim.Time(n)*tx+sim.Microsecond, transports.Pipeline(fast, 0, n, 0, 1, wire))
}
