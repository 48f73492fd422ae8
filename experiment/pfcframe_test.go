package experiment

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/pfc"
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
