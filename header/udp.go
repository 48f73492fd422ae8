package header

import "encoding/binary"

// UDP header layout (RFC 768).
const (
	// UDPSize is the header.
	UDPSize = 8

	udpSrcPort  = 0
	udpDstPort  = 2
	udpLength   = 4
	udpChecksum = 6
)

// UDP is a UDP header.
type UDP []byte

// Encode writes the ports and the length; the checksum is zero, which over IPv4 means none
// (RFC 768), as IBA annex A17 allows RoCE v2 senders to leave it.
func (b UDP) Encode(src, dst, length uint16) {
	binary.BigEndian.PutUint16(b[udpSrcPort:], src)
	binary.BigEndian.PutUint16(b[udpDstPort:], dst)
	binary.BigEndian.PutUint16(b[udpLength:], length)
	binary.BigEndian.PutUint16(b[udpChecksum:], 0)
}

// SourcePort is the source port.
func (b UDP) SourcePort() uint16 { return binary.BigEndian.Uint16(b[udpSrcPort:]) }

// DestinationPort is the destination port.
func (b UDP) DestinationPort() uint16 { return binary.BigEndian.Uint16(b[udpDstPort:]) }

// Length is the header and payload length.
func (b UDP) Length() uint16 { return binary.BigEndian.Uint16(b[udpLength:]) }
