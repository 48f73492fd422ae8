package header

import "encoding/binary"

// TCP header layout (RFC 9293 section 3.1) and option kinds (RFC 9293 section 3.2, RFC 7323,
// RFC 2018).
const (
	// TCPMinimumSize is a header without options.
	TCPMinimumSize = 20
	// TCPOptionEOL ends the option list.
	TCPOptionEOL = 0
	// TCPOptionNOP pads options to 32-bit boundaries.
	TCPOptionNOP = 1
	// TCPOptionMSS is the maximum segment size option, 4 bytes (RFC 9293 section 3.7.1).
	TCPOptionMSS = 2
	// TCPOptionWS is the window scale option, 3 bytes (RFC 7323 section 2).
	TCPOptionWS = 3
	// TCPOptionSACKPermitted is the SACK-permitted option, 2 bytes (RFC 2018 section 2).
	TCPOptionSACKPermitted = 4
	// TCPOptionSACK is the SACK option, 2 bytes + 8 per block (RFC 2018 section 3).
	TCPOptionSACK = 5
	// TCPOptionTS is the timestamps option, 10 bytes (RFC 7323 section 3).
	TCPOptionTS = 8

	tcpSrcPort  = 0
	tcpDstPort  = 2
	tcpSeqNum   = 4
	tcpAckNum   = 8
	tcpDataOff  = 12
	tcpFlags    = 13
	tcpWindow   = 14
	tcpChecksum = 16
	tcpUrgent   = 18
)

// TCPFields are the fixed header's values for Encode.
type TCPFields struct {
	SrcPort, DstPort uint16
	Seq, Ack         uint32
	HeaderLength     int // with options, a multiple of 4
	Flags            uint8
	Window           uint16
}

// TCP is a TCP header and, behind it, its options.
type TCP []byte

// Encode writes the fixed header, a zero checksum; options follow it.
func (b TCP) Encode(f *TCPFields) {
	binary.BigEndian.PutUint16(b[tcpSrcPort:], f.SrcPort)
	binary.BigEndian.PutUint16(b[tcpDstPort:], f.DstPort)
	binary.BigEndian.PutUint32(b[tcpSeqNum:], f.Seq)
	binary.BigEndian.PutUint32(b[tcpAckNum:], f.Ack)
	b[tcpDataOff] = byte(f.HeaderLength/4) << 4
	b[tcpFlags] = f.Flags
	binary.BigEndian.PutUint16(b[tcpWindow:], f.Window)
	binary.BigEndian.PutUint16(b[tcpChecksum:], 0)
	binary.BigEndian.PutUint16(b[tcpUrgent:], 0)
}

// SetChecksum computes the checksum of the segment b (header, options and data) with the
// pseudo-header sum of its IPv4 datagram, and writes it.
func (b TCP) SetChecksum(pseudo uint16) {
	binary.BigEndian.PutUint16(b[tcpChecksum:], 0)
	binary.BigEndian.PutUint16(b[tcpChecksum:], ^Checksum(b, pseudo))
}

// HeaderLength is the data offset in bytes.
func (b TCP) HeaderLength() int { return int(b[tcpDataOff]>>4) * 4 }

// SequenceNumber is the sequence number.
func (b TCP) SequenceNumber() uint32 { return binary.BigEndian.Uint32(b[tcpSeqNum:]) }

// AckNumber is the acknowledgement number.
func (b TCP) AckNumber() uint32 { return binary.BigEndian.Uint32(b[tcpAckNum:]) }

// Flags is the control bits octet.
func (b TCP) Flags() uint8 { return b[tcpFlags] }

// Checksum is the checksum field.
func (b TCP) Checksum() uint16 { return binary.BigEndian.Uint16(b[tcpChecksum:]) }

// Payload is the segment's data.
func (b TCP) Payload() []byte { return b[b.HeaderLength():] }
