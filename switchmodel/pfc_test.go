package switchmodel

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/pfc"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// pauseFrame is a PFC frame from the host behind port `from` of sw, for class c.
func (f *fabric) pauseFrame(sw *Switch, from int, c int, quanta uint16) *topology.Packet {
	p := f.pool.Get(topology.KindPause)
	pfc.FillFrame(p, c, quanta)
	p.Src, p.Dst = sw.Ports[from].Wire.To, sw.ID
	return p
}

// portTo is the index of sw's port that faces node peer.
func portTo(t *testing.T, f *fabric, sw *Switch, peer topology.NodeID) int {
	t.Helper()
	for i, pt := range sw.Ports {
		if pt.Wire.To == peer {
			return i
		}
	}
	require.FailNow(t, "no port to the peer")
	return -1
}

func TestSinglePauseFrameStopsOnlyItsClassForQuantaTimes512BitTimes(t *testing.T) {
	// IEEE 802.1Qbb (docs/model.md section 3): a PFC frame with quanta Q for class c stops
	// class c on the port that receives it for Q x 512 bit times at that link's rate, after
	// the frame in progress (a started frame is never aborted); the other classes keep
	// sending; a frame with zero quanta ends the pause at once.
	const paused, other = 3, 1
	const nPaused, nOther = 20, 10
	const payload = 1024
	tests := []struct {
		rate     sim.Rate
		quanta   uint16
		resumeAt sim.Time // > 0: a zero-quanta frame arrives this long after the pause
		response sim.Time
	}{
		{100 * sim.Gbps, 1000, 0, 0},
		{40 * sim.Gbps, 1000, 0, 0},
		{100 * sim.Gbps, 3000, 0, 0},
		{100 * sim.Gbps, pfc.MaxQuanta, 4 * sim.Microsecond, 0},
		{40 * sim.Gbps, pfc.MaxQuanta, 5 * sim.Microsecond, 0},
		{100 * sim.Gbps, 1000, 0, 700 * sim.Nanosecond}, // the pause starts a response time later
	}
	for _, tc := range tests {
		name := fmt.Sprintf("%v Q=%d resume=%v response=%v", tc.rate, tc.quanta, tc.resumeAt, tc.response)
		t.Run(name, func(t *testing.T) {
			link := topology.LinkParams{Rate: tc.rate, Delay: sim.Microsecond}
			cfg := bigBuffer
			cfg.PFC.Lossless[paused] = true
			// Thresholds that never pause upstream: only the frame the test sends acts.
			cfg.PFC.Ports = []pfc.Thresholds{{Xoff: 1 << 30, Xon: 1 << 29, Headroom: 1 << 20}, {Xoff: 1 << 30, Xon: 1 << 29, Headroom: 1 << 20}}
			cfg.PFC.Response = []sim.Time{tc.response, tc.response}
			f := build(t, star(t, 2, link), cfg)
			h1, h2 := f.id(t, "h1"), f.id(t, "h2")
			sw := f.sw[f.id(t, "sw")]
			out := portTo(t, f, sw, h2)
			var prios []uint8
			for i := 0; i < nPaused; i++ {
				prios = append(prios, paused)
			}
			for i := 0; i < nOther; i++ {
				prios = append(prios, other)
			}
			burst(f, sw, h1, h2, prios, func(int) int32 { return payload })

			T := tx(t, rocev2Frame(payload), tc.rate)
			pauseAt := T + T/2 // in the middle of the second frame of the paused class
			d := pfc.PauseDuration(tc.quanta, tc.rate)
			require.Zero(t, sim.Second%sim.Time(tc.rate), "a bit time in whole picoseconds")
			bitTime := sim.Second / sim.Time(tc.rate)
			require.Equal(t, sim.Time(int64(tc.quanta)*512)*bitTime, d, "Q x 512 bit times")
			f.eng.At(pauseAt, at(func(now sim.Time) {
				sw.Receive(now, f.pauseFrame(sw, out, paused, tc.quanta), out)
			}), 0, nil)
			start := pauseAt + tc.response // the pause is in force from here ...
			end := start + d               // ... to here
			if tc.resumeAt > 0 {
				end = pauseAt + tc.resumeAt
				f.eng.At(end, at(func(now sim.Time) {
					sw.Receive(now, f.pauseFrame(sw, out, paused, 0), out)
				}), 0, nil)
			}
			f.eng.Run(sim.Never)

			// Strict priority sends class 3 back to back until the pause is in force; the
			// frame that started before then finishes. The other class fills the gap, and
			// class 3 goes on at the very end of the pause (the line is idle by then).
			before := int((start + T - 1) / T) // frames of class 3 started before `start`
			require.Less(t, sim.Time(before+nOther)*T, end, "the other class is done before the pause ends")
			var want []sim.Time
			var wantPrio []uint8
			for i := 0; i < before; i++ {
				want, wantPrio = append(want, sim.Time(i+1)*T+link.Delay), append(wantPrio, paused)
			}
			for i := 0; i < nOther; i++ {
				want, wantPrio = append(want, sim.Time(before+i+1)*T+link.Delay), append(wantPrio, other)
			}
			for i := 0; i < nPaused-before; i++ {
				want, wantPrio = append(want, end+sim.Time(i+1)*T+link.Delay), append(wantPrio, paused)
			}
			var gotAt []sim.Time
			var gotPrio []uint8
			for _, g := range f.hosts[h2].got {
				gotAt, gotPrio = append(gotAt, g.at), append(gotPrio, g.priority)
			}
			require.Equal(t, wantPrio, gotPrio)
			require.Equal(t, want, gotAt)
			require.Equal(t, end-start, sw.Ports[out].Pause.PausedTime(paused, sim.Never), "paused time")
			require.Zero(t, sw.Ports[out].Pause.PausedTime(other, sim.Never), "only its class")
			require.Zero(t, sw.Ports[0].Pause.PausedTime(paused, sim.Never), "only its port")
			f.checkBooks(t)
		})
	}
}
