package ecn

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
)

func TestMarkingCurve(t *testing.T) {
	// DCQCN paper defaults: Kmin 5 KB, Kmax 200 KB, Pmax 1% (docs/model.md section 4).
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

// npDriver feeds marks to notification points and runs their pacers' window ends when they
// ask, as the NIC does with its timer: the engine-free harness of the NP tests.
type npDriver struct {
	wake map[*Pacer]sim.Time
	cnps []string // "flow@us" in order
}

func (d *npDriver) run(until sim.Time) {
	for {
		var next *Pacer
		at := until
		for p, w := range d.wake {
			if w < at || (w == at && next == nil) {
				next, at = p, w
			}
		}
		if next == nil || at > until {
			return
		}
		to, w := next.Expire(at)
		d.wake[next] = w
		if to != nil {
			d.cnps = append(d.cnps, fmt.Sprintf("%d@%d", to.Flow, at/sim.Microsecond))
		}
	}
}

func (d *npDriver) mark(np *NotificationPoint, now sim.Time) {
	d.run(now - 1) // window ends due before now come first
	cnp, w := np.Marked(now)
	if cnp {
		d.cnps = append(d.cnps, fmt.Sprintf("%d@%d", np.Flow, now/sim.Microsecond))
	}
	if w != sim.Never {
		if d.wake == nil {
			d.wake = map[*Pacer]sim.Time{}
		}
		d.wake[np.Pacer] = w
	}
}

func TestNotificationPointPaperAnswersMarksInsideTheWindowAtItsEnd(t *testing.T) {
	us := sim.Microsecond
	np := NewNotificationPoint(1, 50*us, NPPaper)
	// A first mark, no CNP in the last N: a CNP at once.
	cnp, wake := np.Marked(0)
	require.True(t, cnp)
	require.Equal(t, sim.Never, wake)
	// Marks inside [0, 50us): remembered, one CNP at the window's end; the same wake each time.
	for _, at := range []sim.Time{10 * us, 20 * us, 49 * us} {
		cnp, wake = np.Marked(at)
		require.False(t, cnp)
		require.Equal(t, 50*us, wake, "mark at %v waits for the window's end", at)
		require.True(t, np.Pending())
	}
	to, wake := np.Pacer.Expire(40 * us) // early: nothing yet
	require.Nil(t, to)
	require.Equal(t, 50*us, wake)
	to, wake = np.Pacer.Expire(50 * us)
	require.Same(t, np, to, "the window's end answers the marks inside it")
	require.Equal(t, sim.Never, wake, "no mark yet in the new window: no timer")
	require.False(t, np.Pending())
	// A mark in [50, 100us): answered at 100us.
	cnp, wake = np.Marked(60 * us)
	require.False(t, cnp)
	require.Equal(t, 100*us, wake)
	to, wake = np.Pacer.Expire(100 * us)
	require.Same(t, np, to)
	require.Equal(t, sim.Never, wake)
	// No mark in [100, 150us): the window ends quietly, and the next mark (no CNP in the last
	// N) is answered at once.
	cnp, _ = np.Marked(170 * us)
	require.True(t, cnp, "after a window without marks the next mark is answered at once")
	cnp, wake = np.Marked(171 * us)
	require.False(t, cnp)
	require.Equal(t, 220*us, wake)
	require.EqualValues(t, 4, np.CNPs)
	require.EqualValues(t, 4, np.Pacer.CNPs)
}

func TestNotificationPointImmediateOnlyForgetsMarksInsideTheInterval(t *testing.T) {
	us := sim.Microsecond
	np := NewNotificationPoint(1, 50*us, NPImmediateOnly)
	cnp, _ := np.Marked(0)
	require.True(t, cnp)
	for _, at := range []sim.Time{10 * us, 20 * us, 49 * us} {
		cnp, wake := np.Marked(at)
		require.False(t, cnp)
		require.Equal(t, sim.Never, wake, "forgotten: no timer")
		require.False(t, np.Pending())
	}
	to, wake := np.Pacer.Expire(50 * us)
	require.Nil(t, to, "nothing was remembered")
	require.Equal(t, sim.Never, wake)
	cnp, _ = np.Marked(50 * us)
	require.True(t, cnp, "N after the last CNP a mark is answered at once")
	require.EqualValues(t, 2, np.CNPs)
}

func TestNotificationPointRulesOnPeriodicMarks(t *testing.T) {
	// Marks every m = 30 us for 1 ms with N = 50 us. The paper's rule: a CNP at once at 0,
	// then one at the end of every 50-us window, each of which holds a mark (m < N), up to
	// the window holding the last mark: 1 + ceil(last/N) CNPs. Immediate-only: a CNP at the
	// first mark at least N after the previous one, every ceil(N/m) marks: floor(last /
	// (m ceil(N/m))) + 1 CNPs.
	us := sim.Microsecond
	n, m, span := 50*us, 30*us, sim.Millisecond
	last := (span - 1) / m * m
	wantPaper := 1 + int((last+n-1)/n)
	if last%n == 0 {
		wantPaper++ // a mark on a window's boundary opens the next window
	}
	step := m * ((n + m - 1) / m)
	wantImmediate := int(last/step) + 1
	for _, tc := range []struct {
		rule NPRule
		want int
	}{{NPPaper, wantPaper}, {NPImmediateOnly, wantImmediate}} {
		np := NewNotificationPoint(7, n, tc.rule)
		var d npDriver
		for at := sim.Time(0); at < span; at += m {
			d.mark(np, at)
		}
		d.run(span + n)
		require.Len(t, d.cnps, tc.want, "%v: %v", tc.rule, d.cnps)
		require.EqualValues(t, tc.want, np.CNPs)
	}
	// Every packet marked (one every 88.48 ns): both rules give one CNP per N, the first at
	// once: span/N (+1 for the window holding the last marks, under the paper's rule).
	for _, tc := range []struct {
		rule NPRule
		want int
	}{{NPPaper, int(span/n) + 1}, {NPImmediateOnly, int(span / n)}} {
		np := NewNotificationPoint(7, n, tc.rule)
		var d npDriver
		for at := sim.Time(0); at < span; at += 88480 {
			d.mark(np, at)
		}
		d.run(span + n)
		require.Len(t, d.cnps, tc.want, "%v", tc.rule)
	}
}

func TestPortPacerServesTheOldestPendingFlow(t *testing.T) {
	us := sim.Microsecond
	for _, rule := range []NPRule{NPPaper, NPImmediateOnly} {
		port := &Pacer{Interval: 4 * us, Rule: rule}
		a := &NotificationPoint{Pacer: port, Flow: 1}
		b := &NotificationPoint{Pacer: port, Flow: 2}
		c := &NotificationPoint{Pacer: port, Flow: 3}
		var d npDriver
		d.mark(a, 0)    // the port is free: A at once
		d.mark(b, 1*us) // blocked: B waits (paper) or is forgotten
		d.mark(c, 2*us) // C behind B
		d.mark(a, 3*us) // A behind C
		d.mark(b, 3500) // B already waits: no second place
		d.run(20 * us)
		if rule == NPPaper {
			require.Equal(t, []string{"1@0", "2@4", "3@8", "1@12"}, d.cnps, "one CNP per interval from the port, oldest pending first")
		} else {
			require.Equal(t, []string{"1@0"}, d.cnps, "the flows that lost the race get nothing")
		}
		// At most one CNP per interval from the port.
		require.LessOrEqual(t, port.CNPs, int64(20*us/port.Interval)+1)
	}
}

func TestNotificationPointZeroIntervalAnswersEveryMark(t *testing.T) {
	np := NewNotificationPoint(1, 0, NPPaper)
	for at := sim.Time(0); at < 10; at++ {
		cnp, wake := np.Marked(at / 2) // two marks at the same time too
		require.True(t, cnp)
		require.Equal(t, sim.Never, wake)
	}
}

func TestNotificationPointAllocatesNothing(t *testing.T) {
	port := &Pacer{Interval: 50 * sim.Microsecond}
	a := &NotificationPoint{Pacer: port, Flow: 1}
	b := &NotificationPoint{Pacer: port, Flow: 2}
	now := sim.Time(0)
	allocs := testing.AllocsPerRun(1000, func() {
		now += 10 * sim.Microsecond
		a.Marked(now)
		b.Marked(now + 1)
		port.Expire(now + 2)
	})
	require.Zero(t, allocs)
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

func TestNotificationPointWindowAnswersOneBurstOnce(t *testing.T) {
	// The authors' code (NPWindow): the flow's timer starts at its first packet, t0; one
	// marked burst of 0.2 us at 3.914 us is answered once, at the end of the window that
	// holds it, t0 + N. The paper's rule answers the same burst twice: at once, and again
	// at the end of the window the first CNP opened (a 50 us old mark).
	us := sim.Microsecond
	n, t0, burst := 50*us, 1*us, 3914*sim.Nanosecond
	for _, tc := range []struct {
		rule NPRule
		want []string
	}{
		{NPWindow, []string{fmt.Sprintf("1@%d", (t0+n)/us)}},
		{NPPaper, []string{"1@3", fmt.Sprintf("1@%d", (burst+n)/us)}},
		{NPImmediateOnly, []string{"1@3"}},
	} {
		np := NewNotificationPoint(1, n, tc.rule)
		np.Pacer.Arrived(t0)
		var d npDriver
		for at := burst; at < burst+200*sim.Nanosecond; at += 88480 {
			np.Pacer.Arrived(at)
			d.mark(np, at)
		}
		d.run(10 * n)
		require.Equal(t, tc.want, d.cnps, "%v", tc.rule)
	}
}

func TestNotificationPointWindowTicksFromTheFirstPacket(t *testing.T) {
	us := sim.Microsecond
	n := 50 * us
	// A marked first packet is answered at once (the authors' code checks at the new
	// flow's first packet); the timer's ticks then fall at t0 + k N.
	np := NewNotificationPoint(1, n, NPWindow)
	var d npDriver
	t0 := 7 * us
	d.mark(np, t0)
	require.Equal(t, []string{"1@7"}, d.cnps)
	// A mark exactly on a tick waits for the next one (the tick runs first); a mark just
	// before it is answered by it.
	d.mark(np, t0+n)
	d.run(t0 + n)
	require.Equal(t, []string{"1@7"}, d.cnps, "a mark on the tick is not answered by that tick")
	d.run(t0 + 2*n)
	require.Equal(t, []string{"1@7", fmt.Sprintf("1@%d", (t0+2*n)/us)}, d.cnps)
	d.mark(np, t0+3*n-1)
	d.run(t0 + 3*n)
	require.Len(t, d.cnps, 3)
	require.EqualValues(t, 3, np.CNPs)
	// Marks every m = 30 us for 1 ms: one CNP per window [t0 + kN, t0 + (k+1)N) that holds
	// a mark, at the window's end, counted here window by window.
	np = NewNotificationPoint(2, n, NPWindow)
	np.Pacer.Arrived(t0)
	d = npDriver{}
	m, span := 30*us, sim.Millisecond
	windows := map[sim.Time]bool{}
	for at := t0 + 1; at < span; at += m {
		d.mark(np, at)
		windows[(at-t0)/n] = true
	}
	d.run(span + n)
	require.Len(t, d.cnps, len(windows))
	for i, c := range d.cnps {
		var flow, at int64
		_, err := fmt.Sscanf(c, "%d@%d", &flow, &at)
		require.NoError(t, err)
		require.Zero(t, (sim.Time(at)*us-t0)%n, "CNP %d at %d us is on a tick of the flow's timer", i, at)
	}
}

func TestPortPacerWindowServesOneFlowPerTick(t *testing.T) {
	us := sim.Microsecond
	port := &Pacer{Interval: 4 * us, Rule: NPWindow}
	a := &NotificationPoint{Pacer: port, Flow: 1}
	b := &NotificationPoint{Pacer: port, Flow: 2}
	port.Arrived(0)
	var d npDriver
	d.mark(a, 1*us)
	d.mark(b, 2*us)
	d.mark(a, 3*us) // A already waits
	d.run(20 * us)
	require.Equal(t, []string{"1@4", "2@8"}, d.cnps, "one CNP per tick of the port's timer, oldest mark first")
}
