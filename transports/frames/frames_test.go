package frames

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Wire bytes beyond the frame: preamble and SFD 8, inter-frame gap 12 (IEEE 802.3 clause 4);
// the FCS is 4.
const preIFG, fcs = 8 + 12, 4

// TestRoCEWireBytes: a RoCE frame is its headers, payload, ICRC and FCS: v2 Ethernet 14, IPv4
// 20, UDP 8 (IBA annex A17), v1 Ethernet 14 with the 802.1Q tag 4 and the GRH 40 (annex
// A16); then BTH 12, RETH 16 on a message's first packet, AETH 4 on an ACK, ICRC 4. A frame
// shorter than 64 bytes is padded to 64.
func TestRoCEWireBytes(t *testing.T) {
	const bth, reth, aeth, icrc = 12, 16, 4, 4
	v2, v1 := int64(14+20+8), int64(14+4+40)
	require.Equal(t, v2+bth+1024+icrc+fcs+preIFG, RoCEWireBytes(2, 1024, false))
	require.EqualValues(t, 1106, RoCEWireBytes(2, 1024, false), "the figure the docs quote")
	require.Equal(t, v2+bth+reth+1024+icrc+fcs+preIFG, RoCEWireBytes(2, 1024, true))
	require.Equal(t, v1+bth+4096+icrc+fcs+preIFG, RoCEWireBytes(1, 4096, false))
	require.Equal(t, v1+bth+reth+icrc+fcs+preIFG, RoCEWireBytes(1, 0, true))
	require.Equal(t, v2+bth+aeth+icrc+fcs+preIFG, RoCEAckWireBytes(2))
	require.Equal(t, int64(64+preIFG), RoCEWireBytes(2, 0, false), "padded to the minimum frame")
}

// TestIWARPFullSegment: the first segment of a long WRITE fills the IPv4 MTU whatever the
// options, since the FPDU is sized to the MSS: Ethernet 14 + MTU + FCS; with markers the
// MULPDU leaves room for the three markers (stream offsets 0, 512, 1024) that segment holds.
func TestIWARPFullSegment(t *testing.T) {
	for _, c := range []IWARP{{MTU: 1500}, {MTU: 1500, Markers: true}, {MTU: 1500, Timestamps: true}, {MTU: 9000, Markers: true, Timestamps: true}} {
		f := NewIWARPFrames(c, 1<<30)
		require.Equal(t, int64(14+c.MTU+fcs+preIFG), f.SegmentWire(0), "%+v", c)
		require.Equal(t, DDPPayload(TCPMSS(c.MTU, c.Timestamps), c.Markers), f.SegmentPayload(0))
	}
	require.Equal(t, int64(1), NewIWARPFrames(IWARP{MTU: 1500}, 0).Segments(), "an empty WRITE is one FPDU")
}
