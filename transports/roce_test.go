package transports_test

import (
	"fmt"
	"testing"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports"
	"github.com/stretchr/testify/require"
)

// TestSegmentation: a WRITE of Size bytes leaves as ceil(Size/MTU) packets with PSNs 0..N-1,
// opcodes First/Middle.../Last (or Only), a RETH naming the whole message on the first
// packet only, MTU payload in all but the last, which carries Size - (N-1) x MTU; each
// arrives tx + delay after leaving back to back; the receiver holds exactly Size bytes.
func TestSegmentation(t *testing.T) {
	tests := []struct {
		size int64
		mtu  int
	}{
		{0, 1024}, {1, 1024}, {1023, 1024}, {1024, 1024}, {1025, 1024}, {3 * 1024, 1024},
		{5*1024 - 7, 1024}, {10000, 4096}, {1000, 256},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("size %d mtu %d", tc.size, tc.mtu), func(t *testing.T) {
			h := newHarness(t, defaultLink())
			cfg := defaultConfig()
			cfg.MTU = tc.mtu
			const start = 3 * sim.Microsecond
			f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: tc.size, Start: start, Priority: 2}
			i := h.add(f, cfg)
			h.run()

			m := segment(tc.size, tc.mtu)
			txs := m.txs(lineRate)
			dep := backToBack(start, txs)
			data := h.at2.of(topology.KindData, i)
			require.Len(t, data, m.n)
			var delivered int64
			qp := data[0].destQP
			for k, a := range data {
				require.Equal(t, uint32(k), a.psn, "PSNs count from 0")
				want := uint8(topology.OpWriteMiddle)
				switch {
				case m.n == 1:
					want = topology.OpWriteOnly
				case k == 0:
					want = topology.OpWriteFirst
				case k == m.n-1:
					want = topology.OpWriteLast
				}
				require.Equal(t, want, a.opcode, "packet %d", k)
				require.Equal(t, k == 0, a.reth, "RETH on the first/only packet only")
				if a.reth {
					require.Equal(t, uint32(tc.size), a.dmaLen, "the RETH names the whole message")
				} else {
					require.Zero(t, a.dmaLen)
				}
				require.Equal(t, k == m.n-1, a.ackReq, "AckReq on the last packet only")
				require.Equal(t, m.payload[k], int64(a.payload))
				require.Equal(t, dataFrame(m.payload[k], k == 0), int64(a.frame))
				require.Equal(t, dep[k]+txs[k]+linkDly, a.at, "packet %d arrives tx + delay after it leaves", k)
				require.Equal(t, dep[k], a.sentAt)
				delivered += int64(a.payload)
				require.Equal(t, delivered, a.delivered[i], "delivered in order as it arrives")
				// Framing.
				require.Equal(t, h.nw.Nodes[h.h1].IP, a.srcIP)
				require.Equal(t, h.nw.Nodes[h.h2].IP, a.dstIP)
				require.Equal(t, uint8(topology.IPProtoUDP), a.protocol)
				require.Equal(t, uint16(topology.UDPPortRoCEv2), a.dstPort)
				require.GreaterOrEqual(t, a.srcPort, uint16(0xC000), "RoCE v2 source port carries entropy in 0xC000-0xFFFF")
				require.Equal(t, qp, a.destQP, "one queue pair")
				require.Equal(t, uint8(2), a.prio)
				require.Equal(t, uint8(2<<3), a.dscp, "priority n travels as DSCP CSn")
				require.Equal(t, h.h1, a.src)
				require.Equal(t, h.h2, a.dst)
				require.False(t, a.dropped)
			}
			last := m.payload[m.n-1]
			require.Equal(t, tc.size-int64(m.n-1)*int64(tc.mtu), last)
			require.Equal(t, tc.size, f.Delivered)
			require.Equal(t, transports.Completed, f.Status)
			require.Equal(t, data[m.n-1].at, f.Finish, "finish is when the last byte arrives")
			require.Zero(t, f.Retransmitted)
			require.Empty(t, f.Reason)
			require.Equal(t, int64(m.n), h.w12.Packets(), "only data goes h1->h2")
			var wire int64
			for _, w := range m.wire {
				wire += w
			}
			require.Equal(t, wire, h.w12.Bytes())
			require.Empty(t, h.at1.of(topology.KindNak, -1))
			require.Equal(t, []sim.Time{f.Finish}, h.doneAt)
		})
	}
}

