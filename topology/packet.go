package topology

import "github.com/fabricsim/fabricsim/sim"

// Kind classifies a packet for accounting. It is simulation metadata, not a header field.
type Kind uint8

// Packet kinds.
const (
	KindData   Kind = iota // carries message payload
	KindAck                // transport acknowledgement
	KindNak                // transport negative acknowledgement
	KindCNP                // congestion notification
	KindPause              // link-level flow control frame
	KindCredit             // a UET PDS control packet: CREDIT or CREDIT_REQ (RCCC), or ACK_REQ
	NumKinds
)

var kindNames = [NumKinds]string{"data", "ack", "nak", "cnp", "pause", "credit"}

func (k Kind) String() string { return kindNames[k] }

// Packet is one frame with its header stack. Header fields hold what the standards put on
// the wire; the fields after Payload are simulation metadata. Packets come from a Pool and
// go back to it when delivered or dropped, so the steady state allocates nothing.
type Packet struct {
	// The datapath's working set comes first, to fit one 64-byte cache line: a packet that
	// waited in a deep queue costs one cache miss when it moves on, not two.
	next     *Packet  // queue, wire and free-list link
	nextAt   sim.Time // on a wire: when the frame behind it arrives, so the wire's next event reads this packet, not that one
	Frame    int32    // frame bytes, destination address through FCS; set by Seal
	Flow     int32    // index of the flow the packet belongs to
	Src, Dst NodeID   // source and destination hosts
	Hash     uint32   // ECMP hash of the 5-tuple
	InPort   int32    // ingress port at the current switch
	// INT, when not nil, is the packet's in-band telemetry header (HPCC flows only; see
	// int.go): INTHeader bytes between the IB transport headers and the payload. It is a
	// pointer into the pool's INT records, so packets without it carry 8 bytes, not 200; it
	// sits in the first cache line because every switch looks at it.
	INT         *INT
	epoch       uint32 // the wire's epoch when it entered the wire
	Kind        Kind   // for accounting: data, ACK, ...
	Priority    uint8  // traffic class: selects the egress queue
	TTL         uint8  // IPv4 time to live
	ECN         uint8  // IPv4 ECN codepoint
	CrossSubnet bool   // source and destination are in different subnets
	Routed      bool   // has crossed a layer-3 switch (needed before a cross-subnet packet may be bridged to its host)
	dropped     bool   // marked lost on the wire
	home        uint8  // the pool that took it (Pool.id): where it goes back
	ahead       uint16 // the port the next switch forwards it on, plus one, found by the sender (Forwarding.Ahead); 0: not found

	// The endpoints' fields, which switches do not read (but for Trimmable and Trimmed, which a
	// trimming switch reads on the rare packet it would otherwise drop).
	PSN     uint32 // BTH packet sequence number
	Payload int32  // application bytes carried
	// Trimmable says the sender's transport takes a trimmed packet as a loss notice, so a
	// trimming switch may cut the packet to its headers instead of dropping it (NDP, UEC's
	// packet trimming). Trimmed says a switch did: the payload is gone (Payload 0) and the
	// headers travel in the switch's trim class. On an IRN NAK, Trimmed says SACK[0][0] is
	// the PSN a switch trimmed, not one the responder holds.
	Trimmable, Trimmed bool

	// Ethernet (IEEE 802.3), optionally 802.1Q-tagged.
	EtherType uint16
	Tagged    bool  // an 802.1Q tag is present
	PCP       uint8 // 802.1Q priority code point

	// IPv4 (RFC 791), when EtherType is EtherTypeIPv4; TTL and ECN are above.
	SrcIP, DstIP IPv4
	DSCP         uint8
	Protocol     uint8
	// IPID is the identification field: each direction of a connection counts its
	// datagrams, as Linux does for a connected socket (RFC 6864 allows any value with DF).
	IPID uint16

	// UDP (RFC 768).
	SrcPort, DstPort uint16

	// IB transport: BTH (PSN is above), then RETH or AETH when present.
	Opcode   uint8
	AckReq   bool
	HasRETH  bool
	HasAETH  bool
	DestQP   uint32
	DMALen   uint32 // RETH DMA length: the whole message
	Syndrome uint8
	MSN      uint32

	// TCP (RFC 9293), when Protocol is IPProtoTCP; the ports are SrcPort and DstPort above.
	Seq, AckNum uint32
	TCPFlags    uint8 // TCPFlag* bits
	// Timestamps says the segment carries the RFC 7323 timestamps option; TSVal and TSEcr are
	// its values (fabricsim's timestamp clock ticks every nanosecond).
	Timestamps   bool
	TSVal, TSEcr uint32
	// SACKPermitted, on a SYN, is the RFC 2018 option. A SYN also carries MSS and window
	// scale options.
	SACKPermitted bool
	// SACKBlocks is the number of RFC 2018 SACK blocks in SACK (left edge, right edge). On
	// an IRN NAK (an IB packet with an AETH) it is 1 and SACK[0][0] is the PSN that revealed
	// the gap, carried in the IRNSACK bytes after the AETH.
	SACKBlocks uint8
	SACK       [TCPMaxSACKs][2]uint32

	// MPA (RFC 5044) and DDP/RDMAP (RFC 5041, 5040) carried by the TCP segment. MPA is one of
	// MPANone, MPARequest, MPAReply, MPAFPDU. An FPDU carries Payload bytes of DDP payload
	// behind a tagged (RDMA WRITE) or untagged DDP header, MPAMarkers markers inside its TCP
	// payload, and DDPLast on the last segment of a message. Request and reply frames carry
	// MPAPrivate bytes of private data.
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

	// MAC Control PFC frame (IEEE 802.1Qbb), when EtherType is EtherTypeMACControl.
	PauseEnable uint8                 // class-enable vector: bit c set = timer c is valid
	PauseQuanta [NumPriorities]uint16 // pause time per class, in 512-bit-time quanta

	SentAt sim.Time // when the source started to send it

	// The Ultra Ethernet transport's PDS fields (UDP destination port UDPPortUET; PSN above is
	// the PDS PSN). On a RUD request, Retx is the PDS RETX flag, AckReq the AR flag, Opcode
	// (OpWrite*) the SES start and end of message, DMALen the message length and DDPOffset the
	// payload's offset in it. On a
	// PDS ACK (ACK_CC), CumPSN is the cumulative PSN (the next one expected), SACKBase the PSN
	// of SACKBitmap's bit 0 (the SACK PSN offset's base), PSN the PSN whose arrival triggered
	// the ACK, RecvdBytes NSCC's received byte count (the CC state's rcvd_bytes), OOO the
	// out-of-order count, Retx the RETX echo and ECNEcho the M flag; on a NACK, PSN is the
	// NACKed PSN and ECNEcho the M flag. Entropy is the entropy value the data packet was sent
	// with, echoed by its ACK or NACK.
	SACKBitmap uint64
	SACKBase   uint32
	CumPSN     uint32
	RecvdBytes uint32
	OOO        uint16
	Entropy    uint16
	Retx       bool
	ECNEcho    bool
	// RCCC, the receiver-credit congestion control: a data packet with CCReq is a RUD_CC_REQ,
	// whose PDS header carries the sender's credit target, Credit, in 256-byte units; a
	// KindCredit packet is a PDS control packet, CREDIT (Credit: the cumulative credit the
	// receiver grants, in 256-byte units) or, with CreditRequest, CREDIT_REQ (the sender's
	// credit target, when it has none left and the receiver may not know).
	Credit        uint32
	CCReq         bool
	CreditRequest bool
	// AckRequest on a KindCredit packet makes it the PDS control packet ACK_REQ (the UET
	// sender asks its receiver for an ACK at once); on a KindAck, simulation metadata: the
	// ACK answers an ACK_REQ, so it gives no RTT sample and no entropy feedback.
	AckRequest bool

	// A Packet is 256 bytes: the pool allocates packets in slabs, and a size that is a
	// multiple of 64 keeps every packet's first 64 bytes, the datapath's, in one cache line
	// (at 208 bytes three packets in four had them across two).
	_ [1]byte
}

