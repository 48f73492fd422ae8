package results

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
)

func ptr(f float64) *float64 { return &f }

func fctOf(mean, p50, p95, p99, max float64) FCTSummary {
	return FCTSummary{Mean: ptr(mean), P50: ptr(p50), P95: ptr(p95), P99: ptr(p99), Max: ptr(max)}
}

// completed is a completed flow from startUS to finishUS carrying size bytes; slowdown 0
// means none known.
func completed(id int, startUS, finishUS float64, size int64, slowdown float64) Flow {
	f := Flow{ID: id, Src: "h1", Dst: "h2", Transport: "rocev2", Priority: 3, SizeBytes: size,
		StartUS: startUS, DeliveredBytes: size}
	alone := 0.0
	if slowdown > 0 {
		alone = (finishUS - startUS) / slowdown
	}
	f.Finish(finishUS, alone)
	return f
}

func unfinished(id int, status string, startUS float64, size, delivered int64) Flow {
	return Flow{ID: id, Src: "h3", Dst: "h4", Transport: "rocev2", Priority: 3, SizeBytes: size,
		StartUS: startUS, Status: status, DeliveredBytes: delivered, Reason: "not done at stop"}
}

func TestSummarize(t *testing.T) {
	oneToTwenty := func() []Flow {
		var fs []Flow
		for i := 1; i <= 20; i++ {
			fs = append(fs, completed(i, 5, 5+float64(i), 1000, 0))
		}
		return fs
	}

	tests := []struct {
		name     string
		variant  Variant
		flows    FlowCounts
		fct      FCTSummary
		slowdown SlowdownSummary
		goodput  float64
		retx     int64
		drops    int64
	}{
		{
			// FCTs 1..20, n = 20: p50 = x[ceil(10)] = 10, p95 = x[ceil(19)] = 19,
			// p99 = x[ceil(19.8)] = 20; mean 210/20 = 10.5. The incomplete flow is excluded
			// from FCT but, being unfinished, moves the goodput end to the end of the run:
			// 21 flows x 1000 B x 8 = 168000 bits over (100 - 5) us.
			name: "quantiles over completed flows only",
			variant: Variant{SimTimeUS: 100, PerFlow: append(oneToTwenty(),
				unfinished(21, StatusIncomplete, 5, 1e6, 1000))},
			flows:   FlowCounts{Total: 21, Completed: 20, Incomplete: 1},
			fct:     fctOf(10.5, 10, 19, 20, 20),
			goodput: 168000.0 / 95 / 1e3,
		},
		{
			// Slowdowns 1, 1.5, 2, 4 (n = 4): p50 = x[2] = 1.5, p95 = x[ceil(3.8)] = 4,
			// p99 = 4. The completed flow without a slowdown counts for FCT only.
			// FCTs 10, 21, 30, 40, 100: mean 40.2, p50 = x[ceil(2.5)] = 30, p95 = p99 = 100.
			name: "slowdown quantiles",
			variant: Variant{SimTimeUS: 1000, PerFlow: []Flow{
				completed(1, 0, 40, 100, 4),
				completed(2, 0, 10, 100, 1),
				completed(3, 0, 30, 100, 2),
				completed(4, 0, 21, 100, 1.5),
				completed(5, 0, 100, 100, 0),
			}},
			flows:    FlowCounts{Total: 5, Completed: 5},
			fct:      fctOf(40.2, 30, 100, 100, 100),
			slowdown: SlowdownSummary{P50: ptr(1.5), P95: ptr(4), P99: ptr(4)},
			goodput:  500 * 8 / 100.0 / 1e3, // all finished: first start 0 to last finish 100
		},
		{
			// 2 x 12500 B = 200000 bits from 0 to 100 us = 2 Gbit/s; SimTimeUS is ignored
			// when every flow finished.
			name: "goodput first start to last finish",
			variant: Variant{SimTimeUS: 5000, PerFlow: []Flow{
				completed(1, 0, 60, 12500, 0),
				completed(2, 10, 100, 12500, 0),
			}},
			flows:   FlowCounts{Total: 2, Completed: 2},
			fct:     fctOf(75, 60, 90, 90, 90),
			goodput: 2,
		},
		{
			// Same bytes plus an unroutable flow that delivered nothing: the span runs to
			// the end of the run, 200 us, so 1 Gbit/s.
			name: "goodput to end of run when a flow is unfinished",
			variant: Variant{SimTimeUS: 200, PerFlow: []Flow{
				completed(1, 0, 60, 12500, 0),
				completed(2, 10, 100, 12500, 0),
				unfinished(3, StatusUnroutable, 0, 1000, 0),
			}},
			flows:   FlowCounts{Total: 3, Completed: 2, Unroutable: 1},
			fct:     fctOf(75, 60, 90, 90, 90),
			goodput: 1,
		},
		{
			name: "nothing completed and no time elapsed",
			variant: Variant{PerFlow: []Flow{
				unfinished(1, StatusIncomplete, 0, 1000, 0),
				unfinished(2, StatusFailed, 0, 1000, 0),
				unfinished(3, StatusUnroutable, 0, 1000, 0),
			}},
			flows: FlowCounts{Total: 3, Incomplete: 1, Failed: 1, Unroutable: 1},
		},
		{
			name:    "no flows at all",
			variant: Variant{SimTimeUS: 10},
		},
		{
			name: "retransmissions and drops are summed",
			variant: func() Variant {
				a, b := completed(1, 0, 10, 1250, 0), unfinished(2, StatusIncomplete, 0, 1000, 0)
				a.RetransmittedPackets, b.RetransmittedPackets = 3, 4
				return Variant{SimTimeUS: 10, PerFlow: []Flow{a, b},
					RetransmittedPackets: 99, // recomputed from the flows
					Drops: Drops{Total: 1234, ByReason: ByReason{Buffer: 1, Headroom: 2,
						RandomLoss: 3, LinkDown: 4, Unroutable: 5, TTL: 6, Watchdog: 7}}}
			}(),
			flows:   FlowCounts{Total: 2, Completed: 1, Incomplete: 1},
			fct:     fctOf(10, 10, 10, 10, 10),
			goodput: 1, // 10000 bits in 10 us
			retx:    7,
			drops:   28,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.variant
			Summarize(&v)
			again := v
			Summarize(&again)
			require.Equal(t, v, again, "Summarize is idempotent")
			require.NoError(t, checkFinite(reflect.ValueOf(v), "variant"))

			require.Equal(t, tc.flows, v.Flows)
			if tc.fct.Mean == nil {
				require.Equal(t, FCTSummary{}, v.FCT, "null statistics when nothing completed")
			} else {
				require.InDeltaf(t, *tc.fct.Mean, *v.FCT.Mean, 1e-9, "mean")
				tc.fct.Mean, v.FCT.Mean = nil, nil
				require.Equal(t, tc.fct, v.FCT)
			}
			require.Equal(t, tc.slowdown, v.Slowdown)
			require.InDelta(t, tc.goodput, v.GoodputGbps, 1e-12)
			require.Equal(t, tc.retx, v.RetransmittedPackets)
			require.Equal(t, tc.drops, v.Drops.Total)
		})
	}
}

func TestFlowFinish(t *testing.T) {
	f := unfinished(1, StatusIncomplete, 10, 100, 50)
	f.Finish(35, 5)
	require.Equal(t, StatusCompleted, f.Status)
	require.Empty(t, f.Reason)
	require.Equal(t, 35.0, *f.FinishUS)
	require.Equal(t, 25.0, *f.FCTUS)
	require.Equal(t, 5.0, *f.Slowdown)
	f.Finish(35, 0)
	require.Nil(t, f.Slowdown)
}

func TestByReasonSum(t *testing.T) {
	require.Equal(t, int64(28), ByReason{1, 2, 3, 4, 5, 6, 7}.Sum())
	require.Zero(t, ByReason{}.Sum())
}
