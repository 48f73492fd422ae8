package header

import (
	"encoding/binary"
	"hash/crc32"
)

// InfiniBand transport headers as RoCE carries them: InfiniBand Architecture Specification
// vol. 1 (IBA) section 9.2 (BTH), 9.3.2 (RETH), 9.3.5 (AETH), 8.3 (GRH), 7.8.1 (ICRC); annex
// A16 (RoCE: the GRH in place of the LRH) and annex A17 (RoCE v2: IPv4/UDP in place of the
// GRH, destination port 4791).
const (
	// GRHSize is the global route header (IBA 8.3.1).
	GRHSize = 40
	// GRHNextHeaderBTH is the GRH next-header value of an IBA transport header (IBA 8.3.1).
	GRHNextHeaderBTH = 0x1B
	// GRHVersion is the IP version field of the GRH (IBA 8.3.1: the same as IPv6).
	GRHVersion = 6
	// BTHSize is the base transport header (IBA 9.2).
	BTHSize = 12
	// RETHSize is the RDMA extended transport header (IBA 9.3.2).
	RETHSize = 16
	// AETHSize is the ACK extended transport header (IBA 9.3.5).
	AETHSize = 4
	// ICRCSize is the invariant CRC trailer (IBA 7.8.1).
	ICRCSize = 4
	// DefaultPKey is the default partition key, full membership (IBA 10.9.1.1).
	DefaultPKey = 0xFFFF

	bthOpcode  = 0
	bthFlags   = 1 // SE, MigReq, pad count, transport header version
	bthPKey    = 2
	bthResv8a  = 4 // FECN, BECN and 6 reserved bits (IBA 9.2, annex A17): variant
	bthDestQP  = 5 // 24 bits
	bthAckReq  = 8 // A bit and 7 reserved bits
	bthPSN     = 9 // 24 bits
	bthAckBit  = 0x80
	bthBECNBit = 0x40 // in the byte at bthResv8a: FECN 0x80, BECN 0x40 (IBA 9.2)
	qpnMask    = 0xFFFFFF
	grhTClass  = 0 // version 4 bits, traffic class 8 bits, flow label 20 bits
	grhPayLen  = 4
	grhNextHdr = 6
	grhHopLmt  = 7
	grhSGID    = 8
	grhDGID    = 24
)

// BTHFields are the base transport header's values for Encode.
type BTHFields struct {
	Opcode uint8
	DestQP uint32
	AckReq bool
	PSN    uint32
	// BECN is the backward explicit congestion notification bit: an ACK echoes congestion
	// its requester caused (fabricsim's cc dctcp puts DCTCP's ECN echo there).
	BECN bool
}

// BTH is a base transport header.
type BTH []byte

// Encode writes the header: no solicited event, no pad, transport version 0, the default
// partition key, FECN clear.
func (b BTH) Encode(f *BTHFields) {
	b[bthOpcode] = f.Opcode
	b[bthFlags] = 0
	binary.BigEndian.PutUint16(b[bthPKey:], DefaultPKey)
	binary.BigEndian.PutUint32(b[bthResv8a:], f.DestQP&qpnMask)
	if f.BECN {
		b[bthResv8a] = bthBECNBit
	}
	ack := uint32(0)
	if f.AckReq {
		ack = bthAckBit << 24
	}
	binary.BigEndian.PutUint32(b[bthAckReq:], ack|f.PSN&qpnMask)
}

// Opcode is the transport opcode.
func (b BTH) Opcode() uint8 { return b[bthOpcode] }

// DestQP is the destination queue pair number.
func (b BTH) DestQP() uint32 { return binary.BigEndian.Uint32(b[bthResv8a:]) & qpnMask }

// BECN is the backward explicit congestion notification bit.
func (b BTH) BECN() bool { return b[bthResv8a]&bthBECNBit != 0 }

// AckReq is the A bit: the requester asks for an acknowledgement.
func (b BTH) AckReq() bool { return b[bthAckReq]&bthAckBit != 0 }

// PSN is the packet sequence number.
func (b BTH) PSN() uint32 { return binary.BigEndian.Uint32(b[bthAckReq:]) & qpnMask }

// RETH is an RDMA extended transport header: virtual address, R_Key, DMA length.
type RETH []byte

// Encode writes the header.
func (b RETH) Encode(va uint64, rkey, dmaLen uint32) {
	binary.BigEndian.PutUint64(b[0:], va)
	binary.BigEndian.PutUint32(b[8:], rkey)
	binary.BigEndian.PutUint32(b[12:], dmaLen)
}

// DMALength is the length of the whole RDMA WRITE.
func (b RETH) DMALength() uint32 { return binary.BigEndian.Uint32(b[12:]) }

// AETH is an ACK extended transport header: syndrome and message sequence number.
type AETH []byte

