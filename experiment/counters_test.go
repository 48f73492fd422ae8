package experiment

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// oneDrop is a single flow of n MTU-sized packets from h1 whose k-th data frame on the
// first link is lost (drop_every k, with the flow too short to reach the 2k-th frame).
const oneDrop = `
version: 1
name: counters
stop: 20ms
topology:
  preset: star
  params: {hosts: 2, link: {rate: 100Gbps, delay: 1us}}
transports:
  rocev2: {retransmit_timeout: 1ms}
  iwarp: {min_rto: 1ms}
traffic:
  - flow: {src: h1, dst: h2, size: %dKiB, transport: %s}
faults:
  - {at: 0, link: [h1, sw], drop_every: %d}
`

func TestCountersOfNAKsAndTimeouts(t *testing.T) {
	// RoCE v2, 60 packets, the 50th lost: packets 51-60 reveal the gap, the responder NAKs
	// once (IBA C9-114: one NAK per gap), the requester goes back to 50 and resends 50-60
	// (11 packets); no timer expires.
	v := runOne(t, fmt.Sprintf(oneDrop, 60, "rocev2", 50), 0)
	f := v.PerFlow[0]
	require.Equal(t, "completed", f.Status)
	require.EqualValues(t, 1, f.NAKs)
	require.EqualValues(t, 0, f.Timeouts)
	require.EqualValues(t, 11, f.RetransmittedPackets)
	require.EqualValues(t, 1, v.NAKs, "the variant sums its flows")
	require.EqualValues(t, 0, v.Timeouts)

	// The last of 50 packets lost: nothing follows it to reveal a gap, so only the local ACK
	// timeout recovers it: one expiry, no NAK. The requester goes back to its first
	// unacknowledged packet: ACKs are coalesced every 16 packets (ack_interval), so the 49
	// delivered were acknowledged up to 48 and packets 49 and 50 are resent.
	v = runOne(t, fmt.Sprintf(oneDrop, 50, "rocev2", 50), 0)
	f = v.PerFlow[0]
	require.Equal(t, "completed", f.Status)
	require.EqualValues(t, 0, f.NAKs)
	require.EqualValues(t, 1, f.Timeouts)
	require.EqualValues(t, 50-16*(49/16), f.RetransmittedPackets)
	require.EqualValues(t, 1, v.Timeouts)
	require.InDelta(t, 1000, *f.FCTUS, 50, "the timeout (1 ms) dominates the flow's time")

	// iWARP's tail: a lost last segment gets no duplicate ACKs, so the RTO (at least min_rto)
	// recovers it; iWARP has no NAKs.
	text := fmt.Sprintf(oneDrop, 8, "iwarp", 1000)
	segments := build0(t, text).iwarpConfig().Frames(8 * 1024).Segments()
	v = runOne(t, fmt.Sprintf(oneDrop, 8, "iwarp", segments), 0)
	f = v.PerFlow[0]
	require.Equal(t, "completed", f.Status)
	require.EqualValues(t, 0, f.NAKs)
	require.EqualValues(t, 1, f.Timeouts)
	require.GreaterOrEqual(t, *f.FCTUS, 1000.0, "waited for min_rto")
}
