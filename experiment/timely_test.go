package experiment

// System-level tests of TIMELY (issue 24, part 2): N long flows into one 100 Gb/s port.

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/internal/accuracy"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/transports"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// timelyStar is N senders h1..hN and one receiver hN+1 on one switch, every link 100 Gb/s
// with 1 us of propagation: the switch's port toward the receiver is the bottleneck. The
// buffer (16 MB, lossless class 3) holds T_high's 500 us of queue at 100 Gb/s (6.25 MB).
const timelyStar = `
version: 1
name: timely-star
stop: %s
topology:
  preset: star
  params: {hosts: %d, link: {rate: 100Gbps, delay: 1us}}
switch:
  buffer: 16MB
  pfc: {enabled: true, priorities: [3]}
hosts: {priority: 3}
transports:
  rocev2: {cc: timely, timely: {%s}}
traffic:
%s
`

func timelyStarScenario(n int, stop sim.Time, timely string) string {
	var flows []string
	for i := 1; i <= n; i++ {
		flows = append(flows, fmt.Sprintf("  - flow: {src: h%d, dst: h%d, size: 10GB, transport: rocev2}", i, n+1))
	}
	return fmt.Sprintf(timelyStar, fmt.Sprintf("%dus", int64(stop/sim.Microsecond)), n+1, timely, strings.Join(flows, "\n"))
}

// timelyStarRun is what one run of timelyStar shows over its second half: the bottleneck's
// utilisation and queue, each flow's goodput, what each flow's TIMELY measured (its RTT
// samples' range and the branch each update took), and each flow's rate sampled every 5 us
// (range and coefficient of variation: the oscillation).
type timelyStarRun struct {
	util                  float64
	queueMean, queueMax   float64 // bottleneck queue, bytes
	goodput               []float64
	stats                 []transports.TIMELYStats
	rateMin, rateMax, cv  []float64
	sumMin, sumMax, sumCV float64 // of the sum of the rates
}

// rttRange is the least and the most RTT any flow sampled.
func (r timelyStarRun) rttRange() (lo, hi sim.Time) {
	lo = sim.Never
	for _, s := range r.stats {
		lo, hi = min(lo, s.MinRTT), max(hi, s.MaxRTT)
	}
	return lo, hi
}

// jain is Jain's fairness index of the goodputs.
func (r timelyStarRun) jain() float64 {
	var s, sq float64
	for _, g := range r.goodput {
		s, sq = s+g, sq+g*g
	}
	return s * s / (float64(len(r.goodput)) * sq)
}

func (r timelyStarRun) log(t *testing.T, n int) {
	t.Helper()
	lo, hi := r.rttRange()
	var samples, low, high, up, hai, down int64
	for _, s := range r.stats {
		samples, low, high, up, hai, down = samples+s.Samples, low+s.Low, high+s.High, up+s.Up, hai+s.HAI, down+s.Down
	}
	t.Logf("N=%d: utilisation %.4f, queue mean %.0f B (%.1f us), max %.0f B (%.1f us); RTT samples %v..%v; updates %d: %d below T_low, %d above T_high, %d up (%d HAI), %d down; Jain %.4f",
		n, r.util, r.queueMean, r.queueMean*8/100e3, r.queueMax, r.queueMax*8/100e3, lo, hi, samples, low, high, up, hai, down, r.jain())
	t.Logf("  sum of the rates %.2f..%.2f Gb/s (CV %.3f)", r.sumMin, r.sumMax, r.sumCV)
	for i := range n {
		t.Logf("  flow %d: goodput %.2f Gb/s, rate %.2f..%.2f Gb/s (CV %.3f)", i, r.goodput[i], r.rateMin[i], r.rateMax[i], r.cv[i])
	}
}