// TestAckCoalescing: the responder acknowledges every AckInterval-th in-order packet and the
// last packet of the message at once, so an N-packet message draws ceil(N/AckInterval) ACKs:
// one after packets AckInterval, 2 AckInterval, ... below N, and the final one. Each ACK
// leaves the moment its packet arrives and carries the PSN of that packet.
func TestAckCoalescing(t *testing.T) {
	tests := []struct{ n, interval int }{
		{1, 4}, {3, 4}, {4, 4}, {5, 4}, {8, 4}, {9, 4}, {10, 1}, {10, 16}, {7, 3}, {64, 16},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("N %d interval %d", tc.n, tc.interval), func(t *testing.T) {
			h := newHarness(t, defaultLink())
			cfg := defaultConfig()
			cfg.AckInterval = tc.interval
			size := int64(tc.n)*mtu - 10
			f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: size, Priority: 3}
			i := h.add(f, cfg)
			h.run()

			m := segment(size, mtu)
			require.Equal(t, tc.n, m.n)
			txs := m.txs(lineRate)
			dep := backToBack(0, txs)
			// An ACK takes less than one data packet's time, so the responder's NIC is idle
			// whenever the next one is due.
			require.Less(t, tx(ackWire, lineRate), txs[0])
			var wantPSN []uint32
			var wantAt []sim.Time
			for k := 1; k <= m.n; k++ {
				if k%tc.interval == 0 || k == m.n {
					wantPSN = append(wantPSN, uint32(k-1))
					wantAt = append(wantAt, ackArrival(dep[k-1]+txs[k-1]+linkDly))
				}
			}
			require.Len(t, wantPSN, (tc.n+tc.interval-1)/tc.interval, "ceil(N / AckInterval)")

			acks := h.at1.of(topology.KindAck, i)
			require.Equal(t, wantPSN, psns(acks))
			require.Equal(t, wantAt, times(acks))
			for k, a := range acks {
				require.Equal(t, uint8(topology.OpAcknowledge), a.opcode)
				require.True(t, a.aeth)
				require.Equal(t, uint8(topology.SyndromeACK), a.syndrome)
				require.Equal(t, int32(ackFrame), a.frame)
				wantMSN := uint32(0)
				if k == len(acks)-1 {
					wantMSN = 1 // the message is complete
				}
				require.Equal(t, wantMSN, a.msn)
				require.Equal(t, uint8(3), a.prio, "ACKs travel at the flow's priority")
				require.Equal(t, uint8(3<<3), a.dscp)
				require.Equal(t, h.h2, a.src)
				require.Equal(t, h.h1, a.dst)
				require.Equal(t, h.nw.Nodes[h.h2].IP, a.srcIP)
				require.Equal(t, h.nw.Nodes[h.h1].IP, a.dstIP)
			}
			require.Equal(t, int64(len(wantPSN)), h.w21.Packets())
			require.Equal(t, int64(len(wantPSN)), h.pool.Taken[topology.KindAck])
			require.Zero(t, h.pool.Taken[topology.KindNak])
			require.Equal(t, transports.Completed, f.Status)
			require.Zero(t, f.Retransmitted)
		})
	}
}

