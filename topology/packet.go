package topology

import "github.com/fabricsim/fabricsim/sim"

// Kind classifies a packet for accounting. It is simulation metadata, not a header field.
type Kind uint8

// Packet kinds.
const (
	KindData  Kind = iota // carries message payload
	KindAck               // transport acknowledgement
	KindNak               // transport negative acknowledgement
	KindCNP               // congestion notification
	KindPause             // link-level flow control frame
	NumKinds
)

var kindNames = [NumKinds]string{"data", "ack", "nak", "cnp", "pause"}

func (k Kind) String() string { return kindNames[k] }

// Packet is one frame with its header stack. Header fields hold what the standards put on
// the wire; the fields after Payload are simulation metadata. Packets come from a Pool and
// go back to it when delivered or dropped, so the steady state allocates nothing.
type Packet struct {
	// Ethernet (IEEE 802.3), optionally 802.1Q-tagged.
	EtherType uint16
	Tagged    bool  // an 802.1Q tag is present
	PCP       uint8 // 802.1Q priority code point

	// IPv4 (RFC 791), when EtherType is EtherTypeIPv4.
	SrcIP, DstIP IPv4
	DSCP         uint8
	ECN          uint8
	TTL          uint8
	Protocol     uint8

	// UDP (RFC 768).
	SrcPort, DstPort uint16

	// IB transport: BTH, then RETH or AETH when present.
	Opcode   uint8
	AckReq   bool
	DestQP   uint32
	PSN      uint32
	HasRETH  bool
	DMALen   uint32 // RETH DMA length: the whole message
	HasAETH  bool
	Syndrome uint8
	MSN      uint32

	// Payload is the number of application bytes the packet carries.
	Payload int32

	// Simulation metadata.
	Kind        Kind
	Priority    uint8    // traffic class: selects the egress queue
	Flow        int32    // index of the flow the packet belongs to
	Src, Dst    NodeID   // source and destination hosts
	Hash        uint32   // ECMP hash of the 5-tuple
	CrossSubnet bool     // source and destination are in different subnets
	Routed      bool     // has crossed a layer-3 switch (needed before a cross-subnet packet may be bridged to its host)
	Frame       int32    // frame bytes, destination address through FCS; set by Seal
	SentAt      sim.Time // when the source started to send it
	InPort      int32    // ingress port at the current switch
	epoch       uint32   // the wire's epoch when it entered the wire
	dropped     bool     // marked lost on the wire
	next        *Packet  // queue and free-list link
}

// Seal computes the frame size from the header stack. Call it after the headers are set.
func (p *Packet) Seal() {
	n := int32(EthernetHeader + FCS)
	if p.Tagged {
		n += VLANTag
	}
	switch p.EtherType {
	case EtherTypeIPv4:
		n += IPv4Header
		if p.Protocol == IPProtoUDP {
			n += UDPHeader
			if p.DstPort == UDPPortRoCEv2 {
				n += p.ibTransportBytes()
			}
		}
	case EtherTypeMACControl:
		// opcode, class-enable vector and eight timers, padded to the minimum frame
	}
	n += p.Payload
	if n < MinFrame {
		n = MinFrame
	}
	p.Frame = n
}

func (p *Packet) ibTransportBytes() int32 {
	n := int32(BTHHeader + ICRC)
	if p.HasRETH {
		n += RETHHeader
	}
	if p.HasAETH {
		n += AETHHeader
	}
	if p.Opcode == OpCNP {
		n += CNPPad
	}
	return n
}

// WireBytes is what the frame occupies on the wire: the frame plus preamble, start-of-frame
// delimiter and inter-frame gap.
func (p *Packet) WireBytes() int64 { return int64(p.Frame) + WireOverhead }

// Pool recycles packets and keeps the books: every packet taken is, at any moment, either
// delivered, dropped or still in the network.
type Pool struct {
	free      *Packet
	Taken     [NumKinds]int64
	Delivered [NumKinds]int64
	Dropped   [NumKinds]int64
}

// Get returns a zeroed packet of kind k.
func (pl *Pool) Get(k Kind) *Packet {
	p := pl.free
	if p != nil {
		pl.free = p.next
		*p = Packet{}
	} else {
		p = new(Packet)
	}
	p.Kind = k
	pl.Taken[k]++
	return p
}

// Deliver returns a packet that reached its destination.
func (pl *Pool) Deliver(p *Packet) {
	pl.Delivered[p.Kind]++
	pl.put(p)
}

// Drop returns a packet that was lost; the caller counts the reason.
func (pl *Pool) Drop(p *Packet) {
	pl.Dropped[p.Kind]++
	pl.put(p)
}

func (pl *Pool) put(p *Packet) {
	p.next = pl.free
	pl.free = p
}

// InNetwork is the number of packets of kind k taken and not yet delivered or dropped.
func (pl *Pool) InNetwork(k Kind) int64 { return pl.Taken[k] - pl.Delivered[k] - pl.Dropped[k] }
