package transports_test

import (
	"fmt"
	"testing"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports"
	"github.com/stretchr/testify/require"
)

// The expected values of these tests come from the header sizes of RFC 9293 (TCP), 7323
// (timestamps), 2018 (SACK), 5044 (MPA), 5041/5040 (DDP/RDMAP) as docs/model.md section 1
// lists them, from the table of 1.2, and from arithmetic on the link parameters; never from a
// previous run.

const (
	ethIPBytes = topology.EthernetHeader + topology.IPv4Header + topology.FCS // 38
	wireExtra  = topology.PreambleSFD + topology.InterFrameGap                // 20
)

func iwarpConfig() transports.IWARPConfig {
	return transports.IWARPConfig{MTU: 1500, SACK: true, InitCwnd: 10,
		MinRTO: sim.Millisecond, InitialRTO: sim.Millisecond, MaxRTO: 60 * sim.Millisecond, Retries: 15,
		DelayedAck: 40 * sim.Microsecond, ReceiveWindow: 4 << 20, NICDelay: sim.Microsecond}
}

// tcpArrival is what a tcpTap saw of one frame reaching a host.
type tcpArrival struct {
	at, sentAt   sim.Time
	dropped      bool
	kind         topology.Kind
	flags        uint8
	seq, ack     uint32
	mpa          uint8
	markers      uint8
	payload      int32
	frame        int32
	ecn          uint8
	dscp, prio   uint8
	protocol     uint8
	sport, dport uint16
	sacks        [][2]uint32
	ts           bool
	tsval, tsecr uint32
	last         bool
	delivered    int64 // flow 0's Delivered right after the NIC took the frame
}

func (a tcpArrival) has(flag uint8) bool { return a.flags&flag != 0 }

// tcpTap sits between a wire and a NIC: it records every frame, may change it (mark) or drop it.
type tcpTap struct {
	pool *topology.Pool
	reg  *transports.Registry
	next topology.Receiver
	drop func(a tcpArrival, seen int) bool
	mark func(p *topology.Packet, seen int)
	seen map[[3]uint32]int // by kind, sequence number and MPA frame
	got  []tcpArrival
}

func (t *tcpTap) Receive(now sim.Time, p *topology.Packet, port int) {
	k := [3]uint32{uint32(p.Kind), p.TCP().Seq, uint32(p.TCP().MPA)}
	seen := t.seen[k]
	t.seen[k]++
	if t.mark != nil {
		t.mark(p, seen)
	}
	a := tcpArrival{at: now, sentAt: p.SentAt, kind: p.Kind, flags: p.TCP().Flags, seq: p.TCP().Seq, ack: p.TCP().AckNum,
		mpa: p.TCP().MPA, markers: p.TCP().MPAMarkers, payload: p.Payload, frame: p.Frame, ecn: p.ECN, dscp: p.DSCP,
		prio: p.Priority, protocol: p.Protocol, sport: p.SrcPort, dport: p.DstPort, ts: p.TCP().Timestamps,
		tsval: p.TCP().TSVal, tsecr: p.TCP().TSEcr, last: p.TCP().DDPLast}
	for b := 0; b < int(p.TCP().SACKBlocks); b++ {
		a.sacks = append(a.sacks, p.TCP().SACK[b])
	}
	if t.drop != nil && t.drop(a, seen) {
		a.dropped = true
		t.pool.Drop(p)
	} else {
		t.next.Receive(now, p, port)
	}
	if len(t.reg.Flows) > 0 {
		a.delivered = t.reg.Flows[0].Delivered
	}
	t.got = append(t.got, a)
}

// fpdus are the FPDU segments the tap saw; acks the pure ACKs (no SYN, no MPA frame).
func (t *tcpTap) fpdus() []tcpArrival {
	var out []tcpArrival
	for _, a := range t.got {
		if a.mpa == topology.MPAFPDU {
			out = append(out, a)
		}
	}
	return out
}

func (t *tcpTap) acks() []tcpArrival {
	var out []tcpArrival
	for _, a := range t.got {
		if a.kind == topology.KindAck && a.mpa == topology.MPANone && !a.has(topology.TCPFlagSYN) {
			out = append(out, a)
		}
	}
	return out
}

type tcpHarness struct {
	*harness
	to2, to1 *tcpTap // frames arriving at h2 (data) and at h1 (ACKs)
}

func newTCPHarness(t *testing.T, link topology.LinkParams) *tcpHarness {
	h := newHarness(t, link)
	th := &tcpHarness{harness: h,
		to2: &tcpTap{pool: h.pool, reg: h.reg, next: h.nic2, seen: map[[3]uint32]int{}},
		to1: &tcpTap{pool: h.pool, reg: h.reg, next: h.nic1, seen: map[[3]uint32]int{}}}
	h.w12.Attach(th.to2)
	h.w21.Attach(th.to1)
	return th
}