// TestNakGoBackN drops the first copy of PSN k. The next packet arrives out of sequence and
// draws exactly one NAK naming k; later ones draw none (one NAK per gap). When the NAK reaches
// the requester it finishes the packet on the wire, then resends k, k+1, ... (go-back-N), so
// the packets sent again are k..j, j being the last one that left before the NAK arrived.
func TestNakGoBackN(t *testing.T) {
	const n = 40
	tests := []struct {
		name  string
		k     int
		delay sim.Time
	}{
		{"first", 0, linkDly},
		{"second", 1, linkDly},
		{"middle", 5, linkDly},
		{"middle short link", 17, 100 * sim.Nanosecond},
		{"next to last", n - 2, linkDly},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			link := defaultLink()
			link.Delay = tc.delay
			h := newHarness(t, link)
			h.at2.drop = func(a arrival, seen int) bool {
				return a.kind == topology.KindData && a.psn == uint32(tc.k) && seen == 0
			}
			size := int64(n)*mtu - 300
			f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: size}
			i := h.add(f, defaultConfig())
			h.run()

			m := segment(size, mtu)
			txs := m.txs(lineRate)
			dep := backToBack(0, txs)
			arr := func(k int) sim.Time { return dep[k] + txs[k] + tc.delay }
			nakLeaves := arr(tc.k + 1)
			nakArrives := nakLeaves + tx(ackWire, lineRate) + tc.delay
			j := -1 // the last packet that left before the NAK arrived
			for x := range dep {
				require.NotEqual(t, nakArrives, dep[x], "tie between the NAK and a packet boundary: pick other numbers")
				if dep[x] < nakArrives {
					j = x
				}
			}
			require.NotEqual(t, nakArrives, dep[j]+txs[j])
			resend := max(nakArrives, dep[j]+txs[j]) // the NIC finishes the frame on the wire first

			naks := h.at1.of(topology.KindNak, i)
			require.Len(t, naks, 1, "one NAK per sequence gap")
			require.Equal(t, uint32(tc.k), naks[0].psn, "the NAK names the expected PSN")
			require.Equal(t, uint8(topology.SyndromeNAKSequence), naks[0].syndrome)
			require.Equal(t, nakLeaves, naks[0].sentAt)
			require.Equal(t, nakArrives, naks[0].at)
			require.Equal(t, int32(ackFrame), naks[0].frame)

			// What reaches h2: 0..j, then k..N-1 again from the resend time, back to back.
			var wantPSN []uint32
			var wantAt []sim.Time
			for x := 0; x <= j; x++ {
				wantPSN = append(wantPSN, uint32(x))
				wantAt = append(wantAt, arr(x))
			}
			t0 := resend
			for x := tc.k; x < n; x++ {
				wantPSN = append(wantPSN, uint32(x))
				wantAt = append(wantAt, t0+txs[x]+tc.delay)
				t0 += txs[x]
			}
			data := h.at2.of(topology.KindData, i)
			require.Equal(t, wantPSN, psns(data))
			require.Equal(t, wantAt, times(data))
			// Between the drop and the resent k, nothing is delivered.
			for x := tc.k; x <= j; x++ {
				require.Equal(t, int64(tc.k)*mtu, data[x].delivered[i], "packet %d is discarded out of sequence", x)
			}
			require.Equal(t, int64(j-tc.k+1), f.Retransmitted, "go-back-N resends k..j")
			require.Equal(t, int64(n+j-tc.k+1), h.w12.Packets())
			require.Equal(t, size, f.Delivered)
			require.Equal(t, transports.Completed, f.Status)
			require.Equal(t, t0+tc.delay, f.Finish)
			acks := h.at1.of(topology.KindAck, i)
			require.Equal(t, uint32(n-1), acks[len(acks)-1].psn)
			require.Equal(t, uint32(1), acks[len(acks)-1].msn)
			if tc.delay == linkDly && tc.k < n-2 {
				// W = packets sent after the loss before the NAK arrives, about RTT / t_pkt:
				// the NAK leaves after k+1 arrives, two propagation delays and a packet later.
				rtt := 2*tc.delay + txs[1] + tx(ackWire, lineRate)
				w := int(rtt / txs[1])
				require.InDelta(t, w, j-tc.k, 2)
			}
		})
	}
}

