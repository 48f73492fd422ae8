package transports_test

import (
	"testing"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports"
	"github.com/stretchr/testify/require"
)

// TestPacing: a flow with Rate r starts each packet one r-serialization of the previous
// packet after it (or when the link is free, whichever is later), so its FCT is
// wire bytes x 8 / r, less the last packet's pacing interval, plus that packet's
// serialization at line rate and the propagation delay.
func TestPacing(t *testing.T) {
	for _, rate := range []sim.Rate{10 * sim.Gbps, 25 * sim.Gbps, 3 * sim.Gbps, 200 * sim.Gbps} {
		t.Run(rate.String(), func(t *testing.T) {
			h := newHarness(t, defaultLink())
			const n = 20
			size := int64(n)*mtu - 100
			const start = sim.Microsecond
			f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: size, Start: start, Rate: rate}
			i := h.add(f, defaultConfig())
			h.run()

			m := segment(size, mtu)
			dep := make([]sim.Time, n)
			dep[0] = start
			var total int64
			for k := 0; k < n; k++ {
				total += m.wire[k]
				if k > 0 {
					dep[k] = dep[k-1] + max(tx(m.wire[k-1], lineRate), tx(m.wire[k-1], rate))
				}
			}
			data := h.at2.of(topology.KindData, i)
			require.Len(t, data, n)
			for k, a := range data {
				require.Equal(t, dep[k], a.sentAt, "packet %d", k)
				require.Equal(t, dep[k]+tx(m.wire[k], lineRate)+linkDly, a.at)
			}
			require.Equal(t, transports.Completed, f.Status)
			require.Equal(t, size, f.Delivered)
			fct := f.Finish - f.Start
			require.Equal(t, dep[n-1]-start+tx(m.wire[n-1], lineRate)+linkDly, fct)
			if rate < lineRate {
				// FCT ~ wire bytes x 8 / rate, within the last packet (and 1 ps of rounding
				// per packet).
				ideal := tx(total, rate) + linkDly
				require.InDelta(t, float64(ideal), float64(fct), float64(tx(m.wire[n-1], rate)+n))
			} else {
				require.Equal(t, tx(total, lineRate)+linkDly, fct, "pacing above line rate is line rate")
			}
		})
	}
}

// TestPacingIsWorkConserving: while a paced flow waits for its next slot, another flow on the
// NIC uses the link, and the paced flow takes its slot at the next packet boundary.
func TestPacingIsWorkConserving(t *testing.T) {
	h := newHarness(t, defaultLink())
	const rate = 10 * sim.Gbps
	paced := &transports.Flow{Src: h.h1, Dst: h.h2, Size: 30 * mtu, Rate: rate}
	bulk := &transports.Flow{Src: h.h1, Dst: h.h2, Size: 200 * mtu}
	pi := h.add(paced, defaultConfig())
	bi := h.add(bulk, defaultConfig())
	h.run()

	data := h.at2.of(topology.KindData, -1)
	lastBulk := 0
	for k, a := range data {
		if a.flow == bi {
			lastBulk = k
		}
	}
	txOf := func(a arrival) sim.Time {
		return tx(int64(a.frame)+topology.PreambleSFD+topology.InterFrameGap, lineRate)
	}
	for k := 1; k <= lastBulk; k++ {
		require.Equal(t, data[k-1].sentAt+txOf(data[k-1]), data[k].sentAt, "frame %d: the link never idles while bulk has data", k)
	}
	var prev *arrival
	maxBulk := tx(dataWire(mtu, true), lineRate)
	for k := range data {
		a := &data[k]
		if a.flow != pi {
			continue
		}
		if prev != nil {
			gap := a.sentAt - prev.sentAt
			slot := tx(int64(prev.frame)+topology.PreambleSFD+topology.InterFrameGap, rate)
			require.GreaterOrEqual(t, gap, slot, "never faster than its rate")
			require.Less(t, gap, slot+maxBulk, "late by less than one frame of the other flow")
		}
		prev = a
	}
	require.Equal(t, transports.Completed, paced.Status)
	require.Equal(t, transports.Completed, bulk.Status)
	require.Less(t, bulk.Finish, paced.Finish, "bulk gets the rest of the link")
}

