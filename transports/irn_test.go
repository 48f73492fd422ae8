package transports

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// TestPSNSetGrowsAndSlides: the set keeps what was added across growth and a sliding base,
// and drops what falls below the base.
func TestPSNSetGrowsAndSlides(t *testing.T) {
	var s psnSet
	require.False(t, s.has(0))
	in := []uint32{3, 5, 64, 127, 128, 1000, 5000}
	for _, q := range in {
		s.add(q)
	}
	s.add(5) // twice is once
	require.Equal(t, len(in), s.n)
	for _, q := range in {
		require.True(t, s.has(q), q)
	}
	require.False(t, s.has(4))
	require.False(t, s.has(4999))
	s.advance(128)
	require.False(t, s.has(127))
	require.True(t, s.has(128))
	require.Equal(t, 3, s.n)
	s.add(100) // below the base: ignored
	require.False(t, s.has(100))
	s.advance(1 << 20)
	require.Zero(t, s.n)
	s.add(1<<20 + 7)
	require.True(t, s.has(1<<20+7))
}

// TestIRNTimeoutsAndCap: RTO_low below N packets in flight, RTO_high from N; BDP-FC admits
// below the cap; no cap admits anything.
func TestIRNTimeoutsAndCap(t *testing.T) {
	ir := irnSender{p: IRNParams{RTOLow: 100 * sim.Microsecond, RTOHigh: 320 * sim.Microsecond, RTOLowPackets: 3, BDPCap: 4}}
	require.Equal(t, 100*sim.Microsecond, ir.rtoFor(2))
	require.Equal(t, 320*sim.Microsecond, ir.rtoFor(3))
	require.True(t, ir.mayAdmit(3))
	require.False(t, ir.mayAdmit(4))
	uncapped := irnSender{}
	require.True(t, uncapped.mayAdmit(1<<30))
}

// TestIRNStaleNAKAfterTheLastACK: replies sprayed over planes may reorder, so a NAK built
// before the last packets arrived can come after the ACK of the whole message. It names
// nothing to resend: the requester sends no packet beyond the message (before, it resent
// PSN total, one past the last, and the responder counted a packet too many).
func TestIRNStaleNAKAfterTheLastACK(t *testing.T) {
	const total = 10
	ir := irnSender{}
	q := roceSeq{una: 0, sndNxt: total, maxSent: total, total: total}
	all := &topology.Packet{PSN: total - 1}
	all.IB().Syndrome = topology.SyndromeACK
	require.NotZero(t, ir.onAck(&q, all)&ackStop, "all acknowledged")
	require.Equal(t, uint32(total), q.una)
	stale := &topology.Packet{PSN: 6}
	*stale.IB() = topology.IBFields{Syndrome: topology.SyndromeNAKSequence, HasSACK: true, SACKPSN: 8}
	ir.onAck(&q, stale)
	_, kind := ir.next(&q)
	require.Equal(t, sendNone, kind, "nothing to send after the whole message is acknowledged")
}