// TestTailLoss drops the first copy of the last packet. No later packet can reveal the gap,
// so only the retransmit timeout recovers it: RetransmitTimeout after the last ACK that made
// progress (or after the first send, if none did), the requester goes back to the oldest
// unacknowledged PSN. Packets the responder already holds come back as one burst of
// duplicates, which draws one ACK.
func TestTailLoss(t *testing.T) {
	tests := []struct{ n, interval int }{{9, 4}, {10, 4}, {3, 4}, {1, 4}, {12, 1}}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("N %d interval %d", tc.n, tc.interval), func(t *testing.T) {
			h := newHarness(t, defaultLink())
			cfg := defaultConfig()
			cfg.AckInterval = tc.interval
			h.at2.drop = func(a arrival, seen int) bool {
				return a.kind == topology.KindData && a.psn == uint32(tc.n-1) && seen == 0
			}
			size := int64(tc.n)*mtu - 1
			const start = 7 * sim.Microsecond
			f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: size, Start: start}
			i := h.add(f, cfg)
			h.run()

			m := segment(size, mtu)
			txs := m.txs(lineRate)
			dep := backToBack(start, txs)
			arr := func(k int) sim.Time { return dep[k] + txs[k] + linkDly }
			// The responder acknowledged the largest multiple of AckInterval below N.
			una := (tc.n - 1) / tc.interval * tc.interval
			var wantAcks []uint32
			for k := tc.interval; k <= tc.n-1; k += tc.interval {
				wantAcks = append(wantAcks, uint32(k-1))
			}
			progress := dep[0] // the timer starts with the first packet
			if una > 0 {
				progress = ackArrival(arr(una - 1))
			}
			timeout := progress + cfg.RetransmitTimeout
			t0 := timeout
			var wantPSN []uint32
			for k := 0; k < tc.n; k++ {
				wantPSN = append(wantPSN, uint32(k))
			}
			for k := una; k < tc.n; k++ {
				wantPSN = append(wantPSN, uint32(k))
				t0 += txs[k]
			}
			if una < tc.n-1 {
				wantAcks = append(wantAcks, uint32(tc.n-2)) // one ACK for the burst of duplicates
			}
			wantAcks = append(wantAcks, uint32(tc.n-1))

			data := h.at2.of(topology.KindData, i)
			require.Equal(t, wantPSN, psns(data))
			require.Equal(t, timeout, data[tc.n].sentAt, "the resend starts at the timeout")
			require.Equal(t, wantAcks, psns(h.at1.of(topology.KindAck, i)))
			require.Empty(t, h.at1.of(topology.KindNak, i), "a tail loss draws no NAK")
			require.Equal(t, int64(tc.n-una), f.Retransmitted)
			require.Equal(t, transports.Completed, f.Status)
			require.Equal(t, size, f.Delivered)
			require.Equal(t, t0+linkDly, f.Finish)
			require.GreaterOrEqual(t, f.Finish-dep[tc.n-1], cfg.RetransmitTimeout,
				"recovery takes at least one timeout after the tail first left")
		})
	}
}

// TestRetryLimit drops every data packet: each timeout resends the whole message, and the
// (RetryLimit+1)-th timeout in a row ends the flow as Failed, exactly (RetryLimit+1) x RTO
// after its first packet left. After that the requester sends nothing.
func TestRetryLimit(t *testing.T) {
	for _, limit := range []int{0, 3, 7} {
		t.Run(fmt.Sprintf("retry limit %d", limit), func(t *testing.T) {
			h := newHarness(t, defaultLink())
			cfg := defaultConfig()
			cfg.RetryLimit = limit
			cfg.RetransmitTimeout = 10 * sim.Microsecond
			h.w12.SetDropEvery(1)
			const n = 4
			const start = 2 * sim.Microsecond
			size := int64(n) * mtu
			// The whole message fits in one timeout, so every attempt resends all of it.
			require.Less(t, sum(segment(size, mtu).txs(lineRate)), cfg.RetransmitTimeout)
			f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: size, Start: start}
			h.add(f, cfg)
			h.run()

			failAt := start + sim.Time(limit+1)*cfg.RetransmitTimeout
			require.Equal(t, transports.Failed, f.Status)
			require.Equal(t, "failed", f.Status.String())
			require.Contains(t, f.Reason, "retry limit")
			require.Zero(t, f.Finish, "Finish is unset")
			require.Zero(t, f.Delivered)
			require.Equal(t, int64(limit*n), f.Retransmitted)
			require.Equal(t, int64((limit+1)*n), h.w12.Packets())
			require.Equal(t, int64((limit+1)*n), h.w12.LostRandom)
			require.Zero(t, h.w21.Packets(), "nothing arrived, so nothing was acknowledged")
			require.Equal(t, []sim.Time{failAt}, h.doneAt)
			require.Equal(t, failAt, h.eng.Now(), "nothing happens after the flow fails")
			require.Zero(t, h.reg.Open())
		})
	}
}

