package experiment

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/collective"
	"github.com/fabricsim/fabricsim/scenarios"
)

// TestReleaseLatencyOnTheChain: a ring allreduce over N = 4 ranks of the star, with release
// latency L = 5 us against none. The plan's dependency chain is 2(N-1) steps, each message
// but the first step's sent once the one before it into its sender has arrived, so it holds
// 2(N-1) - 1 = 2N - 3 releases: the ideal moves by exactly (2N - 3) L (25 us), and the run,
// whose steps each wait L longer on links nothing else uses, by the same within 0.5%.
func TestReleaseLatencyOnTheChain(t *testing.T) {
	const n, L = 4, 5.0 // ranks, us
	run := func(latency string) (got, ideal float64) {
		v := runOne(t, starCollective(n, "op: allreduce, hosts: all, size: 1MB, release_latency: "+latency), 0)
		require.Len(t, v.Jobs, 1)
		j := v.Jobs[0]
		require.Equal(t, 1, j.Completed)
		require.GreaterOrEqual(t, *j.CompletionUS, j.IdealUS, "the ideal is a lower bound with the release latency in it")
		return *j.CompletionUS, j.IdealUS
	}
	got0, ideal0 := run("0us")
	gotL, idealL := run(fmt.Sprintf("%gus", L))
	want := (2*n - 3) * L
	t.Logf("ring allreduce N=%d, 1 MB: %.3f us, with L = %g us %.3f (+%.3f); ideal %.3f, %.3f (+%.3f); (2N-3) L = %g",
		n, got0, L, gotL, gotL-got0, ideal0, idealL, idealL-ideal0, want)
	require.InDelta(t, want, idealL-ideal0, 1e-6, "the ideal: (2N-3) L")
	require.InEpsilon(t, want, gotL-got0, 0.005, "the run: (2N-3) L")
}

// TestReleaseLatencyDoesNotDependOnThreads: a release decided in the sender's partition is an
// event there at +L, so a ring allreduce and a tree with a release latency give byte-identical
// results on 1 and 2 threads.
func TestReleaseLatencyDoesNotDependOnThreads(t *testing.T) {
	const text = `
version: 1
name: release-parallel
stop: 20ms
topology:
  preset: fattree
  params: {k: 4, link: {rate: 100Gbps, delay: 1us}, routing: l3}
switch: {buffer: 4MB, pfc: {enabled: true}}
traffic:
  - collective: {op: allreduce, hosts: all, size: 512KB, iterations: 2, compute: 300ns, release_latency: 700ns}
  - collective: {op: allreduce, algorithm: tree, hosts: [h1, h5, h9, h13, h2], size: 512KB, chunk: 64KiB, release_latency: 1500ns}
variants:
  - {name: v, transport: rocev2}
`
	f, problems, _ := scenarios.Load("release.yaml", []byte(text), nil)
	require.Empty(t, problems)
	one, doc := documentOn(t, f, 1)
	for _, j := range doc.Variants[0].Jobs {
		require.Equal(t, j.Iterations, j.Completed, "job %s ended", j.Label)
	}
	two, doc := documentOn(t, f, 2)
	require.Equal(t, 2, doc.Variants[0].Parallel.Partitions)
	if !bytes.Equal(one, two) {
		t.Fatalf("release latency on 2 threads differs from one thread:\n%s", lineDiff(string(one), string(two), 20))
	}
}

