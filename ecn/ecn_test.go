package ecn

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
)

func TestMarkingCurve(t *testing.T) {
	// DCQCN paper defaults: Kmin 5 KB, Kmax 200 KB, Pmax 1% (physics references 3.2).
	m := Marker{Kmin: 5_000, Kmax: 200_000, Pmax: 0.01}
	require.Zero(t, m.Probability(5_000), "no mark at Kmin")
	require.InDelta(t, 0.005, m.Probability((5_000+200_000)/2+0), 1e-5, "half of Pmax at the midpoint")
	require.InDelta(t, 0.01, m.Probability(200_000), 1e-12, "Pmax at Kmax")
	require.Equal(t, 1.0, m.Probability(200_001), "always above Kmax")
	draws := 0
	draw := func() float64 { draws++; return 0.5 }
	require.False(t, m.Mark(4_000, draw))
	require.True(t, m.Mark(300_000, draw))
	require.Zero(t, draws, "deterministic outcomes draw nothing")
	require.False(t, m.Mark(100_000, draw))
	require.True(t, m.Mark(100_000, func() float64 { return 0.001 }))
	require.Equal(t, 1, draws)
}

func TestNotificationPointOneCNPPerInterval(t *testing.T) {
	np := NotificationPoint{Interval: 50 * sim.Microsecond}
	// Every packet marked, one arriving every 88.48 ns for 1 ms: one CNP per 50 us, the
	// first at once.
	sent := 0
	for now := sim.Time(0); now < sim.Millisecond; now += 88480 {
		if np.Marked(now) {
			sent++
		}
	}
	require.Equal(t, 20, sent, "1 ms / 50 us")
	require.EqualValues(t, 20, np.CNPs)
}

func TestReactionPointPaperSequence(t *testing.T) {
	p := PaperParams()
	line := 40 * sim.Gbps
	rp := NewReactionPoint(p, line)
	require.Equal(t, line, rp.Rate(), "DCQCN starts at line rate")
	// One CNP with alpha = 1: Rt = 40G, Rc = 40G x (1 - 1/2) = 20G; alpha stays 1.
	require.Zero(t, rp.CNP(0))
	require.Equal(t, 20*sim.Gbps, rp.Rate())
	require.Equal(t, line, rp.Target())
	require.InDelta(t, 1.0, rp.Alpha(0), 1e-12)
	// Timer expiries every T: F = 5 stages of fast recovery halve the distance to Rt.
	rc, rt := 20e9, 40e9
	for k := 1; k <= 7; k++ {
		now := sim.Time(k) * p.RateTimer
		rp.RateTimer(now)
		if k > p.F {
			rt = min(rt+float64(p.RAI), 40e9) // then additive increase, never above line rate
		}
		rc = (rc + rt) / 2
		require.InDelta(t, rc, float64(rp.Rate()), 1, "after timer event %d", k)
		// Alpha decays as (1-g)^k with no CNP, one step per tau' = T.
		require.InDelta(t, math.Pow(1-p.G, float64(k)), rp.Alpha(now), 1e-12)
	}
	// A second CNP cuts by the decayed alpha: Rc x (1 - alpha/2).
	now := 7 * p.RateTimer
	a := rp.Alpha(now)
	before := float64(rp.Rate())
	rp.CNP(now)
	require.InDelta(t, before*(1-a/2), float64(rp.Rate()), 1)
	require.InDelta(t, (1-p.G)*a+p.G, rp.Alpha(now), 1e-12)
}

func TestReactionPointHyperIncreaseAndCaps(t *testing.T) {
	p := PaperParams()
	p.ByteCounter = 1_000
	rp := NewReactionPoint(p, 40*sim.Gbps)
	rp.CNP(0)
	for k := 1; k <= 6; k++ {
		rp.Sent(1_000) // byte stage k
		rp.RateTimer(sim.Time(k) * p.RateTimer)
	}
	// Both counters are past F: hyper increase by i x R_HAI, i = min(stages) - F.
	rt := float64(rp.Target())
	rp.Sent(1_000)                // byte stage 7: timer stage 6, so i = 1
	rp.RateTimer(7 * p.RateTimer) // timer stage 7: i = 2
	require.InDelta(t, min(rt+1*float64(p.RHAI)+2*float64(p.RHAI), 40e9), float64(rp.Target()), 1)
	for k := 8; k < 1000; k++ {
		rp.RateTimer(sim.Time(k) * p.RateTimer)
	}
	require.Equal(t, 40*sim.Gbps, rp.Rate(), "never above line rate")
	require.False(t, rp.RateTimer(1000*p.RateTimer), "the timer stops at line rate")
	// The floor: CNPs back to back, each cutting by alpha/2 with alpha near 1.
	for i := 0; i < 200; i++ {
		rp.CNP(2 * sim.Second)
	}
	require.Equal(t, p.MinRate, rp.Rate())
}

func TestReactionPointNVIDIADecreasePeriod(t *testing.T) {
	p := NVIDIAParams()
	rp := NewReactionPoint(p, 100*sim.Gbps)
	require.Zero(t, rp.CNP(0), "the first CNP cuts at once")
	require.Equal(t, 50*sim.Gbps, rp.Rate(), "alpha 1 halves the rate")
	// CNPs within 4 us of the cut wait for the period's end; one cut for several CNPs.
	at := rp.CNP(1 * sim.Microsecond)
	require.Equal(t, 4*sim.Microsecond, at)
	require.Equal(t, at, rp.CNP(2*sim.Microsecond))
	require.Equal(t, 50*sim.Gbps, rp.Rate())
	// Alpha: the period [0,1us) saw a CNP: +g; [1,2) too; [2,3) too; then [3,4) none.
	a := 1.0
	for i := 0; i < 3; i++ {
		a = (1-p.G)*a + p.G
	}
	a *= 1 - p.G
	rp.Cut(at)
	require.InDelta(t, 50e9*(1-a/2), float64(rp.Rate()), 2)
	require.EqualValues(t, 2, rp.Cuts)
}
