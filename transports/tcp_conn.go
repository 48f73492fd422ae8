package transports

import (
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// tcpConn holds what an iWARP sender and its receiver share: the flow, the addresses and
// ports, the initial sequence numbers and the layout of the message.
type tcpConn struct {
	reg      *Registry
	flow     *Flow
	index    int32
	src, dst *NIC
	cross    bool
	sport    uint16
	dataHash uint32 // ECMP hash of the data direction
	ackHash  uint32 // of the reverse direction (ports swapped)
	isn, irs uint32 // initial sequence numbers of the sender's stream and the receiver's
	// base is where the first FPDU lies in the sender's sequence space (after the SYN and
	// the MPA Request when there is a handshake); rlen is the length of the receiver's
	// stream (SYN-ACK and MPA Reply).
	base, rlen int64
	lay        frames.Layout
	cfg        IWARPConfig
	maxBlocks  int    // SACK blocks that fit in an ACK's options
	ipid       uint16 // the IPv4 identification of the next datagram this side sends
}

// tcpSourcePort is the ephemeral source port of flow i: in 49152-65535 (RFC 6335), so that
// flows between the same hosts spread over ECMP paths; under SourcePortQPN a hash of the
// flow's index, under SourcePortRandom a draw from the run's seed and the flow, as a host
// picks its ephemeral ports with a secret that differs from boot to boot (RFC 6056).
func (r *Registry) tcpSourcePort(rule SourcePort, i int32) uint16 {
	if rule == SourcePortQPN {
		return ephemeralPort(uint64(topology.FlowHash(topology.IPv4(i), 0x5eed, topology.IPProtoTCP, 0, 0)))
	}
	return ephemeralPort(r.draw("tcp", i))
}

// frame fills the Ethernet, IPv4 and TCP addressing of a segment from `from` to `to`.
func (c *tcpConn) frame(p *topology.Packet, from, to *NIC, hash uint32, sport, dport uint16) {
	p.EtherType = topology.EtherTypeIPv4
	p.SrcIP, p.DstIP = from.IP, to.IP
	p.DSCP = c.flow.Priority << 3 // class selector CSn (RFC 2474), as RoCE v2
	p.ECN = topology.ECNNotECT
	p.TTL = from.TTL
	p.IPID = c.ipid
	c.ipid++
	p.Protocol = topology.IPProtoTCP
	p.SrcPort, p.DstPort = sport, dport
	p.Priority = c.flow.Priority
	p.Flow = c.index
	p.Src, p.Dst = from.ID, to.ID
	p.Hash = hash
	p.CrossSubnet = c.cross
	p.TCP().Timestamps = c.cfg.Timestamps
}

// unwrap turns a 32-bit sequence number, relative to the ISN, into the 64-bit offset nearest
// to ref (sequence numbers wrap every 4 GiB; a message may be larger).
func unwrap(ref int64, v uint32) int64 { return ref + int64(int32(v-uint32(ref))) }