func (h *tcpHarness) addIWARP(f *transports.Flow, cfg transports.IWARPConfig) int32 {
	if f.ID == 0 {
		f.ID = len(h.reg.Flows) + 1
	}
	f.Transport = "iwarp"
	i := h.reg.Add(f)
	h.reg.StartIWARP(i, h.nic(f.Src), h.nic(f.Dst), false, cfg)
	return i
}

func (h *tcpHarness) stats(i int32) transports.TCPStats {
	st, ok := h.reg.TCPStats(i)
	require.True(h.t, ok)
	return st
}

// fpduSeg is one data segment as the standards lay it out, computed here independently of
// the transport: its DDP payload, its TCP payload (FPDU plus markers) and its markers.
type fpduSeg struct{ d, tcp, markers int64 }

// tableD is the DDP payload per segment of docs/model.md section 1.
func tableD(mtu int, ts, markers bool) int64 {
	return map[[3]any]int64{
		{1500, false, false}: 1440, {1500, true, false}: 1428, {1500, false, true}: 1428, {1500, true, true}: 1416,
		{9000, false, false}: 8940, {9000, true, false}: 8928, {9000, false, true}: 8868, {9000, true, true}: 8856,
	}[[3]any{mtu, ts, markers}]
}

// layoutOf walks the TCP stream byte by byte: a 4-byte marker at every multiple of 512 from
// the first FPDU when markers are on (RFC 5044 section 5), each FPDU = 2 + 14 + d, padded to
// 4, + CRC 4.
func layoutOf(size, d int64, markers bool) []fpduSeg {
	var pos int64
	return layoutAt(&pos, size, d, markers)
}

// layoutAt is layoutOf for a message whose first FPDU starts at stream offset *pos (after
// the messages before it on the connection); it moves *pos past the message.
func layoutAt(at *int64, size, d int64, markers bool) []fpduSeg {
	n := max((size+d-1)/d, 1)
	var segs []fpduSeg
	pos := *at
	defer func() { *at = pos }()
	for k := int64(0); k < n; k++ {
		dk := min(d, size-k*d)
		fp := (2+14+dk+3)/4*4 + 4
		s := fpduSeg{d: dk}
		for left := fp; left > 0; {
			if markers && pos%512 == 0 {
				pos += 4
				s.tcp += 4
				s.markers++
			}
			c := left
			if markers {
				c = min(left, 512-pos%512)
			}
			pos += c
			left -= c
			s.tcp += c
		}
		segs = append(segs, s)
	}
	return segs
}

// segFrame is a data segment's Ethernet frame: Ethernet + IPv4 + TCP (20, 32 with
// timestamps) + TCP payload + FCS.
func segFrame(tcpPayload int64, ts bool) int64 {
	f := ethIPBytes + topology.TCPHeader + tcpPayload
	if ts {
		f += topology.TCPTimestamps
	}
	return max(f, topology.MinFrame)
}

func TestIWARPSegmentSizesMatchTheTable(t *testing.T) {
	for _, mtu := range []int{1500, 9000} {
		for _, ts := range []bool{false, true} {
			for _, markers := range []bool{false, true} {
				t.Run(fmt.Sprintf("mtu %d ts %v markers %v", mtu, ts, markers), func(t *testing.T) {
					cfg := iwarpConfig()
					cfg.MTU, cfg.Timestamps, cfg.Markers = mtu, ts, markers
					mss := int64(mtu - 40)
					if ts {
						mss -= 12
					}
					require.Equal(t, mss, cfg.MSS())
					d := tableD(mtu, ts, markers)
					require.Equal(t, d, cfg.DDPPayload(), "docs/model.md section 1")

					// 40 full segments and a short last one, one FPDU each.
					size := 40*d + 333
					h := newTCPHarness(t, defaultLink())
					f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: size, Priority: 3}
					h.addIWARP(f, cfg)
					h.run()
					require.Equal(t, transports.Completed, f.Status)
					want := layoutOf(size, d, markers)
					got := h.to2.fpdus()
					require.Len(t, got, len(want))
					first := got[0].seq
					var pos, maxWire, wireSum int64
					for k, a := range got {
						w := want[k]
						require.Equal(t, w.d, int64(a.payload), "segment %d", k)
						require.Equal(t, w.markers, int64(a.markers), "segment %d", k)
						require.Equal(t, segFrame(w.tcp, ts), int64(a.frame), "segment %d", k)
						require.LessOrEqual(t, w.tcp, mss, "one FPDU fits a segment")
						require.LessOrEqual(t, int64(a.frame)-topology.EthernetHeader-topology.FCS, int64(mtu), "IP packet within the MTU")
						require.Equal(t, first+uint32(pos), a.seq, "segments are contiguous in sequence space")
						pos += w.tcp
						maxWire = max(maxWire, int64(a.frame)+wireExtra)
						wireSum += int64(a.frame) + wireExtra
						require.Equal(t, k == len(got)-1, a.last, "DDP Last flag on the last segment")
						require.Equal(t, uint8(topology.IPProtoTCP), a.protocol)
						require.Equal(t, uint16(topology.TCPPortIWARP), a.dport)
						require.GreaterOrEqual(t, a.sport, uint16(0xC000), "ephemeral source port")
						require.Equal(t, uint8(3<<3), a.dscp)
						require.Equal(t, ts, a.ts)
					}
					require.Equal(t, int64(mtu+38), maxWire, "a full segment is IP MTU + 38 on the wire (docs/model.md section 1)")
					require.Equal(t, wireSum, h.w12.Bytes(), "only data goes h1 -> h2 (no handshake)")
					// Pure ACKs: 58 bytes padded to 64, or 70 with timestamps.
					for _, a := range h.to1.acks() {
						require.Empty(t, a.sacks)
						require.Equal(t, max(segFrame(0, ts), topology.MinFrame), int64(a.frame))
					}
				})
			}
		}
	}
}