// TestRoundRobin: flows of one priority on one NIC take turns packet by packet, in the order
// they became active; a flow that runs out leaves the rotation, and the link never idles.
func TestRoundRobin(t *testing.T) {
	h := newHarness(t, defaultLink())
	sizes := []int{10, 4, 7} // packets
	var flows []*transports.Flow
	for _, n := range sizes {
		f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: int64(n) * mtu, Priority: 2}
		h.add(f, defaultConfig())
		flows = append(flows, f)
	}
	h.run()

	// The reference rotation: round r sends packet r of every flow that has one.
	type pkt struct {
		flow int32
		psn  uint32
	}
	var want []pkt
	var wire []int64
	for r := 0; r < 10; r++ {
		for fi, n := range sizes {
			if r < n {
				want = append(want, pkt{int32(fi), uint32(r)})
				wire = append(wire, dataWire(mtu, r == 0))
			}
		}
	}
	var got []pkt
	data := h.at2.of(topology.KindData, -1)
	for _, a := range data {
		got = append(got, pkt{a.flow, a.psn})
	}
	require.Equal(t, want, got)
	dep := backToBack(0, func() []sim.Time {
		var ts []sim.Time
		for _, w := range wire {
			ts = append(ts, tx(w, lineRate))
		}
		return ts
	}())
	for k, a := range data {
		require.Equal(t, dep[k], a.sentAt, "frame %d", k)
	}
	for fi, f := range flows {
		require.Equal(t, transports.Completed, f.Status, "flow %d", fi)
		require.Equal(t, f.Size, f.Delivered)
	}
}

// TestRoundRobinFairShare: two equal flows of one priority deliver equal bytes, within one
// packet, at any moment, and the second finishes one packet after the first.
func TestRoundRobinFairShare(t *testing.T) {
	h := newHarness(t, defaultLink())
	const n = 50
	a := &transports.Flow{Src: h.h1, Dst: h.h2, Size: n * mtu}
	b := &transports.Flow{Src: h.h1, Dst: h.h2, Size: n * mtu}
	ai := h.add(a, defaultConfig())
	bi := h.add(b, defaultConfig())

	m := segment(n*mtu, mtu)
	txs := m.txs(lineRate)
	mid := sum(txs) // half of the time the two need
	h.eng.Run(mid)
	require.Equal(t, transports.Pending, a.Status)
	require.Equal(t, "incomplete", a.Status.String())
	require.Positive(t, a.Delivered)
	require.InDelta(t, a.Delivered, b.Delivered, mtu, "equal shares at mid-run")
	h.run()

	data := h.at2.of(topology.KindData, -1)
	require.Len(t, data, 2*n)
	for k, x := range data {
		require.Equal(t, []int32{ai, bi}[k%2], x.flow, "frame %d: the flows alternate", k)
		require.InDelta(t, x.delivered[ai], x.delivered[bi], mtu)
	}
	require.Equal(t, 2*sum(txs)+linkDly, b.Finish)
	require.Equal(t, 2*sum(txs)-txs[n-1]+linkDly, a.Finish)
}

