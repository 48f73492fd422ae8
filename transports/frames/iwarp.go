package frames

import "github.com/fabricsim/fabricsim/topology"

// MPAPrivateData is the private data of the MPA Request and Reply: none. (RFC 6581's
// enhanced connection set-up would add 4 bytes of IRD/ORD.)
const MPAPrivateData = 0

// MPAFrameLen is the length of an MPA Request or Reply frame in the TCP stream.
const MPAFrameLen = topology.MPAReqRepHeader + MPAPrivateData

// Layout is how an RDMA WRITE is cut into FPDUs, one per TCP segment (RFC 5044 section
// 5.1 asks senders to align FPDUs with segments; iWARP NICs do), and where each segment lies
// in the sender's TCP sequence space. Offsets here count from the first byte of the first
// FPDU; the connection adds the SYN and the MPA Request in front when it has a handshake.
//
// Every FPDU but the last carries d bytes of DDP payload: the largest multiple of 4 such that
// ULPDU length 2 + tagged DDP header 14 + d + CRC 4, plus the markers the worst-placed
// segment can hold (one per 512 bytes of the MSS, rounded up), fits the MSS. This is the
// MULPDU of RFC 5044 section 7.1: for an MSS of 1460, 1440 bytes without markers and 1428
// with. With markers, MPA puts a 4-byte marker at every 512th
// byte of the stream counted from the first FPDU, so a segment holds 2 or 3 of them (MSS 1460)
// and its length varies with its position.
type Layout struct {
	mss     int64 // TCP payload bytes per segment, at most
	d       int64 // DDP payload of each FPDU but the last
	markers bool
	size    int64 // message bytes
	n       int64 // FPDUs, at least 1 (an empty WRITE is one FPDU without payload)
	full    int64 // bytes of a full FPDU without markers: length field, DDP header, d, pad, CRC
	lastD   int64 // DDP payload of the last FPDU
	last    int64 // bytes of the last FPDU without markers
	// origin is the marker-free offset of the message's first byte in a stream that carries
	// messages one after another (NewLayoutAt); 0 for the first.
	origin int64
}

// fpduBytes is the size of an FPDU with d bytes of tagged-DDP payload, markers aside:
// ULPDU length and ULPDU padded to 4 bytes, then the CRC (RFC 5044 section 4).
func fpduBytes(d int64) int64 {
	return (topology.MPAULPDULength+topology.DDPTaggedHeader+d+topology.MPAAlignment-1)&^(topology.MPAAlignment-1) +
		topology.MPACRC
}

// TCPMSS is the MSS for an IPv4 MTU: MTU - IPv4 20 - TCP 20, less 12 more with timestamps
// (every segment carries them, RFC 7323).
func TCPMSS(mtu int, timestamps bool) int64 {
	m := int64(mtu) - topology.IPv4Header - topology.TCPHeader
	if timestamps {
		m -= topology.TCPTimestamps
	}
	return m
}

// DDPPayload is the DDP payload of a full FPDU for an MSS (see Layout).
func DDPPayload(mss int64, markers bool) int64 {
	room := mss - topology.MPAFPDUOverhead
	if markers {
		room -= topology.MPAMarker * ((mss + topology.MPAMarkerInterval - 1) / topology.MPAMarkerInterval)
	}
	return room &^ (topology.MPAAlignment - 1)
}

// NewLayout is the layout of a message of size bytes over an IPv4 MTU.
func NewLayout(mtu int, timestamps, markers bool, size int64) Layout {
	l := Layout{mss: TCPMSS(mtu, timestamps), markers: markers, size: size}
	l.d = DDPPayload(l.mss, markers)
	l.n = max((size+l.d-1)/l.d, 1)
	l.full = fpduBytes(l.d)
	l.lastD = size - (l.n-1)*l.d
	l.last = fpduBytes(l.lastD)
	return l
}

// NewLayoutAt is the layout of a message of size bytes whose first FPDU follows, in the same
// TCP stream, FPDUs of origin bytes (markers aside: the Next of the message before): its
// offsets are the stream's, so MPA's markers keep their places every 512 bytes of it.
func NewLayoutAt(mtu int, timestamps, markers bool, size, origin int64) Layout {
	l := NewLayout(mtu, timestamps, markers, size)
	l.origin = origin
	return l
}

// Next is the marker-free stream offset just past the message: the next message's origin.
func (l *Layout) Next() int64 { return l.dataEnd(l.n - 1) }

// Segments is the number of FPDUs, one per data segment.
func (l *Layout) Segments() int64 { return l.n }

// FullFPDU is the bytes of a full FPDU without markers: length field, DDP header, DDP
// payload, pad and CRC.
func (l *Layout) FullFPDU() int64 { return l.full }

// Payload is the DDP payload of FPDU k.
func (l *Layout) Payload(k int64) int64 {
	if k == l.n-1 {
		return l.lastD
	}
	return l.d
}

// PayloadBetween is the DDP payload of FPDUs a..b-1.
func (l *Layout) PayloadBetween(a, b int64) int64 {
	p := (b - a) * l.d
	if b == l.n && a < b {
		p -= l.d - l.lastD
	}
	return p
}

// dataEnd is the marker-free offset just past FPDU k.
func (l *Layout) dataEnd(k int64) int64 {
	if k == l.n-1 {
		return l.origin + k*l.full + l.last
	}
	return l.origin + (k+1)*l.full
}

