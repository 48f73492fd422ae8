package experiment

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/results"
)

// lossyIncast: h1 and h2 write 2 MB each into h3 through one switch with a 100 KB buffer and
// no PFC, so the switch's port to h3 overflows (buffer drops); h1's link also loses its
// 100th data frame (one random_loss drop, at h1's sending end).
const lossyIncast = `
version: 1
name: drop-places
stop: 50ms
topology:
  preset: star
  params: {hosts: 3, link: {rate: 100Gbps, delay: 1us}}
switch:
  buffer: 100KB
  pfc: {enabled: false}
  ecn: {enabled: false}
transports:
  rocev2: {cc: none, retransmit_timeout: 100us}
traffic:
  - incast: {senders: [h1, h2], receiver: h3, size: 2MB, transport: rocev2}
faults:
  - {at: 0, link: [h1, sw], drop_every: 100}
`

// TestDropPlacesAreWhereTheCountersCountedThem: the buffer drops are at the switch's port
// to h3 (the egress queue that overflowed), the link's losses at h1's end of h1-sw, and the
// places add up, by reason, to drops.by_reason.
func TestDropPlacesAreWhereTheCountersCountedThem(t *testing.T) {
	v := runOne(t, lossyIncast, 0)
	require.Positive(t, v.Drops.ByReason.Buffer, "the incast overflows the 100 KB buffer")
	require.Positive(t, v.Drops.ByReason.RandomLoss)
	require.Equal(t, v.Drops.ByReason, results.DropPlacesByReason(v.DropPlaces))
	for _, p := range v.DropPlaces {
		switch p.Reason {
		case "buffer":
			require.Equal(t, results.DropPlace{Node: "sw", Port: 3, Peer: "h3", Reason: "buffer", Packets: v.Drops.ByReason.Buffer}, p)
		case "random_loss":
			require.Equal(t, results.DropPlace{Node: "h1", Port: 1, Peer: "sw", Reason: "random_loss", Packets: v.Drops.ByReason.RandomLoss}, p)
		default:
			t.Fatalf("a drop place nothing in the scenario makes: %+v", p)
		}
	}
}