// TestPXNPerCollective: on one stripe of 2 servers x 4 GPUs with hosts.pxn true, a ring
// allreduce with pxn: false sends its cross-rail units from each GPU's own NIC through the
// spine, so no frame of it crosses a scale-up link from one GPU to another's NIC; a ring
// allreduce beside it keeps PXN, and its messages to another rail's GPU cross the domain
// first. Counted per queue pair: every frame of a pxn: false job's queue pair to another
// server leaves by its sender's NIC (its scale-up link carries none); with PXN, the NIC
// that relays carries them (NIC.Relayed).
func TestPXNPerCollective(t *testing.T) {
	items := "  - collective: {op: allreduce, hosts: all, size: 1MB, channels: 4, pxn: false, label: direct}\n" +
		"  - collective: {op: allreduce, hosts: all, size: 1MB, channels: 4, label: relayed}"
	f := build0(t, fmt.Sprintf(railBound, "400Gbps", "3600Gbps", true, items))
	f.runWithin(Limits{}, nil)
	require.Len(t, f.jobs.Jobs(), 2)
	crossing := map[string]int{} // queue pairs to another rail's GPU in another server
	for _, j := range f.jobs.Jobs() {
		lo, hi := j.QueuePairs()
		for q := lo; q < hi; q++ {
			fl := f.reg.Flows[q]
			s, d := &f.nw.Nodes[fl.Src], &f.nw.Nodes[fl.Dst]
			if s.Server == d.Server || s.Rail == d.Rail {
				continue
			}
			crossing[j.Collective().Label]++
			nic := f.nicFor(fl.Src, fl.Dst, int32(q))
			peer := f.nw.Nodes[f.nw.Nodes[fl.Src].Ports[nic.Port].Peer].Name
			if j.Collective().Label == "direct" {
				require.True(t, strings.HasPrefix(peer, "leaf"), "pxn false: %s to %s leaves by its NIC, not by %s", s.Name, d.Name, peer)
			} else {
				require.True(t, strings.HasPrefix(peer, "nv"), "pxn: %s to %s crosses the domain first, not %s", s.Name, d.Name, peer)
			}
		}
	}
	require.Positive(t, crossing["direct"], "the rail ring without PXN has queue pairs across rails")
	require.Positive(t, crossing["relayed"], "the rail ring with PXN has queue pairs across rails")
}

// TestPXNAlone: the same ring allreduce alone, pxn: false against hosts.pxn false: the same
// fabric traffic, byte for byte, frame counts on every link equal; and pxn: true on a
// fabric whose hosts.pxn is false relays as hosts.pxn true does. Scale-up frames with pxn
// false: only the units between GPUs of one server.
func TestPXNAlone(t *testing.T) {
	links := func(pxnHosts bool, item string) map[string]int64 {
		v := runOne(t, fmt.Sprintf(railBound, "400Gbps", "3600Gbps", pxnHosts, "  - collective: {"+item+"}"), 0)
		out := map[string]int64{}
		for _, l := range v.Links {
			out[l.From+">"+l.To] = l.Packets
		}
		require.Len(t, v.Jobs, 1)
		require.Equal(t, 1, v.Jobs[0].Completed)
		return out
	}
	const ring = "op: allreduce, hosts: all, size: 1MB, channels: 4"
	require.Equal(t, links(false, ring), links(true, ring+", pxn: false"), "pxn: false is hosts.pxn false for its job")
	require.Equal(t, links(true, ring), links(false, ring+", pxn: true"), "pxn: true is hosts.pxn true for its job")
}

// TestHierarchicalAllgatherAndReduceScatterAtTheirPhases: algorithm hierarchical for
// allgather and reduce_scatter (SPEC section 6), S = 8 MiB over 4 servers x 8 GPUs alone on
// the fabric, within 3% of collective.HierarchicalIdeal: (L-1) steps of S/L over the
// scale-up link and (D-1) of S/(L D) over the NIC, each at w/B plus its path's latency (half
// of the allreduce's phases), w the wire bytes a payload byte of what each channel carries;
// no frame on a spine.
func TestHierarchicalAllgatherAndReduceScatterAtTheirPhases(t *testing.T) {
	const S, L, D, C = 8 << 20, 8, 4, 8
	for _, op := range []string{collective.AllGather, collective.ReduceScatter} {
		v := aiRun(t, D, 2, "400Gbps", fmt.Sprintf("op: %s, hosts: all, size: %dB, channels: %d, algorithm: hierarchical", op, S, C))
		got := aiJobUS(t, v)
		su := aiLink(S/L/C, aiSU, aiSUDelay)
		nic := aiLink(S/(L*D)/C, aiNIC, aiNICDelay)
		want := collective.HierarchicalIdeal(op, S, L, D, su, nic) * 1e6
		t.Logf("hierarchical %s 4x8, 8 MiB: %.2f us, closed form %.2f us (%+.2f%%)", op, got, want, 100*(got/want-1))
		require.InEpsilon(t, want, got, 0.03, op)
		require.Zero(t, aiSpinePackets(v), "%s: every byte stays on its rail or in its server", op)
	}
}