func TestIWARPAckFrameSizesWithSACK(t *testing.T) {
	// SACK option: 2 + 8 per block, padded to 4: 12, 20, 28, 36 bytes (RFC 2018).
	for _, ts := range []bool{false, true} {
		cfg := iwarpConfig()
		cfg.Timestamps = ts
		h := newTCPHarness(t, defaultLink())
		d := cfg.DDPPayload()
		// Lose segments 20, 22, 24, 26 and 28 once: up to 4 blocks (3 with timestamps) are reported.
		var first uint32
		h.to2.drop = func(a tcpArrival, seen int) bool {
			if a.mpa != topology.MPAFPDU {
				return false
			}
			if len(h.to2.got) == 0 {
				first = a.seq
			}
			k := segIndex(first, a, d)
			return seen == 0 && k >= 20 && k <= 28 && k%2 == 0
		}
		f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: 200 * d}
		i := h.addIWARP(f, cfg)
		h.run()
		require.Equal(t, transports.Completed, f.Status)
		maxBlocks := 4
		if ts {
			maxBlocks = 3
		}
		seen := map[int]bool{}
		for _, a := range h.to1.acks() {
			n := int64(len(a.sacks))
			require.LessOrEqual(t, len(a.sacks), maxBlocks)
			opt := int64(0)
			if n > 0 {
				opt = (2 + 8*n + 3) / 4 * 4
			}
			require.Equal(t, segFrame(opt, ts), int64(a.frame), "ACK with %d SACK blocks", n)
			seen[len(a.sacks)] = true
			// RFC 2018: blocks are disjoint and above the cumulative ACK.
			for b, s := range a.sacks {
				require.Greater(t, int32(s[0]-a.ack), int32(0))
				require.Greater(t, int32(s[1]-s[0]), int32(0))
				for _, o := range a.sacks[b+1:] {
					require.True(t, int32(o[1]-s[0]) < 0 || int32(s[1]-o[0]) < 0, "disjoint")
				}
			}
		}
		for n := 0; n <= maxBlocks; n++ {
			require.True(t, seen[n], "an ACK with %d blocks (ts %v)", n, ts)
		}
		st := h.stats(i)
		require.EqualValues(t, 5, f.Retransmitted)
		require.Zero(t, st.Timeouts)
	}
}