// runTIMELYStar runs N flows for t1 and measures the second half.
func runTIMELYStar(t *testing.T, n int, t1 sim.Time, timely string) timelyStarRun {
	t.Helper()
	c := 100 * sim.Gbps
	t0 := t1 / 2
	f := build0(t, timelyStarScenario(n, t1, timely))
	pt, _ := loopPort(t, f, "sw", fmt.Sprintf("h%d", n+1))
	q := &pt.Queues[pfcClass]
	f.runUntil(t0)
	bytes0, area0 := pt.Wire.Bytes(), q.MeanBytes(t0)*float64(t0)
	del0 := make([]int64, n)
	r := timelyStarRun{rateMin: make([]float64, n), rateMax: make([]float64, n), cv: make([]float64, n), sumMin: math.Inf(1)}
	for i := range n {
		del0[i] = f.reg.Flows[i].Delivered
		f.reg.TIMELYOf(int32(i)).Stats = transports.TIMELYStats{} // count the second half only
		r.rateMin[i] = math.Inf(1)
	}
	const step = 5 * sim.Microsecond
	sum, sq := make([]float64, n+1), make([]float64, n+1)
	var k float64
	for now := t0 + step; now <= t1; now += step {
		f.runUntil(now)
		r.queueMax = max(r.queueMax, float64(q.Bytes))
		var total float64
		for i := range n {
			g := float64(f.reg.TIMELYOf(int32(i)).Rate()) / 1e9
			r.rateMin[i], r.rateMax[i] = min(r.rateMin[i], g), max(r.rateMax[i], g)
			sum[i], sq[i], total = sum[i]+g, sq[i]+g*g, total+g
		}
		r.sumMin, r.sumMax = min(r.sumMin, total), max(r.sumMax, total)
		sum[n], sq[n] = sum[n]+total, sq[n]+total*total
		k++
	}
	cv := func(i int) float64 { m := sum[i] / k; return math.Sqrt(max(sq[i]/k-m*m, 0)) / m }
	require.NoError(t, f.audit())
	v := f.collect()
	require.Zero(t, v.Drops.Total)
	r.util = float64(pt.Wire.Bytes()-bytes0) * 8 / (t1 - t0).Seconds() / float64(c)
	r.queueMean = (q.MeanBytes(t1)*float64(t1) - area0) / float64(t1-t0)
	r.sumCV = cv(n)
	for i := range n {
		require.Zero(t, f.reg.Flows[i].Timeouts, "flow %d: no timeouts", i)
		r.goodput = append(r.goodput, gbps(f.reg.Flows[i].Delivered-del0[i], t1-t0))
		r.cv[i] = cv(i)
		r.stats = append(r.stats, f.reg.TIMELYOf(int32(i)).Stats)
	}
	return r
}

// TestTIMELYKeepsRTTBetweenThresholds is issue 24's acceptance test for TIMELY: N = 2, 4, 10
// long flows into one 100 Gb/s port. With the defaults (T_low 0 for per-packet pacing,
// T_high 500 us, alpha 0.875), every RTT sample of the second half
// of a 60 ms run lies between T_low and T_high and the port carries at least 85% of its
// line rate (wire bytes). The rates' oscillation is logged (range and CV, flow by flow and
// summed), and docs/model.md reports it.
func TestTIMELYKeepsRTTBetweenThresholds(t *testing.T) {
	p := transports.DefaultTIMELYParams()
	for _, n := range []int{2, 4, 10} {
		r := runTIMELYStar(t, n, 60*sim.Millisecond, "")
		r.log(t, n)
		lo, hi := r.rttRange()
		require.GreaterOrEqual(t, lo, p.TLow, "N=%d: RTT at or above T_low", n)
		require.LessOrEqual(t, hi, p.THigh, "N=%d: RTT at or below T_high", n)
		require.Zero(t, sumHigh(r), "N=%d: no update above T_high", n)
		require.GreaterOrEqual(t, r.util, 0.85, "N=%d: utilisation", n)
	}
}

// TestTIMELYWithTLowBelowItsQueue runs the HPCC authors' ns-3 set (alpha 0.875, T_low 50 us,
// T_high 500 us) on the same star. Below T_low TIMELY only adds delta x min(RTT/minRTT, 1)
// per round trip, about 5 Gb/s per ms per flow here, and the gradient cut that follows the
// climb through T_low drains the queue: the RTT spends most of the run at its base, below
// T_low, a limit cycle of climbs and cuts. The test holds what the rule gives (the port
// still carries at least 85%, no sample above T_high) and that most updates are below T_low,
// and logs the cycle.
func TestTIMELYWithTLowBelowItsQueue(t *testing.T) {
	for _, n := range []int{2, 4, 10} {
		r := runTIMELYStar(t, n, 60*sim.Millisecond, "alpha: 0.875, t_low: 50us, t_high: 500us")
		r.log(t, n)
		_, hi := r.rttRange()
		require.LessOrEqual(t, hi, 500*sim.Microsecond, "N=%d: RTT at or below T_high", n)
		require.GreaterOrEqual(t, r.util, 0.85, "N=%d: utilisation", n)
		var samples, low int64
		for _, s := range r.stats {
			samples, low = samples+s.Samples, low+s.Low
		}
		require.Greater(t, float64(low)/float64(samples), 0.5, "N=%d: most updates below T_low", n)
	}
}

// sumHigh is the updates above T_high over every flow.
func sumHigh(r timelyStarRun) int64 {
	var h int64
	for _, s := range r.stats {
		h += s.High
	}
	return h
}

