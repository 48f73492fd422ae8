package experiment

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/topology"
)

// documentOn runs every variant of f on threads threads each (two variants at once on one
// thread, so that a 2-core machine is busy) and renders its results document with the wall
// time zeroed.
func documentOn(t *testing.T, f *scenarios.File, threads int) ([]byte, *results.Document) {
	t.Helper()
	doc, err := RunFileWith(f, nil, Options{Workers: max(1, 2/threads), Threads: threads})
	require.NoError(t, err)
	for i := range doc.Variants {
		doc.Variants[i].WallSeconds = 0
	}
	var b bytes.Buffer
	require.NoError(t, results.WriteJSON(&b, doc))
	return b.Bytes(), doc
}

// cuttable reports whether sc's fabric can be cut: a link with a delay
// between two switches.
func cuttable(t *testing.T, sc *scenarios.Scenario) bool {
	nw, err := buildNetwork(&sc.Topology)
	require.NoError(t, err)
	return fabricWindow(nw) != defaultWindow
}

// TestResultsDoNotDependOnThreads runs every bundled scenario on one and on two threads per
// variant and compares each document with the golden one, made on three (TestGoldenResults):
// the partitions run their windows in another order, on other goroutines, and hand frames
// over at window ends, yet every byte is the same. It also checks that the fabrics were cut
// (a test that ran everything on one partition would prove nothing): every bundled scenario
// without collectives whose switches are joined by links with a delay has as many
// partitions as threads.
func TestResultsDoNotDependOnThreads(t *testing.T) {
	slow(t, "every bundled scenario twice more, on one and two threads")
	for _, s := range scenarios.Bundled() {
		t.Run(s.Name, func(t *testing.T) {
			data, ok := scenarios.BundledYAML(s.Name)
			require.True(t, ok)
			f, problems, _ := scenarios.Load(s.Name+".yaml", data, nil)
			require.Empty(t, problems)
			want, err := os.ReadFile(filepath.Join("testdata", "golden", s.Name+".json"))
			require.NoError(t, err)
			for _, threads := range []int{1, 2} {
				got, doc := documentOn(t, f, threads)
				if !bytes.Equal(want, got) {
					t.Fatalf("%s on %d threads differs from its golden results (made on 3):\n%s",
						s.Name, threads, lineDiff(string(want), string(got), 20))
				}
				if cuttable(t, f.Scenario(0)) {
					for _, v := range doc.Variants {
						require.Equal(t, threads, v.Parallel.Partitions, "%s: partitions on %d threads", v.Name, threads)
					}
				}
			}
		})
	}
}

// TestLargeFabricsDoNotDependOnThreads: the 1,024-host leaf-spine of the performance
// acceptance (perf-leafspine with 128 leaves) and a k=16 fat-tree (1,024 hosts, 320
// switches, its pods cut apart) give the same results on 1, 2 and 3 threads, for 30 us of
// their permutations (about 200,000 and 300,000 events: every host's first frames, the
// fabric's queues filling, frames crossing between partitions in every window).
func TestLargeFabricsDoNotDependOnThreads(t *testing.T) {
	slow(t, "two 1,024-host fabrics on three thread counts")
	for _, c := range []struct{ name, scenario string }{
		{"leafspine-1024", "perf-leafspine"},
		{"fattree-k16", "fattree-ecmp"},
	} {
		t.Run(c.name, func(t *testing.T) {
			data, ok := scenarios.BundledYAML(c.scenario)
			require.True(t, ok)
			sets := []scenarios.Override{{Path: "stop", Value: "30us"}}
			if c.scenario == "perf-leafspine" {
				sets = append(sets, scenarios.Override{Path: "topology.params.leaves", Value: "128"})
			} else {
				sets = append(sets, scenarios.Override{Path: "topology.params.k", Value: "16"})
			}
			f, problems, _ := scenarios.Load(c.scenario+".yaml", data, sets)
			require.Empty(t, problems)
			one, _ := documentOn(t, f, 1)
			for _, threads := range []int{2, 3} {
				got, doc := documentOn(t, f, threads)
				require.Equal(t, threads, doc.Variants[0].Parallel.Partitions)
				if !bytes.Equal(one, got) {
					t.Fatalf("%s on %d threads differs from one thread:\n%s", c.name, threads, lineDiff(string(one), string(got), 20))
				}
			}
		})
	}
}

