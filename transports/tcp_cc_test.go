package transports

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTCPCCFollowsTheSendersPhase steps TCP's congestion control (tcpCC over NewReno, classic
// ECN) through the signals the TCP sender gives it, each expectation from RFC 5681, 3465,
// 3168 and 6675 by hand: slow start grows by min(acked, 2) while the window is in use; an ECE
// in the open phase halves the window once per window of data and says so (the sender sets
// CWR); fast recovery holds the window; the slow start after an RTO grows it but answers no
// ECE; a loss is the window's reduction; only the first RTO of a series halves ssthresh.
func TestTCPCCFollowsTheSendersPhase(t *testing.T) {
	c := newTCPCC(ECNClassic, DCTCPGain, 10, 1000)
	ack := func(una, next, acked int64, ece bool, phase ccPhase) ccAck {
		return c.signal(ccSignal{event: ccAcked, una: una, next: next, acked: acked, ece: ece, phase: phase, flight: next - una})
	}
	require.True(t, c.windowOpen(10), "ten segments fill the initial window")
	require.False(t, c.windowOpen(11))
	require.True(t, c.win.limited, "the window held the sender back")
	c.sent(nil, 10)

	// Slow start: 10 < 2 x 10 segments in flight, so + min(4, 2); then the ECE halves 12.
	require.Equal(t, ccWindow|ccReduced, ack(4, 10, 4, true, ccOpen))
	require.Equal(t, 6.0, c.win.cwnd)
	require.Equal(t, 6.0, c.win.ssthresh)

	// Within that window of data (una 6 < 10) an ECE reduces nothing; at ssthresh the window
	// is in congestion avoidance and grows by acked / cwnd, having been limited.
	require.Equal(t, ccWindow, ack(6, 10, 2, true, ccOpen))
	require.Equal(t, 6.0+2.0/6, c.win.cwnd)

	// Fast recovery: entering it (ccLost) sets ssthresh = cwnd = FlightSize / 2; its ACKs
	// neither grow the window nor answer an ECE, though una passed the ECE's window.
	c.signal(ccSignal{event: ccLost, una: 10, next: 30})
	require.Equal(t, 10.0, c.win.cwnd)
	require.Equal(t, ccWindow, ack(12, 30, 2, true, ccFastRecovery))
	require.Equal(t, 10.0, c.win.cwnd)

	// Past the loss's window of data an ECE in the open phase halves the window again (which
	// did not grow first: at ssthresh, not filled in this window of data or the last).
	require.Equal(t, ccWindow|ccReduced, ack(30, 40, 2, true, ccOpen))
	require.Equal(t, 5.0, c.win.cwnd)
	require.Equal(t, 5.0, c.win.ssthresh)

	// RTOs: the first of a series halves the flight into ssthresh, the second does not;
	// both restart from one segment.
	c.signal(ccSignal{event: ccTimedOut, una: 30, next: 50})
	require.Equal(t, 1.0, c.win.cwnd)
	require.Equal(t, 10.0, c.win.ssthresh)
	c.signal(ccSignal{event: ccTimedOut, una: 30, next: 50})
	require.Equal(t, 10.0, c.win.ssthresh, "the second timeout keeps ssthresh")

	// The slow start after the RTO grows the window (it is in use) but answers no ECE, even
	// once una has passed the RTO's window of data.
	c.sent(nil, 1)
	require.Equal(t, ccWindow, ack(50, 51, 1, true, ccRestart))
	require.Equal(t, 2.0, c.win.cwnd)

	// Progress ends the series: the next timeout is a first one again.
	c.signal(ccSignal{event: ccTimedOut, una: 50, next: 58})
	require.Equal(t, 4.0, c.win.ssthresh, "FlightSize 8 / 2")
}
