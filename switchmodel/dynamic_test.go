package switchmodel

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/pfc"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

func TestDynamicXoffFirstPausesAtTheFixedPoint(t *testing.T) {
	// A 16-to-1 incast into a held egress port, the senders' frames arriving in turn: each
	// ingress count is b after the same number of frames, the buffer holds 16 b, and a
	// port-class pauses when b > alpha x (S - 16 b) for the shared buffer S: at the fixed
	// point b* = alpha S / (1 + 16 alpha), within a frame. The threshold only falls as the
	// buffer fills, so every sender is paused at its next frame after the first pause: those
	// after it in that round, those before it in the next.
	const senders, payload = 16, 1024
	F := int64(rocev2Frame(payload))
	for _, alpha := range []float64{1.0 / 8, 1, 2} {
		t.Run(fmt.Sprint(alpha), func(t *testing.T) {
			cfg := Config{BufferBytes: 4_000_000, Alpha: 1}
			cfg.PFC.Lossless[3] = true
			th := pfc.Thresholds{Headroom: 50_000}
			for range senders + 1 {
				cfg.PFC.Ports = append(cfg.PFC.Ports, th)
			}
			S := cfg.BufferBytes - int64(senders+1)*th.Headroom
			cfg.PFC.Dynamic, cfg.PFC.Alpha, cfg.PFC.Shared, cfg.PFC.XonOffset = true, alpha, S, 2*F
			f := build(t, star(t, senders+1, topology.LinkParams{Rate: 100 * sim.Gbps, Delay: sim.Microsecond}), cfg)
			sw, dst := f.sw[f.id(t, "sw")], f.id(t, fmt.Sprintf("h%d", senders+1))
			out := portTo(t, f, sw, dst)
			sw.Receive(0, f.pauseFrame(sw, out, 3, pfc.MaxQuanta), out)

			// The round (frames per sender, from 1) and sender of the first pause, by the
			// inequality itself; the buffer then holds the frames before this one.
			wantRound, wantSender := 0, 0
			for k := 1; wantRound == 0; k++ {
				for i := 1; i <= senders; i++ {
					held := int64((k-1)*senders+i-1) * F
					if float64(int64(k)*F) > alpha*float64(S-held) {
						wantRound, wantSender = k, i
						break
					}
				}
			}
			fixed := alpha * float64(S) / (1 + senders*alpha)
			require.InDelta(t, fixed, float64(int64(wantRound)*F), float64(F), "the closed form, within a frame")

			round, sender := 0, 0
			pausedIn := make([]int, senders+1) // the round each sender was paused in
			for k := 1; k <= wantRound+1; k++ {
				for i := 1; i <= senders; i++ {
					src := f.id(t, fmt.Sprintf("h%d", i))
					in := portTo(t, f, sw, src)
					sw.Receive(0, f.data(src, dst, 3, uint32(k), payload), in)
					if pausedIn[i] == 0 && sw.Ports[in].PausesSent[3] > 0 {
						pausedIn[i] = k
					}
					if round == 0 && pausedIn[i] > 0 {
						round, sender = k, i
					}
				}
			}
			for i := 1; i <= senders; i++ {
				want := wantRound
				if i < wantSender {
					want++
				}
				require.Equal(t, want, pausedIn[i], "h%d", i)
			}
			require.Equal(t, [2]int{wantRound, wantSender}, [2]int{round, sender})
			require.Zero(t, sw.Drops[DropHeadroom])
		})
	}
}
