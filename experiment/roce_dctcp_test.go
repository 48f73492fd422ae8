package experiment

// System-level test of cc dctcp on RoCE v2 (issue 39): N long flows into one 100 Gb/s port
// that marks CE above K.

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// dctcpStar is swiftStar's fabric with cc dctcp and DCTCP's step marking (kmin = kmax = K,
// pmax 1), every packet acknowledged (the analysis's per-packet feedback).
const dctcpStar = `
version: 1
name: dctcp-star
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
  rocev2: {cc: dctcp, ack_interval: 1}
traffic:
%s
`

// TestRoCEDCTCPHoldsTheQueueNearK: N = 2 and 8 long RoCE v2 flows with cc dctcp into one 100
// Gb/s port. DCTCP's analysis (Alizadeh et al., SIGCOMM 2010, section 3.3) has N synchronised
// windows make the queue a sawtooth between Q_max - A and Q_max, Q_max = K + N packets and
// A = 1/2 sqrt(2N (C x RTT + K)) packets, C x RTT the base bandwidth-delay product in packets;
// with K above C x RTT / 7 the queue never empties, so the port stays busy. Over the second
// half of a 10 ms run the time-mean queue is within that band (a packet's slack each side),
// the port carries at least 95% of its line rate, and Jain's index of the goodputs is at
// least 0.9: a DCTCP cut takes at most half a window (alpha <= 1), so two flows that see the
// same marks keep rates within a factor 2 of each other, whose worst spread (half the flows at
// x, half at 2x) has Jain's index (3x)^2 / (2 (x^2 + 4x^2)) = 0.9.
func TestRoCEDCTCPHoldsTheQueueNearK(t *testing.T) {
	c := 100 * sim.Gbps
	data, ack := frames.RoCEWireBytes(2, 1024, false), frames.RoCEAckWireBytes(2)
	// The empty path's RTT: a data packet and its ACK, each serialised at the NIC and again
	// at the switch (store and forward), over two 1 us links each way.
	base := 2*c.TxTime(data) + 2*c.TxTime(ack) + 4*sim.Microsecond
	bdp := float64(c) * base.Seconds() / 8 / float64(data) // packets
	const kPackets = 20
	k := kPackets * data
	require.Greater(t, float64(kPackets), bdp/7, "K above C x RTT / 7: the queue does not empty")
	for _, n := range []int{2, 8} {
		const t1 = 10 * sim.Millisecond
		f := build0(t, fmt.Sprintf(dctcpStar, "10ms", n+1, k, k, starFlows(n)))
		h := runStarHalves(t, f, n, t1, func() {})
		v, util, mean, jain := h.v, h.util, h.queueMean, h.jain()
		require.Positive(t, v.ECN.MarkedPackets)
		for i := range n {
			cwnd, alpha, ok := f.reg.DCTCPOf(int32(i))
			require.True(t, ok)
			t.Logf("  flow %d: goodput %.2f Gb/s, cwnd %.2f, alpha %.3f", i, h.goodput[i], cwnd, alpha)
		}
		qmax := float64(kPackets + n)
		amp := 0.5 * math.Sqrt(2*float64(n)*(bdp+kPackets))
		lo, hi := (qmax-amp-1)*float64(data), (qmax+1)*float64(data)
		t.Logf("N=%d: C x RTT %.1f packets, K %d packets; band [%.0f, %.0f] B; time-mean queue %.0f B; utilisation %.4f; Jain %.4f; %d marks",
			n, bdp, kPackets, lo, hi, mean, util, jain, v.ECN.MarkedPackets)
		require.GreaterOrEqual(t, mean, lo, "N=%d: the queue's mean above the sawtooth's floor", n)
		require.LessOrEqual(t, mean, hi, "N=%d: the queue's mean below K + N packets", n)
		require.GreaterOrEqual(t, util, 0.95, "N=%d: utilisation", n)
		require.GreaterOrEqual(t, jain, 0.9, "N=%d: Jain's index", n)
	}
}