// NumPriorities is the number of 802.1Q priorities, traffic classes and PFC timers.
const NumPriorities = 8

// Seal computes the frame size from the header stack. Call it after the headers are set.
func (p *Packet) Seal() {
	n := int32(EthernetHeader+FCS) + p.Datagram()
	if p.Tagged {
		n += VLANTag
	}
	if n < MinFrame {
		n = MinFrame
	}
	p.Frame = n
}

// Datagram is what the Ethernet frame carries behind its header (and tag), without the
// padding to the minimum frame: the IPv4 datagram, the GRH packet, or the MAC Control
// payload's opcode, class-enable vector and eight timers.
func (p *Packet) Datagram() int32 {
	var n int32
	switch p.EtherType {
	case EtherTypeIPv4:
		n += IPv4Header
		switch p.Protocol {
		case IPProtoUDP:
			n += UDPHeader
			switch p.DstPort {
			case UDPPortRoCEv2:
				n += p.ibTransportBytes()
			case UDPPortUET:
				n += p.uetBytes()
			}
		case IPProtoTCP:
			n += p.TCPHeaderBytes() + p.mpaBytes()
		}
	case EtherTypeRoCEv1:
		n += GRHHeader + p.ibTransportBytes()
	case EtherTypeMACControl:
		return MACControlOpcode + PFCClassEnable + PFCTimer*NumPriorities
	}
	return n + p.Payload
}