// TestIWARPHandshakeTiming: SYN, SYN-ACK, ACK + MPA Request, MPA Reply, each crossing the link
// (serialization + propagation) and each handed to TCP NICDelay after it arrives; the first
// FPDU leaves when the Reply has been processed: three half round trips and the MPA exchange.
func TestIWARPHandshakeTiming(t *testing.T) {
	for _, ts := range []bool{false, true} {
		t.Run(fmt.Sprintf("timestamps %v", ts), func(t *testing.T) {
			cfg := iwarpConfig()
			cfg.Handshake, cfg.Timestamps = true, ts
			h := newTCPHarness(t, defaultLink())
			const start = 2 * sim.Microsecond
			size := 3*cfg.DDPPayload() + 100
			f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: size, Start: start, Priority: 3}
			h.addIWARP(f, cfg)
			h.run()
			require.Equal(t, transports.Completed, f.Status)

			tsb := int64(0)
			if ts {
				tsb = topology.TCPTimestamps
			}
			// SYN and SYN-ACK: MSS 4 + NOP/window scale 4 + SACK-permitted (4, or sharing the
			// timestamps' NOPs).
			synOpts := int64(4 + 4 + 4)
			if ts {
				synOpts = 4 + 4 + 12
			}
			synWire := ethIPBytes + topology.TCPHeader + synOpts + wireExtra
			ackWire := max(ethIPBytes+topology.TCPHeader+tsb, topology.MinFrame) + wireExtra
			mpaWire := ethIPBytes + topology.TCPHeader + tsb + 20 + wireExtra // key 16, flags, rev, PD length 2
			require.Equal(t, [5]int64{synWire, synWire, ackWire, mpaWire, mpaWire}, cfg.Frames(size).Handshake())

			N, d := cfg.NICDelay, linkDly
			a1 := start + tx(synWire, lineRate) + d  // SYN at h2
			a2 := a1 + N + tx(synWire, lineRate) + d // SYN-ACK at h1
			a3 := a2 + N + tx(ackWire, lineRate) + d // ACK at h2
			a4 := a3 + tx(mpaWire, lineRate)         // MPA Request right behind it
			a5 := a4 + N + tx(mpaWire, lineRate) + d // MPA Reply at h1
			dataAt := a5 + N

			g2, g1 := h.to2.got, h.to1.got
			require.Equal(t, topology.TCPFlagSYN, int(g2[0].flags))
			require.Equal(t, a1, g2[0].at)
			require.Equal(t, topology.TCPFlagSYN|topology.TCPFlagACK, int(g1[0].flags))
			require.Equal(t, a2, g1[0].at)
			require.Equal(t, g2[0].seq+1, g1[0].ack, "the SYN takes one sequence number")
			require.Equal(t, topology.TCPFlagACK, int(g2[1].flags))
			require.Equal(t, a3, g2[1].at)
			require.Equal(t, uint8(topology.MPARequest), g2[2].mpa)
			require.Equal(t, a4, g2[2].at)
			require.Equal(t, g2[0].seq+1, g2[2].seq)
			require.Equal(t, uint8(topology.MPAReply), g1[1].mpa)
			require.Equal(t, a5, g1[1].at)
			require.Equal(t, g2[0].seq+21, g1[1].ack, "the Reply acknowledges the 20-byte Request")
			data := h.to2.fpdus()
			require.Len(t, data, 4)
			require.Equal(t, dataAt, data[0].sentAt, "the first FPDU follows the processed Reply")
			require.Equal(t, g2[0].seq+21, data[0].seq)
			require.Equal(t, g1[0].seq+21, data[0].ack, "and acknowledges the SYN-ACK and the Reply")
			// The FPDUs leave back to back (within the initial window); the flow ends when the
			// last has been processed.
			segs := layoutOf(size, cfg.DDPPayload(), false)
			t0 := dataAt
			for k, a := range data {
				w := segFrame(segs[k].tcp, ts) + wireExtra
				t0 += tx(w, lineRate)
				require.Equal(t, t0+d, a.at, "segment %d", k)
			}
			require.Equal(t, data[3].at+N, f.Finish)
			st := h.stats(0)
			require.Equal(t, dataAt, st.Established)
			require.NotZero(t, st.SRTT, "RTT sampled from the handshake")
		})
	}
}

func TestIWARPLostSYNIsResentAndStartsWithOneSegment(t *testing.T) {
	cfg := iwarpConfig()
	cfg.Handshake = true
	h := newTCPHarness(t, defaultLink())
	h.to2.drop = func(a tcpArrival, seen int) bool { return a.has(topology.TCPFlagSYN) && seen == 0 }
	f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: 20 * cfg.DDPPayload()}
	i := h.addIWARP(f, cfg)
	h.run()
	require.Equal(t, transports.Completed, f.Status)
	require.Equal(t, cfg.InitialRTO, h.to2.got[1].sentAt, "the SYN again after the initial RTO")
	require.True(t, h.to2.got[1].has(topology.TCPFlagSYN))
	data := h.to2.fpdus()
	// RFC 5681 3.1: after a lost SYN the initial window is one segment: segment 1 waits for
	// the ACK of segment 0.
	require.Greater(t, data[1].sentAt, data[0].at)
	require.EqualValues(t, 1, h.stats(i).Timeouts)
	require.Zero(t, f.Retransmitted, "a SYN is not a data segment")
}

func TestIWARPLongFlowGoodput(t *testing.T) {
	for _, mtu := range []int{1500, 9000} {
		for _, ts := range []bool{false, true} {
			for _, markers := range []bool{false, true} {
				t.Run(fmt.Sprintf("mtu %d ts %v markers %v", mtu, ts, markers), func(t *testing.T) {
					cfg := iwarpConfig()
					cfg.MTU, cfg.Timestamps, cfg.Markers = mtu, ts, markers
					h := newTCPHarness(t, defaultLink())
					f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: 100_000_000}
					i := h.addIWARP(f, cfg)
					h.run()
					require.Equal(t, transports.Completed, f.Status)
					require.Zero(t, f.Retransmitted)
					d := tableD(mtu, ts, markers)
					want := 100 * float64(d) / float64(mtu+38)
					got := float64(f.Size*8) / f.Finish.Seconds() / 1e9
					t.Logf("goodput %.3f Gb/s, line rate x D/(MTU+38) = %.3f", got, want)
					require.InEpsilon(t, want, got, 0.002)
					st := h.stats(i)
					// The window was never the limit: cwnd passed the bandwidth-delay product and
					// stopped near it (it grows only while it limits), far below the receive window.
					rtt := 2*linkDly + 2*cfg.NICDelay + tx(int64(mtu+38), lineRate) + tx(84, lineRate)
					bdp := float64(lineRate.BytesIn(rtt)) / float64(mtu+38)
					require.Greater(t, st.Cwnd, bdp)
					require.Less(t, st.Cwnd, 3*bdp+float64(cfg.InitCwnd))
					require.Greater(t, float64(cfg.ReceiveWindow), 3*bdp*float64(mtu))
				})
			}
		}
	}
}

