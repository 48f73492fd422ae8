package experiment

// System-level acceptance tests of issue 4 (ECN marking and DCQCN). Every expected value is
// derived here from the model's sources as docs/model.md gives them: the paper's
// parameters (section 4), the fluid model's fixed point and convergence time (Zhu et al.,
// CoNEXT 2016; section 7), wire overhead (section 1.1) and the victim flow's shares
// (section 7). None comes from an earlier run.

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/ecn"
	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/sim"
)

// paperDCQCN are the DCQCN paper's defaults as docs/model.md section 4 gives them: CNP
// interval tau = 50 us, alpha update interval tau' = 55 us, rate-increase timer T = 55 us,
// byte counter B = 10 MB, F = 5 fast-recovery stages, R_AI = 40 Mb/s; RED marking Kmin =
// 5 KB, Kmax = 200 KB, Pmax = 1 %.
var paperDCQCN = struct {
	tau, tauP, timer sim.Time
	byteCounter      int64
	f                int
	rai              sim.Rate
	kmin, kmax       int64
	pmax             float64
}{50 * sim.Microsecond, 55 * sim.Microsecond, 55 * sim.Microsecond, 10_000_000, 5, 40 * sim.Mbps, 5_000, 200_000, 0.01}

// fluidPStar solves the fixed-point equation of [CoNEXT16] Theorem 1 (docs/model.md
// section 7) for the marking probability p* by bisection:
//
//	a^2 alpha* / ((b + d)(c + e)) = tau^2 R_AI R*,  R* = C/N,  alpha* = 1 - (1-p)^(tau' R*)
//	a = 1 - (1-p)^(tau R*)      b = p / ((1-p)^-B - 1)    c = (1-p)^(F B) b
//	d = p / ((1-p)^-(T R*) - 1) e = (1-p)^(F T R*) d
//
// The model counts in packets: rates in packets per second of pktBits each, B in packets of
// counterBytes each (what the byte counter counts per packet). The left side rises with p
// (the paper's proof), so the root is unique.
func fluidPStar(c sim.Rate, n int, pktBits, counterBytes float64) float64 {
	pp := paperDCQCN
	r := float64(c) / pktBits / float64(n) // R* = C/N, packets/s
	rai := float64(pp.rai) / pktBits
	b := float64(pp.byteCounter) / counterBytes
	tau, tauP, tm := pp.tau.Seconds(), pp.tauP.Seconds(), pp.timer.Seconds()
	f := float64(pp.f)
	pow := func(p, x float64) float64 { return math.Exp(x * math.Log1p(-p)) }    // (1-p)^x
	inv := func(p, x float64) float64 { return math.Expm1(-x * math.Log1p(-p)) } // (1-p)^-x - 1
	lhs := func(p float64) float64 {
		a := 1 - pow(p, tau*r)
		alpha := 1 - pow(p, tauP*r)
		bb := p / inv(p, b)
		cc := pow(p, f*b) * bb
		d := p / inv(p, tm*r)
		e := pow(p, f*tm*r) * d
		return a * a * alpha / ((bb + d) * (cc + e))
	}
	rhs := tau * tau * rai * r
	lo, hi := 1e-9, 0.5
	for i := 0; i < 200; i++ {
		mid := math.Sqrt(lo * hi)
		if lhs(mid) < rhs {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// fluidQStar is q* = (p*/Pmax)(Kmax - Kmin) + Kmin in bytes (Theorem 1).
func fluidQStar(p float64) float64 {
	pp := paperDCQCN
	return p/pp.pmax*float64(pp.kmax-pp.kmin) + float64(pp.kmin)
}

// The fluid model's own unit, the 1-KB (8000-bit) packet of the authors' MATLAB code.
const fluidPacketBits = 8000

func TestDCQCNFluidFixedPointMatchesTheReferenceTable(t *testing.T) {
	// The bisection above, in the model's own 1-KB packets, must give the "exact" column of
	// the docs/model.md section 7 q* at 40 Gb/s (and its p*), or it is not the model.
	c := 40 * sim.Gbps
	for _, tc := range []struct {
		n      int
		p, qKB float64
	}{{1, 3.18e-4, 11.2}, {2, 7.77e-4, 20.2}, {4, 1.89e-3, 41.8}, {8, 4.55e-3, 93.8}, {10, 6.03e-3, 122.6}} {
		p := fluidPStar(c, tc.n, fluidPacketBits, fluidPacketBits/8)
		require.InEpsilon(t, tc.p, p, 0.005, "N=%d: p*", tc.n)
		require.InDelta(t, tc.qKB, fluidQStar(p)/1e3, 0.05, "N=%d: q* in KB", tc.n)
	}
	// 100 Gb/s rows too.
	require.InDelta(t, 9.7, fluidQStar(fluidPStar(100*sim.Gbps, 2, fluidPacketBits, fluidPacketBits/8))/1e3, 0.05)
	require.InDelta(t, 41.8, fluidQStar(fluidPStar(100*sim.Gbps, 10, fluidPacketBits, fluidPacketBits/8))/1e3, 0.05)

	// The simulator's paper mode uses the same parameters (the scenario default).
	p := ecn.PaperParams()
	pp := paperDCQCN
	require.Equal(t, pp.tau, p.CNPInterval)
	require.Equal(t, pp.tauP, p.AlphaPeriod)
	require.Equal(t, pp.timer, p.RateTimer)
	require.Equal(t, pp.byteCounter, p.ByteCounter)
	require.Equal(t, pp.f, p.F)
	require.Equal(t, pp.rai, p.RAI)
	require.InDelta(t, 1.0/256, p.G, 1e-15)
	require.InDelta(t, 1.0, p.AlphaInit, 1e-15)
}

// ---------------------------------------------------------------------------------------
// The 40 Gb/s dumbbell of the tests below: N senders l1..lN on swl, one receiver r1 on swr,
// every link 40 Gb/s. The shared link swl -> swr is the bottleneck, and its queue is swl's
// egress toward swr; swr's port toward r1 is fed at no more than its own rate by that link,
// so it never queues. Paper DCQCN, paper RED marking, PFC on (nothing may be lost).

const dcqcnDumbbell = `
version: 1
name: dcqcn-dumbbell
stop: %s
sample_interval: 1ms
topology:
  preset: dumbbell
  params:
    left: %d
    right: 1
    host_link: {rate: 40Gbps, delay: 1us}
    bottleneck: {rate: 40Gbps, delay: 1us}
switch:
  buffer: 16MB
  pfc: {enabled: true, priorities: [3]}
  ecn: {enabled: true, kmin: 5KB, kmax: 200KB, pmax: 0.01}
hosts: {priority: 3}
transports:
  rocev2: {cc: dcqcn, dcqcn: {mode: paper}}
traffic:
%s
`

func dumbbellScenario(n int, stop sim.Time, starts ...sim.Time) string {
	var flows []string
	for i := 1; i <= n; i++ {
		start := ""
		if i <= len(starts) && starts[i-1] > 0 {
			start = fmt.Sprintf(", start: %dus", int64(starts[i-1]/sim.Microsecond))
		}
		flows = append(flows, fmt.Sprintf("  - flow: {src: l%d, dst: r1, size: 10GB, transport: rocev2%s}", i, start))
	}
	return fmt.Sprintf(dcqcnDumbbell, fmt.Sprintf("%dus", int64(stop/sim.Microsecond)), n, strings.Join(flows, "\n"))
}

// delivered maps (flow, sample time in us) to the flow's delivered bytes in the time series.
func delivered(v *results.Variant) map[[2]int64]int64 {
	m := map[[2]int64]int64{}
	ss := v.Series
	for _, fs := range ss.Flows {
		for k, t := range ss.TimesUS {
			m[[2]int64{int64(fs.Flow), int64(math.Round(t))}] = fs.DeliveredBytes[k]
		}
	}
	return m
}

// seriesGoodput is flow id's goodput between two sample times, from the time series.
func seriesGoodput(t *testing.T, m map[[2]int64]int64, id int, t0, t1 sim.Time) float64 {
	t.Helper()
	a, ok0 := m[[2]int64{int64(id), int64(t0 / sim.Microsecond)}]
	b, ok1 := m[[2]int64{int64(id), int64(t1 / sim.Microsecond)}]
	require.True(t, ok0 && ok1, "flow %d has rate samples at %v and %v", id, t0, t1)
	return gbps(b-a, t1-t0)
}

// switchPauses is every PFC pause frame the switches have sent so far.
func switchPauses(f *fabric) int64 {
	var n int64
	for _, sw := range f.switches {
		for _, pt := range sw.Ports {
			for _, c := range pt.PausesSent {
				n += c
			}
		}
	}
	return n
}

// ---------------------------------------------------------------------------------------
// 1. Fixed point (docs/model.md section 7, Theorem 1): R_C* = C/N each, queue q*.

func TestDCQCNFixedPointRatesAndQueue(t *testing.T) {
	c := 40 * sim.Gbps
	// Steady window: flows start together at line rate; the fluid model settles within a
	// few ms at 40 Gb/s with a few us of loop delay (3.3, tau* = 4 us), and packet-level
	// runs within a few tens of ms (4 flows start in lockstep and first under-use the link).
	// The first 100 ms are left out. The window is 500 ms long because DCQCN's alpha has a
	// memory of 1/g = 256 alpha periods (14 ms): one flow may run a few percent above
	// another for tens of ms, so per-flow averages need hundreds of ms to be within 5%.
	t0, t1 := 100*sim.Millisecond, 600*sim.Millisecond
	// N = 2 and 4 run with the default notification point, the authors' window rule. N = 10
	// runs with immediate-only: under the window rule (and the SIGCOMM'15 text's) the N = 10
	// loop does not settle (below), and Theorem 1's fixed point is where a stable loop
	// settles; immediate-only's N = 10 loop does (BenchmarkDCQCNStability). Not held: the
	// window rule's N = 10 queue within 30% of q* (it is 56% below).
	for _, tc := range []struct {
		n        int
		np       string
		tableQKB float64 // docs/model.md section 7: q* at 40G with 1-KB packets
	}{{2, "window", 20.2}, {4, "window", 41.8}, {10, "immediate-only", 122.6}} {
		t.Run(fmt.Sprintf("N=%d", tc.n), func(t *testing.T) {
			t.Parallel()
			n := tc.n
			// Expected rates: C/N of wire rate each (Sum R_C = C). RateGbps in the series is
			// DCQCN's R_C, a wire rate; goodput is payload, C/N x payload/wire.
			share := c.Gbps() / float64(n)
			goodShare := share * payloadOfWire
			// Expected queue: q* by bisection of the full Theorem 1 equation (not the Taylor
			// form, which is 14-29% high at these N, 3.3 table), with the simulator's own
			// packet: each packet is one marking opportunity and R_C is a wire rate, so the
			// model's packet here is a 1106-byte wire packet (payload 1024 + 82, physics
			// references 1.2), and the byte counter counts 1086-byte frames. This is the
			// fluid model applied to the simulated network; the 3.3 table is the same model
			// with 1-KB packets, and is logged for comparison.
			qStar := fluidQStar(fluidPStar(c, n, 8*middleWire, middleFrame))

			f := build0(t, dumbbellScenario(n, t1), "transports.rocev2.dcqcn.np="+tc.np)
			f.startSampler()
			pt, name := loopPort(t, f, "swl", "swr")
			q := &pt.Queues[pfcClass]
			f.runUntil(t0)
			area0, pauses0 := q.MeanBytes(t0)*float64(t0), switchPauses(f)
			f.runUntil(t1)
			area1, pauses1 := q.MeanBytes(t1)*float64(t1), switchPauses(f)
			require.NoError(t, f.audit())
			v := f.collect()
			qMean := (area1 - area0) / float64(t1-t0) // exact time-mean over the window

			require.Zero(t, v.Drops.Total, "PFC on: nothing lost (%+v)", v.Drops.ByReason)
			require.Equal(t, pauses0, pauses1, "DCQCN alone holds the queue in steady state: no pause in the window")
			require.Positive(t, v.ECN.MarkedPackets)
			require.Positive(t, v.ECN.CNPs)

			// Rates: each flow's goodput over the window, from the time series.
			m := delivered(v)
			total := 0.0
			for _, fl := range v.PerFlow {
				g := seriesGoodput(t, m, fl.ID, t0, t1)
				total += g
				// And its mean R_C (the series' rate samples) against C/N.
				rc, k := 0.0, 0
				ss := v.Series
				for _, fs := range ss.Flows {
					for j, at := range ss.TimesUS {
						if fs.Flow == fl.ID && at > t0.Microseconds() && at <= t1.Microseconds() {
							rc += fs.RateGbps[j]
							k++
						}
					}
				}
				rc /= float64(k)
				t.Logf("N=%d flow %d: goodput %.3f Gb/s (C/N x payload/wire %.3f, %+.1f%%); mean R_C %.3f Gb/s (C/N %.3f, %+.1f%%)",
					n, fl.ID, g, goodShare, 100*(g/goodShare-1), rc, share, 100*(rc/share-1))
				require.InEpsilon(t, goodShare, g, 0.05, "flow %d settles at C/N (goodput)", fl.ID)
				require.InEpsilon(t, share, rc, 0.05, "flow %d settles at C/N (R_C)", fl.ID)
			}
			require.InEpsilon(t, c.Gbps()*payloadOfWire, total, 0.02, "Sum R_C = C: the bottleneck is fully used")

			// Queue: the time series' samples (non-empty ones only: a missing sample is an
			// empty queue) agree with the exact mean, and the receiver's port stays empty.
			var sampled float64
			ss := v.Series
			for _, q := range ss.Queues {
				for j, at := range ss.TimesUS {
					if q.Node == "swl" && q.Port == pt.Index+1 && q.Priority == pfcClass &&
						at > t0.Microseconds() && at <= t1.Microseconds() {
						sampled += float64(q.Bytes[j])
					}
				}
			}
			sampled /= float64((t1 - t0) / f.sc.SampleInterval)
			require.InEpsilon(t, qMean, sampled, 0.10, "sampled vs exact time-mean queue")
			for _, qq := range v.Queues {
				if qq.Node == "swr" && qq.Peer == "r1" {
					require.Less(t, qq.MaxBytes, int64(2*largestFrame), "swr -> r1 is not a bottleneck")
				}
			}

			t.Logf("N=%d: %s time-mean %.1f KB over [%v, %v] (sampled %.1f KB); fluid q* %.1f KB with 1106-byte packets (%+.0f%%), table %.1f KB with 1-KB packets (%+.0f%%); %d marks, %d CNPs",
				n, name, qMean/1e3, t0, t1, sampled/1e3, qStar/1e3, 100*(qMean/qStar-1), tc.tableQKB, 100*(qMean/(tc.tableQKB*1e3)-1),
				v.ECN.MarkedPackets, v.ECN.CNPs)
			// The bound: the time-mean queue within 30% of the fluid model's q* (computed
			// for the simulator's own packet size). The fluid model counts a cut in every tau
			// in which some packet was marked, 1 - (1-p)^(tau R): the window rule's count.
			//
			// Measured over this window (np, N: time-mean queue against q*):
			//   window          2: -6%,  4: +2%, 10: -56%
			//   paper           2: -13%, 4: -4%, 10: -49%
			//   immediate-only  2: +23%, 4: +29%, 10: +13%
			// Under the window rule, as under the paper's, the N = 10 queue swings between
			// empty and beyond Kmax; immediate-only settles. The wait for a window's end is
			// not the cause as a feedback delay: the integrated fluid model stays at q* with
			// tau* up to 54 us (BenchmarkDCQCNFluidDelay), while the simulation with
			// immediate-only and a 30 us loop already swings (BenchmarkDCQCNStability). The
			// cause is RED's jump from Pmax to 1 at Kmax, which the fluid model's p(q) lacks:
			// TestDCQCNManyFlowCycle (docs/model.md section 4). Staggering the flows' starts over a window, so that
			// their timers are out of phase, changes none of this.
			require.InEpsilon(t, qStar, qMean, 0.30, "time-mean queue vs q*")
		})
	}
}

// ---------------------------------------------------------------------------------------
// 2. A late joiner converges (docs/model.md section 7).

func TestDCQCNLateJoinerConvergesInFluidModelTime(t *testing.T) {
	// Flow 1 alone for 10 ms on the 40 Gb/s dumbbell: no congestion, its alpha decays to
	// (1-g)^(10ms/tau') = 0.49. Flow 2 then joins at line rate with alpha = 1, so the first
	// cuts leave flow 1 well ahead; Theorem 2 shrinks the difference. The fluid model gives
	// |r1 - r2| < 10% of C/2 after about 46 ms at 40G (3.3 table).
	c := 40 * sim.Gbps
	join := 10 * sim.Millisecond
	const fluidMS = 46.0
	band := 0.10 * c.Gbps() / 2 * payloadOfWire // 10% of C/2, in goodput
	// At the packet level two equal flows do not stay within 10% of each other: alpha's
	// memory of 256 alpha periods (14 ms) lets one run 2-6 Gb/s above the other for 10-25
	// ms at a time in steady state (measured in the fixed-point runs). So the difference is
	// averaged over independent runs (seeds) and 5 ms bins, which keeps the systematic part
	// (the late joiner's handicap) and averages the random part away; the convergence time
	// is when that mean first enters the band.
	const seeds = 8
	bin := 5 * sim.Millisecond
	stop := join + 160*sim.Millisecond
	lower, upper := fluidMS/3, 2.5*fluidMS // "of the order of" the fluid model's 46 ms
	text := dumbbellScenario(2, stop, 0, join)

	vs := make([]*results.Variant, seeds)
	errs := make([]error, seeds)
	var wg sync.WaitGroup
	for s := range seeds {
		sc := load(t, text, fmt.Sprintf("seed=%d", s+1)).Scenario(0)
		wg.Add(1)
		go func() {
			defer wg.Done()
			vs[s], errs[s] = runLimited(sc, nil, Capture{}, Limits{}, true, 1) // with the time series
		}()
	}
	wg.Wait()
	nbins := int((stop - join) / bin)
	mean := make([]float64, nbins) // ensemble mean of goodput(flow 1) - goodput(flow 2)
	for s, v := range vs {
		require.NoError(t, errs[s])
		require.Zero(t, v.Drops.Total)
		m := delivered(v)
		for b := range nbins {
			b0 := join + sim.Time(b)*bin
			mean[b] += (seriesGoodput(t, m, 1, b0, b0+bin) - seriesGoodput(t, m, 2, b0, b0+bin)) / seeds
		}
	}
	var row []string
	for _, d := range mean {
		row = append(row, fmt.Sprintf("%.1f", d))
	}
	t.Logf("mean r1 - r2 (Gb/s of goodput) in 5 ms bins after the join, %d seeds: %s; band %.2f", seeds, strings.Join(row, " "), band)

	// Flow 1 starts well ahead: the joiner really starts with alpha = 1.
	require.Greater(t, mean[0], 3*band, "just after the join flow 1 is well ahead of the joiner")
	conv := -1.0
	for b, d := range mean {
		if math.Abs(d) < band {
			conv = (sim.Time(b+1) * bin).Seconds() * 1e3 // the end of the first bin in the band
			break
		}
	}
	t.Logf("converged to within 10%% of C/2 %.0f ms after the join (fluid model %.0f ms; bound [%.0f, %.0f] ms)", conv, fluidMS, lower, upper)
	require.Positive(t, conv, "the flows converge")
	require.GreaterOrEqual(t, conv, lower, "converged too fast for the fluid model")
	require.LessOrEqual(t, conv, upper, "convergence time of the order of the fluid model's")

	// And they stay converged: over the last 40 ms (past the upper bound) the mean
	// difference is inside the band and each flow has C/2 within 5%.
	late0 := stop - 40*sim.Millisecond
	var g1, g2 float64
	for _, v := range vs {
		m := delivered(v)
		g1 += seriesGoodput(t, m, 1, late0, stop) / seeds
		g2 += seriesGoodput(t, m, 2, late0, stop) / seeds
	}
	t.Logf("over [%v, %v]: flow 1 %.2f, flow 2 %.2f Gb/s (C/2 x payload/wire %.2f)", late0, stop, g1, g2, c.Gbps()/2*payloadOfWire)
	require.Less(t, math.Abs(g1-g2), band)
	require.InEpsilon(t, c.Gbps()/2*payloadOfWire, g1, 0.05)
	require.InEpsilon(t, c.Gbps()/2*payloadOfWire, g2, 0.05)
}

// ---------------------------------------------------------------------------------------
// 3. 16-to-1 incast: PFC + DCQCN against PFC alone.

func TestDCQCNIncastPausesLessAndQueuesLessThanPFCAlone(t *testing.T) {
	const n = 16
	text := fmt.Sprintf(incast16, hostList("h", 1, n)) // star, 100 Gb/s, 1 MiB each, PFC on
	pfcOnly := runOne(t, text, 0)
	withCC := runOne(t, text, 0, "switch.ecn.enabled=true", "switch.ecn.kmin=5KB", "switch.ecn.kmax=200KB",
		"switch.ecn.pmax=0.01", "transports.rocev2.cc=dcqcn", "transports.rocev2.dcqcn.mode=paper")
	recvQueue := func(v *results.Variant) results.Queue {
		for _, q := range v.Queues {
			if q.Node == "sw" && q.Peer == "h17" && q.Priority == pfcClass {
				return q
			}
		}
		require.FailNow(t, "no queue at the receiver's port")
		return results.Queue{}
	}
	qp, qd := recvQueue(pfcOnly), recvQueue(withCC)
	for _, x := range []struct {
		name string
		v    *results.Variant
		q    results.Queue
	}{{"PFC", pfcOnly, qp}, {"PFC+DCQCN", withCC, qd}} {
		t.Logf("%s: %d/%d completed, last at %.0f us; %d pause frames; receiver port mean %.0f B, max %d B; %d marks, %d CNPs; drops %d",
			x.name, x.v.Flows.Completed, n, *x.v.FCT.Max, x.v.PFC.PauseFrames, x.q.MeanBytes, x.q.MaxBytes, x.v.ECN.MarkedPackets, x.v.ECN.CNPs, x.v.Drops.Total)
		require.EqualValues(t, n, x.v.Flows.Completed, "%s: every flow completes", x.name)
		require.Zero(t, x.v.Drops.Total, "%s: no drops (%+v)", x.name, x.v.Drops.ByReason)
		require.Zero(t, x.v.RetransmittedPackets, x.name)
	}
	require.Zero(t, pfcOnly.ECN.MarkedPackets)
	require.Zero(t, pfcOnly.ECN.CNPs)
	require.Positive(t, withCC.ECN.MarkedPackets)
	require.Positive(t, withCC.ECN.CNPs)
	// The queue means are time-weighted over each run, which lasts until its last flow
	// completes: the mean over the incast.
	require.Positive(t, pfcOnly.PFC.PauseFrames, "PFC alone pauses the senders")
	require.Less(t, withCC.PFC.PauseFrames, pfcOnly.PFC.PauseFrames, "DCQCN sends fewer pause frames")
	require.Less(t, qd.MeanBytes, qp.MeanBytes, "DCQCN keeps a lower mean queue at the receiver port")
}

// ---------------------------------------------------------------------------------------
// 4. The victim flow (docs/model.md section 7) with DCQCN.

func TestDCQCNRestoresTheVictimFlowsShare(t *testing.T) {
	// SA, SB; A1, A2 on SA; R, V, L1..L3 on SB; F1 A1->R, F2 A2->V, Li->R; all greedy, 100
	// Gb/s, PFC on. With PFC alone the victim F2 gets C/(n+1) (pfc_test.go). With DCQCN the
	// senders to R back off before SB's ingress from SA reaches XOFF, so SB stops pausing SA
	// and F2 can take what F1 leaves of SA->SB: its max-min share C n/(n+1).
	const n = victimN
	c := 100 * sim.Gbps
	// DCQCN settles in about 45 ms here under the default (window) notification point: the
	// first marks wait for the ends of their flows' windows (up to 50 us), so the queues and
	// the pauses build longer before the first cuts, and the CNPs of the first window leave
	// every flow near 4 Gb/s, which the paper's 40 Mb/s additive increase takes tens of ms to
	// climb back from (the SIGCOMM'15 rule, which answers the first mark at once, settles in
	// about 25 ms; immediate-only in about 15).
	t0, t1 := 50*sim.Millisecond, 70*sim.Millisecond
	congested := c.Gbps() / (n + 1) * payloadOfWire  // PFC alone: 23.1 Gb/s
	maxMin := c.Gbps() * n / (n + 1) * payloadOfWire // 69.4 Gb/s
	line := c.Gbps() * payloadOfWire

	window := func(sets ...string) (map[string]float64, *fabric) {
		f := build0(t, victimScenario(n, t1), sets...)
		f.runUntil(t0)
		d0 := make([]int64, len(f.reg.Flows))
		for i, fl := range f.reg.Flows {
			d0[i] = fl.Delivered
		}
		p0 := pfcPausesSB(t, f)
		f.runUntil(t1)
		require.NoError(t, f.audit())
		g := map[string]float64{}
		for i, fl := range f.reg.Flows {
			g[f.nw.Nodes[fl.Src].Name] = gbps(fl.Delivered-d0[i], t1-t0)
		}
		g["SB->SA pauses"] = float64(pfcPausesSB(t, f) - p0)
		return g, f
	}
	pfcG, _ := window()
	g, f := window("switch.ecn.enabled=true", "transports.rocev2.cc=dcqcn", "transports.rocev2.dcqcn.mode=paper")
	v := f.collect()
	for _, x := range []struct {
		name string
		g    map[string]float64
	}{{"PFC", pfcG}, {"PFC+DCQCN", g}} {
		t.Logf("%s over [%v, %v]: F1 %.1f, F2 %.1f, L1 %.1f, L2 %.1f, L3 %.1f Gb/s; SB paused SA %.0f times",
			x.name, t0, t1, x.g["A1"], x.g["A2"], x.g["L1"], x.g["L2"], x.g["L3"], x.g["SB->SA pauses"])
	}
	t.Logf("C/(n+1) x payload/wire %.1f, C n/(n+1) x payload/wire %.1f Gb/s; F2 with DCQCN %.0f%% of its max-min share; %d marks, %d CNPs",
		congested, maxMin, 100*g["A2"]/maxMin, v.ECN.MarkedPackets, v.ECN.CNPs)

	require.Zero(t, v.Drops.Total, "%+v", v.Drops.ByReason)
	// The congestion no longer spreads: SB does not pause SA in steady state.
	require.Zero(t, g["SB->SA pauses"], "SB paused SA in the steady window")
	// The victim: well above the PFC-only share (at least twice C/(n+1)), and most of its
	// max-min share: the bound chosen is 80% of C n/(n+1).
	require.GreaterOrEqual(t, g["A2"], 2*congested, "F2 well above C/(n+1)")
	require.GreaterOrEqual(t, g["A2"], 0.80*maxMin, "F2 gets most of its max-min share C n/(n+1)")
	// F2 takes what F1 leaves of SA->SB: that link runs full.
	require.InEpsilon(t, line, g["A1"]+g["A2"], 0.03, "SA->SB is full")
	// The flows to R are not starved for it: each keeps at least half of its share of SB->R
	// (F1 crosses both congested queues and is marked at both, so it gets less than L1..Ln).
	t.Logf("SB->R carries %.1f Gb/s of goodput (line x payload/wire %.1f)", g["A1"]+g["L1"]+g["L2"]+g["L3"], line)
	for _, src := range []string{"A1", "L1", "L2", "L3"} {
		require.GreaterOrEqual(t, g[src], 0.5*congested, "%s to R is not starved", src)
	}
}

// pfcPausesSB is the pause frames SB has sent to SA on the data class.
func pfcPausesSB(t *testing.T, f *fabric) int64 {
	pt, _ := loopPort(t, f, "SB", "SA")
	return pt.PausesSent[pfcClass]
}
