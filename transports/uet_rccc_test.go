package transports

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
)

// TestRCCCCreditTargets: a 40 KiB flow under RCCC at 100 Gb/s with a 12 us base RTT starts
// with a speculative credit of maxwnd = 1.5 x 100 Gb/s x 12 us = 225,000 bytes and sends its
// 10 packets of 4096 payload bytes and 60 header bytes (PDS RUD_CC_REQ 16, SES 44) at once,
// each taking its 4,222 wire bytes (those and Ethernet 14, IPv4 20, UDP 8, FCS 4, preamble
// and gap 20) of credit. After each of the first nine, what is left to send is less than the
// credit held, so the target is the speculating sender's one packet, 4,222 bytes rounded up
// to 17 units of 256; after the last there is nothing left to send and the target is the
// credit granted so far, 0. (Before, it was 0 - 183,440 bytes of surplus credit
// in units, wrapped to about 4.29e9 in the header's field, and the receiver granted credit
// to the finished sender every round.)
func TestRCCCCreditTargets(t *testing.T) {
	cfg := UETConfig{MTU: 4096, AckBytes: 16384, Paths: 64, QAGate: 3, AckPriority: 7, CC: &RCCC{}}
	u := newUETPair(40<<10, cfg, 12*sim.Microsecond)
	require.EqualValues(t, 225000, u.s.rc.credit)
	require.True(t, u.s.rc.speculating)
	var targets []uint32
	for u.s.hasData() {
		p := u.s.emit(0)
		require.True(t, p.UET().CCReq)
		targets = append(targets, p.UET().Credit)
	}
	require.Equal(t, []uint32{17, 17, 17, 17, 17, 17, 17, 17, 17, 0}, targets)
	require.EqualValues(t, 225000-10*(4156+14+20+8+4+20), u.s.rc.credit)
	require.EqualValues(t, -179, quantaCeil(-46000), "ceil(-179.7)")
	require.EqualValues(t, -1, quantaCeil(-256))
	require.EqualValues(t, 17, quantaCeil(4156))
	require.EqualValues(t, 16, quantaCeil(4096))
}
