package switchmodel

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/pfc"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// pfcArrivals is when each PFC frame reached host h.
func pfcArrivals(f *fabric, h topology.NodeID) []sim.Time {
	var at []sim.Time
	for _, g := range f.hosts[h].got {
		at = append(at, g.at)
	}
	return at
}

func TestRefreshTimerRestartsWithEachPause(t *testing.T) {
	// A switch restarts a class's refresh timer with each PAUSE it sends and stops it when
	// it resumes the class: a PAUSE sent after a resume is refreshed a whole refresh interval
	// after itself, not when the timer of the earlier pause would have run out.
	//
	// h2 holds sw's port to it paused; ten frames from h1 (10 x 1086 B above XOFF 4000 B)
	// pause h1 at 0. At 1 us h2 lets the port go: the ten frames leave back to back, and the
	// tenth one's start takes the count to 0 <= XON 1000 B (the ninth leaves 1086 B): h1 is
	// resumed at 1 us + 9 frame times. At 2 us h2 pauses the port again and ten more frames
	// pause h1 again, at 2 us; they stay above XON until h2 resumes the port at 20 us.
	const quanta = 1000
	f, sw, h1, h2 := losslessStar(t, 0, quanta)
	in, out := portTo(t, f, sw, h1), portTo(t, f, sw, h2)
	rate := 100 * sim.Gbps
	T := tx(t, rocev2Frame(1024), rate)
	pfcT := rate.TxTime(pfc.FrameWireBytes)
	delay := sim.Microsecond
	R := pfc.RefreshInterval(quanta, rate, 0)
	arrive := func(sent sim.Time) sim.Time { return sent + pfcT + delay }

	sw.Receive(0, f.pauseFrame(sw, out, 3, pfc.MaxQuanta), out)
	for i := range 10 {
		sw.Receive(0, f.data(h1, h2, 3, uint32(i), 1024), in)
	}
	f.eng.At(sim.Microsecond, at(func(now sim.Time) {
		sw.Receive(now, f.pauseFrame(sw, out, 3, 0), out)
	}), 0, nil)
	second := 2 * sim.Microsecond
	f.eng.At(second, at(func(now sim.Time) {
		sw.Receive(now, f.pauseFrame(sw, out, 3, pfc.MaxQuanta), out)
		for i := range 10 {
			sw.Receive(now, f.data(h1, h2, 3, uint32(10+i), 1024), in)
		}
	}), 0, nil)
	end := 20 * sim.Microsecond
	f.eng.At(end, at(func(now sim.Time) {
		sw.Receive(now, f.pauseFrame(sw, out, 3, 0), out)
	}), 0, nil)
	f.eng.Run(sim.Never)

	require.Less(t, sim.Microsecond+9*T, R, "the first pause's refresh would have been due after the resume")
	want := []sim.Time{arrive(0), arrive(sim.Microsecond + 9*T), arrive(second)}
	for at := second + R; at < end+9*T; at += R {
		want = append(want, arrive(at))
	}
	want = append(want, arrive(end+9*T))
	require.Equal(t, want, pfcArrivals(f, h1), "PAUSE, resume, PAUSE, its refreshes every %v, resume", R)
	require.EqualValues(t, len(want)-2, sw.Ports[in].PausesSent[3])
	require.EqualValues(t, 2, sw.Ports[in].ResumesSent[3])
	f.checkBooks(t)
}

func TestRefreshReachesTheSenderBeforeThePauseRunsOut(t *testing.T) {
	// The worst case for a refresh: the PAUSE before it went at once, on an idle line, and a
	// largest frame started just before the refresh was due, so the refresh waits that
	// frame's whole time. The largest frames h3 sends h1 here arrive at the switch at a
	// little over half the line rate, so over the run they start at every phase of the
	// refresh period. At the shortest quanta a switch accepts (pfc.MinQuanta) and above,
	// h1's pause, rebuilt from the PFC frames it received (the last one the resume), is
	// unbroken from the first PAUSE to the resume: every refresh arrived within the pause
	// time of the one before. (Refreshed at half the pause time, a refresh behind a frame
	// arrives late whenever the pause is shorter than two frames: below 35 quanta here.)
	rate := 100 * sim.Gbps
	const payload = 1024
	frameWire := int64(rocev2Frame(payload)) + topology.PreambleSFD + topology.InterFrameGap
	least := pfc.MinQuanta(frameWire, 1)
	// 8 x (frame + 4 PFC frames) bit times, rounded up to whole 512-bit quanta.
	require.Equal(t, int((8*(frameWire+4*pfc.FrameWireBytes)+511)/512), least)
	for _, quanta := range []int{least, least + 1, least + 7, 34, 2 * least} {
		t.Run(fmt.Sprint(quanta), func(t *testing.T) {
			cfg := bigBuffer
			cfg.PFC.Lossless[3] = true
			th := pfc.Thresholds{Xoff: 4000, Xon: 1000, Headroom: 1 << 20}
			cfg.PFC.Ports = []pfc.Thresholds{th, th, th}
			cfg.PFC.Quanta, cfg.PFC.MaxFrameWire = uint16(quanta), frameWire
			f := build(t, star(t, 3, topology.LinkParams{Rate: rate, Delay: sim.Microsecond}), cfg)
			sw, h1, h2, h3 := f.sw[f.id(t, "sw")], f.id(t, "h1"), f.id(t, "h2"), f.id(t, "h3")
			in, out, rev := portTo(t, f, sw, h1), portTo(t, f, sw, h2), portTo(t, f, sw, h3)
			sw.Receive(0, f.pauseFrame(sw, out, 3, pfc.MaxQuanta), out)
			T := tx(t, rocev2Frame(payload), rate)
			every := 2*T - 7*sim.Nanosecond
			for i := range int(30 * sim.Microsecond / every) { // the largest frames to h1, lossy class 1
				f.eng.At(sim.Time(i)*every, at(func(now sim.Time) {
					sw.Receive(now, f.data(h3, h1, 1, uint32(i), payload), rev)
				}), 0, nil)
			}
			for i := range 10 {
				sw.Receive(0, f.data(h1, h2, 3, uint32(i), payload), in)
			}
			resume := 30 * sim.Microsecond
			f.eng.At(resume, at(func(now sim.Time) {
				sw.Receive(now, f.pauseFrame(sw, out, 3, 0), out)
			}), 0, nil)
			f.eng.Run(sim.Never)

			var e pfc.Egress
			var first, last sim.Time = -1, 0
			for _, g := range f.hosts[h1].got {
				if g.frame != topology.MinFrame {
					continue
				}
				if first < 0 {
					first = g.at
				}
				last = g.at
				e.Receive(g.at, 3, uint16(quanta), rate, 0)
			}
			require.EqualValues(t, 1, sw.Ports[in].ResumesSent[3])
			require.Greater(t, sw.Ports[in].PausesSent[3], int64(resume/pfc.PauseDuration(uint16(quanta), rate)), "refreshed all along")
			require.Equal(t, last-first, e.PausedTime(3, last), "h1 paused without a break until the resume")
			f.checkBooks(t)
		})
	}
}