// TestTIMELYWithTheSnippetsAlpha runs the first author's recommended EWMA weight, 0.02, with
// the other defaults. It is meant for an update per completion event; with one update per
// round trip the smoothed difference follows the queue over some 50 round trips, so the
// gradient turns late and the queue swings ten times deeper than with 0.875 (logged; the
// port stays busy).
func TestTIMELYWithTheSnippetsAlpha(t *testing.T) {
	slow(t, "long TIMELY runs")
	for _, n := range []int{2, 4, 10} {
		r := runTIMELYStar(t, n, 60*sim.Millisecond, "alpha: 0.02")
		r.log(t, n)
		require.GreaterOrEqual(t, r.util, 0.85, "N=%d: utilisation", n)
	}
}

// TestTIMELYHPCCNS3MatchesThePeer: rule hpcc_ns3 with the HPCC authors' settings (run.py
// "timely": ai 100 Mb/s and hai 500 Mb/s at 100 Gb/s, MIN_RATE 1000 Mb/s; rdma-hw.cc: alpha
// 0.875, beta 0.8, T_low 50 us, T_high 500 us, minRTT 20 us) on the star: N long flows into
// one 100 Gb/s port carry, together, over the second half of 60 ms, within 5% of what the
// peer carried as a share of its own line payload rate: 84 Gb/s at N = 2 and 81 Gb/s at
// N = 8 (issue 35, point 6; the HPCC authors' ns-3 at 9f4be2a). Each share is goodput over
// the line's payload rate. Here: 100 Gb/s x 1024/1106 (a 1,024-byte payload in a 1,106-byte
// RoCE v2 packet on the wire). The peer's: 100 Gb/s x 1000/1056 = 94.70 Gb/s, a 1,000-byte
// payload (run.py PACKET_PAYLOAD_SIZE) under 56 bytes of headers, all its links count
// (CustomHeader::GetStaticWholeHeaderSize, custom-header.cc 335-341: 14 of its Ethernet-sized
// PPP header, ppp-header.cc 80-82, + IPv4 20 + UDP 8 + pg 2 + seq 4 + TIMELY's 8-byte INT
// timestamp, third.cc 675-676 and int-header.cc 16-26), with no gap between frames (the
// InterframeGap attribute's default, 0 s). So the peer's shares are 88.70% and 85.53%.
// Measured here: 89.6% (N = 2) and 84.1% (N = 8), +1.0% and -1.7%. The paper rule with the same settings carries more in this steady state (93.4% and 89.6%:
// its small scaled steps below T_low keep the queue shallower), but climbs far slower after
// a deep cut (over the first 5 ms at N = 2: 29.6% against hpcc_ns3's 86.7%); logged.
func TestTIMELYHPCCNS3MatchesThePeer(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: full suite (./test.sh --full)")
	}
	const peer = "alpha: 0.875, beta: 0.8, t_low: 50us, t_high: 500us, min_rtt: 20us, delta: 100Mbps, n: 5, hai_threshold: 5, min_rate: 1Gbps"
	payload := 100 * 1024.0 / float64(frames.RoCEWireBytes(2, 1024, false)) // Gb/s
	for _, c := range []struct {
		n         int
		want, tol float64 // the peer's goodput share, %; the relative tolerance
	}{{2, 100 * 84 / peerPayloadGbps, 0.05}, {8, 100 * 81 / peerPayloadGbps, 0.05}} {
		share := func(rule string) float64 {
			r := runTIMELYStar(t, c.n, 60*sim.Millisecond, peer+", rule: "+rule)
			var g float64
			for _, x := range r.goodput {
				g += x
			}
			r.log(t, c.n)
			return 100 * g / payload
		}
		ns3, paper := share("hpcc_ns3"), share("paper")
		t.Logf("N=%d: goodput %.1f%% of the line's payload rate with hpcc_ns3 (%.1f%% off the peer's %.2f%%), %.1f%% with paper",
			c.n, ns3, 100*(ns3/c.want-1), c.want, paper)
		accurate(t, "Congestion control", fmt.Sprintf("TIMELY, rule hpcc_ns3, N=%d flows into one port, the peer's settings: goodput, %% of line payload rate", c.n), c.want, ns3, "%", c.tol,
			accuracy.Peer, "the HPCC authors' ns-3 (alibaba-edu/High-Precision-Congestion-Control 9f4be2a, run.py --cc timely), 84 and 81 Gb/s over its payload rate of 94.70 Gb/s (issue 35)")
	}
}

// peerPayloadGbps is the HPCC authors' ns-3's line payload rate at 100 Gb/s: 1,000 payload
// bytes in 1,056 on the wire (TestTIMELYHPCCNS3MatchesThePeer says where each byte is).
const peerPayloadGbps = 100 * 1000.0 / 1056