// TestPartitionsCutOnlyLinksAWindowLong: on a leaf-spine of 16 leaves and 8 spines with 1 us
// fabric links and zero-delay host links, three partitions put every host with its leaf,
// cut only fabric links (each at least the window, 1 us, long), split the leaves 6/5/5 and
// the spines 3/3/2 in node order; a fabric whose switches are joined only by zero-delay
// links is one partition with the default window.
func TestPartitionsCutOnlyLinksAWindowLong(t *testing.T) {
	host := topology.LinkParams{Rate: 100e9, Delay: 0}
	fab := topology.LinkParams{Rate: 100e9, Delay: 1e6}
	nw, err := topology.LeafSpine(16, 8, 8, host, fab, "l3")
	require.NoError(t, err)
	p := partition(nw, 3)
	require.Equal(t, 3, p.parts)
	require.EqualValues(t, 1e6, p.window)
	leaves, spines := map[int]int{}, map[int]int{}
	for _, l := range nw.Links {
		a, b := l.A.Node, l.B.Node
		if p.of[a] != p.of[b] {
			require.GreaterOrEqual(t, l.Params.Delay, p.window, "link %s-%s is cut", nw.Nodes[a].Name, nw.Nodes[b].Name)
		}
		for _, end := range []topology.NodeID{a, b} {
			if nw.Nodes[end].Type == topology.Host {
				other := a + b - end
				require.Equal(t, p.of[other], p.of[end], "host %s stays with its leaf", nw.Nodes[end].Name)
			}
		}
	}
	for i, n := range nw.Nodes {
		if n.Type != topology.Switch {
			continue
		}
		if tiers(nw)[i] == 1 {
			leaves[p.of[i]]++
		} else {
			spines[p.of[i]]++
		}
	}
	require.ElementsMatch(t, []int{6, 5, 5}, values(leaves), "leaves per partition")
	require.ElementsMatch(t, []int{3, 3, 2}, values(spines), "spines per partition")

	flat, err := topology.LeafSpine(4, 2, 2, host, host, "l3")
	require.NoError(t, err)
	q := partition(flat, 3)
	require.Equal(t, 1, q.parts, "zero-delay fabric links are never cut")
	require.Equal(t, defaultWindow, q.window)
}

// TestPartitionsKeepServersWholeAndCutAStripe: a one-stripe rail cluster of 8 servers of 8
// GPUs (a scale-up switch each, 1 us NIC and fabric links) on two partitions keeps each
// server (its GPUs and scale-up switch) in one partition, puts 4 servers in each, and cuts
// only links a window long; with NIC links shorter than the window a GPU must stay with its
// rail leaf, so the stripe, whose servers share every rail leaf, is one unit.
func TestPartitionsKeepServersWholeAndCutAStripe(t *testing.T) {
	nvlink := topology.LinkParams{Rate: 3.6e12, Delay: 936250}
	rail := topology.RailParams{Stripes: 1, ServersPerStripe: 8, GPUsPerServer: 8, ServersPerScaleup: 1, Spines: 4,
		Planes: 1, NIC: topology.LinkParams{Rate: 400e9, Delay: 1e6}, Fabric: topology.LinkParams{Rate: 400e9, Delay: 1e6},
		ScaleUp: &nvlink, Routing: "l3"}
	nw, err := topology.Rail(rail)
	require.NoError(t, err)
	p := partition(nw, 2)
	require.Equal(t, 2, p.parts)
	servers := map[int32]int{} // server -> partition
	perPart := map[int]int{}
	for _, n := range nw.Nodes {
		if n.Type != topology.Host {
			continue
		}
		if part, seen := servers[n.Server]; seen {
			require.Equal(t, part, p.of[n.ID], "GPU %s is with its server", n.Name)
			continue
		}
		servers[n.Server] = p.of[n.ID]
		perPart[p.of[n.ID]]++
	}
	require.ElementsMatch(t, []int{4, 4}, values(perPart), "servers per partition")
	for _, l := range nw.Links {
		a, b := l.A.Node, l.B.Node
		if p.of[a] != p.of[b] {
			require.GreaterOrEqual(t, l.Params.Delay, p.window, "link %s-%s is cut", nw.Nodes[a].Name, nw.Nodes[b].Name)
		}
		if nw.Nodes[a].Role == topology.RoleScaleUp || nw.Nodes[b].Role == topology.RoleScaleUp {
			require.Equal(t, p.of[a], p.of[b], "scale-up link %s-%s", nw.Nodes[a].Name, nw.Nodes[b].Name)
		}
	}

	rail.NIC.Delay = 500e3
	short, err := topology.Rail(rail)
	require.NoError(t, err)
	q := partition(short, 2)
	gpus := map[int]int{}
	for _, n := range short.Nodes {
		if n.Type == topology.Host {
			gpus[q.of[n.ID]]++
		}
	}
	require.Len(t, gpus, 1, "NIC links under the window join every GPU to its rail leaf: the stripe is one unit")
}

