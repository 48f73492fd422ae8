package experiment

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/pfc"
	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

func TestLargestFrameCountsEveryTrafficKind(t *testing.T) {
	// PFC sizing takes the largest frame of every traffic item's transport: a Poisson or
	// all-to-all item of iWARP (MTU 1500 here, a 1538-byte segment on the wire) sizes the
	// headroom for that segment, not for a RoCE v2 frame of the default MTU.
	const mtu = 1500
	iwarp := int64(mtu + topology.EthernetHeader + topology.FCS + wireExtra)
	for _, item := range []string{
		"- poisson: {hosts: all, load: 0.5, workload: websearch, count: 10, transport: iwarp}",
		"- all_to_all: {hosts: all, size: 10KB, transport: iwarp}",
		"- all_to_all: {hosts: all, size: 10KB}", // the variant's transport
	} {
		t.Run(item, func(t *testing.T) {
			f := build0(t, fmt.Sprintf(`
version: 1
name: frames
topology: {preset: star, params: {hosts: 3, link: {rate: 100Gbps, delay: 1us}}}
switch: {pfc: {enabled: true}}
transports: {iwarp: {mtu: %d}}
traffic:
  %s
variants: [{name: v, transport: iwarp}]
`, mtu, item))
			require.Equal(t, iwarp, f.maxFrameWire())
		})
	}
}

func TestIncastAtTheShortestQuantaLosesNothing(t *testing.T) {
	// Issue 22 point 4: incast-pfc with 5-quanta pauses lost 31,733 frames as headroom drops,
	// since its refresh came after the pause had run out. Quanta shorter than a refresh can
	// keep are refused now; the shortest accepted (pfc.MinQuanta of the largest frame, a
	// RoCE v2 WRITE First of MTU 1024) loses nothing.
	data, ok := scenarios.BundledYAML("incast-pfc")
	require.True(t, ok)
	least := pfc.MinQuanta(largestWire, 1)
	for q := 1; q < least; q++ {
		_, problems, _ := scenarios.Load("incast-pfc.yaml", data, overrides(t, fmt.Sprintf("switch.pfc.quanta=%d", q)))
		require.Len(t, problems, 1, "quanta %d", q)
		require.Contains(t, problems[0].Error(), fmt.Sprintf("quanta %d..65535", least))
	}
	v := runOne(t, string(data), 0, fmt.Sprintf("switch.pfc.quanta=%d", least))
	require.Zero(t, v.Drops.Total, "no frame lost")
	require.EqualValues(t, 16, v.Flows.Completed)
}

func TestLinkDownFreesAPausedNIC(t *testing.T) {
	// A PAUSE of the longest pause (335.5 us at 100 Gb/s) from sw stops h1's flow at about
	// 1 us. The link goes down at 10 us, which resets h1's pause timers (IEEE 802.3 annex
	// 31B), and is back at 20 us: the flow goes on at once and is done a transfer time later,
	// long before the old pause would have run out.
	v := runOne(t, `
version: 1
name: linkdown
topology: {preset: star, params: {hosts: 2, link: {rate: 100Gbps, delay: 1us}}}
switch: {pfc: {enabled: true}}
traffic:
  - flow: {src: h1, dst: h2, size: 100KB, transport: rocev2}
faults:
  - {at: 0, pause: {node: sw, port: 1, priority: 3, quanta: 65535}}
  - {at: 10us, link: [h1, sw], state: down}
  - {at: 20us, link: [h1, sw], state: up}
`, 0)
	require.EqualValues(t, 1, v.Flows.Completed)
	f := v.PerFlow[0]
	require.NotNil(t, f.FinishUS)
	pauseEnd := (sim.Microsecond + pfc.PauseDuration(pfc.MaxQuanta, 100*sim.Gbps)).Microseconds()
	// 100 KB in 1024-byte packets at 100 Gb/s, plus a few us of path: well inside 20 us.
	transfer := sim.Time(messageWire(100_000)) * (100 * sim.Gbps).TxTime(1) // 80 ps a byte
	require.Less(t, *f.FinishUS, (20*sim.Microsecond + transfer + 10*sim.Microsecond).Microseconds())
	require.Less(t, *f.FinishUS, pauseEnd)
}

func TestDynamicXoffOnA16To1Incast(t *testing.T) {
	// incast-pfc's 16-to-1 incast on a 33-port star (16 ports idle). A static auto XOFF
	// shares the buffer left after every port-class's headroom H among all 33 port-classes:
	// S/33, S = buffer - 33 H. A dynamic XOFF (alpha 1) follows the free shared buffer, so the
	// 16 busy port-classes, each holding b, pause when b > alpha (S - 16 b): at b* = alpha S /
	// (1 + 16 alpha) = S/17, nearly twice as much. Each sender's count therefore climbs that
	// high before its first pause (within a frame, less the jitter's unevenness), where the
	// static XOFF stops it at S/33 plus what its headroom takes; holding more per pause, the
	// senders are paused fewer times, each pause longer. Both runs lose nothing.
	data, ok := scenarios.BundledYAML("incast-pfc")
	require.True(t, ok)
	const ports, busy = 33, 16
	static := runOne(t, string(data), 0, "topology.params.hosts=33")
	dynamic := runOne(t, string(data), 0, "topology.params.hosts=33", "switch.pfc.xoff=dynamic")
	for _, v := range []*results.Variant{static, dynamic} {
		require.Zero(t, v.Drops.Total)
		require.EqualValues(t, busy, v.Flows.Completed)
	}
	h := pfcPort(static, "sw", "h1").HeadroomBytes
	S := 4_000_000 - ports*h
	require.Equal(t, S/ports, pfcPort(static, "sw", "h1").XoffBytes, "static auto XOFF")
	fixed := S / (1 + busy) // alpha 1
	check := func(v *results.Variant) {
		for i := 1; i <= busy; i++ {
			p := pfcPort(v, "sw", fmt.Sprintf("h%d", i))
			if v == static {
				require.LessOrEqual(t, p.IngressMaxBytes, S/ports+h, "h%d", i)
			} else {
				require.GreaterOrEqual(t, p.IngressMaxBytes, fixed-2*largestFrame, "h%d", i)
			}
		}
	}
	check(static)
	check(dynamic)
	require.Less(t, dynamic.PFC.PauseFrames, static.PFC.PauseFrames, "fewer pauses")
	require.Greater(t, dynamic.PFC.PausedTimeUS/float64(dynamic.PFC.PauseFrames),
		static.PFC.PausedTimeUS/float64(static.PFC.PauseFrames), "longer pauses")
}