// setLink sets both directions of the link between a and b up or down at at.
func (f *fabric) setLink(t *testing.T, at0 sim.Time, a, b string, up bool) {
	ab, ba := f.wire(t, a, b), f.wire(t, b, a)
	f.eng.At(at0, at(func(sim.Time) {
		ab.SetUp(up)
		ba.SetUp(up)
	}), 0, nil)
}

func TestLinkDownResetsPFCStateBothWays(t *testing.T) {
	// IEEE 802.3 annex 31B: on loss of link the pause timers are reset. h2 holds sw's port
	// to it paused, so h1's ten frames stay above XOFF and sw pauses h1 at 0, refreshing
	// every half pause (2.56 us). The h1 link goes down at 10 us and comes back at 20 us:
	// sw sends nothing into the dead link (no refresh, no resume), and when the link is
	// back, still above XOFF, it pauses h1 again at once and refreshes from there; h2's
	// resume at 30 us drains the frames and resumes h1 once.
	const quanta = 1000
	f, sw, h1, h2 := losslessStar(t, 0, quanta)
	in, out := portTo(t, f, sw, h1), portTo(t, f, sw, h2)
	rate := 100 * sim.Gbps
	T := tx(t, rocev2Frame(1024), rate)
	R := pfc.RefreshInterval(quanta, rate, 0)
	arrive := func(sent sim.Time) sim.Time { return sent + rate.TxTime(pfc.FrameWireBytes) + sim.Microsecond }
	sw.Receive(0, f.pauseFrame(sw, out, 3, pfc.MaxQuanta), out)
	for i := range 10 {
		sw.Receive(0, f.data(h1, h2, 3, uint32(i), 1024), in)
	}
	down, up, resume := 10*sim.Microsecond, 20*sim.Microsecond, 30*sim.Microsecond
	f.setLink(t, down, "sw", "h1", false)
	f.setLink(t, up, "sw", "h1", true)
	f.eng.At(resume, at(func(now sim.Time) {
		sw.Receive(now, f.pauseFrame(sw, out, 3, 0), out)
	}), 0, nil)
	f.eng.Run(sim.Never)

	var want []sim.Time
	for at := sim.Time(0); at < down; at += R {
		want = append(want, arrive(at))
	}
	for at := up; at < resume+9*T; at += R {
		want = append(want, arrive(at))
	}
	want = append(want, arrive(resume+9*T))
	require.Equal(t, want, pfcArrivals(f, h1))
	require.EqualValues(t, len(want)-1, sw.Ports[in].PausesSent[3], "nothing sent into the dead link")
	require.EqualValues(t, 1, sw.Ports[in].ResumesSent[3])
	require.Zero(t, f.wire(t, "sw", "h1").LostDown)
	f.checkBooks(t)
}

func TestLinkDownEndsThePausesAPortReceived(t *testing.T) {
	// h1 pauses class 3 of sw's port to it for the longest pause (335.5 us at 100 Gb/s). The
	// link goes down at 10 us and is back at 20 us: the pause ended at 10 us, so a frame for
	// h1 at 20 us goes out at once, not when the old pause would have run out.
	f, sw, h1, h2 := losslessStar(t, 0, 0)
	in, out := portTo(t, f, sw, h1), portTo(t, f, sw, h2)
	rate := 100 * sim.Gbps
	sw.Receive(0, f.pauseFrame(sw, in, 3, pfc.MaxQuanta), in)
	down, up := 10*sim.Microsecond, 20*sim.Microsecond
	f.setLink(t, down, "sw", "h1", false)
	f.setLink(t, up, "sw", "h1", true)
	f.eng.At(up, at(func(now sim.Time) {
		sw.Receive(now, f.data(h2, h1, 3, 1, 1024), out)
	}), 0, nil)
	f.eng.Run(sim.Never)
	require.Equal(t, down, sw.Ports[in].Pause.PausedTime(3, sim.Never), "paused until the link went down")
	require.Len(t, f.hosts[h1].got, 1)
	require.Equal(t, up+tx(t, rocev2Frame(1024), rate)+sim.Microsecond, f.hosts[h1].got[0].at)
	f.checkBooks(t)
}
