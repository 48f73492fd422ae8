package experiment

// System-level test of cc nscc on RoCE v2 (issue 39): N long flows into one 100 Gb/s port.

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// nsccStar is swiftStar's fabric with cc nscc and step marking at kmin = kmax = K, pmax 1.
const nsccStar = `
version: 1
name: nscc-star
stop: %s
topology:
  preset: star
  params: {hosts: %d, link: {rate: 100Gbps, delay: 1us}}
switch:
  buffer: 16MB
  pfc: {enabled: true, priorities: [3]}
  ecn: {enabled: true, kmin: %dB, kmax: %dB, pmax: 1}
hosts: {priority: 3, jitter: 5ns}
transports:
  rocev2: {cc: nscc, nscc: {%s}}
traffic:
%s
`

// TestRoCENSCCHoldsItsTargetDelay: N = 2 and 8 long RoCE v2 flows with cc nscc into one 100
// Gb/s port that marks CE above K, K's queueing delay below the target. NSCC (uet_nscc.go)
// grows its window while an ACK's queueing delay is below the target and cuts it only on an
// ECN echo at or above the target: with every packet above the target marked, the queue
// settles about the target's queue, target x C, unless the windows' cap binds first: each
// window is at most maxwnd = 1.5 BDP of the base RTT, so N windows hold at most 1.5 N BDP, of
// which BDP is in flight on the wire and the rest, (1.5 N - 1) BDP, queued: a queueing delay
// of (1.5 N - 1) x the base RTT. Over the second half of a 10 ms run the time-mean queueing
// delay (queue / C) is within 10% of min(target, (1.5 N - 1) x base RTT), for the default
// target (the flow's unloaded RTT) and for 10 us. The port stays busy: a cut takes at most half the
// windows (nsccMaxCut), which with the queue at the target held BDP + target x C, so at least
// (BDP + target x C) / 2 >= BDP with target >= the base RTT: the pipe stays full, and the
// port carries at least 95% of its line rate. Jain's index of the goodputs is at least 0.9:
// flows that see the same queue cut by the same factor and grow by the same rules, and a cut
// keeps half a window, so rates stay within a factor 2 of each other, whose worst spread
// (half the flows at x, half at 2x) has index (3x)^2 / (2 (x^2 + 4x^2)) = 0.9.
func TestRoCENSCCHoldsItsTargetDelay(t *testing.T) {
	c := 100 * sim.Gbps
	data, ack := frames.RoCEWireBytes(2, 1024, false), frames.RoCEAckWireBytes(2)
	// The empty path's RTT: a data packet and its ACK, each serialised at the NIC and again
	// at the switch (store and forward), over two 1 us links each way.
	base := 2*c.TxTime(data) + 2*c.TxTime(ack) + 4*sim.Microsecond
	for _, target := range []sim.Time{0, 10 * sim.Microsecond} {
		want, set := base, ""
		if target > 0 {
			want, set = target, fmt.Sprintf("target_qdelay: %dus", target/sim.Microsecond)
		}
		// K: a quarter of the target's queue, so every packet at or above the target is marked.
		k := int64(float64(c) * want.Seconds() / 8 / 4)
		require.GreaterOrEqual(t, want, base, "target >= base RTT: a cut leaves the pipe full")
		for _, n := range []int{2, 8} {
			const t1 = 10 * sim.Millisecond
			f := build0(t, fmt.Sprintf(nsccStar, "10ms", n+1, k, k, set, starFlows(n)))
			for i := range n {
				_, _, tgt, ok := f.reg.NSCCOf(int32(i))
				require.True(t, ok)
				require.Equal(t, want, tgt, "flow %d's target", i)
			}
			expect := min(want, sim.Time((1.5*float64(n)-1)*float64(base)))
			if n == 2 && target > 0 {
				require.Less(t, expect, want, "the 10 us target with two flows: the cap binds (the test covers both regimes)")
			}
			h := runStarHalves(t, f, n, t1, func() {})
			delay := sim.Time(h.queueMean * 8 / float64(c) * float64(sim.Second))
			for i := range n {
				cwnd, avg, _, _ := f.reg.NSCCOf(int32(i))
				t.Logf("  flow %d: goodput %.2f Gb/s, cwnd %d B, average delay %v", i, h.goodput[i], cwnd, avg)
			}
			t.Logf("target %v, N=%d: base RTT %v, K %d B; expected queueing delay %v; time-mean queue %.0f B = %v; utilisation %.4f; Jain %.4f; %d marks",
				want, n, base, k, expect, h.queueMean, delay, h.util, h.jain(), h.v.ECN.MarkedPackets)
			require.Positive(t, h.v.ECN.MarkedPackets)
			require.InEpsilon(t, expect.Seconds(), delay.Seconds(), 0.1, "target %v, N=%d: the queueing delay, expected %v", want, n, expect)
			require.GreaterOrEqual(t, h.util, 0.95, "target %v, N=%d: utilisation", want, n)
			require.GreaterOrEqual(t, h.jain(), 0.9, "target %v, N=%d: Jain's index", want, n)
		}
	}
}