func values(m map[int]int) []int {
	var v []int
	for _, n := range m {
		v = append(v, n)
	}
	return v
}

// TestBenchSaysWhyItRanOnFewerPartitions: a variant with collectives runs on as many
// partitions as threads and gives no reason; cut at an exact event (--max-events) it runs on
// one partition, and says why.
func TestBenchSaysWhyItRanOnFewerPartitions(t *testing.T) {
	data, ok := scenarios.BundledYAML("allreduce-leafspine")
	require.True(t, ok)
	f, problems, _ := scenarios.Load("allreduce-leafspine.yaml", data, []scenarios.Override{{Path: "stop", Value: "5us"}})
	require.Empty(t, problems)
	doc, err := RunFileWith(f, nil, Options{Workers: 1, Threads: 2})
	require.NoError(t, err)
	for _, v := range doc.Variants {
		require.Equal(t, 2, v.Parallel.Partitions, v.Name)
		require.Empty(t, v.Parallel.Reason, v.Name)
	}
	doc, err = RunFileWith(f, nil, Options{Workers: 1, Threads: 2, Limits: Limits{MaxEvents: 1000}})
	require.NoError(t, err)
	for _, v := range doc.Variants {
		require.Equal(t, 1, v.Parallel.Partitions, v.Name)
		require.Contains(t, v.Parallel.Reason, "--max-events runs on one thread", fmt.Sprint(v.Parallel))
	}
}

// TestCollectivesDoNotDependOnThreads: collectives run on every partition (package jobs), yet
// a k=8 fat-tree's 128 hosts running a ring allreduce (two iterations, 300 ns of compute
// between: less than the 1 us window, so the second opens at the end of the window in which
// the first ended, unless its gate falls after it), a
// double binary tree allreduce in chunks (whose link slots, freed at the receiver, reach
// the sender between windows) and an all_to_all on two channels, beside a permutation, give the same
// bytes on 1, 2 and 3 threads, each cut into as many partitions, none with fewer than a
// fifth of the events.
func TestCollectivesDoNotDependOnThreads(t *testing.T) {
	slow(t, "three collectives on a 128-host fat-tree on three thread counts")
	const text = `
version: 1
name: jobs-parallel
stop: 20ms
topology:
  preset: fattree
  params: {k: 8, link: {rate: 100Gbps, delay: 1us}, routing: l3}
switch: {buffer: 4MB, pfc: {enabled: true}}
traffic:
  - collective: {op: allreduce, hosts: all, size: 4MB, iterations: 2, compute: 300ns}
  - collective: {op: allreduce, algorithm: tree, hosts: [h1, h9, h17, h25, h33, h41, h49, h57, h65, h73, h81], size: 2MB, chunk: 128KiB, channels: 2}
  - collective: {op: all_to_all, hosts: [h2, h30, h60, h90, h120], size: 1MB, channels: 2}
  - permutation: {hosts: all, size: 200KB}
variants:
  - {name: v, transport: rocev2}
`
	f, problems, _ := scenarios.Load("jobs.yaml", []byte(text), nil)
	require.Empty(t, problems)
	one, doc := documentOn(t, f, 1)
	require.Len(t, doc.Variants[0].Jobs, 3)
	for _, j := range doc.Variants[0].Jobs {
		require.Equal(t, j.Iterations, j.Completed, "job %s ended", j.Label)
	}
	for _, threads := range []int{2, 3} {
		got, doc := documentOn(t, f, threads)
		p := doc.Variants[0].Parallel
		require.Equal(t, threads, p.Partitions)
		var all uint64
		for _, e := range p.Events {
			all += e
		}
		for k, e := range p.Events {
			require.Greater(t, float64(e), float64(all)/5, "partition %d of %d: %d of %d events", k, threads, e, all)
		}
		if !bytes.Equal(one, got) {
			t.Fatalf("collectives on %d threads differ from one thread:\n%s", threads, lineDiff(string(one), string(got), 20))
		}
	}
}
