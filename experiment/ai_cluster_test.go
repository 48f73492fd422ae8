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

// TestRailRingAtItsClosedForm runs NCCL's rail ring allreduce (4 servers x 8 GPUs, 8
// channels: one a rail) alone on the fabric and holds it within 3% of
// collective.RailRingPipelined: the busier link class's 2(N-1) steps of bytes back to back at
// w/B plus one path latency. The step-synchronous RailRingIdeal (a latency every step) is
// 1.5x the run here: the channels' rings move on as data arrives, so the NIC carrying a rail's
// units never waits. Cases:
//   - PXN: the NICs bound it (S/(g N) a step at 400 Gb/s against S/N at 3.6 Tb/s); no frame
//     on a spine;
//   - no PXN, one spine of 4 x 400 Gb/s (no oversubscription, no ECMP choice): the same bound,
//     the last GPU's unit through the spine; every crossing unit's packets twice on spine
//     links (up and down), plus their ACKs;
//   - no PXN, one spine of 400 Gb/s: a leaf's 4 crossing queue pairs (one a server) share
//     its uplink, so a crossing byte costs 4 w/B: 4x the time. The rail preset's default of
//     2 spines is this case or between: ECMP places each leaf's 4 crossing queue pairs on
//     its 2 uplinks by hash, and one leaf with all 4 on one spine makes the whole ring 4x.
func TestRailRingAtItsClosedForm(t *testing.T) {
	slow(t, "three 32-GPU ring allreduces of 64 and 16 MiB")
	const n, g, C = 4, 8, 8
	const N = n * g
	for _, c := range []struct {
		name        string
		pxn         bool
		size        int64
		fabric      string
		share       float64 // a crossing flow's share of the NIC's rate
		spineFrames bool
	}{
		{"PXN", true, 64 << 20, "400Gbps", 1, false},
		{"no PXN, non-blocking spine", false, 64 << 20, "1600Gbps", 1, true},
		{"no PXN, 4:1 spine", false, 16 << 20, "400Gbps", 0.25, true},
	} {
		coll := fmt.Sprintf("op: allreduce, hosts: all, size: %dB, channels: %d", c.size, C)
		v := aiRun(t, n, 1, c.fabric, coll, fmt.Sprintf("hosts.pxn=%v", c.pxn))
		got := aiJobUS(t, v)
		unit := c.size / (C * N) // a channel's unit, one message
		su := aiLink(unit, aiSU, aiSUDelay)
		nic := aiLink(unit, aiNIC, aiNICDelay)
		nic.PerByte /= c.share
		if !c.pxn { // through the spine: two more links and a store and forward
			nic.Alpha += (2*sim.Microsecond + aiNIC.TxTime(aiMTU+roceV2Overhead)).Seconds()
		}
		want := collective.RailRingPipelined(collective.AllReduce, c.size, n, g, C, c.pxn, su, nic) * 1e6
		lockstep := collective.RailRingIdeal(collective.AllReduce, c.size, n, g, C, c.pxn, su, nic) * 1e6
		t.Logf("%s: %.2f us, pipelined closed form %.2f us (%.2f%%), step-synchronous %.2f us", c.name, got, want, 100*(got/want-1), lockstep)
		require.InEpsilon(t, want, got, 0.03, c.name)
		frames := aiSpinePackets(v)
		if !c.spineFrames {
			require.Zero(t, frames, c.name)
			continue
		}
		// Every inter-server unit crosses rails: 2(N-1) steps x n servers x C channels... of
		// which one channel's unit a server a step leaves the server (C = g, k = 1): per step
		// n C crossing messages of unit bytes, each on two spine links; their ACKs: one per
		// AckInterval (16) packets and the last.
		msgs := int64(2*(N-1)) * n * (C / g) * g
		pkts := unit / aiMTU
		data := 2 * msgs * pkts
		require.GreaterOrEqual(t, frames, data, c.name)
		require.LessOrEqual(t, frames, data+2*msgs*(pkts/16+1), c.name)
	}
}

// aiWireAny is a WRITE of bytes on the wire, its last packet partial.
func aiWireAny(bytes int64) int64 {
	w := aiWire(bytes / aiMTU * aiMTU)
	if r := bytes % aiMTU; r > 0 {
		w += r + roceV2Overhead
	}
	return w
}

// aiBytes sums the queue pairs' posted bytes by sender and by receiver.
func aiBytes(v *results.Variant) (sent, received map[string]int64) {
	sent, received = map[string]int64{}, map[string]int64{}
	for _, f := range v.PerFlow {
		if f.QueuePair {
			sent[f.Src] += f.SizeBytes
			received[f.Dst] += f.SizeBytes
		}
	}
	return sent, received
}

// TestAllToAllOnRails runs a direct all_to_all of S = 4 MiB a rank over 4 servers x 8 GPUs
// (one channel), uniform, with and without PXN: every GPU sends and receives (N-1) S/N bytes
// (it keeps its own share); with PXN each share leaves by the sender's GPU on the
// destination's rail and no frame is on a spine; without PXN the shares between different
// servers and rails, n g (n-1)(g-1) of S/N bytes, cross a spine, each packet twice (up and
// down) with its ACKs.
func TestAllToAllOnRails(t *testing.T) {
	const n, g, S = 4, 8, 4 << 20
	const N = n * g
	for _, pxn := range []bool{true, false} {
		v := aiRun(t, n, 2, "400Gbps", fmt.Sprintf("op: all_to_all, hosts: all, size: %dB, channels: 1", S), fmt.Sprintf("hosts.pxn=%v", pxn))
		aiJobUS(t, v)
		sent, received := aiBytes(v)
		require.Len(t, sent, N)
		require.Len(t, received, N)
		for gpu, b := range sent {
			require.Equal(t, int64((N-1)*(S/N)), b, "%s sends (N-1) S/N", gpu)
			require.Equal(t, int64((N-1)*(S/N)), received[gpu], "%s receives (N-1) S/N", gpu)
		}
		frames := aiSpinePackets(v)
		if pxn {
			require.Zero(t, frames, "PXN: no frame on a spine")
			continue
		}
		msgs := int64(n * g * (n - 1) * (g - 1))
		pkts := int64(S / N / aiMTU)
		data := 2 * msgs * pkts
		require.GreaterOrEqual(t, frames, data)
		require.LessOrEqual(t, frames, data+2*msgs*(pkts/16+1))
	}
}

