package transports_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// TestRoCEWireBytesIsWhatTheRequesterSends: every data packet of a RoCE v1 and a RoCE v2
// flow occupies on the wire what RoCEWireBytes says, and that is the header arithmetic:
// RoCE v2 Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 (+ RETH 16) + payload + ICRC 4 + FCS 4; RoCE
// v1 the same with an 802.1Q tag 4 and a GRH 40 for IPv4 and UDP; plus preamble, SFD and
// inter-frame gap.
func TestRoCEWireBytesIsWhatTheRequesterSends(t *testing.T) {
	v1 := func(payload int64, reth bool) int64 {
		return dataWire(payload, reth) - topology.IPv4Header - topology.UDPHeader + topology.VLANTag + topology.GRHHeader
	}
	require.Equal(t, dataWire(1024, false), frames.RoCEWireBytes(2, 1024, false))
	require.Equal(t, dataWire(1024, true), frames.RoCEWireBytes(2, 1024, true))
	require.Equal(t, dataWire(0, true), frames.RoCEWireBytes(2, 0, true), "padded to the minimum frame")
	require.Equal(t, v1(1024, true), frames.RoCEWireBytes(1, 1024, true))
	for _, version := range []int{1, 2} {
		h := newHarness(t, defaultLink())
		cfg := defaultConfig()
		cfg.Version = version
		const size = 2*mtu + 100
		i := h.add(&transports.Flow{Src: h.h1, Dst: h.h2, Size: size, Start: sim.Microsecond}, cfg)
		h.run()
		data := h.at2.of(topology.KindData, i)
		require.Len(t, data, 3)
		for k, a := range data {
			want := frames.RoCEWireBytes(version, int64(a.payload), k == 0)
			require.Equal(t, want, int64(a.frame)+topology.WireOverhead, "RoCE v%d packet %d", version, k)
			arith := dataWire(int64(a.payload), k == 0)
			if version == 1 {
				arith = v1(int64(a.payload), k == 0)
			}
			require.Equal(t, arith, want, "RoCE v%d packet %d", version, k)
		}
	}
}
