package header

import "encoding/binary"

// IPv4 header layout (RFC 791 section 3.1).
const (
	// IPv4MinimumSize is a header without options.
	IPv4MinimumSize = 20
	// IPv4Version is the version field's value.
	IPv4Version = 4
	// IPv4FlagDontFragment is the DF bit of the flags and fragment offset field.
	IPv4FlagDontFragment = 0x4000

	ipv4VersIHL    = 0
	ipv4TOS        = 1 // DSCP (RFC 2474) and ECN (RFC 3168)
	ipv4TotalLen   = 2
	ipv4ID         = 4
	ipv4FlagsFrag  = 6
	ipv4TTL        = 8
	ipv4Protocol   = 9
	ipv4Checksum   = 10
	ipv4SrcAddr    = 12
	ipv4DstAddr    = 16
	ecnMask        = 0x03 // the ECN field: the low 2 bits of the former TOS octet (RFC 3168 section 5)
	dscpShift      = 2
	ipv4HeaderWord = 4 // IHL counts 32-bit words
)

// IPv4Fields are the header's values for Encode.
type IPv4Fields struct {
	DSCP, ECN   uint8
	TotalLength uint16
	ID          uint16
	TTL         uint8
	Protocol    uint8
	Src, Dst    [4]byte
}

// IPv4 is an IPv4 header without options.
type IPv4 []byte

// Encode writes every field, DF set, and the header checksum.
func (b IPv4) Encode(f *IPv4Fields) {
	b[ipv4VersIHL] = IPv4Version<<4 | IPv4MinimumSize/ipv4HeaderWord
	b[ipv4TOS] = f.DSCP<<dscpShift | f.ECN&ecnMask
	binary.BigEndian.PutUint16(b[ipv4TotalLen:], f.TotalLength)
	binary.BigEndian.PutUint16(b[ipv4ID:], f.ID)
	binary.BigEndian.PutUint16(b[ipv4FlagsFrag:], IPv4FlagDontFragment)
	b[ipv4TTL] = f.TTL
	b[ipv4Protocol] = f.Protocol
	binary.BigEndian.PutUint16(b[ipv4Checksum:], 0)
	copy(b[ipv4SrcAddr:], f.Src[:])
	copy(b[ipv4DstAddr:], f.Dst[:])
	binary.BigEndian.PutUint16(b[ipv4Checksum:], ^Checksum(b[:IPv4MinimumSize], 0))
}

// HeaderLength is the IHL field in bytes.
func (b IPv4) HeaderLength() int { return int(b[ipv4VersIHL]&0x0F) * ipv4HeaderWord }

// TOS is the DSCP and ECN octet.
func (b IPv4) TOS() uint8 { return b[ipv4TOS] }

// ECN is the ECN codepoint.
func (b IPv4) ECN() uint8 { return b[ipv4TOS] & ecnMask }

// TotalLength is the datagram's length, header included.
func (b IPv4) TotalLength() uint16 { return binary.BigEndian.Uint16(b[ipv4TotalLen:]) }

// ID is the identification field.
func (b IPv4) ID() uint16 { return binary.BigEndian.Uint16(b[ipv4ID:]) }

// TTL is the time to live.
func (b IPv4) TTL() uint8 { return b[ipv4TTL] }

// Protocol is the payload's protocol number.
func (b IPv4) Protocol() uint8 { return b[ipv4Protocol] }

// Checksum is the header checksum field.
func (b IPv4) Checksum() uint16 { return binary.BigEndian.Uint16(b[ipv4Checksum:]) }

// SourceAddress is the source address.
func (b IPv4) SourceAddress() [4]byte { return [4]byte(b[ipv4SrcAddr:]) }

// DestinationAddress is the destination address.
func (b IPv4) DestinationAddress() [4]byte { return [4]byte(b[ipv4DstAddr:]) }

// Payload is what follows the header, up to the total length.
func (b IPv4) Payload() []byte { return b[b.HeaderLength():b.TotalLength()] }