// rounds splits arrivals into bursts separated by idle gaps longer than gap.
func rounds(as []tcpArrival, gap sim.Time) []int {
	var out []int
	for k, a := range as {
		if k == 0 || a.at-as[k-1].at > gap {
			out = append(out, 0)
		}
		out[len(out)-1]++
	}
	return out
}

func TestIWARPSlowStartDoublesPerRTT(t *testing.T) {
	// A long link, so that each round's burst (at most 160 x 123 ns) is shorter than the RTT
	// (about 42 us): the rounds are the bursts. Delayed ACKs acknowledge two segments each,
	// and byte counting with L = 2 (RFC 3465) still adds two segments per ACK.
	link := defaultLink()
	link.Delay = 20 * sim.Microsecond
	cfg := iwarpConfig()
	h := newTCPHarness(t, link)
	f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: 1000 * cfg.DDPPayload()}
	h.addIWARP(f, cfg)
	h.run()
	require.Equal(t, transports.Completed, f.Status)
	got := rounds(h.to2.fpdus(), 10*sim.Microsecond)
	require.Equal(t, []int{10, 20, 40, 80, 160}, got[:5])
	acks := h.to1.acks()
	require.Equal(t, []int{5, 10, 20}, rounds(acks, 10*sim.Microsecond)[:3], "one ACK per two segments")
}

// segIndex maps a data segment's sequence number to its index when every segment but the
// last is full and there are no markers.
func segIndex(first uint32, a tcpArrival, d int64) int64 {
	return int64(a.seq-first) / (d + 20)
}

func TestIWARPFastRetransmitRecoversOneLossWithoutTimeout(t *testing.T) {
	for _, sack := range []bool{true, false} {
		t.Run(fmt.Sprintf("sack %v", sack), func(t *testing.T) {
			cfg := iwarpConfig()
			cfg.SACK = sack
			d := cfg.DDPPayload()
			h := newTCPHarness(t, defaultLink())
			var first uint32
			const lost = 30
			h.to2.drop = func(a tcpArrival, seen int) bool {
				if a.mpa != topology.MPAFPDU {
					return false
				}
				if len(h.to2.got) == 0 {
					first = a.seq
				}
				return segIndex(first, a, d) == lost && seen == 0
			}
			f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: 300 * d}
			i := h.addIWARP(f, cfg)
			h.run()
			require.Equal(t, transports.Completed, f.Status)
			require.EqualValues(t, 1, f.Retransmitted)
			st := h.stats(i)
			require.Zero(t, st.Timeouts)
			require.EqualValues(t, 1, st.FastRecoveries)

			// The third duplicate ACK is the one segment lost+3 draws; the retransmission
			// leaves as soon as TCP has it, or when the frame on the wire then is done.
			data := h.to2.fpdus()
			var arr33, retx tcpArrival
			for _, a := range data {
				k := segIndex(first, a, d)
				if k == lost+3 && arr33.at == 0 {
					arr33 = a
				}
				if k == lost && !a.dropped {
					retx = a
				}
			}
			ackWire := int64(topology.MinFrame + wireExtra)
			if sack {
				ackWire = segFrame(12, false) + wireExtra // one SACK block
			}
			trigger := arr33.at + cfg.NICDelay + tx(ackWire, lineRate) + linkDly + cfg.NICDelay
			require.GreaterOrEqual(t, retx.sentAt, trigger)
			require.LessOrEqual(t, retx.sentAt, trigger+tx(1538, lineRate))
			dups := 0
			for _, a := range h.to1.acks() {
				if a.at <= trigger-cfg.NICDelay && a.ack == first+uint32(lost*(d+20)) {
					dups++
				}
			}
			require.Equal(t, 4, dups, "the ACK of the segments before the hole, then 3 duplicates")
		})
	}
}

