package switchmodel

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/pfc"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// losslessStar is h1 - sw - h2 at 100 Gb/s with class 3 lossless, XOFF 4000 bytes, XON 1000.
func losslessStar(t *testing.T, watchdog sim.Time, quanta uint16) (*fabric, *Switch, topology.NodeID, topology.NodeID) {
	cfg := bigBuffer
	cfg.PFC.Lossless[3] = true
	th := pfc.Thresholds{Xoff: 4000, Xon: 1000, Headroom: 1 << 20}
	cfg.PFC.Ports = []pfc.Thresholds{th, th}
	cfg.PFC.Watchdog, cfg.PFC.Quanta = watchdog, quanta
	f := build(t, star(t, 2, topology.LinkParams{Rate: 100 * sim.Gbps, Delay: sim.Microsecond}), cfg)
	return f, f.sw[f.id(t, "sw")], f.id(t, "h1"), f.id(t, "h2")
}

func TestWatchdogFlushesAQueuePausedTooLongAndRestoresItWhenThePauseEnds(t *testing.T) {
	// h2 pauses class 3 for the longest pause (335.5 us at 100 Gb/s) and never resumes: a
	// pause storm. The watchdog, at 20 us, drops what the queue holds (which resumes h1,
	// paused by the frames held) and what arrives for the class while the pause lasts, then
	// restores the class: a frame after the pause goes through.
	f, sw, h1, h2 := losslessStar(t, 20*sim.Microsecond, 0)
	in, out := portTo(t, f, sw, h1), portTo(t, f, sw, h2)
	sw.Receive(0, f.pauseFrame(sw, out, 3, pfc.MaxQuanta), out)
	for i := range 10 {
		sw.Receive(0, f.data(h1, h2, 3, uint32(i), 1024), in)
	}
	require.EqualValues(t, 1, sw.Ports[in].PausesSent[3], "h1 is paused above XOFF")
	f.eng.At(100*sim.Microsecond, at(func(now sim.Time) {
		require.Zero(t, sw.Ports[out].Queued(), "flushed")
		require.EqualValues(t, 10, sw.Drops[DropWatchdog])
		require.EqualValues(t, 1, sw.Ports[in].ResumesSent[3], "the flush resumed h1")
		sw.Receive(now, f.data(h1, h2, 3, 10, 1024), in)
		require.EqualValues(t, 11, sw.Drops[DropWatchdog], "what arrives during the storm is dropped")
		sw.Receive(now, f.data(h1, h2, 1, 11, 1024), in)
	}), 0, nil)
	end := pfc.PauseDuration(pfc.MaxQuanta, 100*sim.Gbps)
	f.eng.At(end+sim.Microsecond, at(func(now sim.Time) {
		sw.Receive(now, f.data(h1, h2, 3, 12, 1024), in)
	}), 0, nil)
	f.eng.Run(sim.Never)
	var psn []uint32
	for _, g := range f.hosts[h2].got {
		psn = append(psn, g.psn)
	}
	require.Equal(t, []uint32{11, 12}, psn, "only the lossy frame during the storm, and the frame after it")
	require.EqualValues(t, 11, sw.Drops[DropWatchdog])
	require.EqualValues(t, 11, sw.Ports[out].Drops[DropWatchdog], "counted at the paused egress port")
	require.Zero(t, sw.Ports[in].Drops[DropWatchdog])
	require.Equal(t, end, sw.Ports[out].Pause.PausedTime(3, sim.Never))
	f.checkBooks(t)
}

func TestWatchdogSparesAQueueWhosePausesHaveBreaks(t *testing.T) {
	// Two pauses, 5.12 us and then 15 us, with a break between them: at the watchdog's first
	// check (20 us after the first) the class has been paused for only 5 us without a break,
	// so the check comes back when the second pause would be due, and by then it is over.
	f, sw, h1, h2 := losslessStar(t, 20*sim.Microsecond, 0)
	in, out := portTo(t, f, sw, h1), portTo(t, f, sw, h2)
	sw.Receive(0, f.pauseFrame(sw, out, 3, 1000), out)
	f.eng.At(15*sim.Microsecond, at(func(now sim.Time) {
		sw.Receive(now, f.pauseFrame(sw, out, 3, pfc.MaxQuanta), out)
		for i := range 5 {
			sw.Receive(now, f.data(h1, h2, 3, uint32(i), 1024), in)
		}
	}), 0, nil)
	f.eng.At(30*sim.Microsecond, at(func(now sim.Time) {
		sw.Receive(now, f.pauseFrame(sw, out, 3, 0), out)
	}), 0, nil)
	f.eng.Run(sim.Never)
	require.Zero(t, sw.Drops[DropWatchdog])
	require.Len(t, f.hosts[h2].got, 5)
	require.EqualValues(t, 1, sw.Ports[in].PausesSent[3])
	require.EqualValues(t, 1, sw.Ports[in].ResumesSent[3])
	f.checkBooks(t)
}

func TestPauseRefreshedAtHalfItsTimeWhileAboveXon(t *testing.T) {
	// With 1000-quanta PAUSEs (5.12 us at 100 Gb/s), the switch refreshes the PAUSE to h1
	// every 2.56 us while the frames from h1 stay above XON (h2 pauses the switch for 50 us
	// and then resumes it), and resumes h1 once they drain to XON.
	f, sw, h1, h2 := losslessStar(t, 0, 1000)
	in, out := portTo(t, f, sw, h1), portTo(t, f, sw, h2)
	sw.Receive(0, f.pauseFrame(sw, out, 3, pfc.MaxQuanta), out)
	for i := range 10 {
		sw.Receive(0, f.data(h1, h2, 3, uint32(i), 1024), in)
	}
	f.eng.At(50*sim.Microsecond, at(func(now sim.Time) {
		sw.Receive(now, f.pauseFrame(sw, out, 3, 0), out)
	}), 0, nil)
	f.eng.Run(sim.Never)
	var pauses []sim.Time
	for _, g := range f.hosts[h1].got {
		pauses = append(pauses, g.at)
	}
	refresh := pfc.PauseDuration(1000, 100*sim.Gbps) / 2
	require.Len(t, pauses, int(50*sim.Microsecond/refresh)+1+1, "the PAUSE, a refresh every 2.56 us until 50 us, and the resume")
	for i := 1; i < len(pauses)-1; i++ {
		require.Equal(t, refresh, pauses[i]-pauses[i-1])
	}
	require.EqualValues(t, len(pauses)-1, sw.Ports[in].PausesSent[3])
	require.EqualValues(t, 1, sw.Ports[in].ResumesSent[3])
	require.Len(t, f.hosts[h2].got, 10)
	f.checkBooks(t)
}
