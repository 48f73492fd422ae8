package header

import (
	"encoding/binary"
	"hash/crc32"
)

// MPA (RFC 5044), DDP (RFC 5041) and RDMAP (RFC 5040): the iWARP layers over TCP.
const (
	// MPAReqRepSize is an MPA Request or Reply frame without private data: key, flags,
	// revision, private data length (RFC 5044 section 7.1).
	MPAReqRepSize = 20
	// MPAKeyRequest and MPAKeyReply are the 16-byte keys of the MPA Request and Reply frames
	// (RFC 5044 section 7.1).
	MPAKeyRequest = "MPA ID Req Frame"
	MPAKeyReply   = "MPA ID Rep Frame"
	// MPAFlagMarkers is the M bit: the sender of the frame wants markers on the stream it
	// receives (RFC 5044 section 7.1).
	MPAFlagMarkers = 0x80
	// MPAFlagCRC is the C bit: CRCs are in use (RFC 5044 section 7.1).
	MPAFlagCRC = 0x40
	// MPAFlagReject is the R bit: the responder rejects the connection (RFC 5044 section 7.1).
	MPAFlagReject = 0x20
	// MPARevision is the revision this MPA is (RFC 5044 section 7.1).
	MPARevision = 1
	// MPAULPDULengthSize is the FPDU's length field (RFC 5044 section 4.1).
	MPAULPDULengthSize = 2
	// MPAAlignment is what an FPDU's length field, ULPDU and pad add up to a multiple of
	// (RFC 5044 section 4.1).
	MPAAlignment = 4
	// MPACRCSize is the CRC32c trailer of an FPDU (RFC 5044 section 4.1).
	MPACRCSize = 4
	// MPAMarkerSize is a marker: 16 reserved bits and the FPDU pointer (RFC 5044 section 5).
	MPAMarkerSize = 4
	// MPAMarkerInterval is the spacing of markers in the TCP stream, counted from the first
	// FPDU of the full operation phase (RFC 5044 section 5).
	MPAMarkerInterval = 512

	// DDPTaggedSize is a tagged DDP header with RDMAP's control octet: control, RDMAP control,
	// STag, tagged offset (RFC 5041 section 4.2, RFC 5040 section 4).
	DDPTaggedSize = 14
	// DDPUntaggedSize is an untagged DDP header with RDMAP's fields: control, RDMAP control,
	// 4 reserved octets, queue number, message sequence number, message offset (RFC 5041
	// section 4.3, RFC 5040 section 4).
	DDPUntaggedSize = 18
	// DDPFlagTagged is the T bit of the DDP control field (RFC 5041 section 4.1).
	DDPFlagTagged = 0x80
	// DDPFlagLast is the L bit: the last DDP segment of a message (RFC 5041 section 4.1).
	DDPFlagLast = 0x40
	// DDPVersion is the DV field, the low 2 bits of the control field (RFC 5041 section 4.1).
	DDPVersion = 1
	// RDMAPVersion is the RV field, the top 2 bits of the RDMAP control field (RFC 5040
	// section 4.2).
	RDMAPVersion = 1
	// RDMAP opcodes, the low 4 bits of the RDMAP control field (RFC 5040 section 4.2).
	RDMAPWrite       = 0x0
	RDMAPReadRequest = 0x1
	RDMAPReadResp    = 0x2
	RDMAPSend        = 0x3
	RDMAPTerminate   = 0x7
	// DDPQueueSend is the untagged queue of Send messages (RFC 5040 section 5.1).
	DDPQueueSend = 0

	mpaKey        = 0
	mpaFlags      = 16
	mpaRev        = 17
	mpaPDLength   = 18
	rdmapVerShift = 6
	ddpControl    = 0
	rdmapControl  = 1
	ddpSTag       = 2
	ddpTO         = 6
	ddpQN         = 6
	ddpMSN        = 10
	ddpMO         = 14
	markerFPDUPtr = 2
)

// MPAReqRep is an MPA Request or Reply frame.
type MPAReqRep []byte