func TestIWARPTailLossNeedsTheRTO(t *testing.T) {
	cfg := iwarpConfig()
	h := newTCPHarness(t, defaultLink())
	h.to2.drop = func(a tcpArrival, seen int) bool { return a.last && seen == 0 }
	f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: 5 * cfg.DDPPayload()}
	i := h.addIWARP(f, cfg)
	h.run()
	require.Equal(t, transports.Completed, f.Status)
	data := h.to2.fpdus()
	require.Len(t, data, 6)
	st := h.stats(i)
	require.EqualValues(t, 1, st.Timeouts, "no duplicate ACK follows the last segment")
	// The timer ran from the ACK of segments 0-3 (RFC 6298 5.3), with RTO = max(min_rto, SRTT + 4 RTTVAR).
	require.Equal(t, cfg.MinRTO, data[5].sentAt-(h.to1.acks()[1].at+cfg.NICDelay))
}

// TestIWARPRTOBacksOff: with every data frame lost until 15 ms, the first segment is resent
// at each expiry, the RTO doubling from the initial 1 ms up to max_rto (6 ms here): at 1, 3,
// 7, 13 and 19 ms. The last one gets through and the flow completes in slow start.
func TestIWARPRTOBacksOff(t *testing.T) {
	cfg := iwarpConfig()
	cfg.MaxRTO = 6 * sim.Millisecond
	h := newTCPHarness(t, defaultLink())
	h.to2.drop = func(a tcpArrival, seen int) bool { return a.sentAt < 15*sim.Millisecond }
	f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: 5 * cfg.DDPPayload()}
	i := h.addIWARP(f, cfg)
	h.run()
	require.Equal(t, transports.Completed, f.Status)
	data := h.to2.fpdus()
	first := data[0].seq
	var times []sim.Time
	for _, a := range data {
		if a.seq == first {
			times = append(times, a.sentAt)
		}
	}
	ms := sim.Millisecond
	require.Equal(t, []sim.Time{0, 1 * ms, 3 * ms, 7 * ms, 13 * ms, 19 * ms}, times)
	st := h.stats(i)
	require.EqualValues(t, 5, st.Timeouts)
	require.EqualValues(t, 5+4, f.Retransmitted, "five copies of segment 0, the four others once")
}

func TestIWARPGivesUpAfterRetries(t *testing.T) {
	cfg := iwarpConfig()
	cfg.Retries = 3
	h := newTCPHarness(t, defaultLink())
	h.to2.drop = func(a tcpArrival, seen int) bool { return true }
	f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: 5 * cfg.DDPPayload()}
	h.addIWARP(f, cfg)
	h.run()
	require.Equal(t, transports.Failed, f.Status)
	require.Contains(t, f.Reason, "TCP gave up: 4 retransmission timeouts")
	// Timeouts at 1, 3, 7 (resends) and 15 ms (the fourth: give up).
	require.Equal(t, []sim.Time{15 * sim.Millisecond}, h.doneAt)
	require.Zero(t, f.Delivered)
}

// TestIWARPSACKRecoversSeveralLossesInOneRTT: four losses in one window. With SACK each hole
// is known as soon as three segments above it are SACKed, so the four retransmissions leave
// within one round trip and the window is whole about one round trip after recovery began.
// NewReno learns of one hole per partial ACK: a round trip each.
func TestIWARPSACKRecoversSeveralLossesInOneRTT(t *testing.T) {
	lostSet := map[int64]bool{40: true, 43: true, 47: true, 50: true}
	cfg := iwarpConfig()
	d := cfg.DDPPayload()
	rtt := 2*linkDly + 2*cfg.NICDelay + tx(1538, lineRate) + tx(84, lineRate)
	spans := map[bool]sim.Time{}
	for _, sack := range []bool{true, false} {
		t.Run(fmt.Sprintf("sack %v", sack), func(t *testing.T) {
			cfg.SACK = sack
			h := newTCPHarness(t, defaultLink())
			var first uint32
			h.to2.drop = func(a tcpArrival, seen int) bool {
				if a.mpa != topology.MPAFPDU {
					return false
				}
				if len(h.to2.got) == 0 {
					first = a.seq
				}
				return lostSet[segIndex(first, a, d)] && seen == 0
			}
			f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: 400 * d}
			i := h.addIWARP(f, cfg)
			h.run()
			require.Equal(t, transports.Completed, f.Status)
			require.EqualValues(t, 4, f.Retransmitted, "exactly the lost segments are resent")
			st := h.stats(i)
			require.Zero(t, st.Timeouts)
			require.EqualValues(t, 1, st.FastRecoveries, "one recovery for the window")
			var firstRetx, lastRetx, whole sim.Time
			for _, a := range h.to2.fpdus() {
				k := segIndex(first, a, d)
				if lostSet[k] && !a.dropped {
					if firstRetx == 0 {
						firstRetx = a.sentAt
					}
					lastRetx = a.sentAt
				}
				if whole == 0 && a.delivered >= 51*d {
					whole = a.at + cfg.NICDelay
				}
			}
			t.Logf("retransmissions over %v, window whole %v after the first (RTT %v)", lastRetx-firstRetx, whole-firstRetx, rtt)
			spans[sack] = lastRetx - firstRetx
			if sack {
				require.Less(t, lastRetx-firstRetx, rtt, "all holes resent within one round trip")
				require.Less(t, whole-firstRetx, 2*rtt)
			} else {
				require.Greater(t, lastRetx-firstRetx, 3*rtt-rtt/4, "NewReno: one hole per round trip")
			}
		})
	}
}

