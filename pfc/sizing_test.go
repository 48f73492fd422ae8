package pfc

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
)

// sizing is a two-port switch at 100 Gb/s with 1542-byte frames, 100 m to a (500 ns) and
// 1 km to b (5 us), sized automatically.
func sizing() Sizing {
	return Sizing{Switch: "sw", Buffer: 1 << 20, Classes: 1, MaxFrameWire: 1542,
		Ports: []SizingPort{
			{Peer: "a", Rate: 100 * sim.Gbps, Delay: 500 * sim.Nanosecond},
			{Peer: "b", Rate: 100 * sim.Gbps, Delay: 5 * sim.Microsecond, Response: ResponseTime(100 * sim.Gbps)},
		},
		Xoff: Auto, Xon: Auto, Headroom: Auto}
}

func TestSizeAutoSharesWhatHeadroomLeaves(t *testing.T) {
	s := sizing()
	got, warnings := Size(s)
	require.Empty(t, warnings)
	h0, h1 := s.Need(0).Total(), s.Need(1).Total()
	require.Equal(t, Headroom(HeadroomLink{Rate: 100 * sim.Gbps, Delay: 500 * sim.Nanosecond, MaxFrameWire: 1542, Classes: 1}).Total(), h0)
	require.Greater(t, h1, h0, "the longer cable and the response time need more")
	xoff := (s.Buffer - h0 - h1) / 2
	require.Equal(t, []Thresholds{{Xoff: xoff, Xon: xoff - 2*1542, Headroom: h0}, {Xoff: xoff, Xon: xoff - 2*1542, Headroom: h1}}, got)
	// Two classes: every port-class reserves its headroom, and the rest is shared by four.
	s.Classes = 2
	got, _ = Size(s)
	require.Equal(t, (s.Buffer-2*s.Need(0).Total()-2*s.Need(1).Total())/4, got[0].Xoff)
	require.EqualValues(t, 2*FrameWireBytes, s.Need(0).Pause, "one PAUSE of the other class may go first")
}

func TestSizeConfigured(t *testing.T) {
	s := sizing()
	s.Xoff, s.Xon, s.Headroom = 100_000, 200_000, 300_000
	got, warnings := Size(s)
	require.Empty(t, warnings)
	require.Equal(t, Thresholds{Xoff: 100_000, Xon: 100_000, Headroom: 300_000}, got[1], "XON is capped at XOFF")
}

func TestSizeWarnings(t *testing.T) {
	// A headroom that suits a but not b: one warning, naming the port with the largest need.
	s := sizing()
	s.Headroom = s.Need(0).Total()
	_, warnings := Size(s)
	require.Len(t, warnings, 1)
	require.Equal(t, HeadroomShort, warnings[0].Kind)
	require.Equal(t, 1, warnings[0].Port)
	require.Contains(t, warnings[0].String(), "below the need on 1 of its 2 ports (port 2 to b, 100Gbps, 5us delay, needs ")

	// XOFF + headroom below one frame: every lossless frame is dropped there.
	s = sizing()
	s.Xoff, s.Headroom = 1, 1000
	_, warnings = Size(s)
	require.Equal(t, []WarningKind{HeadroomShort, FrameTooLarge}, kinds(warnings))
	require.Equal(t, 0, warnings[1].Port)
	require.Equal(t, "sw port 1: XOFF 1B + headroom 1000B cannot hold one 1542B frame: every lossless frame there will be dropped", warnings[1].Text)

	// A buffer too small for the headroom alone: XOFF is zero and the buffer overcommitted.
	s = sizing()
	s.Buffer = 10_000
	got, warnings := Size(s)
	require.Zero(t, got[0].Xoff)
	require.Zero(t, got[0].Xon)
	require.Equal(t, []WarningKind{BufferOvercommitted}, kinds(warnings))
	require.Equal(t, -1, warnings[0].Port)
}

func kinds(ws []Warning) []WarningKind {
	var k []WarningKind
	for _, w := range ws {
		k = append(k, w.Kind)
	}
	return k
}
