package transports

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// Reference: Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019, Algorithm 1.

func hop(at sim.Time, tx, q int64) topology.INTHop {
	return topology.INTHop{At: at, TxBytes: tx, QLen: q, Rate: 100 * sim.Gbps}
}

func intOf(hops ...topology.INTHop) *topology.INT {
	var t topology.INT
	for _, h := range hops {
		t.Push(h)
	}
	return &t
}

func newTestHPCC() *HPCC {
	return NewHPCC(HPCCParams{Eta: 0.95, MaxStage: 5}, 100*sim.Gbps, 4*sim.Microsecond)
}

func TestHPCCDefaultsScaleWithLineRate(t *testing.T) {
	h := newTestHPCC()
	require.Equal(t, 40*sim.Mbps, h.P.AI, "10 Mb/s per 25 Gb/s (the authors' run.py)")
	require.InDelta(t, 100e9/8*4e-6, h.Window(), 1e-9, "W_init = line x T")
	require.InDelta(t, 40e6/8*4e-6, h.wAI, 1e-12, "W_AI = ai x T")
	require.Equal(t, 100*sim.Gbps, h.Rate(), "R = W/T = line rate at the start")
}

func TestHPCCMeasureInflightFromAnINTPair(t *testing.T) {
	h := newTestHPCC()
	// Hop 1 is the bottleneck: over 1 us it sent 11,875 bytes (95% of 12.5 GB/s) and its
	// queue went from 10 KB to 20 KB; hop 2 sent 50% and has no queue.
	h.OnAck(1, 10, intOf(hop(0, 0, 10_000), hop(0, 0, 0)))
	require.Equal(t, 1.0, h.U(), "the first ACK only stores its INT")
	u, ok := h.measureInflight(intOf(hop(sim.Microsecond, 11_875, 20_000), hop(2*sim.Microsecond, 12_500, 0)))
	require.True(t, ok)
	// u_1 = min(20 KB, 10 KB)/(B T) + txRate/B = 10,000/50,000 + 0.95 = 1.15; u_2 = 0.5.
	// U = (1 - tau/T) U + (tau/T) u_1 with tau = 1 us (hop 1's), U = 1 before.
	want := (1-0.25)*1 + 0.25*1.15
	require.InDelta(t, want, u, 1e-12)
	require.InDelta(t, want, h.U(), 1e-12)

	// tau is capped at T: a sample 8 us after the last replaces U.
	h.store(intOf(hop(sim.Microsecond, 11_875, 20_000), hop(2*sim.Microsecond, 12_500, 0)))
	u, _ = h.measureInflight(intOf(hop(9*sim.Microsecond, 11_875+50_000, 0), hop(10*sim.Microsecond, 12_500, 0)))
	require.InDelta(t, 0.5, u, 1e-12, "txRate/B = 50,000 B / 8 us / 12.5 GB/s, no queue, weight 1")
}

func TestHPCCComputeWindBranches(t *testing.T) {
	h := newTestHPCC()
	wc, wai := h.wc, h.wAI
	// U at or above eta: multiplicative, W = Wc/(U/eta) + W_AI, stage back to 0.
	h.incStage = 3
	w := h.computeWind(1.9, true)
	require.InDelta(t, wc/(1.9/0.95)+wai, w, 1e-9)
	require.Equal(t, 0, h.incStage)
	require.InDelta(t, w, h.wc, 1e-9, "Wc follows when updating")
	// Below eta: additive, W = Wc + W_AI, one stage up, for MaxStage updates...
	for s := 1; s <= 5; s++ {
		prev := h.wc
		w = h.computeWind(0.5, true)
		require.InDelta(t, prev+wai, w, 1e-9)
		require.Equal(t, s, h.incStage)
	}
	// ...then multiplicative even below eta (toward eta: the window grows).
	prev := h.wc
	w = h.computeWind(0.5, true)
	require.InDelta(t, min(prev/(0.5/0.95)+wai, h.wInit), w, 1e-9)
	require.Equal(t, 0, h.incStage)
	// Never above W_init.
	h.incStage = h.P.MaxStage
	require.InDelta(t, h.wInit, h.computeWind(0.01, true), 1e-9)
}

func TestHPCCUpdatesWcOncePerRTTAndReactsFastOtherwise(t *testing.T) {
	h := newTestHPCC()
	wc0 := h.wc
	h.OnAck(1, 40, intOf(hop(0, 0, 0)))
	require.Equal(t, uint32(40), h.lastUpdate, "lastUpdateSeq = snd_nxt at the first ACK")
	// An ACK for PSN 20 (ack.seq 21 <= 40): fast reaction: W moves, Wc and the stage do not.
	busy := intOf(hop(sim.Microsecond, 12_500, 25_000)) // 100% busy; the queue term takes min(25 KB, 0)
	h.OnAck(21, 45, busy)
	require.Equal(t, int64(1), h.FastReacts)
	require.Zero(t, h.Updates)
	require.Equal(t, wc0, h.wc)
	uAfter := h.U()
	require.InDelta(t, wc0/(uAfter/0.95)+h.wAI, h.Window(), 1e-9)
	require.Equal(t, uint32(40), h.lastUpdate)
	// ack.seq 41 > 40: a new RTT: Wc takes W and lastUpdateSeq takes snd_nxt.
	h.OnAck(41, 80, intOf(hop(2*sim.Microsecond, 25_000, 25_000)))
	require.Equal(t, int64(1), h.Updates)
	require.InDelta(t, h.Window(), h.wc, 1e-9)
	require.Less(t, h.wc, wc0)
	require.Equal(t, uint32(80), h.lastUpdate)
	require.Equal(t, 0, h.incStage)
}

func TestHPCCPathChangeRestartsTheComparison(t *testing.T) {
	h := newTestHPCC()
	h.OnAck(1, 10, intOf(hop(0, 0, 0)))
	h.OnAck(2, 10, intOf(hop(sim.Microsecond, 12_500, 0), hop(sim.Microsecond, 0, 0)))
	require.Zero(t, h.Updates+h.FastReacts, "a different hop count is stored, not compared")
	require.Equal(t, uint8(2), h.prev.N)
}
