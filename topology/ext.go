package topology

import "unsafe"

// A packet's transport headers live in its extension, Packet.ext: one region that every
// transport's block shares, since a packet is one transport's (RoCE's IB transport, UET's
// PDS and SES, TCP's with iWARP's MPA and DDP, or a PFC frame). Which block is live is what
// the packet is:
//
//   - IB(): RoCE v2 (UDP destination port UDPPortRoCEv2) and RoCE v1 (EtherTypeRoCEv1);
//   - UET(): the Ultra Ethernet transport (UDP destination port UDPPortUET);
//   - TCP(): Protocol IPProtoTCP;
//   - Pause(): a MAC Control frame (EtherTypeMACControl).
//
// A new transport adds a block and its accessor here and grows no packet: a block fits
// when its size is at most extBytes, which the declarations below check as the package
// compiles (and layout_test.go as it tests). The blocks hold no pointers (the region is
// words to the garbage collector, which would not see them) and the pool clears the region
// with the rest of the packet (Pool.Get), so a block starts zeroed. The accessors are
// conversions of the region's address, with no branch, no map and no interface: a packet
// costs the same whichever its transport.
//
// A Packet is 256 bytes, the extension its last extBytes: the pool allocates packets in
// slabs, and a size that is a multiple of 64 keeps every packet's first 64 bytes, the
// datapath's, in one cache line (at 208 bytes three packets in four had them across two).

// extWords is the extension's size in 8-byte words: what is left of 256 bytes behind the
// fields every packet has. The words make the region 8-byte aligned, which the blocks' widest
// fields (UETFields.SACKBitmap) need.
const extWords = 19

// extBytes is the extension's size in bytes: the most a transport's block may take.
const extBytes = extWords * 8

// Each block fits the extension: a block that outgrows it makes a negative constant here,
// which does not compile.
const (
	_ = extBytes - unsafe.Sizeof(IBFields{})
	_ = extBytes - unsafe.Sizeof(UETFields{})
	_ = extBytes - unsafe.Sizeof(TCPFields{})
	_ = extBytes - unsafe.Sizeof(PauseFields{})
)

// IBFields are the InfiniBand transport headers of a RoCE packet: the BTH (its PSN is
// Packet.PSN), then the RETH or the AETH when present (IBA vol. 1, 9.2-9.3), and IRN's SACK
// field behind an AETH.
type IBFields struct {
	Opcode   uint8
	AckReq   bool
	HasRETH  bool
	HasAETH  bool
	Syndrome uint8
	// BECN is the BTH's backward congestion notification bit: with cc dctcp an ACK's echo of
	// the CE marks on the data it acknowledges (RFC 8257's ECE).
	BECN bool
	// HasSACK says an IRN NAK carries the IRNSACK bytes after its AETH: SACKPSN is the PSN
	// that revealed the gap (or, with Packet.Trimmed, the PSN a switch trimmed).
	HasSACK bool
	DestQP  uint32
	DMALen  uint32 // RETH DMA length: the whole message
	MSN     uint32
	SACKPSN uint32
}

