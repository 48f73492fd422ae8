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
// the wire; Kind, the hash, the links and the times are simulation metadata. The headers
// every frame has (Ethernet, IPv4, UDP) are fields; the transport's own (IB, UET, TCP with
// MPA/DDP, a PFC frame's MAC Control payload) are one block of the packet's extension, which
// the blocks share (ext.go). Packets come from a Pool and go back to it when delivered or
// dropped, so the steady state allocates nothing.
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
	PSN     uint32 // packet sequence number: the BTH's (RoCE) or the PDS's (UET)
	Payload int32  // application bytes carried
	// Trimmable says the sender's transport takes a trimmed packet as a loss notice, so a
	// trimming switch may cut the packet to its headers instead of dropping it (NDP, UEC's
	// packet trimming). Trimmed says a switch did: the payload is gone (Payload 0) and the
	// headers travel in the switch's trim class. On an IRN NAK, Trimmed says IB().SACKPSN is
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

	SentAt sim.Time // when the source started to send it

	// ext holds the transport's own header fields, one block per transport sharing the same
	// bytes (ext.go): IB(), UET(), TCP() or Pause(), whichever the packet is. A transport's new
	// fields go into its block, not here: TestPacketFieldsOutsideTheExtension pins what is.
	ext [extWords]uint64
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
	t := p.TCP()
	n := int32(TCPHeader)
	if t.Timestamps {
		n += TCPTimestamps
	}
	if t.Flags&TCPFlagSYN != 0 {
		n += TCPOptMSS + TCPOptWScale
		if t.SACKPermitted && !t.Timestamps {
			n += TCPOptSACKPerm
		}
	}
	if t.SACKBlocks > 0 {
		n += pad4(TCPSACKBase + TCPSACKBlock*int32(t.SACKBlocks))
	}
	return n
}

// mpaBytes is what the iWARP layers add to the payload in the TCP segment: for an FPDU the
// ULPDU length, the DDP header, the pad that aligns length field + ULPDU to 4 bytes, the
// CRC32c and the markers; for an MPA Request or Reply the frame and its private data.
func (p *Packet) mpaBytes() int32 {
	t := p.TCP()
	switch t.MPA {
	case MPAFPDU:
		hdr := int32(DDPUntaggedHeader)
		if t.DDPTagged {
			hdr = DDPTaggedHeader
		}
		framed := pad4(MPAULPDULength + hdr + p.Payload)
		return framed - p.Payload + MPACRC + MPAMarker*int32(t.MPAMarkers)
	case MPARequest, MPAReply:
		return MPAReqRepHeader + int32(t.MPAPrivate)
	}
	return 0
}

// pad4 rounds n up to a multiple of 4.
func pad4(n int32) int32 { return (n + 3) &^ 3 }

func (p *Packet) ibTransportBytes() int32 {
	ib := p.IB()
	n := int32(BTHHeader + ICRC)
	if ib.HasRETH {
		n += RETHHeader
	}
	if ib.HasAETH {
		n += AETHHeader
		if ib.HasSACK {
			n += IRNSACK
		}
	}
	if ib.Opcode == OpCNP {
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
	if p.UET().CCReq {
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