// TestDuplicateBurst loses the final ACK (and then the ACKs of the bursts it provokes): the
// responder already holds the whole message, each timeout makes the requester resend the
// unacknowledged tail, and each such burst of duplicates draws exactly one ACK. The flow
// completed when its last packet first arrived, and stays completed.
func TestDuplicateBurst(t *testing.T) {
	const n, limit = 8, 3
	for _, lost := range []int{1, 2, 3, limit + 1} {
		t.Run(fmt.Sprintf("%d ACKs lost", lost), func(t *testing.T) {
			h := newHarness(t, defaultLink())
			cfg := defaultConfig()
			cfg.RetryLimit = limit
			h.at1.drop = func(a arrival, seen int) bool {
				return a.kind == topology.KindAck && a.psn == n-1 && seen < lost
			}
			size := int64(n) * mtu
			f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: size}
			i := h.add(f, cfg)
			h.run()

			m := segment(size, mtu)
			txs := m.txs(lineRate)
			dep := backToBack(0, txs)
			arr := func(k int) sim.Time { return dep[k] + txs[k] + linkDly }
			una := n / cfg.AckInterval * cfg.AckInterval
			if una == n {
				una -= cfg.AckInterval
			}
			tail := n - una
			require.Less(t, sum(txs[una:]), 2*linkDly, "a burst is all out before its ACK returns")
			// Timeouts RTO apart from the last ACK that made progress; the requester gives up
			// at timeout limit+1 if every burst's ACK is lost.
			bursts := min(lost, limit)
			require.Equal(t, transports.Completed, f.Status)
			require.Empty(t, f.Reason, "a completed flow is never marked failed")
			require.Equal(t, arr(n-1), f.Finish)
			require.Equal(t, []sim.Time{f.Finish}, h.doneAt)
			require.Equal(t, size, f.Delivered)
			require.Equal(t, int64(bursts*tail), f.Retransmitted)
			require.Equal(t, int64(n+bursts*tail), h.w12.Packets())

			acks := h.at1.of(topology.KindAck, i)
			var want []uint32
			for k := cfg.AckInterval; k < n; k += cfg.AckInterval {
				want = append(want, uint32(k-1))
			}
			want = append(want, n-1) // the final ACK
			for b := 0; b < bursts; b++ {
				want = append(want, n-1) // one per burst
			}
			require.Equal(t, want, psns(acks))
			progress := ackArrival(arr(una - 1))
			for b := 1; b <= bursts; b++ {
				burst := progress + sim.Time(b)*cfg.RetransmitTimeout
				a := acks[len(acks)-bursts+b-1]
				require.Equal(t, burst+txs[una]+linkDly, a.sentAt, "burst %d is acknowledged on its first duplicate", b)
				require.Equal(t, uint32(1), a.msn)
			}
			if lost <= limit {
				last := progress + sim.Time(bursts)*cfg.RetransmitTimeout
				require.Equal(t, ackArrival(last+txs[una]+linkDly), acks[len(acks)-1].at, "the last burst's ACK arrives")
			} else {
				require.Equal(t, progress+sim.Time(limit+1)*cfg.RetransmitTimeout, h.eng.Now(), "the requester gives up")
			}
		})
	}
}

