package experiment

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/collective"
	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// aiJob is one collective alone on one stripe of the rail preset: %d servers of 8 GPUs, %d
// spines, fabric links of %s, NICs of 400 Gb/s with 1 us links, the H100 scale-up domain's
// defaults (3.6 Tb/s a direction, 936.25 ns a link), RoCE v2 without congestion control over
// PFC; the collective item is the last %s.
const aiJob = `version: 1
name: ai-job
stop: 20ms
topology: {preset: rail, params: {servers_per_stripe: %d, gpus_per_server: 8, spines: %d, nic_link: {rate: 400Gbps, delay: 1us}, fabric_link: {rate: %s, delay: 1us}, scaleup: {}}}
switch: {pfc: {enabled: true}}
transports: {rocev2: {cc: none}}
traffic:
  - collective: {%s}
variants:
  - {name: v, transport: rocev2}
`

const (
	aiMTU      = 1024                    // rocev2's default MTU, bytes
	aiNIC      = 400 * sim.Gbps          // nic_link
	aiSU       = 3600 * sim.Gbps         // scaleup: {} (NVLink 4, 18 links x 200 Gb/s, each way)
	aiNICDelay = sim.Microsecond         // nic_link's delay
	aiSUDelay  = 936250 * sim.Picosecond // scaleup: {} link delay (ASTRA-sim's HGX-H100 value)
)

// aiWire is a WRITE of bytes (a multiple of the MTU) on the wire: every packet's headers,
// preamble and gap (roceV2Overhead), the first packet's RETH.
func aiWire(bytes int64) int64 {
	return bytes/aiMTU*(aiMTU+roceV2Overhead) + topology.RETHHeader
}

// aiLink is a link class's cost for messages of bytes: the time a payload byte takes at
// rate (w = aiWire(bytes)/bytes wire bytes a payload byte) and a message's latency through
// the two links of delay each way and the switch between them (store and forward of one
// full packet at rate; switch latency 0 by default).
func aiLink(bytes int64, rate sim.Rate, delay sim.Time) collective.Link {
	w := float64(aiWire(bytes)) / float64(bytes)
	full := rate.TxTime(aiMTU + roceV2Overhead)
	return collective.Link{
		PerByte: w * 8 / float64(rate),
		Alpha:   (2*delay + full).Seconds(),
	}
}

func aiRun(t *testing.T, servers, spines int, fabricRate, coll string, sets ...string) *results.Variant {
	t.Helper()
	return runOne(t, fmt.Sprintf(aiJob, servers, spines, fabricRate, coll), 0, sets...)
}

func aiJobUS(t *testing.T, v *results.Variant) float64 {
	t.Helper()
	require.Len(t, v.Jobs, 1)
	j := v.Jobs[0]
	require.Equal(t, 1, j.Completed, "the job's iteration ended")
	require.NotNil(t, j.CompletionUS)
	return *j.CompletionUS
}

// aiSpinePackets counts the frames (data and ACKs) on links to or from a spine.
func aiSpinePackets(v *results.Variant) int64 {
	var n int64
	for _, l := range v.Links {
		if strings.HasPrefix(l.From, "spine") || strings.HasPrefix(l.To, "spine") {
			n += l.Packets
		}
	}
	return n
}

// TestHierarchicalAllreduceAtItsPhases runs a hierarchical allreduce of S = 16 MiB over 8
// servers x 8 GPUs alone on the fabric and holds it within 3% of the sum of its three
// phases at their links' rates (collective.HierarchicalIdeal): 2 (L-1) steps of S/L bytes
// over the scale-up link and 2 (D-1) of S/(L D) over the NIC, each at w/B plus its path's
// latency, w the wire bytes a payload byte of the messages each channel carries (S/L/C and
// S/(L D)/C bytes). No byte crosses a spine.
func TestHierarchicalAllreduceAtItsPhases(t *testing.T) {
	slow(t, "64 GPUs, 16 MiB hierarchical allreduce")
	const S, L, D, C = 16 << 20, 8, 8, 8
	v := aiRun(t, D, 2, "400Gbps", fmt.Sprintf("op: allreduce, hosts: all, size: %dB, channels: %d, algorithm: hierarchical", S, C))
	got := aiJobUS(t, v)
	su := aiLink(S/L/C, aiSU, aiSUDelay)
	nic := aiLink(S/(L*D)/C, aiNIC, aiNICDelay)
	want := collective.HierarchicalIdeal(collective.AllReduce, S, L, D, su, nic) * 1e6
	t.Logf("hierarchical allreduce 8x8, 16 MiB: %.2f us, closed form %.2f us (%.2f%%)", got, want, 100*(got/want-1))
	require.InEpsilon(t, want, got, 0.03)
	require.Zero(t, aiSpinePackets(v), "hierarchical: every byte stays on its rail or in its server")
}
