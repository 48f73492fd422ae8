package results

import (
	"bufio"
	"encoding/binary"
	"io"
	"slices"

	"github.com/fabricsim/fabricsim/header"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// PcapWriter writes the frames a topology.Tap sees as a pcap file (nanosecond timestamps,
// link type Ethernet), one record per frame as its transmission starts. Every header byte
// comes from the packet's fields, with the checksums and CRCs computed, so that Wireshark
// decodes RoCE v2 (UDP 4791), RoCE v1 (EtherType 0x8915), TCP with MPA, DDP and RDMAP
// (iWARP), and PFC frames, and finds every checksum good:
//
//   - Ethernet addresses are those of the link's two layer-3 ends (see
//     topology.Routes.FrameMACs): each router rewrites them, bridges do not. ARP is not
//     modelled, so no ARP frames appear.
//   - IPv4 has its identification (a counter per direction of a connection), DF and header
//     checksum; TCP its options and checksum; UDP a zero checksum, as RoCE v2 allows.
//   - RoCE packets end in their ICRC (IBA annex A16, A17), iWARP FPDUs in their CRC32c, with
//     markers where they were negotiated (RFC 5044).
//   - A frame shorter than the 64-byte minimum is padded with zeros after the datagram, as
//     Ethernet pads; the IP lengths do not count the padding.
//
// Payload bytes are zeros; the FCS is left out, as capture files do.
type PcapWriter struct {
	w      *bufio.Writer
	routes *topology.Routes
	buf    []byte
	rec    [16]byte // the record header, kept here: a local would escape into the writer
	err    error
	// Frames counts the records written.
	Frames int64
}

// NewPcapWriter writes the pcap file header to w. routes gives the frames their MAC
// addresses hop by hop; with nil routes every frame carries the end hosts' addresses.
func NewPcapWriter(w io.Writer, routes *topology.Routes) *PcapWriter {
	pw := &PcapWriter{w: bufio.NewWriter(w), routes: routes, buf: make([]byte, 0, 16384)}
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
func (pw *PcapWriter) Frame(at sim.Time, w *topology.Wire, p *topology.Packet) {
	if pw.err != nil {
		return
	}
	dst, src := HostMACs(p)
	if pw.routes != nil && w != nil {
		dst, src = pw.routes.FrameMACs(w.From, w.FromPort, p)
	}
	b := EncodeFrame(pw.buf[:0], p, dst, src)
	pw.buf = b
	rec := pw.rec[:]
	ns := int64(at) / int64(sim.Nanosecond)
	binary.LittleEndian.PutUint32(rec[0:], uint32(ns/1e9))
	binary.LittleEndian.PutUint32(rec[4:], uint32(ns%1e9))
	binary.LittleEndian.PutUint32(rec[8:], uint32(len(b)))
	binary.LittleEndian.PutUint32(rec[12:], uint32(len(b)))
	if _, pw.err = pw.w.Write(rec); pw.err == nil {
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

// HostMACs are the destination and source addresses of p's frame on a link between its two
// hosts (or a bridged path): the hosts' own; for a PFC frame the MAC Control multicast address
// and the source host's.
func HostMACs(p *topology.Packet) (dst, src topology.MAC) {
	if p.EtherType == topology.EtherTypeMACControl {
		return topology.MACPFC, topology.HostMAC(p.Src)
	}
	return topology.HostMAC(p.Dst), topology.HostMAC(p.Src)
}

// EncodeFrame appends p's bytes, destination address through payload (no FCS), to b, with
// the given addresses.
func EncodeFrame(b []byte, p *topology.Packet, dst, src topology.MAC) []byte {
	start := len(b)
	n := int(p.Frame) - topology.FCS
	b = slices.Grow(b, n)[:start+n] // no allocation once the buffer has grown
	f := b[start:]
	clear(f)
	eth := header.Ethernet(f)
	eth.Encode(dst, src, p.EtherType)
	off := header.EthernetSize
	if p.Tagged {
		header.VLANTag(f[12:]).Encode(p.PCP, p.EtherType)
		off += header.VLANTagSize
	}
	dg := f[off : off+int(p.Datagram())]
	switch p.EtherType {
	case topology.EtherTypeMACControl:
		pfcFrame(dg, p)
	case topology.EtherTypeRoCEv1:
		roceV1(dg, p)
	case topology.EtherTypeIPv4:
		ipv4(dg, p)
	}
	return b
}

// pfcOpcode is the MAC Control opcode of a priority-based flow control frame (IEEE 802.1Qbb
// clause 36.1.3).
const pfcOpcode = 0x0101

func pfcFrame(b []byte, p *topology.Packet) {
	binary.BigEndian.PutUint16(b[0:], pfcOpcode)
	binary.BigEndian.PutUint16(b[2:], uint16(p.Pause().Enable))
	for i, q := range p.Pause().Quanta {
		binary.BigEndian.PutUint16(b[4+2*i:], q)
	}
}

func ipv4(dg []byte, p *topology.Packet) {
	f := header.IPv4Fields{DSCP: p.DSCP, ECN: p.ECN, TotalLength: uint16(len(dg)), ID: p.IPID,
		TTL: p.TTL, Protocol: p.Protocol, Src: addr4(p.SrcIP), Dst: addr4(p.DstIP)}
	header.IPv4(dg).Encode(&f)
	seg := dg[header.IPv4MinimumSize:]
	switch p.Protocol {
	case topology.IPProtoUDP:
		header.UDP(seg).Encode(p.SrcPort, p.DstPort, uint16(len(seg)))
		switch p.DstPort {
		case topology.UDPPortRoCEv2:
			ibTransport(seg[header.UDPSize:], p)
			icrc := len(dg) - header.ICRCSize
			header.PutICRC(dg[icrc:], header.ICRCRoCEv2(dg[:icrc]))
		case topology.UDPPortUET:
			uet(seg[header.UDPSize:], p)
		}
	case topology.IPProtoTCP:
		tcp(seg, p)
		header.TCP(seg).SetChecksum(header.PseudoHeaderChecksum(p.Protocol, f.Src, f.Dst, uint16(len(seg))))
	}
}

// uet writes the Ultra Ethernet transport's PDS (and a request's SES) headers; the PDC
// identifier is the flow's index. A trimmed request keeps its headers.
func uet(b []byte, p *topology.Packet) {
	u, pdc := p.UET(), uint16(p.Flow)
	switch p.Kind {
	case topology.KindAck:
		header.EncodeAckCC(b, &header.PDSAckFields{AckPSN: p.PSN, CumPSN: u.CumPSN, SACKBase: u.SACKBase, PDC: pdc,
			Marked: u.ECNEcho, Retx: u.Retx, SACKBitmap: u.SACKBitmap, RecvdBytes: u.RecvdBytes, OOO: u.OOO})
	case topology.KindNak:
		header.EncodeNack(b, p.PSN, pdc, header.PDSNackTrimmed, u.ECNEcho)
	case topology.KindCredit:
		ctl := uint8(header.PDSControlCredit)
		switch {
		case u.CreditRequest:
			ctl = header.PDSControlCreditRequest
		case u.AckRequest:
			ctl = header.PDSControlAckRequest
		}
		header.EncodeControl(b, ctl, p.PSN, pdc, u.Credit)
	default:
		header.EncodeRUD(b, &header.PDSRUDFields{PSN: p.PSN, PDC: pdc, Retx: u.Retx, AR: u.AckReq, CC: u.CCReq, CreditTarget: u.Credit,
			SOM: u.Opcode == topology.OpWriteFirst || u.Opcode == topology.OpWriteOnly, EOM: u.Opcode == topology.OpWriteLast || u.Opcode == topology.OpWriteOnly,
			Length: u.DMALen, Offset: uint64(u.Offset), PayloadLen: uint32(p.Payload)})
	}
}

func addr4(a topology.IPv4) [4]byte {
	return [4]byte{byte(a >> 24), byte(a >> 16), byte(a >> 8), byte(a)}
}

// roceV1 is RoCE v1's GRH and IB transport: the GIDs are link-local, made from the node ids.
func roceV1(b []byte, p *topology.Packet) {
	gid := func(n topology.NodeID) [16]byte {
		return [16]byte{0xfe, 0x80, 10: 0xff, 11: 0xfe, 13: byte(n >> 16), 14: byte(n >> 8), 15: byte(n)}
	}
	header.GRH(b).Encode(p.PCP, uint16(len(b)-header.GRHSize), grhHopLimit, gid(p.Src), gid(p.Dst))
	ibTransport(b[header.GRHSize:], p)
	icrc := len(b) - header.ICRCSize
	header.PutICRC(b[icrc:], header.ICRCRoCEv1(b[:icrc]))
}

// grhHopLimit is the GRH hop limit of RoCE v1 packets, which never leave their subnet.
const grhHopLimit = 64

// irnTrimmedFlag is the IRNSACK reserved byte's value on a NAK that reports a trimmed PSN
// (fabricsim's layout: no standard defines IRN's NAK bytes).
const irnTrimmedFlag = 1 << 24

// ibTransport writes the BTH and the RETH or AETH behind it, an IRN NAK's selectively
// acknowledged PSN behind the AETH, and an HPCC packet's INT header behind those.
func ibTransport(b []byte, p *topology.Packet) {
	ib := p.IB()
	header.BTH(b).Encode(&header.BTHFields{Opcode: ib.Opcode, DestQP: ib.DestQP, AckReq: ib.AckReq, PSN: p.PSN, BECN: ib.BECN})
	b = b[header.BTHSize:]
	switch {
	case ib.HasRETH:
		header.RETH(b).Encode(0, 0, ib.DMALen)
		b = b[header.RETHSize:]
	case ib.HasAETH:
		header.AETH(b).Encode(ib.Syndrome, ib.MSN)
		if ib.HasSACK {
			v := ib.SACKPSN & 0xFFFFFF
			if p.Trimmed {
				v |= irnTrimmedFlag
			}
			binary.BigEndian.PutUint32(b[header.AETHSize:], v)
			b = b[topology.IRNSACK:]
		}
		b = b[header.AETHSize:]
	}
	if t := p.INT; t != nil {
		h := header.INT(b[:header.INTSize])
		h.SetHops(int(t.N))
		for i := range int(t.N) {
			r := &t.Hops[i]
			h.PutHop(i, header.INTRateCode(int64(r.Rate)), uint64(r.At/sim.Nanosecond), uint64(r.TxBytes), uint64(r.QLen))
		}
	}
}

// tcpWindow is the receive window every segment advertises (scaled by 2^7: 8 MB).
const tcpWindow = 0xFFFF

func tcp(b []byte, p *topology.Packet) {
	t := p.TCP()
	hdr := int(p.TCPHeaderBytes())
	header.TCP(b).Encode(&header.TCPFields{SrcPort: p.SrcPort, DstPort: p.DstPort, Seq: t.Seq,
		Ack: t.AckNum, HeaderLength: hdr, Flags: t.Flags, Window: tcpWindow})
	o := b[header.TCPMinimumSize:hdr]
	for i := range o {
		o[i] = header.TCPOptionNOP // padding between and after options
	}
	if t.Flags&topology.TCPFlagSYN != 0 {
		o[0], o[1] = header.TCPOptionMSS, 4
		binary.BigEndian.PutUint16(o[2:], 1460)
		o[5], o[6], o[7] = header.TCPOptionWS, 3, 7 // behind a NOP: window scale 7
		o = o[8:]
		if t.SACKPermitted && !t.Timestamps {
			o[2], o[3] = header.TCPOptionSACKPermitted, 2
			o = o[4:]
		}
	}
	if t.Timestamps {
		o[2], o[3] = header.TCPOptionTS, 10
		binary.BigEndian.PutUint32(o[4:], t.TSVal)
		binary.BigEndian.PutUint32(o[8:], t.TSEcr)
		o = o[12:]
	}
	if n := int(t.SACKBlocks); n > 0 {
		o[2], o[3] = header.TCPOptionSACK, byte(2+8*n)
		for i := 0; i < n; i++ {
			binary.BigEndian.PutUint32(o[4+8*i:], t.SACK[i][0])
			binary.BigEndian.PutUint32(o[8+8*i:], t.SACK[i][1])
		}
	}
	data := b[hdr:]
	switch t.MPA {
	case topology.MPARequest, topology.MPAReply:
		flags := uint8(header.MPAFlagCRC)
		if t.MPAWantMarkers {
			flags |= header.MPAFlagMarkers
		}
		header.MPAReqRep(data).Encode(t.MPA == topology.MPAReply, flags, t.MPAPrivate)
	case topology.MPAFPDU:
		fpdu(data, p)
	}
}

// fpduSTag is the steering tag of every flow's sink buffer: the model registers one buffer
// per connection, so any constant names it.
const fpduSTag = 0x00000100

// fpdu writes an FPDU into the TCP payload b: the ULPDU length, the DDP (and RDMAP) header,
// the payload (zeros) and the pad, with a marker in front of every byte whose place in the
// FPDU stream is a multiple of 512, then the CRC32c of all of it.
func fpdu(b []byte, p *topology.Packet) {
	t := p.TCP()
	var hdr [header.MPAULPDULengthSize + header.DDPUntaggedSize]byte
	ddp := header.DDP(hdr[header.MPAULPDULengthSize:])
	n := header.MPAULPDULengthSize
	if t.DDPTagged {
		ddp.EncodeTagged(t.DDPLast, header.RDMAPWrite, fpduSTag, uint64(t.DDPOffset))
		n += header.DDPTaggedSize
	} else {
		ddp.EncodeUntagged(t.DDPLast, header.RDMAPSend, header.DDPQueueSend, 1, t.DDPOffset)
		n += header.DDPUntaggedSize
	}
	ulpdu := n - header.MPAULPDULengthSize + int(p.Payload)
	binary.BigEndian.PutUint16(hdr[:], uint16(ulpdu))
	framed := (header.MPAULPDULengthSize + ulpdu + header.MPAAlignment - 1) &^ (header.MPAAlignment - 1)
	// Lay the marker-free FPDU (its CRC aside) into the stream, markers in front.
	pos := t.MPAStream // stream position of the next byte written
	start := pos       // where the FPDU's length field lies in the stream
	w := 0
	marker := func() {
		ptr := uint16(0)
		if pos > start {
			ptr = uint16(pos - start)
		}
		header.MPAMarker(b[w:]).Encode(ptr)
		w += header.MPAMarkerSize
		pos += header.MPAMarkerSize
	}
	markers := t.MPAMarkers > 0
	if markers && pos%header.MPAMarkerInterval == 0 {
		marker()
		start = pos
	}
	for i := 0; i < framed; {
		// Bytes up to the next marker position, or to the end.
		run := framed - i
		if markers {
			run = min(run, int(header.MPAMarkerInterval-pos%header.MPAMarkerInterval))
		}
		for j := i; j < i+run && j < n; j++ {
			b[w+j-i] = hdr[j]
		}
		w, pos, i = w+run, pos+uint32(run), i+run
		if markers && pos%header.MPAMarkerInterval == 0 && i < framed {
			marker()
		}
	}
	if markers && pos%header.MPAMarkerInterval == 0 && w+header.MPAMarkerSize+header.MPACRCSize <= len(b) {
		marker() // a marker due between the pad and the CRC
	}
	header.PutMPACRC(b[w:], header.MPACRC(b[:w]))
}