// TestNoTimeoutWithNothingOutstanding: the retransmit timer runs only while packets are
// outstanding. A flow whose packets are all acknowledged and that waits to send more (paced
// slowly, or starved by a higher priority) must not time out, however long the wait.
func TestNoTimeoutWithNothingOutstanding(t *testing.T) {
	cfg := defaultConfig()
	cfg.AckInterval = 1
	cfg.RetryLimit = 0
	cfg.RetransmitTimeout = 5 * sim.Microsecond

	t.Run("paced slowly", func(t *testing.T) {
		h := newHarness(t, defaultLink())
		const n = 4
		size := int64(n) * mtu
		m := segment(size, mtu)
		// 10 timeouts between two packets.
		rate := sim.Rate(m.wire[1] * 8 * int64(sim.Second) / int64(10*cfg.RetransmitTimeout))
		f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: size, Rate: rate}
		h.add(f, cfg)
		h.run()
		require.Equal(t, transports.Completed, f.Status, f.Reason)
		require.Zero(t, f.Retransmitted)
		var want sim.Time
		for k := 0; k < n-1; k++ {
			want += tx(m.wire[k], rate)
		}
		require.Equal(t, want+tx(m.wire[n-1], lineRate)+linkDly, f.Finish)
	})

	t.Run("starved by a higher priority", func(t *testing.T) {
		h := newHarness(t, defaultLink())
		low := &transports.Flow{Src: h.h1, Dst: h.h2, Size: 4 * mtu, Priority: 0}
		// The high-priority flow starts while low's first packet is on the wire and holds
		// the link for 40 timeouts.
		const highPkts = 2300
		high := &transports.Flow{Src: h.h1, Dst: h.h2, Size: highPkts * mtu, Priority: 6, Start: sim.Nanosecond}
		h.add(low, cfg)
		h.add(high, cfg)
		h.run()
		lm, hm := segment(low.Size, mtu), segment(high.Size, mtu)
		ltx, htx := lm.txs(lineRate), hm.txs(lineRate)
		require.Greater(t, sum(htx), 40*cfg.RetransmitTimeout)
		require.Equal(t, transports.Completed, low.Status, low.Reason)
		require.Zero(t, low.Retransmitted)
		require.Zero(t, high.Retransmitted)
		require.Equal(t, ltx[0]+sum(htx)+linkDly, high.Finish)
		require.Equal(t, sum(ltx)+sum(htx)+linkDly, low.Finish)
	})

	t.Run("starved after a loss", func(t *testing.T) {
		// The timeout for a lost tail finds the NIC busy with a higher priority; the retry
		// happens when the link is free, and only a retry that was sent counts towards the
		// limit.
		cfg := cfg
		cfg.RetryLimit = 1
		h := newHarness(t, defaultLink())
		const n = 4
		h.at2.drop = func(a arrival, seen int) bool {
			return a.kind == topology.KindData && a.flow == 0 && a.psn == n-1 && seen == 0
		}
		low := &transports.Flow{Src: h.h1, Dst: h.h2, Size: n * mtu, Priority: 0}
		const highStart = 400 * sim.Nanosecond
		const highPkts = 2300
		high := &transports.Flow{Src: h.h1, Dst: h.h2, Size: highPkts * mtu, Priority: 6, Start: highStart}
		h.add(low, cfg)
		h.add(high, cfg)
		h.run()
		lm, hm := segment(low.Size, mtu), segment(high.Size, mtu)
		ltx, htx := lm.txs(lineRate), hm.txs(lineRate)
		require.Less(t, sum(ltx), highStart, "low has sent its whole message when high starts")
		timeout := ackArrival(sum(ltx[:n-1])+linkDly) + cfg.RetransmitTimeout
		require.Greater(t, highStart+sum(htx), timeout+sim.Time(cfg.RetryLimit+1)*cfg.RetransmitTimeout,
			"high holds the link past the retry limit")
		require.Equal(t, transports.Completed, low.Status, low.Reason)
		require.Equal(t, int64(1), low.Retransmitted)
		require.Equal(t, highStart+sum(htx)+linkDly, high.Finish)
		require.Equal(t, highStart+sum(htx)+ltx[n-1]+linkDly, low.Finish)
	})
}