// TestStrictPriority: a higher-priority flow that starts while a lower one is sending takes
// the link at the next packet boundary and keeps it until it has nothing left to send; a
// lower-priority flow that starts during a higher one waits for it.
func TestStrictPriority(t *testing.T) {
	tests := []struct {
		name           string
		firstP, laterP uint8
	}{
		{"higher pre-empts", 1, 5},
		{"lower waits", 5, 1},
		{"highest and lowest", 0, 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, defaultLink())
			const n1, n2 = 30, 5
			m1, m2 := segment(n1*mtu, mtu), segment(n2*mtu-1, mtu)
			tx1, tx2 := m1.txs(lineRate), m2.txs(lineRate)
			dep1 := backToBack(0, tx1)
			later := dep1[10] + tx1[10]/2 // halfway through packet 10 of the first flow
			first := &transports.Flow{Src: h.h1, Dst: h.h2, Size: m1.size, Priority: tc.firstP}
			second := &transports.Flow{Src: h.h1, Dst: h.h2, Size: m2.size, Priority: tc.laterP, Start: later}
			fi := h.add(first, defaultConfig())
			si := h.add(second, defaultConfig())
			h.run()

			type pkt struct {
				flow int32
				psn  uint32
			}
			var want []pkt
			var wantTx []sim.Time
			if tc.laterP > tc.firstP {
				for k := 0; k <= 10; k++ {
					want, wantTx = append(want, pkt{fi, uint32(k)}), append(wantTx, tx1[k])
				}
				for k := 0; k < n2; k++ {
					want, wantTx = append(want, pkt{si, uint32(k)}), append(wantTx, tx2[k])
				}
				for k := 11; k < n1; k++ {
					want, wantTx = append(want, pkt{fi, uint32(k)}), append(wantTx, tx1[k])
				}
			} else {
				for k := 0; k < n1; k++ {
					want, wantTx = append(want, pkt{fi, uint32(k)}), append(wantTx, tx1[k])
				}
				for k := 0; k < n2; k++ {
					want, wantTx = append(want, pkt{si, uint32(k)}), append(wantTx, tx2[k])
				}
			}
			data := h.at2.of(topology.KindData, -1)
			var got []pkt
			for _, a := range data {
				got = append(got, pkt{a.flow, a.psn})
				require.Equal(t, []uint8{tc.firstP, tc.laterP}[a.flow], a.prio)
				require.Equal(t, []uint8{tc.firstP, tc.laterP}[a.flow]<<3, a.dscp)
			}
			require.Equal(t, want, got)
			dep := backToBack(0, wantTx)
			for k, a := range data {
				require.Equal(t, dep[k], a.sentAt, "frame %d", k)
			}
			for _, a := range h.at1.of(topology.KindAck, -1) {
				require.Equal(t, []uint8{tc.firstP, tc.laterP}[a.flow], a.prio, "ACKs keep their flow's priority")
			}
			total := sum(tx1) + sum(tx2) + linkDly
			if tc.laterP > tc.firstP {
				require.Equal(t, dep1[11]+sum(tx2)+linkDly, second.Finish, "starts at the boundary after it arrives")
				require.Equal(t, total, first.Finish)
			} else {
				require.Equal(t, sum(tx1)+linkDly, first.Finish)
				require.Equal(t, total, second.Finish)
			}
			require.Equal(t, []sim.Time{max(first.Finish, second.Finish)}, h.doneAt)
		})
	}
}

// TestControlFramesFirst: a host that sends data and also acknowledges a flow it receives
// puts each ACK on the link at the next frame boundary, ahead of its own queued data: an ACK
// waits at most for the data frame already on the wire.
func TestControlFramesFirst(t *testing.T) {
	h := newHarness(t, defaultLink())
	cfg := defaultConfig()
	cfg.AckInterval = 1 // an ACK for every packet: plenty of contention
	const n = 64
	fwd := &transports.Flow{Src: h.h1, Dst: h.h2, Size: n * mtu}
	rev := &transports.Flow{Src: h.h2, Dst: h.h1, Size: n * mtu}
	fi := h.add(fwd, cfg)
	ri := h.add(rev, cfg)
	h.run()

	maxData := tx(dataWire(mtu, true), lineRate)
	waited := 0
	for _, c := range []struct {
		acks []arrival
	}{{h.at1.of(topology.KindAck, fi)}, {h.at2.of(topology.KindAck, ri)}} {
		require.Len(t, c.acks, n)
		for _, a := range c.acks {
			wait := a.at - ackArrival(a.sentAt)
			require.GreaterOrEqual(t, wait, sim.Time(0))
			require.Less(t, wait, maxData, "an ACK waits for at most the frame on the wire")
			if wait > 0 {
				waited++
			}
		}
	}
	require.Positive(t, waited, "the scenario has contention")
	for _, f := range []*transports.Flow{fwd, rev} {
		require.Equal(t, transports.Completed, f.Status)
		require.Zero(t, f.Retransmitted)
	}
	// Each link carried one flow's data and the other's ACKs, back to back from the start
	// while data lasted: the data finished no later than all its frames plus all the ACKs.
	m := segment(n*mtu, mtu)
	bound := sum(m.txs(lineRate)) + sim.Time(n)*tx(ackWire, lineRate) + linkDly
	require.LessOrEqual(t, fwd.Finish, bound)
	require.LessOrEqual(t, rev.Finish, bound)
	require.Greater(t, fwd.Finish, sum(m.txs(lineRate))+linkDly, "ACKs cost the data some link time")
}
