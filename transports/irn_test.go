package transports

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
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

// TestIRNRecoveryResendsOnlyTheHoles: packets 0..9 out, 2 and 5 lost; the NAKs of 3, 4, 6..9
// reveal both holes. Recovery resends 2 and 5, once each and in order, then lets new packets
// go; it ends once the cumulative acknowledgement passes the last packet sent before it began.
func TestIRNRecoveryResendsOnlyTheHoles(t *testing.T) {
	ir := irnSender{p: IRNParams{RTOLow: 100 * sim.Microsecond, RTOHigh: 320 * sim.Microsecond, RTOLowPackets: 3, BDPCap: 16}}
	una, sndNxt := uint32(2), uint32(10)
	_, ok := ir.nextLost(una)
	require.False(t, ok, "no recovery before a NAK")
	ir.sack(3)
	ir.enterRecovery(una, sndNxt, false)
	q, ok := ir.nextLost(una)
	require.True(t, ok)
	require.EqualValues(t, 2, q)
	ir.retxNext = q + 1
	_, ok = ir.nextLost(una)
	require.False(t, ok, "4 and up are not known lost yet")
	for _, s := range []uint32{4, 6, 7} {
		ir.sack(s)
		ir.enterRecovery(una, sndNxt, false)
	}
	q, ok = ir.nextLost(una)
	require.True(t, ok)
	require.EqualValues(t, 5, q, "3 and 4 are held: 5 is next")
	ir.retxNext = q + 1
	_, ok = ir.nextLost(una)
	require.False(t, ok, "6 and 7 held, 8 not revealed")
	require.EqualValues(t, 9, ir.recoverSeq)
	ir.acked(5)
	require.True(t, ir.recovery, "5 is not past 9")
	ir.acked(10)
	require.False(t, ir.recovery)
	require.Zero(t, ir.sacked.n)
}

// TestIRNTimeoutsAndCap: RTO_low below N packets in flight, RTO_high from N; BDP-FC admits
// below the cap; a timeout restarts the resend pass at una.
func TestIRNTimeoutsAndCap(t *testing.T) {
	ir := irnSender{p: IRNParams{RTOLow: 100 * sim.Microsecond, RTOHigh: 320 * sim.Microsecond, RTOLowPackets: 3, BDPCap: 4}}
	require.Equal(t, 100*sim.Microsecond, ir.rto(2))
	require.Equal(t, 320*sim.Microsecond, ir.rto(3))
	require.True(t, ir.mayAdmit(3))
	require.False(t, ir.mayAdmit(4))
	ir.enterRecovery(7, 9, true)
	q, ok := ir.nextLost(7)
	require.True(t, ok)
	require.EqualValues(t, 7, q, "a timeout resends una first")
	ir.retxNext = 8
	ir.enterRecovery(7, 9, true)
	q, _ = ir.nextLost(7)
	require.EqualValues(t, 7, q, "a second timeout starts the pass again")
	uncapped := irnSender{}
	require.True(t, uncapped.mayAdmit(1<<30))
}
