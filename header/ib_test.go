package header

import (
	"hash/crc32"
	"testing"

	"github.com/stretchr/testify/require"
)

// naive masks a copy of the packet and takes the CRC-32 of ones, then the copy.
func naive(b []byte, masks ...[2]int) uint32 {
	c := append([]byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, b...)
	for _, m := range masks {
		for i := m[0]; i < m[0]+m[1]; i++ {
			c[8+i] = 0xFF
		}
	}
	return crc32.ChecksumIEEE(c)
}

func TestICRCMasksTheVariantFields(t *testing.T) {
	pkt := make([]byte, GRHSize+BTHSize+64)
	for i := range pkt {
		pkt[i] = byte(i*7 + 3)
	}
	// RoCE v2: TOS, TTL, IP checksum, UDP checksum, BTH byte 4.
	require.Equal(t, naive(pkt, [2]int{1, 1}, [2]int{8, 1}, [2]int{10, 2}, [2]int{26, 2}, [2]int{32, 1}), ICRCRoCEv2(pkt))
	// RoCE v1: the GRH's traffic class and flow label (the low nibble of byte 0, bytes 1-3),
	// hop limit, BTH byte 4.
	want := naive(pkt, [2]int{1, 3}, [2]int{7, 1}, [2]int{44, 1})
	c := append([]byte(nil), pkt...)
	c[0] |= 0x0F
	require.Equal(t, naive(c, [2]int{1, 3}, [2]int{7, 1}, [2]int{44, 1}), ICRCRoCEv1(pkt))
	require.NotEqual(t, want, ICRCRoCEv1(pkt), "the traffic class's high nibble is masked too")
	// Changing a masked field leaves the CRC; changing another does not.
	v2 := ICRCRoCEv2(pkt)
	pkt[1] ^= 3 // ECN to CE
	pkt[8]--    // TTL
	require.Equal(t, v2, ICRCRoCEv2(pkt))
	pkt[40]++
	require.NotEqual(t, v2, ICRCRoCEv2(pkt))
}

func TestChecksumRFC1071Example(t *testing.T) {
	// RFC 1071 section 3: the bytes 00 01 f2 03 f4 f5 f6 f7 sum to ddf2.
	require.Equal(t, uint16(0xddf2), Checksum([]byte{0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7}, 0))
	require.Equal(t, uint16(0xddf2), Checksum([]byte{0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7, 0x00}, 0))
}

// TestBTHBECN: BECN is bit 6 of the BTH's byte 4 (IBA 9.2), beside the 24-bit queue pair
// number, and the ICRC masks it with the byte (a switch may set it on the way).
func TestBTHBECN(t *testing.T) {
	b := make(BTH, BTHSize)
	b.Encode(&BTHFields{Opcode: 0x11, DestQP: 0xABCDEF, PSN: 5, BECN: true})
	require.Equal(t, byte(0x40), b[4])
	require.True(t, b.BECN())
	require.Equal(t, uint32(0xABCDEF), b.DestQP())
	b.Encode(&BTHFields{Opcode: 0x11, DestQP: 0xABCDEF, PSN: 5})
	require.Zero(t, b[4])
	require.False(t, b.BECN())
}
