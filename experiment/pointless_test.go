package experiment

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// TestShortTimeoutsWarn (issue 34, point 7): a fixed retransmit timeout below a flow's base
// round trip makes a run pointless, and the build says so with the round trip: on a star of
// 1 s links a round trip is two links out and two back, 4 s plus the frames' serializations
// (a full data frame out and an ACK back at 100 Gb/s, store and forward at the switch); a
// RoCE v2 flow with the default timeout and a UET flow with rto: 1ps are both warned of,
// IRN (whose timers are not fixed in that way) and 1 us links are not.
func TestShortTimeoutsWarn(t *testing.T) {
	const file = `
version: 1
name: slow-links
stop: 1ms
topology: {preset: star, params: {hosts: 2, link: {rate: 100Gbps, delay: 1s}}}
transports:
  uet: {rto: 1ps}
traffic:
  - flow: {src: h1, dst: h2, size: 10KB}
variants:
  - {name: roce, transport: rocev2}
  - {name: uet, transport: uet}
  - {name: irn, transport: rocev2, set: {transports.rocev2.recovery: irn}}
`
	f := load(t, file)
	warnings, err := Check(f)
	require.NoError(t, err)
	at := func(wire int64) sim.Time { return (100 * sim.Gbps).TxTime(wire) }
	roce := 4*sim.Second + 2*at(frames.RoCEWireBytes(2, 1024, false)) + 2*at(frames.RoCEAckWireBytes(2))
	uet := 4*sim.Second + 2*at(frames.UETWireBytes(4096, false)) + 2*at(frames.UETAckWireBytes())
	require.Len(t, warnings, 2, "%q", warnings)
	require.True(t, strings.HasPrefix(warnings[0], "transports.rocev2.retransmit_timeout "), warnings[0])
	require.Contains(t, warnings[0], "is below the base round trip of 1 flow(s)' paths (up to "+roce.String()+":")
	require.True(t, strings.HasSuffix(warnings[0], "(variants: roce)"), warnings[0])
	require.True(t, strings.HasPrefix(warnings[1], "transports.uet.rto 1ps is below the base round trip of 1 flow(s)' paths (up to "+uet.String()+":"), warnings[1])

	fast := load(t, strings.Replace(strings.Replace(file, "delay: 1s", "delay: 1us", 1), "rto: 1ps", "rto: 100us", 1))
	warnings, err = Check(fast)
	require.NoError(t, err)
	require.Empty(t, warnings)
}
