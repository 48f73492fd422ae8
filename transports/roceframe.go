package transports

import (
	"strconv"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// SourcePort is how a flow's source port, the entropy ECMP hashes besides the addresses, is
// chosen: the RoCE v2 UDP source port of a queue pair, the TCP source port of an iWARP
// connection.
type SourcePort uint8

// Source port rules.
const (
	// SourcePortRandom draws the port from the run's seed and the flow's index (Registry.Seed),
	// as a NIC picks it per queue pair and a host its ephemeral ports: a run under another
	// seed samples other ECMP paths for the same flows.
	SourcePortRandom SourcePort = iota
	// SourcePortQPN derives it from the QPN (RoCE) or the flow's index (iWARP) alone, as
	// Linux's rdma_get_udp_sport does from the QPNs when the GRH has no flow label: the same
	// paths whatever the seed.
	SourcePortQPN
	// SourcePortPerPacket gives every data packet the requester sends (each transmission,
	// resends included) a port of its own, from the queue pair's random port and a count of
	// its transmissions: host-side packet spraying, as multipath RoCE NICs do by varying the
	// entropy per packet, so that hashing switches spread one queue pair over every path.
	// ACKs, NAKs and CNPs keep the queue pair's port.
	SourcePortPerPacket
)

// ephemeralPort maps 14 bits of entropy into 0xC000-0xFFFF: RoCE v2's UDP source ports
// (Linux include/rdma/ib_verbs.h, rdma_flow_label_to_udp_sport: IB_ROCE_UDP_ENCAP_VALID_PORT_MIN
// 0xC000 to _MAX 0xFFFF) and the dynamic ports of RFC 6335, which TCP's ephemeral ports use.
func ephemeralPort(entropy uint64) uint16 { return 0xC000 | uint16(entropy&0x3FFF) }

// sourcePort is the RoCE v2 UDP source port of queue pair qpn, flow i of the registry. IBA
// annex A17 lets the port carry flow entropy for ECMP and leaves its choice to the NIC:
// under SourcePortQPN it is a hash of the QPN; under SourcePortRandom a draw from the
// run's seed and the flow (some drivers draw the flow label the port comes from at random
// per QP, e.g. Linux drivers/infiniband/hw/xsc's xsc_calc_roce_udp_flow_label).
func (r *Registry) sourcePort(rule SourcePort, qpn uint32, i int32) uint16 {
	if rule == SourcePortQPN {
		return ephemeralPort(uint64(topology.FlowHash(topology.IPv4(qpn), 0, 0, 0, 0)))
	}
	return ephemeralPort(r.draw("qp", i))
}

// spray gives data packet p the n-th port of the queue pair's per-packet sequence and the
// ECMP hash that goes with it (SourcePortPerPacket).
func (q *qp) spray(p *topology.Packet, n uint32) {
	sport := ephemeralPort(uint64(topology.FlowHash(topology.IPv4(n), topology.IPv4(q.qpn), 0, q.sport, 0)))
	p.SrcPort = sport
	p.Hash = topology.FlowHash(q.srcIP, q.dstIP, topology.IPProtoUDP, sport, topology.UDPPortRoCEv2)
}

// draw is one random number for flow i's component kind ("qp", "tcp"), from its own stream
// of the run's seed (DESIGN: every component its own stream, from the seed and its
// identity), so that adding a flow changes no other flow's draw but the later flows' indexes.
func (r *Registry) draw(kind string, i int32) uint64 {
	return sim.Stream(r.Seed, kind+":"+strconv.Itoa(int(i))).Uint64()
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
	frames.RoCEStack(p, int(q.version))
	p.IB().DestQP = q.qpn
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
