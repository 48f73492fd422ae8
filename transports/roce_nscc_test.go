package transports

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// TestRoCENSCCConfigChecks: cc nscc is refused over RoCE v1 (no ECN field) and with a
// negative target or a gate past 62, each with what is allowed.
func TestRoCENSCCConfigChecks(t *testing.T) {
	for _, c := range []struct {
		p       NSCCParams
		version int
		bad     string
	}{
		{NSCCParams{QAGate: 3}, 1, "RoCE v1"},
		{NSCCParams{TargetQDelay: -1, QAGate: 3}, 2, "not negative"},
		{NSCCParams{QAGate: 63}, 2, "from 0 to 62"},
	} {
		require.ErrorContains(t, c.p.check(c.version), c.bad)
	}
	require.NoError(t, (&NSCCParams{QAGate: 3}).check(2))
}

// TestRoCENSCCWindow: without a path cc nscc refuses to start, saying why; given a base RTT
// its window starts at maxwnd = 1.5 x the BDP of that RTT at line rate, in wire bytes, which
// lets floor(maxwnd / wire) full packets go; an unmarked ACK with no queueing delay and a
// NAK of a lost packet take the bytes they should.
func TestRoCENSCCWindow(t *testing.T) {
	cfg := RoCEConfig{Version: 2, MTU: 1024, CC: &NSCCParams{QAGate: 3}}
	line := 100 * sim.Gbps
	c := cfg.CC.newCC(nil, &cfg, line, 0, 1<<20).(*roceNSCC)
	require.Contains(t, c.start(), "without the flow's path")
	base := 10 * sim.Microsecond
	times := c.begin(base)
	require.Empty(t, c.start())
	wire := frames.RoCEWireBytes(2, 1024, false)
	bdp := int64(float64(line) * base.Seconds() / 8) // 125,000 B
	maxwnd := int64(1.5 * float64(bdp))
	require.Equal(t, maxwnd, c.c.cwnd)
	fit := uint32(maxwnd / wire)
	require.Equal(t, int((maxwnd+wire-1)/wire)+2, len(times.at), "send times for the window (rounded up) and two more")
	require.True(t, c.windowOpen(int64(fit)), "packet %d fits", fit)
	require.False(t, c.windowOpen(int64(fit)+1), "packet %d does not", fit+1)
	p := &topology.Packet{}
	c.sent(p, 1)
	require.True(t, p.IB().AckReq, "every packet asks for an ACK")

	// A NAK of a lost (not trimmed) packet takes a packet's bytes off the window.
	before := c.c.cwnd
	c.signal(ccSignal{event: ccLost, now: sim.Microsecond, una: 0, next: int64(fit), psn: 0})
	require.Equal(t, before-wire, c.c.cwnd)
}

// TestSendTimesKarn: an ACK of a packet sent once is an RTT sample; of one sent again, or
// whose slot a later PSN has taken, none.
func TestSendTimesKarn(t *testing.T) {
	st := newSendTimes(4)
	for psn := range uint32(4) {
		st.sent(psn, sim.Time(psn)*sim.Microsecond)
	}
	require.Equal(t, 9*sim.Microsecond, st.sample(1, 10*sim.Microsecond))
	st.sent(2, 5*sim.Microsecond) // a resend
	require.Zero(t, st.sample(2, 10*sim.Microsecond))
	st.sent(4, 6*sim.Microsecond) // takes PSN 0's slot
	require.Zero(t, st.sample(0, 10*sim.Microsecond))
	require.Equal(t, 4*sim.Microsecond, st.sample(4, 10*sim.Microsecond))
}
