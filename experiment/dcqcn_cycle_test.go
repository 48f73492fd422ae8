package experiment

// DCQCN's many-flow cycle (issue 35, point 7): the N = 10 queue under the authors' window
// rule sits well below the fluid model's q*, and the cause is RED's cliff at Kmax.

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/internal/accuracy"
	"github.com/fabricsim/fabricsim/sim"
)

// dcqcnCycle runs the 40 Gb/s dumbbell of the fixed-point tests (dumbbellScenario: N long
// flows, PFC on, ECN 5-200 KB at 1%) with the overrides and measures the bottleneck queue
// (swl toward swr) over [t0, t1]: its exact time-mean, its coefficient of variation from a
// sample every 10 us, and the flows' goodput together, Gb/s.
func dcqcnCycle(t *testing.T, n int, t0, t1 sim.Time, sets ...string) (mean, cv, goodput float64) {
	t.Helper()
	f := build0(t, dumbbellScenario(n, t1), sets...)
	pt, _ := loopPort(t, f, "swl", "swr")
	q := &pt.Queues[pfcClass]
	f.runUntil(t0)
	area0 := q.MeanBytes(t0) * float64(t0)
	var del0 int64
	for i := range n {
		del0 += f.reg.Flows[i].Delivered
	}
	var s, s2, k float64
	for now := t0 + 10*sim.Microsecond; now <= t1; now += 10 * sim.Microsecond {
		f.runUntil(now)
		x := float64(q.Bytes)
		s, s2, k = s+x, s2+x*x, k+1
	}
	require.NoError(t, f.audit())
	mean = (q.MeanBytes(t1)*float64(t1) - area0) / float64(t1-t0)
	m := s / k
	cv = math.Sqrt(max(s2/k-m*m, 0)) / m
	var del1 int64
	for i := range n {
		del1 += f.reg.Flows[i].Delivered
	}
	return mean, cv, gbps(del1-del0, t1-t0)
}

// TestDCQCNManyFlowCycle holds the N = 10 cycle and what moves it. Under the window rule
// (np: window, the authors' per-flow CNP timer) the N = 10 queue does not settle at the
// fluid model's q* (Theorem 1 by bisection, for the simulator's 1,106-byte packets): RED's
// probability jumps from Pmax = 1% to 1 at Kmax, so once the queue passes 200 KB every
// flow's next window ends in a CNP and all ten cut at once, window after window; the queue
// then drains, empty for a while, and climbs back. Its time-mean is 0.35-0.55 of q* (here
// 58.9 KB against q* 135.0 KB, 0.44; issue 35's side-by-side run had the DCQCN authors'
// ns-3 at 70.7 KB against fabricsim's 68.5 on its own scenario), it swings (coefficient of
// variation above 0.8; 1.23), and the link stays busy (goodput at least 95% of the line's
// payload rate, 40 Gb/s x 1024/1106; 97.1%). Moving Kmax to 400 KB at the same slope (Pmax
// 1% x 395/195 = 2.0256%, so p(q) is unchanged below 200 KB and q* with it) takes the cliff
// out of the cycle's reach: within 15% of q* (144.9 KB, 1.07; issue 35: the peer 141.9 KB,
// fabricsim 149.4). N = 2 and 4, whose queues stay far below Kmax, sit within 15% of q*
// under the window rule (0.93, 1.01), and immediate-only at N = 10 within 30% (1.12).
// (docs/model.md section 7; the dcqcn-convergence lesson.)
func TestDCQCNManyFlowCycle(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: full suite (./test.sh --full)")
	}
	c := 40 * sim.Gbps
	line := c.Gbps() * payloadOfWire
	t0, t1 := 100*sim.Millisecond, 400*sim.Millisecond
	slope := 0.01 * (400e3 - 5e3) / (200e3 - 5e3) // Pmax keeping p(q) below 200 KB
	require.InDelta(t, 0.020256, slope, 1e-6)
	for _, tc := range []struct {
		name   string
		n      int
		sets   []string
		lo, hi float64 // time-mean queue over q*
		cvMin  float64
	}{
		{"N=10 window", 10, nil, 0.35, 0.55, 0.8},
		{"N=10 window, Kmax 400 KB", 10, []string{"switch.ecn.kmax=400KB", fmt.Sprintf("switch.ecn.pmax=%g", slope)}, 0.85, 1.15, 0},
		{"N=2 window", 2, nil, 0.85, 1.15, 0},
		{"N=4 window", 4, nil, 0.85, 1.15, 0},
		{"N=10 immediate-only", 10, []string{"transports.rocev2.dcqcn.np=immediate-only"}, 0.7, 1.3, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			qStar := fluidQStar(fluidPStar(c, tc.n, 8*middleWire, middleFrame))
			mean, cv, g := dcqcnCycle(t, tc.n, t0, t1, tc.sets...)
			// accuracy: DCQCN time-mean queue over the fluid model's q* (CoNEXT'16 Theorem 1),
			// expected [tc.lo, tc.hi]; CV above tc.cvMin; goodput >= 95% of line payload.
			t.Logf("%s: time-mean queue %.1f KB, q* %.1f KB (%.2f of it), CV %.2f, goodput %.2f Gb/s (%.1f%% of the line's payload rate)",
				tc.name, mean/1e3, qStar/1e3, mean/qStar, cv, g, 100*g/line)
			accurate(t, "DCQCN", fmt.Sprintf("%s, 40 Gb/s dumbbell: time-mean queue (%.2f-%.2f of the fluid q*)", tc.name, tc.lo, tc.hi),
				qStar*(tc.lo+tc.hi)/2/1e3, mean/1e3, "KB", (tc.hi-tc.lo)/(tc.hi+tc.lo),
				accuracy.ClosedForm, "the fluid model's q* (Zhu et al., CoNEXT 2016, Theorem 1); below it at N = 10 by RED's cliff at Kmax (docs/model.md section 4)")
			require.GreaterOrEqual(t, mean/qStar, tc.lo)
			require.LessOrEqual(t, mean/qStar, tc.hi)
			require.Greater(t, cv, tc.cvMin)
			require.GreaterOrEqual(t, g, 0.95*line)
		})
	}
}
