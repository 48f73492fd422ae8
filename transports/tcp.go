package transports

import (
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// This file holds the pieces of the iWARP endpoints' TCP that are plain state: the layout of
// a message in the TCP sequence space, the sender's scoreboard, the round-trip estimator, the
// receiver's reassembly and SACK state, and the NIC's receive pipeline. iwarp.go drives them.

// iwarpLayout is how an RDMA WRITE is cut into FPDUs, one per TCP segment (RFC 5044 section
// 5.1 asks senders to align FPDUs with segments; iWARP NICs do), and where each segment lies
// in the sender's TCP sequence space. Offsets here count from the first byte of the first
// FPDU; the connection adds the SYN and the MPA Request in front when it has a handshake.
//
// Every FPDU but the last carries d bytes of DDP payload: the largest multiple of 4 such that
// ULPDU length 2 + tagged DDP header 14 + d + CRC 4, plus the markers the worst-placed
// segment can hold (one per 512 bytes of the MSS, rounded up), fits the MSS. This is the
// MULPDU of RFC 5044 section 7.1 and gives the figures of physics-references 1.2 (MSS 1460:
// 1440 without markers, 1428 with). With markers, MPA puts a 4-byte marker at every 512th
// byte of the stream counted from the first FPDU, so a segment holds 2 or 3 of them (MSS 1460)
// and its length varies with its position.
type iwarpLayout struct {
	mss     int64 // TCP payload bytes per segment, at most
	d       int64 // DDP payload of each FPDU but the last
	markers bool
	size    int64 // message bytes
	n       int64 // FPDUs, at least 1 (an empty WRITE is one FPDU without payload)
	full    int64 // bytes of a full FPDU without markers: length field, DDP header, d, pad, CRC
	lastD   int64 // DDP payload of the last FPDU
	last    int64 // bytes of the last FPDU without markers
}

// fpduBytes is the size of an FPDU with d bytes of tagged-DDP payload, markers aside:
// ULPDU length and ULPDU padded to 4 bytes, then the CRC (RFC 5044 section 4).
func fpduBytes(d int64) int64 {
	return (topology.MPAULPDULength+topology.DDPTaggedHeader+d+topology.MPAAlignment-1)&^(topology.MPAAlignment-1) +
		topology.MPACRC
}

// tcpMSS is the MSS for an IPv4 MTU: MTU - IPv4 20 - TCP 20, less 12 more with timestamps
// (every segment carries them, RFC 7323).
func tcpMSS(mtu int, timestamps bool) int64 {
	m := int64(mtu) - topology.IPv4Header - topology.TCPHeader
	if timestamps {
		m -= topology.TCPTimestamps
	}
	return m
}

// ddpPayload is the DDP payload of a full FPDU for an MSS (see iwarpLayout).
func ddpPayload(mss int64, markers bool) int64 {
	room := mss - topology.MPAFPDUOverhead
	if markers {
		room -= topology.MPAMarker * ((mss + topology.MPAMarkerInterval - 1) / topology.MPAMarkerInterval)
	}
	return room &^ (topology.MPAAlignment - 1)
}

func newLayout(mtu int, timestamps, markers bool, size int64) iwarpLayout {
	l := iwarpLayout{mss: tcpMSS(mtu, timestamps), markers: markers, size: size}
	l.d = ddpPayload(l.mss, markers)
	l.n = max((size+l.d-1)/l.d, 1)
	l.full = fpduBytes(l.d)
	l.lastD = size - (l.n-1)*l.d
	l.last = fpduBytes(l.lastD)
	return l
}

// payload is the DDP payload of FPDU k.
func (l *iwarpLayout) payload(k int64) int64 {
	if k == l.n-1 {
		return l.lastD
	}
	return l.d
}

// payloadBetween is the DDP payload of FPDUs a..b-1.
func (l *iwarpLayout) payloadBetween(a, b int64) int64 {
	p := (b - a) * l.d
	if b == l.n && a < b {
		p -= l.d - l.lastD
	}
	return p
}

// dataEnd is the marker-free offset just past FPDU k.
func (l *iwarpLayout) dataEnd(k int64) int64 {
	if k == l.n-1 {
		return k*l.full + l.last
	}
	return (k + 1) * l.full
}

// withMarkers maps a marker-free offset just past a data byte to the stream offset just past
// it: a marker sits at every multiple of 512, in front of the data byte there, so each 512
// bytes of stream hold 508 of data.
func (l *iwarpLayout) withMarkers(dataEnd int64) int64 {
	if !l.markers {
		return dataEnd
	}
	const perInterval = topology.MPAMarkerInterval - topology.MPAMarker
	return dataEnd + topology.MPAMarker*((dataEnd-1)/perInterval+1)
}

// end is the stream offset just past segment k; start the offset of its first byte, which is
// where segment k-1 ended (a marker due at a segment boundary opens the next segment).
func (l *iwarpLayout) end(k int64) int64 { return l.withMarkers(l.dataEnd(k)) }

func (l *iwarpLayout) start(k int64) int64 {
	if k <= 0 {
		return 0
	}
	return l.end(k - 1)
}

// length is the TCP payload of segment k; markers how many MPA markers it holds.
func (l *iwarpLayout) length(k int64) int64 { return l.end(k) - l.start(k) }

func (l *iwarpLayout) markersIn(k int64) int64 {
	fp := l.full
	if k == l.n-1 {
		fp = l.last
	}
	return (l.length(k) - fp) / topology.MPAMarker
}

// covered is the number of segments that end at or before stream offset e: the segment an
// ACK number e acknowledges up to, or the first segment a SACK left edge e names.
func (l *iwarpLayout) covered(e int64) int64 {
	if e <= 0 {
		return 0
	}
	data := e
	if l.markers {
		data = e / topology.MPAMarkerInterval * (topology.MPAMarkerInterval - topology.MPAMarker)
	}
	k := min(max(data/l.full, 0), l.n)
	for k < l.n && l.end(k) <= e {
		k++
	}
	for k > 0 && l.end(k-1) > e {
		k--
	}
	return k
}

// Scoreboard flags of a sent segment.
const (
	segSacked   uint8 = 1 << iota // the receiver holds it (SACK)
	segLost                       // presumed lost: RFC 6675 IsLost, or everything after an RTO
	segRetx                       // retransmitted and not yet acknowledged: in flight again
	segEverRetx                   // sent more than once
)

// scoreboard is the sender's view of its segments in flight, una..nxt-1, kept in a ring (the
// receive window bounds how many can be outstanding) with counts so that the pipe of RFC
// 6675 is pipe = outstanding - sacked - lost + retransmitted, as Linux computes it, without
// a walk over the window.
type scoreboard struct {
	flags  []uint8 // ring indexed by segment & mask
	mask   int64
	sacked int64 // SACKed segments in una..nxt-1 (without SACK: duplicate ACKs, as Reno counts them)
	lost   int64 // marked lost and not SACKed
	retx   int64 // retransmitted, in flight
	// lostTo: every segment in una..lostTo-1 that is not SACKed is marked lost.
	lostTo int64
	// top holds the three highest SACKed segments, highest first (-1: none). A segment below
	// top[2] has three SACKed segments above it: RFC 6675's IsLost with DupThresh 3.
	top [3]int64
	// retxScan and rule3Scan move forward over segments that cannot be retransmitted under
	// NextSeg rules 1 and 3 until an RTO resets them, so that each pick is amortized O(1).
	retxScan, rule3Scan int64
	// cache holds the previous ACK's SACK blocks (segment ranges): they are SACKed already,
	// so a block that repeats them costs nothing.
	cache  [topology.TCPMaxSACKs][2]int64
	ncache int
}

func newScoreboard(window int64) scoreboard {
	c := int64(64)
	for c < window {
		c <<= 1
	}
	return scoreboard{flags: make([]uint8, c), mask: c - 1, top: [3]int64{-1, -1, -1}}
}

func (sb *scoreboard) capacity() int64     { return sb.mask + 1 }
func (sb *scoreboard) flag(k int64) *uint8 { return &sb.flags[k&sb.mask] }

// ackTo clears the segments from..to-1, cumulatively acknowledged, and returns how many of
// them had not been SACKed: the segments this ACK newly delivered.
func (sb *scoreboard) ackTo(from, to int64) int64 {
	var delivered int64
	for k := from; k < to; k++ {
		f := sb.flag(k)
		if *f&segSacked != 0 {
			sb.sacked--
		} else {
			delivered++
		}
		if *f&segLost != 0 && *f&segSacked == 0 {
			sb.lost--
		}
		if *f&segRetx != 0 {
			sb.retx--
		}
		*f = 0
	}
	return delivered
}

// sack marks the segments lo..hi-1 SACKed, skipping those the previous ACK's blocks covered,
// and returns how many were newly SACKed.
func (sb *scoreboard) sack(lo, hi int64) int64 {
	var n int64
	for lo < hi {
		moved := false
		for _, c := range sb.cache[:sb.ncache] {
			if c[0] <= lo && lo < c[1] {
				lo, moved = c[1], true
			}
		}
		if moved {
			continue
		}
		end := hi
		for _, c := range sb.cache[:sb.ncache] {
			if c[0] > lo && c[0] < end {
				end = c[0]
			}
		}
		for k := lo; k < end; k++ {
			if sb.markSacked(k) {
				n++
			}
		}
		lo = end
	}
	return n
}

func (sb *scoreboard) markSacked(k int64) bool {
	f := sb.flag(k)
	if *f&segSacked != 0 {
		return false
	}
	if *f&segLost != 0 {
		sb.lost--
	}
	if *f&segRetx != 0 {
		sb.retx--
	}
	*f = (*f | segSacked) &^ (segLost | segRetx)
	sb.sacked++
	switch {
	case k > sb.top[0]:
		sb.top = [3]int64{k, sb.top[0], sb.top[1]}
	case k > sb.top[1] && k != sb.top[0]:
		sb.top[2], sb.top[1] = sb.top[1], k
	case k > sb.top[2] && k != sb.top[0] && k != sb.top[1]:
		sb.top[2] = k
	}
	return true
}

// markLost applies IsLost (RFC 6675 section 4, DupThresh 3): every segment from una below
// the third-highest SACKed one that is not SACKed is lost.
func (sb *scoreboard) markLost(una int64) {
	sb.markLostBelow(una, sb.top[2])
}

// markLostBelow marks lost every segment in una..to-1 that is not SACKed nor marked yet.
func (sb *scoreboard) markLostBelow(una, to int64) {
	for k := max(sb.lostTo, una); k < to; k++ {
		f := sb.flag(k)
		if *f&(segSacked|segLost) == 0 {
			*f |= segLost
			sb.lost++
		}
	}
	sb.lostTo = max(sb.lostTo, to)
}

// rttEstimator is the RFC 6298 round-trip estimator: SRTT and RTTVAR with gains 1/8 and 1/4.
type rttEstimator struct {
	srtt, rttvar sim.Time
	valid        bool
}

func (e *rttEstimator) sample(r sim.Time) {
	if !e.valid {
		e.srtt, e.rttvar, e.valid = r, r/2, true // (2.2)
		return
	}
	d := e.srtt - r
	if d < 0 {
		d = -d
	}
	e.rttvar = (3*e.rttvar + d) / 4 // (2.3), RTTVAR first, with the old SRTT
	e.srtt = (7*e.srtt + r) / 8
}

// rto is SRTT + 4 RTTVAR (the clock granularity G is a nanosecond here), kept within
// [lo, hi] (2.4, 2.5).
func (e *rttEstimator) rto(lo, hi sim.Time) sim.Time {
	return min(max(e.srtt+max(sim.Nanosecond, 4*e.rttvar), lo), hi)
}

// segRange is a run of segments lo..hi-1.
type segRange struct{ lo, hi int64 }

// reassembly is the receiver's sequence state: the next segment it expects, the runs it
// holds beyond it (sorted, disjoint, not adjacent), and the SACK blocks to report, the most
// recently changed first (RFC 2018 section 4).
type reassembly struct {
	nxt     int64
	ooo     []segRange
	recent  [topology.TCPMaxSACKs]segRange
	nrecent int
}

// add records segment k and returns how far the in-order point moved (0 for a segment out
// of order or already held), whether k was new, and whether it filled (part of) a gap.
func (r *reassembly) add(k int64, maxBlocks int) (advanced int64, isNew, filled bool) {
	if k < r.nxt {
		return 0, false, false
	}
	if k == r.nxt {
		filled = len(r.ooo) > 0
		old := r.nxt
		r.nxt = k + 1
		if len(r.ooo) > 0 && r.ooo[0].lo == r.nxt {
			r.nxt = r.ooo[0].hi
			r.ooo = r.ooo[:copy(r.ooo, r.ooo[1:])]
		}
		j := 0
		for _, b := range r.recent[:r.nrecent] {
			if b.hi > r.nxt {
				r.recent[j] = b
				j++
			}
		}
		r.nrecent = j
		return r.nxt - old, true, filled
	}
	i := len(r.ooo)
	for i > 0 && r.ooo[i-1].lo > k {
		i--
	}
	if i > 0 && k < r.ooo[i-1].hi {
		return 0, false, false // held already
	}
	var at int
	switch {
	case i > 0 && r.ooo[i-1].hi == k:
		r.ooo[i-1].hi++
		if i < len(r.ooo) && r.ooo[i].lo == k+1 {
			r.ooo[i-1].hi = r.ooo[i].hi
			r.ooo = append(r.ooo[:i], r.ooo[i+1:]...)
		}
		at = i - 1
	case i < len(r.ooo) && r.ooo[i].lo == k+1:
		r.ooo[i].lo = k
		at = i
	default:
		r.ooo = append(r.ooo, segRange{})
		copy(r.ooo[i+1:], r.ooo[i:])
		r.ooo[i] = segRange{k, k + 1}
		at = i
	}
	r.touch(r.ooo[at], maxBlocks)
	return 0, true, false
}

// touch puts block b first among the SACK blocks to report, dropping the blocks it has
// absorbed and the oldest beyond maxBlocks.
func (r *reassembly) touch(b segRange, maxBlocks int) {
	j := 0
	var keep [topology.TCPMaxSACKs]segRange
	for _, x := range r.recent[:r.nrecent] {
		if x.lo >= b.lo && x.hi <= b.hi {
			continue
		}
		if j < maxBlocks-1 {
			keep[j] = x
			j++
		}
	}
	r.recent[0] = b
	copy(r.recent[1:], keep[:j])
	r.nrecent = j + 1
}

// delayLine is the NIC's receive pipeline: every segment reaches TCP a fixed processing time
// after it arrived, in arrival order. It holds copies of the frames (the NIC returns the
// frame to the pool when the endpoint has looked at it) in a ring that grows while the
// network fills and is reused after, so the steady state allocates nothing.
type delayLine struct {
	pkts []topology.Packet
	due  []sim.Time
	head int
	n    int
}

// push queues a copy of p, due at t; it reports whether the line was empty.
func (d *delayLine) push(p *topology.Packet, t sim.Time) bool {
	if d.n == len(d.pkts) {
		c := max(2*len(d.pkts), 16)
		pk, du := make([]topology.Packet, c), make([]sim.Time, c)
		for i := 0; i < d.n; i++ {
			j := (d.head + i) % len(d.pkts)
			pk[i], du[i] = d.pkts[j], d.due[j]
		}
		d.pkts, d.due, d.head = pk, du, 0
	}
	i := (d.head + d.n) % len(d.pkts)
	d.pkts[i], d.due[i] = *p, t
	d.n++
	return d.n == 1
}

func (d *delayLine) front() (*topology.Packet, sim.Time) { return &d.pkts[d.head], d.due[d.head] }

func (d *delayLine) pop() {
	d.head = (d.head + 1) % len(d.pkts)
	d.n--
}

// tsClock is the TCP timestamp clock (RFC 7323): nanoseconds, offset by one so that a
// timestamp is never 0, which the sender takes for "no echo".
func tsClock(now sim.Time) uint32 { return uint32(now/sim.Nanosecond) + 1 }

// tsElapsed is the time since timestamp ts was taken.
func tsElapsed(now sim.Time, ts uint32) sim.Time {
	return sim.Time(tsClock(now)-ts) * sim.Nanosecond
}

// unwrap turns a 32-bit sequence number, relative to the ISN, into the 64-bit offset nearest
// to ref (sequence numbers wrap every 4 GiB; a message may be larger).
func unwrap(ref int64, v uint32) int64 { return ref + int64(int32(v-uint32(ref))) }