// UETFields are the Ultra Ethernet transport's PDS fields (Packet.PSN is the PDS PSN). On a
// RUD request, Retx is the PDS RETX flag, AckReq the AR flag, Opcode (OpWrite*) the SES
// start and end of message, DMALen the message length and Offset the payload's offset in
// it. On a PDS ACK (ACK_CC), CumPSN is the cumulative PSN (the next one expected), SACKBase
// the PSN of SACKBitmap's bit 0 (the SACK PSN offset's base), Packet.PSN the PSN whose
// arrival triggered the ACK, RecvdBytes NSCC's received byte count (the CC state's
// rcvd_bytes), OOO the out-of-order count, Retx the RETX echo and ECNEcho the M flag; on a
// NACK, Packet.PSN is the NACKed PSN and ECNEcho the M flag. Entropy is the entropy value
// the data packet was sent with, echoed by its ACK or NACK.
type UETFields struct {
	SACKBitmap uint64
	SACKBase   uint32
	CumPSN     uint32
	RecvdBytes uint32
	DMALen     uint32
	Offset     uint32
	// Credit, for RCCC, the receiver-credit congestion control: a data packet with CCReq is
	// a RUD_CC_REQ, whose PDS header carries the sender's credit target, Credit, in 256-byte
	// units; a KindCredit packet is a PDS control packet, CREDIT (Credit: the cumulative
	// credit the receiver grants, in 256-byte units) or, with CreditRequest, CREDIT_REQ (the
	// sender's credit target, when it has none left and the receiver may not know).
	Credit  uint32
	OOO     uint16
	Entropy uint16
	Opcode  uint8
	AckReq  bool
	Retx    bool
	ECNEcho bool
	CCReq   bool
	// CreditRequest: see Credit.
	CreditRequest bool
	// AckRequest on a KindCredit packet makes it the PDS control packet ACK_REQ (the UET
	// sender asks its receiver for an ACK at once); on a KindAck, simulation metadata: the
	// ACK answers an ACK_REQ, so it gives no RTT sample and no entropy feedback.
	AckRequest bool
}

// TCPFields are a TCP segment's header (RFC 9293; the ports are Packet.SrcPort and DstPort)
// with its options, and the MPA (RFC 5044) and DDP/RDMAP (RFC 5041, 5040) it carries.
type TCPFields struct {
	Seq, AckNum uint32
	Flags       uint8 // TCPFlag* bits
	// Timestamps says the segment carries the RFC 7323 timestamps option; TSVal and TSEcr are
	// its values (fabricsim's timestamp clock ticks every nanosecond).
	Timestamps bool
	// SACKPermitted, on a SYN, is the RFC 2018 option. A SYN also carries MSS and window
	// scale options.
	SACKPermitted bool
	// SACKBlocks is the number of RFC 2018 SACK blocks in SACK (left edge, right edge).
	SACKBlocks   uint8
	TSVal, TSEcr uint32
	SACK         [TCPMaxSACKs][2]uint32

	// MPA is one of MPANone, MPARequest, MPAReply, MPAFPDU. An FPDU carries Packet.Payload
	// bytes of DDP payload behind a tagged (RDMA WRITE) or untagged DDP header, MPAMarkers
	// markers inside its TCP payload, and DDPLast on the last segment of a message. Request
	// and reply frames carry MPAPrivate bytes of private data.
	MPA        uint8
	MPAMarkers uint8
	MPAPrivate uint16
	DDPTagged  bool
	DDPLast    bool
	// MPAWantMarkers, on an MPA Request or Reply, is its M flag: the sender asks for markers.
	MPAWantMarkers bool
	// DDPOffset is the tagged offset of a tagged DDP segment (its payload's offset in the
	// message, the sink buffer starting at 0) or the message offset of an untagged one.
	DDPOffset uint32
	// MPAStream is where the segment starts in the FPDU stream: the sequence number less the
	// first FPDU's. Markers sit at its multiples of MPAMarkerInterval.
	MPAStream uint32
}

// PauseFields are a MAC Control PFC frame's payload (IEEE 802.1Qbb).
type PauseFields struct {
	Enable uint8                 // class-enable vector: bit c set = timer c is valid
	Quanta [NumPriorities]uint16 // pause time per class, in 512-bit-time quanta
}

// IB is the packet's IB transport headers: the extension read as a RoCE packet's.
func (p *Packet) IB() *IBFields { return (*IBFields)(unsafe.Pointer(&p.ext)) }

// UET is the packet's PDS and SES fields: the extension read as a UET packet's.
func (p *Packet) UET() *UETFields { return (*UETFields)(unsafe.Pointer(&p.ext)) }

// TCP is the packet's TCP header, MPA and DDP: the extension read as a TCP segment's.
func (p *Packet) TCP() *TCPFields { return (*TCPFields)(unsafe.Pointer(&p.ext)) }

// Pause is the packet's PFC payload: the extension read as a MAC Control frame's.
func (p *Packet) Pause() *PauseFields { return (*PauseFields)(unsafe.Pointer(&p.ext)) }
