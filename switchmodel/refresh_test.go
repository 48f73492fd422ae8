package switchmodel

import (
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
	R := pfc.RefreshInterval(quanta, rate)
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
