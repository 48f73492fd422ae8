package topology

// Header and framing sizes in bytes. Sources: IEEE 802.3 (Ethernet framing), IEEE 802.1Q
// (VLAN tag), RFC 791 (IPv4), RFC 768 (UDP), InfiniBand Architecture Specification vol. 1
// (BTH, RETH, AETH, ICRC), IBA annex A17 (RoCE v2: UDP destination port 4791).
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
	// IRNSACK is what an IRN NAK carries after its AETH: the PSN of the packet that revealed
	// the gap, in a 24-bit field behind a reserved byte, as the BTH carries PSNs (Mittal et
	// al., SIGCOMM 2018, extend the NACK with it; the paper gives no layout).
	IRNSACK = 4

	// The Ultra Ethernet transport's headers (UE Specification 1.0.1, as Wireshark's UET
	// dissector, epan/dissectors/packet-uet.c, lays them out: UET_PDS_RUD_ROD_MIN_HDR_LEN,
	// UET_SES_STD_MIN_HDR_LEN, UET_PDS_ACK_EXT_HDR_SIZE, dissect_pds_ack, dissect_pds_nack).
	// PDSRUDHeader is a RUD request's PDS header: type, next header and flags 2, clear PSN
	// offset 2, PSN 4, SPDCID 2, DPDCID 2. SESStandardHeader is the SES standard request
	// header (opcode, flags, message id, job id, PID on FEP, resource index, buffer offset,
	// initiator, match bits, header data or payload length and message offset, request
	// length). PDSAckCCHeader is a PDS ACK_CC: the 12-byte ACK (prologue, ACK PSN offset,
	// cumulative ACK PSN, SPDCID, DPDCID) and its 20-byte extension (CC type, MPR, SACK PSN
	// offset 2, SACK bitmap 8, NSCC CC state 8). PDSNackHeader is a PDS NACK: prologue 2, NACK
	// code, vendor code, NACK PSN 4, SPDCID 2, DPDCID 2, maximum received PSN 4. Over UDP the
	// entropy rides in the UDP source port, so no entropy header.
	PDSRUDHeader      = 12
	SESStandardHeader = 44
	PDSAckCCHeader    = 32
	PDSNackHeader     = 16
	// PDSRUDCCHeader is a RUD_CC_REQ's PDS header, a RUD request's with the request CC state
	// behind it: CCC id 1 and credit target 3 (UET_PDS_RUD_ROD_CC_MIN_HDR_LEN). PDSControlHeader
	// is a PDS control packet (CREDIT, CREDIT_REQ): prologue 2 (its next-header bits the
	// control type), probe opaque 2, PSN 4, SPDCID 2, DPDCID 2, payload 4 (dissect_pds_ctl).
	PDSRUDCCHeader   = 16
	PDSControlHeader = 16

	// A PFC frame's MAC Control payload (IEEE 802.1Qbb clause 36): the opcode, the
	// class-enable vector and a pause timer per class.
	MACControlOpcode = 2
	PFCClassEnable   = 2
	PFCTimer         = 2

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
	// UDPPortUET is the UDP destination port of the Ultra Ethernet transport (IANA-assigned
	// to UEC; Wireshark's UET dissector, epan/dissectors/packet-uet.c, UDP_PORT_UET).
	UDPPortUET = 4793
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

// TCP (RFC 9293) and its options. Option lengths are as Linux lays them out, which pads
// every option to a 32-bit boundary with NOPs: timestamps NOP NOP TS (RFC 7323 appendix A),
// a SYN's MSS (kind 2, 4 bytes), NOP + window scale (kind 3, 3 bytes; RFC 7323) and NOP NOP
// SACK-permitted (kind 4, 2 bytes; RFC 2018), which takes the timestamps' two NOPs when both
// are present; SACK (kind 5): 2 bytes + 8 per block, padded to 4 (RFC 2018).
const (
	TCPHeader       = 20 // without options
	TCPOptionsMax   = 40 // the data offset field allows 60 bytes of header
	TCPTimestamps   = 12 // NOP, NOP, kind 8, length 10, TSval, TSecr
	TCPOptMSS       = 4
	TCPOptWScale    = 4 // NOP + kind 3, length 3, shift
	TCPOptSACKPerm  = 4 // NOP, NOP, kind 4, length 2
	TCPSACKBase     = 2 // kind 5, length
	TCPSACKBlock    = 8 // left and right edge, 32 bits each
	TCPMaxSACKs     = 4 // (40 - 2) / 8: blocks that fit without timestamps (3 with them)
	TCPHeaderWithTS = TCPHeader + TCPTimestamps
)

// TCP control bits (RFC 9293 section 3.1; ECE and CWR from RFC 3168).
const (
	TCPFlagFIN = 0x01
	TCPFlagSYN = 0x02
	TCPFlagRST = 0x04
	TCPFlagPSH = 0x08
	TCPFlagACK = 0x10
	TCPFlagURG = 0x20
	TCPFlagECE = 0x40
	TCPFlagCWR = 0x80
)

// MPA (RFC 5044), DDP (RFC 5041) and RDMAP (RFC 5040): the iWARP layers between TCP and the
// payload.
const (
	MPAULPDULength    = 2   // FPDU header: ULPDU length
	MPACRC            = 4   // CRC32c trailer of every FPDU
	MPAAlignment      = 4   // an FPDU (length field + ULPDU + pad) is padded to a multiple of 4
	MPAMarker         = 4   // 2 reserved + 2 FPDU pointer, when markers are negotiated
	MPAMarkerInterval = 512 // a marker every 512 bytes of TCP sequence space, from the first FPDU
	// MPAReqRepHeader is the MPA Request and Reply frames' fixed part: the 16-byte key
	// ("MPA ID Req Frame" / "MPA ID Rep Frame"), the M/C/R flags byte, the revision byte and the
	// 2-byte private data length. The private data follows.
	MPAReqRepHeader   = 20
	DDPTaggedHeader   = 14 // DDP control, RDMAP control, STag 4, tagged offset 8 (RDMA WRITE, READ Response)
	DDPUntaggedHeader = 18 // DDP control, RDMAP control, reserved 4, QN 4, MSN 4, MO 4 (Send, READ Request)
	// MPAFPDUOverhead is what MPA and a tagged DDP segment add to the payload of an FPDU
	// whose length needs no padding, before markers.
	MPAFPDUOverhead = MPAULPDULength + DDPTaggedHeader + MPACRC
)

// MPA frame kinds carried by a TCP segment (Packet.MPA).
const (
	MPANone    = iota // no MPA content: a pure ACK, a SYN
	MPARequest        // the initiator's MPA Request frame (start-up phase)
	MPAReply          // the responder's MPA Reply frame
	MPAFPDU           // an FPDU of the full operation phase
)

// TCPPortIWARP is the destination port of fabricsim's iWARP connections. iWARP has no
// well-known port (the application chooses it); this is the default of perftest's
// ib_write_bw, the usual RDMA WRITE benchmark.
const TCPPortIWARP = 18515
