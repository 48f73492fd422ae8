package transports

import (
	"testing"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/stretchr/testify/require"
)

// The TCP building blocks as state machines, without an engine.

func TestReassemblySACKBlocks(t *testing.T) {
	var r reassembly
	add := func(k int64) (int64, bool, bool) { return r.add(k, 3) }
	blocks := func() []segRange { return append([]segRange(nil), r.recent[:r.nrecent]...) }

	adv, isNew, _ := add(0)
	require.Equal(t, int64(1), adv)
	require.True(t, isNew)
	add(2) // hole at 1
	require.Equal(t, []segRange{{2, 3, 0}}, blocks())
	add(3)
	require.Equal(t, []segRange{{2, 4, 0}}, blocks(), "the block grows")
	add(6)
	add(8)
	require.Equal(t, []segRange{{8, 9, 0}, {6, 7, 0}, {2, 4, 0}}, blocks(), "the most recent first (RFC 2018)")
	add(10)
	require.Equal(t, []segRange{{10, 11, 0}, {8, 9, 0}, {6, 7, 0}}, blocks(), "at most 3: the oldest goes")
	add(7)
	require.Equal(t, []segRange{{6, 9, 0}, {10, 11, 0}}, blocks(), "7 joins 6 and 8")
	_, isNew, _ = add(7)
	require.False(t, isNew, "a duplicate")
	adv, _, filled := add(1)
	require.Equal(t, int64(3), adv, "1 fills the hole up to 4")
	require.True(t, filled)
	require.Equal(t, int64(4), r.nxt)
	require.Equal(t, []segRange{{6, 9, 0}, {10, 11, 0}}, blocks())
	add(4)
	adv, _, _ = add(5)
	require.Equal(t, int64(4), adv, "5 joins 6..8")
	require.Equal(t, int64(9), r.nxt)
	require.Equal(t, []segRange{{10, 11, 0}}, blocks())
	require.Equal(t, []segRange{{10, 11, 0}}, r.ooo)
}

func TestScoreboardIsLostAndPipe(t *testing.T) {
	sb := newScoreboard(100)
	una, nxt := int64(0), int64(20)
	// SACK 5..7 and 9: the unSACKed segments with three SACKed ones above them, 0..4, are
	// lost; 8 has only one (9) above it and is not.
	require.Equal(t, int64(3), sb.sack(5, 8))
	sb.cache, sb.ncache = [4][2]int64{{5, 8}}, 1
	require.Equal(t, int64(1), sb.sack(9, 10))
	require.Zero(t, sb.sack(5, 8), "already SACKed: the cache skips it")
	sb.markLost(una)
	require.Equal(t, [3]int64{9, 7, 6}, sb.top)
	require.Equal(t, int64(5), sb.lost)
	require.Equal(t, int64(4), sb.sacked)
	pipe := func() int64 { return nxt - una - sb.sacked - sb.lost + sb.retx }
	require.Equal(t, int64(11), pipe())
	// Retransmitting a lost segment puts it back in the pipe; its SACK takes it out.
	*sb.flag(0) |= segRetx
	sb.retx++
	require.Equal(t, int64(12), pipe())
	require.True(t, sb.markSacked(0))
	require.Equal(t, int64(4), sb.lost)
	require.Zero(t, sb.retx)
	// The cumulative ACK of 0..4 clears them: 4 of them newly delivered (0 was SACKed).
	require.Equal(t, int64(4), sb.ackTo(0, 5))
	una = 5
	require.Equal(t, int64(4), sb.sacked, "5, 6, 7 and 9")
	require.Zero(t, sb.lost)
	require.Equal(t, int64(11), pipe())
	// Two more SACKed above 8 make it lost.
	sb.sack(10, 12)
	sb.markLost(una)
	require.Equal(t, [3]int64{11, 10, 9}, sb.top)
	require.Equal(t, int64(1), sb.lost)
	require.NotZero(t, *sb.flag(8)&segLost)
}

func TestRTTEstimator(t *testing.T) {
	var e rttEstimator
	e.sample(100 * sim.Microsecond)
	require.Equal(t, 100*sim.Microsecond, e.srtt)
	require.Equal(t, 50*sim.Microsecond, e.rttvar)
	require.Equal(t, 300*sim.Microsecond, e.rto(0, sim.Second), "SRTT + 4 RTTVAR")
	e.sample(60 * sim.Microsecond)
	require.Equal(t, (3*50*sim.Microsecond+40*sim.Microsecond)/4, e.rttvar, "RTTVAR with the old SRTT")
	require.Equal(t, (7*100*sim.Microsecond+60*sim.Microsecond)/8, e.srtt)
	require.Equal(t, sim.Millisecond, e.rto(sim.Millisecond, sim.Second), "at least min_rto")
	require.Equal(t, 200*sim.Microsecond, e.rto(0, 200*sim.Microsecond), "at most max_rto")
}

func TestUnwrap(t *testing.T) {
	require.Equal(t, int64(1<<32+5), unwrap(1<<32-10, 5))
	require.Equal(t, int64(1<<32-20), unwrap(1<<32+10, uint32(1<<32-20)))
	require.Equal(t, int64(7), unwrap(3, 7))
}

func TestDelayLineKeepsOrderAndReusesItsRing(t *testing.T) {
	var d delayLine
	for round := 0; round < 3; round++ {
		for i := 0; i < 40; i++ {
			pk := packetWithSeq(uint32(i))
			d.push(&pk, sim.Time(i))
		}
		size := len(d.pkts)
		for i := 0; i < 40; i++ {
			p, due := d.front()
			require.Equal(t, uint32(i), p.TCP().Seq)
			require.Equal(t, sim.Time(i), due)
			d.pop()
		}
		require.Zero(t, d.n)
		require.Equal(t, size, len(d.pkts))
	}
}

func packetWithSeq(seq uint32) topology.Packet {
	var p topology.Packet
	p.TCP().Seq = seq
	return p
}