// TCPHeaderBytes is the TCP header with its options: 20 bytes, plus 12 for timestamps, plus
// on a SYN the MSS and window-scale options and SACK-permitted (which shares the timestamps'
// padding when both are present), plus on an ACK with SACK blocks 2 + 8 per block padded to a
// multiple of 4 (see the TCP constants for the layout).
func (p *Packet) TCPHeaderBytes() int32 {
	n := int32(TCPHeader)
	if p.Timestamps {
		n += TCPTimestamps
	}
	if p.TCPFlags&TCPFlagSYN != 0 {
		n += TCPOptMSS + TCPOptWScale
		if p.SACKPermitted && !p.Timestamps {
			n += TCPOptSACKPerm
		}
	}
	if p.SACKBlocks > 0 {
		n += pad4(TCPSACKBase + TCPSACKBlock*int32(p.SACKBlocks))
	}
	return n
}

// mpaBytes is what the iWARP layers add to the payload in the TCP segment: for an FPDU the
// ULPDU length, the DDP header, the pad that aligns length field + ULPDU to 4 bytes, the
// CRC32c and the markers; for an MPA Request or Reply the frame and its private data.
func (p *Packet) mpaBytes() int32 {
	switch p.MPA {
	case MPAFPDU:
		hdr := int32(DDPUntaggedHeader)
		if p.DDPTagged {
			hdr = DDPTaggedHeader
		}
		framed := pad4(MPAULPDULength + hdr + p.Payload)
		return framed - p.Payload + MPACRC + MPAMarker*int32(p.MPAMarkers)
	case MPARequest, MPAReply:
		return MPAReqRepHeader + int32(p.MPAPrivate)
	}
	return 0
}

// pad4 rounds n up to a multiple of 4.
func pad4(n int32) int32 { return (n + 3) &^ 3 }

func (p *Packet) ibTransportBytes() int32 {
	n := int32(BTHHeader + ICRC)
	if p.HasRETH {
		n += RETHHeader
	}
	if p.HasAETH {
		n += AETHHeader
		if p.SACKBlocks > 0 {
			n += IRNSACK
		}
	}
	if p.Opcode == OpCNP {
		n += CNPPad
	}
	if p.INT != nil {
		n += INTHeader
	}
	return n
}

// uetBytes is the Ultra Ethernet transport's headers behind the UDP header: a data packet's
// PDS RUD request header and SES standard request header, an ACK's PDS ACK with its CC
// extension, a NACK's PDS NACK header, a credit's PDS control packet header. A data packet
// that carries RCCC's credit target is a RUD_CC_REQ, its PDS header PDSRUDCCHeader.
func (p *Packet) uetBytes() int32 {
	switch p.Kind {
	case KindAck:
		return PDSAckCCHeader
	case KindNak:
		return PDSNackHeader
	case KindCredit:
		return PDSControlHeader
	}
	if p.CCReq {
		return PDSRUDCCHeader + SESStandardHeader
	}
	return PDSRUDHeader + SESStandardHeader
}

// WireBytes is what the frame occupies on the wire: the frame plus preamble, start-of-frame
// delimiter and inter-frame gap.
func (p *Packet) WireBytes() int64 { return int64(p.Frame) + WireOverhead }

// countKind is the number of packets of kind k in the list that starts at p (linked through
// next: a queue's or a wire's).
func countKind(p *Packet, k Kind) (n int64) {
	for ; p != nil; p = p.next {
		if p.Kind == k {
			n++
		}
	}
	return n
}
