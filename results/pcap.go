package results

import (
	"bufio"
	"encoding/binary"
	"io"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// PcapWriter writes the frames a topology.Tap sees as a pcap file (nanosecond timestamps,
// link type Ethernet), one record per frame as its transmission starts, every header byte
// from the packet's fields so that Wireshark decodes RoCE v2 (UDP 4791), RoCE v1 (EtherType
// 0x8915), TCP and PFC frames. Payload bytes are zeros; the FCS is left out, as capture
// files do; ICRC and MPA CRC fields are zeros.
type PcapWriter struct {
	w   *bufio.Writer
	buf []byte
	err error
	// Frames counts the records written.
	Frames int64
}

// NewPcapWriter writes the pcap file header to w.
func NewPcapWriter(w io.Writer) *PcapWriter {
	pw := &PcapWriter{w: bufio.NewWriter(w), buf: make([]byte, 0, 16384)}
	var h [24]byte
	binary.LittleEndian.PutUint32(h[0:], 0xa1b23c4d) // nanosecond-resolution pcap
	binary.LittleEndian.PutUint16(h[4:], 2)
	binary.LittleEndian.PutUint16(h[6:], 4)
	binary.LittleEndian.PutUint32(h[16:], 65535) // snap length
	binary.LittleEndian.PutUint32(h[20:], 1)     // LINKTYPE_ETHERNET
	_, pw.err = pw.w.Write(h[:])
	return pw
}

// Frame implements topology.Tap.
func (pw *PcapWriter) Frame(at sim.Time, _ *topology.Wire, p *topology.Packet) {
	if pw.err != nil {
		return
	}
	b := EncodeFrame(pw.buf[:0], p)
	pw.buf = b
	var rec [16]byte
	ns := int64(at) / int64(sim.Nanosecond)
	binary.LittleEndian.PutUint32(rec[0:], uint32(ns/1e9))
	binary.LittleEndian.PutUint32(rec[4:], uint32(ns%1e9))
	binary.LittleEndian.PutUint32(rec[8:], uint32(len(b)))
	binary.LittleEndian.PutUint32(rec[12:], uint32(len(b)))
	if _, pw.err = pw.w.Write(rec[:]); pw.err == nil {
		_, pw.err = pw.w.Write(b)
	}
	pw.Frames++
}

// Close flushes the file; it returns the first write error.
func (pw *PcapWriter) Close() error {
	if pw.err != nil {
		return pw.err
	}
	return pw.w.Flush()
}

// mac is a node's made-up MAC address: locally administered, the node id in the low bytes.
func mac(n topology.NodeID) [6]byte {
	return [6]byte{0x02, 0, 0, byte(n >> 16), byte(n >> 8), byte(n)}
}

// EncodeFrame appends p's bytes, destination address through payload (no FCS), to b.
func EncodeFrame(b []byte, p *topology.Packet) []byte {
	start := len(b)
	dst, src := mac(p.Dst), mac(p.Src)
	if p.EtherType == topology.EtherTypeMACControl {
		dst = [6]byte{0x01, 0x80, 0xC2, 0x00, 0x00, 0x01} // 802.1Qbb: the reserved multicast
	}
	b = append(b, dst[:]...)
	b = append(b, src[:]...)
	if p.Tagged {
		b = be16(b, 0x8100)
		b = be16(b, uint16(p.PCP)<<13)
	}
	b = be16(b, p.EtherType)
	switch p.EtherType {
	case topology.EtherTypeMACControl:
		b = be16(b, 0x0101) // PFC opcode
		b = be16(b, uint16(p.PauseEnable))
		for _, q := range p.PauseQuanta {
			b = be16(b, q)
		}
	case topology.EtherTypeRoCEv1:
		b = grh(b, p)
		b = ibTransport(b, p)
	case topology.EtherTypeIPv4:
		b = ipv4(b, p)
	}
	// The rest of the frame (payload, pads) as zeros, to its exact length without the FCS.
	if n := start + int(p.Frame) - topology.FCS; len(b) < n {
		b = append(b, make([]byte, n-len(b))...)
	} else if len(b) > n {
		b = b[:n]
	}
	return b
}

func be16(b []byte, v uint16) []byte { return binary.BigEndian.AppendUint16(b, v) }
func be32(b []byte, v uint32) []byte { return binary.BigEndian.AppendUint32(b, v) }

// l3Length is the IP (or GRH payload) length: the frame minus Ethernet, tag and FCS.
func l3Length(p *topology.Packet) int {
	n := int(p.Frame) - topology.EthernetHeader - topology.FCS
	if p.Tagged {
		n -= topology.VLANTag
	}
	return n
}

func ipv4(b []byte, p *topology.Packet) []byte {
	h := len(b)
	total := l3Length(p)
	b = append(b, 0x45, p.DSCP<<2|p.ECN)
	b = be16(b, uint16(total))
	b = be16(b, 0)      // identification
	b = be16(b, 0x4000) // don't fragment
	b = append(b, p.TTL, p.Protocol)
	b = be16(b, 0) // checksum, below
	b = be32(b, uint32(p.SrcIP))
	b = be32(b, uint32(p.DstIP))
	var sum uint32
	for i := h; i < h+topology.IPv4Header; i += 2 {
		sum += uint32(b[i])<<8 | uint32(b[i+1])
	}
	for sum > 0xffff {
		sum = sum&0xffff + sum>>16
	}
	binary.BigEndian.PutUint16(b[h+10:], ^uint16(sum))
	switch p.Protocol {
	case topology.IPProtoUDP:
		b = be16(b, p.SrcPort)
		b = be16(b, p.DstPort)
		b = be16(b, uint16(total-topology.IPv4Header))
		b = be16(b, 0) // no UDP checksum (RoCE v2 may leave it zero)
		if p.DstPort == topology.UDPPortRoCEv2 {
			b = ibTransport(b, p)
		}
	case topology.IPProtoTCP:
		b = tcp(b, p)
	}
	return b
}

// grh is RoCE v1's IB global route header: IPv6-shaped, next header 0x1B (BTH).
func grh(b []byte, p *topology.Packet) []byte {
	b = be32(b, 6<<28|uint32(p.PCP)<<20)
	b = be16(b, uint16(l3Length(p)-topology.GRHHeader))
	b = append(b, 0x1B, 64)
	for _, n := range []topology.NodeID{p.Src, p.Dst} {
		gid := [16]byte{0xfe, 0x80, 10: 0xff, 11: 0xfe, 13: byte(n >> 16), 14: byte(n >> 8), 15: byte(n)}
		b = append(b, gid[:]...)
	}
	return b
}

// ibTransport is the BTH and the RETH or AETH behind it.
func ibTransport(b []byte, p *topology.Packet) []byte {
	b = append(b, p.Opcode, 0)     // opcode; SE, MigReq, pad count, TVer 0
	b = be16(b, 0xFFFF)            // default partition key
	b = be32(b, p.DestQP&0xFFFFFF) // reserved byte, destination QP
	ack := uint32(0)
	if p.AckReq {
		ack = 1 << 31
	}
	b = be32(b, ack|p.PSN&0xFFFFFF)
	switch {
	case p.HasRETH:
		b = binary.BigEndian.AppendUint64(b, 0) // virtual address
		b = be32(b, 0)                          // R_Key
		b = be32(b, p.DMALen)
	case p.HasAETH:
		b = be32(b, uint32(p.Syndrome)<<24|p.MSN&0xFFFFFF)
	}
	return b
}

func tcp(b []byte, p *topology.Packet) []byte {
	h := len(b)
	b = be16(b, p.SrcPort)
	b = be16(b, p.DstPort)
	b = be32(b, p.Seq)
	b = be32(b, p.AckNum)
	hdr := int(p.TCPHeaderBytes())
	b = append(b, byte(hdr/4)<<4, p.TCPFlags)
	b = be16(b, 0xFFFF) // window
	b = be16(b, 0)      // checksum (not computed)
	b = be16(b, 0)      // urgent pointer
	if p.TCPFlags&topology.TCPFlagSYN != 0 {
		b = append(b, 2, 4)
		b = be16(b, 1460)
		b = append(b, 1, 3, 3, 7) // NOP, window scale 7
		if p.SACKPermitted && !p.Timestamps {
			b = append(b, 1, 1, 4, 2)
		}
	}
	if p.Timestamps {
		b = append(b, 1, 1, 8, 10)
		b = be32(b, p.TSVal)
		b = be32(b, p.TSEcr)
	}
	if n := int(p.SACKBlocks); n > 0 {
		b = append(b, 1, 1, 5, byte(2+8*n))
		for i := 0; i < n; i++ {
			b = be32(b, p.SACK[i][0])
			b = be32(b, p.SACK[i][1])
		}
	}
	for len(b) < h+hdr {
		b = append(b, 1) // NOP padding to the header length
	}
	return b[:h+hdr]
}
