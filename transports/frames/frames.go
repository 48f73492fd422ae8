// Package frames holds the header stacks and frame sizes of the transports' packets: which
// headers a RoCE, UET or iWARP packet carries below its payload, how an iWARP message is cut
// into FPDUs, one per TCP segment, and the wire size (frame, preamble and inter-frame gap)
// that topology.Packet.Seal gives each, built as the endpoints in transports build them.
// The endpoints set their packets' stacks here, and what sizes frames without running a
// flow (scenarios' PFC sizing, experiment's ideal completion times and round trips) asks
// here, so the header arithmetic is in one place and those callers need not import the
// endpoints. It imports topology only.
package frames

import "github.com/fabricsim/fabricsim/topology"

// RoCEStack sets the header stack of a RoCE packet below the BTH, which is what sizes it: for
// RoCE v2 Ethernet, IPv4 and UDP to port 4791 (IBA annex A17), for RoCE v1 Ethernet with an
// 802.1Q tag and the GRH, EtherType 0x8915 (IBA annex A16).
func RoCEStack(p *topology.Packet, version int) {
	if version == 1 {
		p.EtherType, p.Tagged = topology.EtherTypeRoCEv1, true
		return
	}
	p.EtherType = topology.EtherTypeIPv4
	p.Protocol, p.DstPort = topology.IPProtoUDP, topology.UDPPortRoCEv2
}

// RoCEWireBytes is the wire size (frame, preamble and inter-frame gap) of a RoCE WRITE packet
// of that version carrying payload bytes, built as the requester builds it: the first packet
// of a message (or its only one) carries a RETH. Headroom sizing and ideal completion times
// use it, so they count the bytes the requester sends.
func RoCEWireBytes(version int, payload int64, first bool) int64 {
	var p topology.Packet
	RoCEStack(&p, version)
	p.IB().HasRETH, p.Payload = first, int32(payload)
	p.Seal()
	return p.WireBytes()
}

// RoCEAckWireBytes is the wire size of a RoCE ACK of that version (BTH and AETH).
func RoCEAckWireBytes(version int) int64 {
	var p topology.Packet
	RoCEStack(&p, version)
	p.IB().Opcode, p.IB().HasAETH = topology.OpAcknowledge, true
	p.Seal()
	return p.WireBytes()
}

// UETHeaderBytes is what a UET data packet carries beyond its payload above UDP: the PDS
// RUD request and SES standard headers. NSCC's window counts a packet as its payload and
// these (uet-htsim counts payload + its 64-byte header, UecSrc::_mtu).
const UETHeaderBytes = topology.PDSRUDHeader + topology.SESStandardHeader

// UETStack sets the header stack of a UET packet below the PDS header: Ethernet, IPv4 and
// UDP to port 4793.
func UETStack(p *topology.Packet) {
	p.EtherType = topology.EtherTypeIPv4
	p.Protocol, p.DstPort = topology.IPProtoUDP, topology.UDPPortUET
}

// UETWireBytes is the wire size of a UET data packet carrying payload bytes: Ethernet, IPv4,
// UDP to port 4793, the PDS and SES headers, the payload, FCS, preamble and gap; with
// creditTarget the PDS header is a RUD_CC_REQ's, which carries RCCC's credit target.
func UETWireBytes(payload int64, creditTarget bool) int64 {
	var p topology.Packet
	UETStack(&p)
	p.Payload, p.UET().CCReq = int32(payload), creditTarget
	p.Seal()
	return p.WireBytes()
}

// UETAckWireBytes is the wire size of a UET ACK (PDS ACK_CC).
func UETAckWireBytes() int64 {
	p := topology.Packet{Kind: topology.KindAck}
	UETStack(&p)
	p.Seal()
	return p.WireBytes()
}
