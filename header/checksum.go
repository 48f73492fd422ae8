package header

import "encoding/binary"

// Checksum adds b to the one's-complement sum `initial` (RFC 1071), folding carries; an odd
// last byte is padded with a zero. The Internet checksum is the complement of the result.
func Checksum(b []byte, initial uint16) uint16 {
	sum := uint64(initial)
	for len(b) >= 8 {
		v := binary.BigEndian.Uint64(b)
		sum += v>>48 + v>>32&0xffff + v>>16&0xffff + v&0xffff
		b = b[8:]
	}
	for len(b) >= 2 {
		sum += uint64(binary.BigEndian.Uint16(b))
		b = b[2:]
	}
	if len(b) == 1 {
		sum += uint64(b[0]) << 8
	}
	for sum > 0xffff {
		sum = sum&0xffff + sum>>16
	}
	return uint16(sum)
}

// PseudoHeaderChecksum is the one's-complement sum of the IPv4 pseudo header that TCP and
// UDP checksums cover (RFC 9293 section 3.1, RFC 768): addresses, zero, protocol, length.
func PseudoHeaderChecksum(protocol uint8, src, dst [4]byte, length uint16) uint16 {
	var ph [12]byte
	copy(ph[0:], src[:])
	copy(ph[4:], dst[:])
	ph[9] = protocol
	binary.BigEndian.PutUint16(ph[10:], length)
	return Checksum(ph[:], 0)
}