// withMarkers maps a marker-free offset just past a data byte to the stream offset just past
// it: a marker sits at every multiple of 512, in front of the data byte there, so each 512
// bytes of stream hold 508 of data.
func (l *Layout) withMarkers(dataEnd int64) int64 {
	if !l.markers {
		return dataEnd
	}
	const perInterval = topology.MPAMarkerInterval - topology.MPAMarker
	return dataEnd + topology.MPAMarker*((dataEnd-1)/perInterval+1)
}

// End is the stream offset just past segment k; Start the offset of its first byte, which is
// where segment k-1 ended (a marker due at a segment boundary opens the next segment).
func (l *Layout) End(k int64) int64 { return l.withMarkers(l.dataEnd(k)) }

// Start is the stream offset of segment k's first byte (see End).
func (l *Layout) Start(k int64) int64 {
	if k <= 0 {
		if l.origin == 0 {
			return 0
		}
		return l.withMarkers(l.origin) // where the message before ended
	}
	return l.End(k - 1)
}

// SegmentLength is the TCP payload of data segment p of a stream: its FPDU (with p.Payload
// bytes of tagged-DDP payload) and the markers in it.
func SegmentLength(p *topology.Packet) int64 {
	return fpduBytes(int64(p.Payload)) + topology.MPAMarker*int64(p.TCP().MPAMarkers)
}

// length is the TCP payload of segment k; markersIn how many MPA markers it holds.
func (l *Layout) length(k int64) int64 { return l.End(k) - l.Start(k) }

func (l *Layout) markersIn(k int64) int64 {
	fp := l.full
	if k == l.n-1 {
		fp = l.last
	}
	return (l.length(k) - fp) / topology.MPAMarker
}

// Covered is the number of segments that end at or before stream offset e: the segment an
// ACK number e acknowledges up to, or the first segment a SACK left edge e names.
func (l *Layout) Covered(e int64) int64 {
	if e <= 0 {
		return 0
	}
	data := e
	if l.markers {
		data = e / topology.MPAMarkerInterval * (topology.MPAMarkerInterval - topology.MPAMarker)
	}
	k := min(max((data-l.origin)/l.full, 0), l.n)
	for k < l.n && l.End(k) <= e {
		k++
	}
	for k > 0 && l.End(k-1) > e {
		k--
	}
	return k
}

// FillFPDU sets the MPA and DDP fields and the TCP flags of data segment k; the connection
// sets its sequence number, addressing and ACK.
func (l *Layout) FillFPDU(p *topology.Packet, k int64) {
	th := p.TCP()
	th.MPA = topology.MPAFPDU
	th.DDPTagged = true // RDMA WRITE: tagged DDP segments
	th.DDPLast = k == l.n-1
	p.Payload = int32(l.Payload(k))
	th.MPAMarkers = uint8(l.markersIn(k))
	th.DDPOffset = uint32(k * l.d)
	th.MPAStream = uint32(l.Start(k))
	th.Flags = topology.TCPFlagACK
	if th.DDPLast {
		th.Flags |= topology.TCPFlagPSH
	}
}

// IWARP is what sizes an iWARP connection's frames: the IPv4 MTU, MPA markers, the TCP
// timestamps option and SACK (its SYNs carry SACK-permitted); transports.IWARPConfig has
// the same fields, with their meaning.
type IWARP struct {
	MTU                       int
	Markers, Timestamps, SACK bool
}

// IWARPFrames is the frames an iWARP flow of a given size puts on the wire, sized by
// topology.Packet.Seal from the same header stacks the endpoints build, for computing a
// flow's ideal completion time.
type IWARPFrames struct {
	cfg IWARP
	lay Layout
}

// NewIWARPFrames describes the frames of an iWARP flow of size bytes.
func NewIWARPFrames(cfg IWARP, size int64) IWARPFrames {
	return IWARPFrames{cfg: cfg, lay: NewLayout(cfg.MTU, cfg.Timestamps, cfg.Markers, size)}
}

// Segments is the number of data segments (FPDUs).
func (f IWARPFrames) Segments() int64 { return f.lay.n }

// SegmentWire is the wire bytes (frame, preamble and IFG) of data segment k.
func (f IWARPFrames) SegmentWire(k int64) int64 {
	p := f.packet()
	f.lay.FillFPDU(&p, k)
	p.Seal()
	return p.WireBytes()
}

// SegmentPayload is the application bytes of data segment k.
func (f IWARPFrames) SegmentPayload(k int64) int64 { return f.lay.Payload(k) }

// Handshake is the wire bytes of the connection set-up's frames, in the order they are sent:
// SYN, SYN-ACK, ACK, MPA Request, MPA Reply.
func (f IWARPFrames) Handshake() [5]int64 {
	var out [5]int64
	for i := range out {
		p := f.packet()
		th := p.TCP()
		switch i {
		case 0, 1:
			th.Flags = topology.TCPFlagSYN
			th.SACKPermitted = f.cfg.SACK
		case 3:
			th.MPA = topology.MPARequest
		case 4:
			th.MPA = topology.MPAReply
		}
		p.Seal()
		out[i] = p.WireBytes()
	}
	return out
}

func (f IWARPFrames) packet() topology.Packet {
	p := topology.Packet{EtherType: topology.EtherTypeIPv4, Protocol: topology.IPProtoTCP}
	p.TCP().Timestamps, p.TCP().MPAPrivate = f.cfg.Timestamps, MPAPrivateData
	return p
}
