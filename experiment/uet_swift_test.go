package experiment

// System-level test of cc swift on the Ultra Ethernet transport (issue 39): N long flows into
// one 100 Gb/s port.

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/transports"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// uetSwiftStar is swiftStar's fabric with UET flows under cc swift, PFC on as for Swift on
// RoCE (so that nothing is lost or trimmed and the window alone holds the queue).
const uetSwiftStar = `
version: 1
name: uet-swift-star
stop: %s
topology:
  preset: star
  params: {hosts: %d, link: {rate: 100Gbps, delay: 1us}}
switch:
  buffer: 16MB
  pfc: {enabled: true, priorities: [3]}
hosts: {priority: 3, jitter: 5ns}
transports:
  uet: {cc: swift}
traffic:
%s
`

// TestUETSwiftHoldsItsTargetDelay is TestSwiftHoldsItsTargetDelay for Swift on UET: N = 2 and
// 8 long UET flows into one 100 Gb/s port, with Swift's defaults. Over the second half of a
// 10 ms run the bottleneck's time-mean queueing delay is within 10% of what Swift's target
// leaves for the queue at that N (swiftFixedPoint with UET's full packets, less the empty
// path's RTT), the port carries at least 90% of its line rate and Jain's index of the
// goodputs is at least 0.95 (as on RoCE: flows that see the same delay take the same
// additive increase and the same cut).
func TestUETSwiftHoldsItsTargetDelay(t *testing.T) {
	p := transports.DefaultSwiftParams()
	c := 100 * sim.Gbps
	data, ack := frames.UETWireBytes(4096, false), frames.UETAckWireBytes()
	// The empty path's RTT: a data packet and its ACK, each serialised at the NIC and again
	// at the switch (store and forward), over two 1 us links each way.
	base := 2*c.TxTime(data) + 2*c.TxTime(ack) + 4*sim.Microsecond
	for _, n := range []int{2, 8} {
		const t1 = 10 * sim.Millisecond
		flows := strings.ReplaceAll(starFlows(n), "transport: rocev2", "transport: uet")
		f := build0(t, fmt.Sprintf(uetSwiftStar, "10ms", n+1, flows))
		for i := range n {
			s := f.reg.SwiftOf(int32(i))
			require.NotNil(t, s, "flow %d runs Swift", i)
			require.Equal(t, 1, s.Hops, "flow %d crosses one switch", i)
		}
		h := runStarHalves(t, f, n, t1, func() {})
		d := swiftFixedPoint(p, n, 1, data, c)
		want := d - base
		queue := sim.Time(math.Round(h.queueMean * 8 / float64(c) * float64(sim.Second)))
		for i := range n {
			t.Logf("  flow %d: goodput %.2f Gb/s, cwnd %.2f packets", i, h.goodput[i], f.reg.SwiftOf(int32(i)).Cwnd())
		}
		t.Logf("N=%d: target fixed point %v (queueing %v, base RTT %v); time-mean queue %.0f B = %v; utilisation %.4f; Jain %.4f",
			n, d, want, base, h.queueMean, queue, h.util, h.jain())
		require.InEpsilon(t, want.Seconds(), queue.Seconds(), 0.1, "N=%d: queueing delay", n)
		require.GreaterOrEqual(t, h.util, 0.9, "N=%d: utilisation", n)
		require.GreaterOrEqual(t, h.jain(), 0.95, "N=%d: Jain's index", n)
	}
}