// TestIWARPClassicECN: one data segment arrives CE-marked. The receiver sets ECE on every ACK
// from then until a segment with CWR arrives; the sender halves its window once and sets CWR
// on its next new segment (RFC 3168 section 6.1).
func TestIWARPClassicECN(t *testing.T) {
	cfg := iwarpConfig()
	cfg.ECN = transports.ECNClassic
	d := cfg.DDPPayload()
	h := newTCPHarness(t, defaultLink())
	var first uint32
	h.to2.mark = func(p *topology.Packet, seen int) {
		if p.TCP().MPA != topology.MPAFPDU {
			return
		}
		if len(h.to2.got) == 0 {
			first = p.TCP().Seq
		}
		require.Equal(t, uint8(topology.ECNECT0), p.ECN, "data is ECN-capable")
		if int64(p.TCP().Seq-first)/(d+20) == 100 {
			p.ECN = topology.ECNCE
		}
	}
	f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: 400 * d}
	i := h.addIWARP(f, cfg)
	h.run()
	require.Equal(t, transports.Completed, f.Status)
	st := h.stats(i)
	require.EqualValues(t, 1, st.ECNReductions)
	require.Zero(t, f.Retransmitted)
	var ceAt, cwrAt sim.Time
	cwrs := 0
	for _, a := range h.to2.fpdus() {
		if a.ecn == topology.ECNCE {
			ceAt = a.at + cfg.NICDelay
		}
		if a.has(topology.TCPFlagCWR) {
			cwrs++
			cwrAt = a.at + cfg.NICDelay
		}
	}
	require.Equal(t, 1, cwrs, "CWR on one segment")
	require.Greater(t, cwrAt, ceAt)
	eces := 0
	for _, a := range h.to1.acks() {
		inside := a.sentAt >= ceAt && a.sentAt < cwrAt
		require.Equal(t, inside, a.has(topology.TCPFlagECE), "ACK sent at %v", a.sentAt)
		if inside {
			eces++
		}
	}
	require.Greater(t, eces, 1, "ECE repeats until CWR")
}

// TestIWARPDCTCP: every other data segment arrives CE-marked. The receiver's ECE follows the
// CE state exactly (an immediate ACK whenever it changes), so the ECE ACKs acknowledge exactly
// the marked segments; the sender's alpha, the EWMA of the marked fraction per window,
// approaches 1/2 (from 1, its initial value).
func TestIWARPDCTCP(t *testing.T) {
	cfg := iwarpConfig()
	cfg.ECN = transports.ECNDCTCP
	d := cfg.DDPPayload()
	h := newTCPHarness(t, defaultLink())
	var first uint32
	marked := 0
	h.to2.mark = func(p *topology.Packet, seen int) {
		if p.TCP().MPA != topology.MPAFPDU {
			return
		}
		if len(h.to2.got) == 0 {
			first = p.TCP().Seq
		}
		if int64(p.TCP().Seq-first)/(d+20)%2 == 1 {
			p.ECN = topology.ECNCE
			marked++
		}
	}
	const n = 3000
	f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: n * d}
	i := h.addIWARP(f, cfg)
	h.run()
	require.Equal(t, transports.Completed, f.Status)
	require.Equal(t, n/2, marked)
	var eceSegs int64
	prev := first
	for _, a := range h.to1.acks() {
		if a.has(topology.TCPFlagECE) {
			eceSegs += int64(a.ack-prev) / (d + 20)
		}
		prev = a.ack
	}
	require.EqualValues(t, marked, eceSegs, "ECE acknowledges exactly the CE segments")
	st := h.stats(i)
	require.InDelta(t, 0.5, st.Alpha, 0.05)
	require.Greater(t, st.ECNReductions, int64(10), "a reduction per window")
}

func TestIWARPSmallMessageLatency(t *testing.T) {
	// One segment: frame tx + propagation + the NIC's processing, on an established
	// connection.
	for _, size := range []int64{8, 1000, 1440} {
		cfg := iwarpConfig()
		h := newTCPHarness(t, defaultLink())
		f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: size}
		h.addIWARP(f, cfg)
		h.run()
		tcpPayload := (2+14+size+3)/4*4 + 4
		want := tx(segFrame(tcpPayload, false)+wireExtra, lineRate) + linkDly + cfg.NICDelay
		require.Equal(t, want, f.Finish, "size %d", size)
	}
}

