package transports

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/topology"
)

// TestRoCEDCTCPAlphaAndCut walks cc dctcp through two windows of data (RFC 8257 section 3.3):
// alpha starts at 1 and takes one sample per window, alpha = (1 - g) alpha + g F with F the
// fraction of the window's packets that came back echoed; an echo cuts cwnd by alpha/2 once
// per window of data, which then does not grow until that window is acknowledged; slow start
// adds min(acked, 2) packets per ACK (RFC 3465, L = 2).
func TestRoCEDCTCPAlphaAndCut(t *testing.T) {
	const g = 1.0 / 16
	c := newRoceDCTCP(DCTCPParams{G: g, InitCwnd: 10}, 1000)
	sentAck := map[uint32]bool{}
	send := func(from, to uint32) {
		for psn := from; psn < to; psn++ {
			require.True(t, c.windowOpen(int64(psn-c.una)+1), "psn %d", psn)
			p := &topology.Packet{PSN: psn}
			c.sent(p, int64(psn-c.una)+1)
			sentAck[psn] = p.IB().AckReq
		}
	}
	ack := func(una uint32, echo bool, kind topology.Kind) {
		p := &topology.Packet{Kind: kind, PSN: una - 1}
		p.IB().BECN = echo
		c.signal(roceSignal(0, p, una, c.nxt))
	}
	send(0, 10)
	require.False(t, c.windowOpen(11), "ten packets fill the initial window")
	for psn := uint32(0); psn < 10; psn++ {
		// Packet psn leaves with psn in flight: the second half of the window of 10 asks.
		require.Equal(t, 2*(psn+1) >= 10, sentAck[psn], "psn %d asks for an ACK at once", psn)
	}

	// The first ACK (4 packets, none echoed) closes alpha's first window: F = 0.
	ack(4, false, topology.KindAck)
	alpha := (1 - g) * 1
	require.Equal(t, alpha, c.cc.alpha)
	require.Equal(t, 10.0+2, c.win.cwnd, "slow start: + min(4, 2)")

	send(10, 16) // alpha's window now ends at PSN 10, the cut's at the next cut's nxt
	// The second ACK takes una to 10, all 6 echoed: F = 1; the window grows by 2 first, then
	// the echo cuts it by alpha/2.
	ack(10, true, topology.KindAck)
	alpha = (1-g)*alpha + g*1
	require.Equal(t, alpha, c.cc.alpha)
	cut := (12.0 + 2) * (1 - alpha/2)
	require.Equal(t, cut, c.win.cwnd)
	require.Equal(t, cut, c.win.ssthresh)

	// Another echo within the same window of data (una 12 < 16, what was in flight at the cut)
	// neither cuts again nor grows the window (RFC 3168 section 6.1.2: as after a loss).
	ack(12, true, topology.KindAck)
	require.Equal(t, cut, c.win.cwnd)

	// A NAK is a loss: ssthresh = cwnd = flight / 2, at least 2 (RFC 5681), once per window.
	send(16, 16+uint32(c.win.cwnd)-4)
	flight := float64(c.nxt - 12)
	ack(12, false, topology.KindNak)
	require.Equal(t, max(flight/2, 2), c.win.cwnd)
	ack(12, false, topology.KindNak)
	require.Equal(t, max(flight/2, 2), c.win.cwnd, "one reduction per window")

	// A retransmit timeout restarts from one packet.
	c.signal(ccSignal{event: ccTimedOut, una: int64(c.una), next: int64(c.nxt)})
	require.Equal(t, 1.0, c.win.cwnd)
}

// TestRoCEDCTCPConfigChecks: the gain, the initial window, RoCE v1 and a second scheme are
// refused with what is allowed.
func TestRoCEDCTCPConfigChecks(t *testing.T) {
	for _, c := range []struct {
		cc      RoCECC
		version int
		bad     string
	}{
		{&DCTCPParams{G: 0, InitCwnd: 10}, 2, "gain"},
		{&DCTCPParams{G: 1.0 / 16, InitCwnd: 0}, 2, "initial window"},
		{&DCTCPParams{G: 1.0 / 16, InitCwnd: 10}, 1, "RoCE v1"},
	} {
		err := c.cc.check(c.version)
		require.ErrorContains(t, err, c.bad)
	}
	var ok RoCECC = &DCTCPParams{G: 1.0 / 16, InitCwnd: 10}
	require.NoError(t, ok.check(2))
}