// TestZipfAllToAllAtItsHottestReceiver runs a direct all_to_all of S = 4 MiB a rank over 4
// servers x 8 GPUs with PXN under Zipf skew s = 1: the hottest rank's share is S / H(N, 1)
// (H the harmonic number; within a byte, each share cut at the rounded running total), and
// it receives it from the N-1 others: from its server's 7 GPUs over its scale-up link, from
// the other 24 over its NIC link, which is the busier. The time is at least, and within 5%
// above, those wire bytes at 400 Gb/s plus one path latency: the shortest into that link, a
// same-rail sender's (its NIC link, the leaf, the receiver's NIC link; the relayed senders'
// first bytes come a scale-up hop later, while the link is already busy).
func TestZipfAllToAllAtItsHottestReceiver(t *testing.T) {
	const n, g, S = 4, 8, 4 << 20
	const N = n * g
	v := aiRun(t, n, 2, "400Gbps", fmt.Sprintf("op: all_to_all, hosts: all, size: %dB, channels: 1, skew: {dist: zipf, s: 1}", S))
	got := aiJobUS(t, v)
	var H float64
	for k := 1; k <= N; k++ {
		H += 1 / float64(k)
	}
	_, received := aiBytes(v)
	hot, hotBytes := "", int64(0)
	for gpu, b := range received {
		if b > hotBytes || b == hotBytes && gpu < hot {
			hot, hotBytes = gpu, b
		}
	}
	share := hotBytes / (N - 1)
	require.Equal(t, int64(N-1)*share, hotBytes, "%s receives one share from each other rank", hot)
	require.InDelta(t, S/H, float64(share), 1, "%s's share is S/H(N,1)", hot)
	nicWire := int64((n-1)*g) * aiWireAny(share)
	suWire := int64(g-1) * aiWireAny(share)
	alpha := aiLink(aiMTU, aiNIC, aiNICDelay).Alpha // the same-rail senders' path: NIC, leaf, NIC
	bound := max(aiNIC.TxTime(nicWire), aiSU.TxTime(suWire)).Seconds()*1e6 + alpha*1e6
	t.Logf("Zipf all_to_all: %.2f us; hottest receiver %s, %d bytes, bound %.2f us (+%.2f%%)", got, hot, hotBytes, bound, 100*(got/bound-1))
	require.GreaterOrEqual(t, got, bound*(1-1e-9))
	require.LessOrEqual(t, got, bound*1.05)
}

// relayShare is three servers of 2 GPUs on one stripe: s1g1 writes 1 MB to s2g2 (with PXN
// relayed by s1g2, whose NIC is on rail 2) while s1g2 writes 1 MB of its own to s3g2.
const relayShare = `version: 1
name: relay-share
stop: 1ms
topology: {preset: rail, params: {servers_per_stripe: 3, gpus_per_server: 2, spines: 1, nic_link: {rate: 400Gbps, delay: 1us}, fabric_link: {rate: 400Gbps, delay: 1us}, scaleup: {}}}
transports: {rocev2: {cc: none}}
traffic:
  - flow: {src: s1g1, dst: s2g2, size: 1000000B, transport: rocev2}
  - flow: {src: s1g2, dst: s3g2, size: 1000000B, transport: rocev2}
`

// TestRelayTakesItsTurn checks that a GPU's NIC serves the data it relays for another GPU of
// its server (PXN) in turn with its own, not ahead of it: the relayed write and s1g2's own
// share s1g2's NIC link frame by frame, which is busy from s1g2's first frame to the relayed
// write's last, the two writes' wire bytes at 400 Gb/s. The relayed write ends then plus its
// path's latency (NIC link, leaf, NIC link); s1g2's own, which began alone while the
// relayed write's first frame crossed NVLink (two scale-up links), that much earlier. Served
// ahead, the relayed write, which comes over NVLink at 3.6 Tb/s, would hold the NIC for its
// whole length and s1g2's own write would end at about twice the relayed one's time.
func TestRelayTakesItsTurn(t *testing.T) {
	v := runOne(t, relayShare, 0)
	require.Len(t, v.PerFlow, 2)
	const size = 1000000
	pkts := int64((size + aiMTU - 1) / aiMTU)
	wire := size + pkts*roceV2Overhead + topology.RETHHeader
	both := aiNIC.TxTime(2*wire).Seconds() * 1e6
	lat := aiLink(aiMTU, aiNIC, aiNICDelay).Alpha * 1e6
	head := aiLink(aiMTU, aiSU, aiSUDelay).Alpha * 1e6
	want := map[string]float64{"s1g1": both + lat, "s1g2": both + lat - head}
	for _, f := range v.PerFlow {
		require.NotNil(t, f.FCTUS, f.Src)
		t.Logf("%s -> %s: %.3f us, want %.3f us", f.Src, f.Dst, *f.FCTUS, want[f.Src])
		require.InEpsilon(t, want[f.Src], *f.FCTUS, 0.002, "%s -> %s", f.Src, f.Dst)
	}
}