// Encode writes the frame: the key of a Request (reply false) or Reply, the flags, revision
// 1 and the private data length (the private data follows, zeros).
func (b MPAReqRep) Encode(reply bool, flags uint8, privateData uint16) {
	key := MPAKeyRequest
	if reply {
		key = MPAKeyReply
	}
	copy(b[mpaKey:mpaFlags], key)
	b[mpaFlags] = flags
	b[mpaRev] = MPARevision
	binary.BigEndian.PutUint16(b[mpaPDLength:], privateData)
}

// Key is the 16-byte key.
func (b MPAReqRep) Key() string { return string(b[mpaKey:mpaFlags]) }

// Flags is the M, C, R and reserved bits.
func (b MPAReqRep) Flags() uint8 { return b[mpaFlags] }

// Revision is the revision field.
func (b MPAReqRep) Revision() uint8 { return b[mpaRev] }

// PrivateDataLength is the length of the private data behind the frame.
func (b MPAReqRep) PrivateDataLength() uint16 { return binary.BigEndian.Uint16(b[mpaPDLength:]) }

// DDP is a DDP header with RDMAP's control field, tagged or untagged by its T bit.
type DDP []byte

// EncodeTagged writes a tagged DDP segment header of an RDMAP message with the given opcode.
func (b DDP) EncodeTagged(last bool, opcode uint8, stag uint32, to uint64) {
	b[ddpControl] = DDPFlagTagged | DDPVersion
	if last {
		b[ddpControl] |= DDPFlagLast
	}
	b[rdmapControl] = RDMAPVersion<<rdmapVerShift | opcode
	binary.BigEndian.PutUint32(b[ddpSTag:], stag)
	binary.BigEndian.PutUint64(b[ddpTO:], to)
}

// EncodeUntagged writes an untagged DDP segment header of an RDMAP message.
func (b DDP) EncodeUntagged(last bool, opcode uint8, qn, msn, mo uint32) {
	b[ddpControl] = DDPVersion
	if last {
		b[ddpControl] |= DDPFlagLast
	}
	b[rdmapControl] = RDMAPVersion<<rdmapVerShift | opcode
	binary.BigEndian.PutUint32(b[ddpSTag:], 0) // reserved for RDMAP: no invalidate STag
	binary.BigEndian.PutUint32(b[ddpQN:], qn)
	binary.BigEndian.PutUint32(b[ddpMSN:], msn)
	binary.BigEndian.PutUint32(b[ddpMO:], mo)
}

// Tagged reports the T bit.
func (b DDP) Tagged() bool { return b[ddpControl]&DDPFlagTagged != 0 }

// Last reports the L bit.
func (b DDP) Last() bool { return b[ddpControl]&DDPFlagLast != 0 }

// Opcode is the RDMAP opcode.
func (b DDP) Opcode() uint8 { return b[rdmapControl] & 0x0F }

// STag is a tagged segment's steering tag.
func (b DDP) STag() uint32 { return binary.BigEndian.Uint32(b[ddpSTag:]) }

// TaggedOffset is a tagged segment's offset in the sink buffer.
func (b DDP) TaggedOffset() uint64 { return binary.BigEndian.Uint64(b[ddpTO:]) }

// MPAMarker is a marker.
type MPAMarker []byte

// Encode writes a marker whose FPDU pointer is ptr.
func (b MPAMarker) Encode(ptr uint16) {
	binary.BigEndian.PutUint16(b[0:], 0)
	binary.BigEndian.PutUint16(b[markerFPDUPtr:], ptr)
}

// FPDUPointer is the number of octets from the FPDU's first octet to the marker.
func (b MPAMarker) FPDUPointer() uint16 { return binary.BigEndian.Uint16(b[markerFPDUPtr:]) }

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// MPACRC is the CRC32c (Castagnoli polynomial, as iSCSI uses; RFC 5044 section 6) of an
// FPDU as it appears in the TCP stream, markers included, up to the CRC field.
func MPACRC(fpdu []byte) uint32 { return crc32.Checksum(fpdu, castagnoli) }

// PutMPACRC writes the CRC field as iSCSI sends its CRC32c digest, whose computation RFC
// 5044 section 6 adopts: least significant byte first (RFC 3720 section 12.1, RFC 3385).
// Wireshark's MPA dissector checks it in this order.
func PutMPACRC(b []byte, crc uint32) { binary.LittleEndian.PutUint32(b, crc) }
