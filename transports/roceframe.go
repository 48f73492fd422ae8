package transports

import "github.com/fabricsim/fabricsim/topology"

// roceStack sets the header stack of a RoCE packet below the BTH, which is what sizes it: for
// RoCE v2 Ethernet, IPv4 and UDP to port 4791 (IBA annex A17), for RoCE v1 Ethernet with an
// 802.1Q tag and the GRH, EtherType 0x8915 (IBA annex A16).
func roceStack(p *topology.Packet, version int) {
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
	roceStack(&p, version)
	p.HasRETH, p.Payload = first, int32(payload)
	p.Seal()
	return p.WireBytes()
}

// RoCEAckWireBytes is the wire size of a RoCE ACK of that version (BTH and AETH).
func RoCEAckWireBytes(version int) int64 {
	var p topology.Packet
	roceStack(&p, version)
	p.Opcode, p.HasAETH = topology.OpAcknowledge, true
	p.Seal()
	return p.WireBytes()
}

// sourcePort is the RoCE v2 UDP source port of a queue pair: IBA annex A17 lets it carry
// flow entropy for ECMP; like mlx5 it is drawn from 0xC000-0xFFFF by hashing the QPN.
func sourcePort(qpn uint32) uint16 {
	return 0xC000 | uint16(topology.FlowHash(topology.IPv4(qpn), 0, 0, 0, 0)&0x3FFF)
}

// frame fills the headers of a RoCE packet of the queue pair up to the BTH, from the
// requester to the responder, or back when reply: for RoCE v2 Ethernet/IPv4/UDP, for RoCE v1
// Ethernet with an 802.1Q tag and the GRH.
func (q *qp) frame(p *topology.Packet, reply bool) {
	src, dst, hash := q.srcID, q.dstID, q.dataHash
	srcIP, dstIP, ttl := q.srcIP, q.dstIP, q.srcTTL
	if reply {
		src, dst, hash = q.dstID, q.srcID, q.ackHash
		srcIP, dstIP, ttl = q.dstIP, q.srcIP, q.dstTTL
	}
	roceStack(p, int(q.version))
	p.DestQP = q.qpn
	p.Priority = q.priority
	p.Flow = q.index
	p.Src, p.Dst = src, dst
	p.Hash = hash
	if q.version == 1 {
		p.PCP = q.priority // RoCE v1's priority rides in the 802.1Q PCP
		return
	}
	p.SrcIP, p.DstIP, p.TTL = srcIP, dstIP, ttl
	// IP transports carry the priority in DSCP: class selector CSn = n << 3 (RFC 2474).
	p.DSCP = q.priority << 3
	p.ECN = topology.ECNNotECT // control frames are not ECN-capable; data sets ECT(0)
	p.IPID = q.ipid
	q.ipid++
	p.SrcPort = q.sport
	p.CrossSubnet = q.cross
}