func TestIWARPRTTEstimate(t *testing.T) {
	// RFC 6298: SRTT converges to the round trip of a timed segment: data serialization and
	// propagation, the NIC's processing at both ends, the ACK's serialization and
	// propagation, plus the delayed ACK's wait for the next segment (one segment time in
	// congestion avoidance at line rate, or none when the ACK is for the pair's second).
	for _, ts := range []bool{false, true} {
		cfg := iwarpConfig()
		cfg.Timestamps = ts
		h := newTCPHarness(t, defaultLink())
		f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: 20_000_000}
		i := h.addIWARP(f, cfg)
		h.run()
		st := h.stats(i)
		ack := max(segFrame(0, ts), topology.MinFrame) + wireExtra
		base := 2*linkDly + 2*cfg.NICDelay + tx(1538, lineRate) + tx(ack, lineRate)
		require.GreaterOrEqual(t, st.SRTT, base-sim.Nanosecond)
		require.LessOrEqual(t, st.SRTT, base+tx(1538, lineRate)+sim.Nanosecond)
		require.Equal(t, cfg.MinRTO, st.RTO, "SRTT + 4 RTTVAR is far below min_rto")
	}
}

func TestIWARPLostMPAFramesAreRecovered(t *testing.T) {
	for _, c := range []struct {
		name string
		lose func(a tcpArrival) bool
		toH2 bool
	}{
		{"request", func(a tcpArrival) bool { return a.mpa == topology.MPARequest }, true},
		{"reply", func(a tcpArrival) bool { return a.mpa == topology.MPAReply }, false},
		{"handshake ack", func(a tcpArrival) bool {
			return a.kind == topology.KindData && a.mpa == topology.MPANone && !a.has(topology.TCPFlagSYN)
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := iwarpConfig()
			cfg.Handshake = true
			h := newTCPHarness(t, defaultLink())
			drop := func(a tcpArrival, seen int) bool { return seen == 0 && c.lose(a) }
			if c.toH2 {
				h.to2.drop = drop
			} else {
				h.to1.drop = drop
			}
			f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: 100_000}
			i := h.addIWARP(f, cfg)
			h.run()
			require.Equal(t, transports.Completed, f.Status)
			st := h.stats(i)
			if c.name == "handshake ack" {
				// The MPA Request carries the ACK too: nothing is missed.
				require.Zero(t, st.Timeouts)
				require.Zero(t, f.Retransmitted)
				return
			}
			require.EqualValues(t, 1, st.Timeouts, "the MPA Request is resent after the RTO")
			require.EqualValues(t, 1, f.Retransmitted)
			// The RTO then comes from the SYN's RTT sample: min_rto.
			var req []sim.Time
			for _, a := range h.to2.got {
				if a.mpa == topology.MPARequest {
					req = append(req, a.sentAt)
				}
			}
			require.Len(t, req, 2)
			require.Equal(t, cfg.MinRTO, req[1]-req[0])
		})
	}
}

func TestIWARPEmptyMessage(t *testing.T) {
	cfg := iwarpConfig()
	h := newTCPHarness(t, defaultLink())
	f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: 0}
	h.addIWARP(f, cfg)
	h.run()
	require.Equal(t, transports.Completed, f.Status)
	data := h.to2.fpdus()
	require.Len(t, data, 1, "one FPDU without payload")
	require.Equal(t, segFrame(2+14+4, false), int64(data[0].frame))
}

func TestIWARPUnroutableSendsNothing(t *testing.T) {
	h := newTCPHarness(t, defaultLink())
	f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: 1 << 20}
	i := h.addIWARP(f, iwarpConfig())
	h.reg.MarkUnroutable(i, "no path")
	h.run()
	require.Equal(t, transports.Unroutable, f.Status)
	require.Zero(t, h.w12.Packets())
}

// TestIWARPSteadyStateAllocatesNothing: a flow ten times longer allocates about as much: the
// packets, the receive pipeline, the scoreboard and the engine's slots are reused.
func TestIWARPSteadyStateAllocatesNothing(t *testing.T) {
	run := func(size int64) float64 {
		return testing.AllocsPerRun(1, func() {
			h := newTCPHarness(t, defaultLink())
			h.to1.got, h.to2.got = nil, nil
			h.to1.seen, h.to2.seen = nil, nil
			h.w12.Attach(h.nic2)
			h.w21.Attach(h.nic1)
			f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: size}
			h.addIWARP(f, iwarpConfig())
			h.eng.Run(sim.Never)
			require.Equal(t, transports.Completed, f.Status)
		})
	}
	small, large := run(2_000_000), run(20_000_000)
	segs := float64(18_000_000) / 1440
	t.Logf("allocations: %.0f for 2 MB, %.0f for 20 MB", small, large)
	require.Less(t, (large-small)/segs, 0.01, "allocations per extra segment")
}