// Encode writes the header.
func (b AETH) Encode(syndrome uint8, msn uint32) {
	binary.BigEndian.PutUint32(b, uint32(syndrome)<<24|msn&qpnMask)
}

// GRH is a global route header.
type GRH []byte

// Encode writes the header: traffic class tclass, flow label 0, the payload length (the
// transport headers, payload and ICRC), next header BTH, hop limit hops.
func (b GRH) Encode(tclass uint8, payLen uint16, hops uint8, sgid, dgid [16]byte) {
	binary.BigEndian.PutUint32(b[grhTClass:], GRHVersion<<28|uint32(tclass)<<20)
	binary.BigEndian.PutUint16(b[grhPayLen:], payLen)
	b[grhNextHdr] = GRHNextHeaderBTH
	b[grhHopLmt] = hops
	copy(b[grhSGID:], sgid[:])
	copy(b[grhDGID:], dgid[:])
}

// NextHeader is the next-header field.
func (b GRH) NextHeader() uint8 { return b[grhNextHdr] }

// TrafficClass is the traffic class.
func (b GRH) TrafficClass() uint8 { return uint8(binary.BigEndian.Uint32(b[grhTClass:]) >> 20) }

// PayloadLength is the length after the GRH.
func (b GRH) PayloadLength() uint16 { return binary.BigEndian.Uint16(b[grhPayLen:]) }

// ones stands in for the local route header in the ICRC of RoCE packets, which have none:
// 8 bytes of ones (IBA annex A16 and A17; Linux rxe seeds its CRC with the same), and
// supplies the ones of the masked fields.
var ones = [8]byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}

// versionMasked is the first GRH octet with the traffic class's high nibble masked, by IP
// version: the CRC reads it from here, so the packet need not be copied.
var versionMasked = [16]byte{0x0F, 0x1F, 0x2F, 0x3F, 0x4F, 0x5F, 0x6F, 0x7F, 0x8F, 0x9F, 0xAF, 0xBF, 0xCF, 0xDF, 0xEF, 0xFF}

// crcMasked continues crc over b with the bytes at the given sorted, non-overlapping
// [offset, offset+length) ranges replaced by ones (each at most 8 bytes).
func crcMasked(crc uint32, b []byte, masks ...[2]int) uint32 {
	at := 0
	for _, m := range masks {
		crc = crc32.Update(crc, crc32.IEEETable, b[at:m[0]])
		crc = crc32.Update(crc, crc32.IEEETable, ones[:m[1]])
		at = m[0] + m[1]
	}
	return crc32.Update(crc, crc32.IEEETable, b[at:])
}

// ICRCRoCEv2 is the invariant CRC of a RoCE v2 packet (IBA annex A17): CRC-32 (IEEE 802.3
// polynomial) over 8 bytes of ones for the absent LRH, then the IPv4 header with its TOS
// (DSCP and ECN), TTL and header checksum set to ones, the UDP header with its checksum set
// to ones, the BTH with its FECN, BECN and reserved byte set to ones, then the rest of the
// packet up to the ICRC. ip is the datagram up to, not including, the ICRC. The fields that
// change hop by hop are masked, so a switch marking CE leaves the ICRC valid.
func ICRCRoCEv2(ip []byte) uint32 {
	const udp, bth = IPv4MinimumSize, IPv4MinimumSize + UDPSize
	crc := crc32.Update(0, crc32.IEEETable, ones[:])
	return crcMasked(crc, ip, [2]int{ipv4TOS, 1}, [2]int{ipv4TTL, 1}, [2]int{ipv4Checksum, 2},
		[2]int{udp + udpChecksum, 2}, [2]int{bth + bthResv8a, 1})
}

// ICRCRoCEv1 is the invariant CRC of a RoCE v1 packet (IBA annex A16, section 7.8.1): as
// for RoCE v2 but over the GRH, with its traffic class, flow label and hop limit set to
// ones, in place of IPv4 and UDP. grh is the packet from the GRH up to the ICRC. RoCE v1
// carries no VCRC: the Ethernet FCS covers the frame.
func ICRCRoCEv1(grh []byte) uint32 {
	crc := crc32.Update(0, crc32.IEEETable, ones[:])
	crc = crc32.Update(crc, crc32.IEEETable, versionMasked[grh[0]>>4:grh[0]>>4+1])
	return crcMasked(crc, grh[1:], [2]int{0, 3}, [2]int{grhHopLmt - 1, 1}, [2]int{GRHSize - 1 + bthResv8a, 1})
}

// PutICRC writes the ICRC as it is transmitted: least significant byte first, like the
// Ethernet FCS (Linux rxe stores the CRC register in little-endian order).
func PutICRC(b []byte, icrc uint32) { binary.LittleEndian.PutUint32(b, icrc) }
