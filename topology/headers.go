package topology

// Header and framing sizes in bytes. Sources: IEEE 802.3 (Ethernet framing), IEEE 802.1Q
// (VLAN tag), RFC 791 (IPv4), RFC 768 (UDP), InfiniBand Architecture Specification vol. 1
// (BTH, RETH, AETH, ICRC), IBA annex A17 (RoCE v2: UDP destination port 4791). See
// shared/notes/physics-references.md section 1.1.
const (
	PreambleSFD    = 8  // preamble and start-of-frame delimiter
	InterFrameGap  = 12 // minimum idle between frames
	EthernetHeader = 14 // destination, source, EtherType
	VLANTag        = 4  // 802.1Q tag; its PCP field carries the priority
	FCS            = 4  // frame check sequence
	MinFrame       = 64 // minimum frame, destination address through FCS

	GRHHeader  = 40 // IB global route header: what RoCE v1 carries instead of IP and UDP
	IPv4Header = 20
	UDPHeader  = 8
	BTHHeader  = 12 // IB base transport header
	RETHHeader = 16 // RDMA extended transport header (first/only packet of a WRITE)
	AETHHeader = 4  // ACK extended transport header (ACK, NAK)
	ICRC       = 4  // invariant CRC of IB transport packets
	CNPPad     = 16 // reserved bytes after the BTH of a RoCE v2 CNP (mlx5, rxe)

	// WireOverhead is what each frame costs on the wire beyond its own bytes.
	WireOverhead = PreambleSFD + InterFrameGap
)

// EtherTypes and protocol numbers.
const (
	EtherTypeIPv4       = 0x0800
	EtherTypeMACControl = 0x8808 // PFC pause frames (IEEE 802.1Qbb)
	EtherTypeRoCEv1     = 0x8915 // RoCE v1: GRH follows the Ethernet header
	IPProtoUDP          = 17
	IPProtoTCP          = 6
	UDPPortRoCEv2       = 4791 // IANA-assigned destination port of RoCE v2
)

// IB base-transport opcodes (IBA vol. 1, table 38), reliable connection.
const (
	OpWriteFirst  = 0x06
	OpWriteMiddle = 0x07
	OpWriteLast   = 0x08
	OpWriteOnly   = 0x0A
	OpAcknowledge = 0x11
	OpCNP         = 0x81 // RoCE v2 congestion notification packet (IBA annex A17)
)

// AETH syndromes (IBA vol. 1, 9.7.5.1.2): the top bits say ACK or NAK; NAK code 0 is a PSN
// sequence error.
const (
	SyndromeACK         = 0x00
	SyndromeNAKSequence = 0x60
)

// ECN codepoints of the IP header (RFC 3168).
const (
	ECNNotECT = 0
	ECNECT1   = 1
	ECNECT0   = 2
	ECNCE     = 3
)
