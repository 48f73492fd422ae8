package scenarios

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const collectiveBase = `version: 1
name: coll
stop: 1ms
topology: {preset: star, params: {hosts: 6, link: {rate: 100Gbps}}}
traffic:
  - collective: {ITEM}
variants:
  - {name: v, transport: rocev2}
`

// TestCollectiveFieldsChecked: every field of a collective item is checked, the problem
// placed at file:line:column with its path and what is allowed.
func TestCollectiveFieldsChecked(t *testing.T) {
	for _, c := range []struct{ item, want string }{
		{"size: 1MB", "f.yaml:6:17: traffic.0.collective.op: op is required (one of allreduce, allgather, reduce_scatter, all_to_all, broadcast)"},
		{"op: alreduce, size: 1MB", `f.yaml:6:22: traffic.0.collective.op: unknown op "alreduce" (did you mean "allreduce"?) (allowed: allreduce, allgather, reduce_scatter, all_to_all, broadcast)`},
		{"op: allreduce, algorithm: trie, size: 1MB", `f.yaml:6:44: traffic.0.collective.algorithm: unknown allreduce algorithm "trie" (did you mean "tree"?) (allowed: ring, halving_doubling, tree, hierarchical)`},
		{"op: allgather, algorithm: tree, size: 1MB", `f.yaml:6:44: traffic.0.collective.algorithm: allgather has no algorithm "tree": NCCL builds its double binary tree for allreduce only (allowed for allgather: ring, halving_doubling)`},
		{"op: allreduce, size: 1MB, chunk: 64KB", "f.yaml:6:51: traffic.0.collective.chunk: chunk is the piece a pipelined algorithm sends at a time: it applies to algorithm tree and to broadcast, not to allreduce by ring"},
		{"op: allreduce, algorithm: tree, size: 1MB, chunk: 0", "f.yaml:6:68: traffic.0.collective.chunk: chunk is the piece a pipelined algorithm sends at a time, from 1B to 1TB (default 512KiB, one NCCL buffer slot); got 0 bytes"},
		{"op: allreduce, algorithm: tree, size: 1000010B, chunk: 100KB, channels: 64", "traffic.0.collective.size: size 1000010 bytes over 6 ranks makes messages of 5 bytes, fewer than channels (64)"},
		// Tree 0 carries the larger half, 3 bytes: chunks of 2 and 1; tree 1 carries 2 bytes.
		{"op: allreduce, algorithm: tree, size: 5B, chunk: 2B, channels: 2", "traffic.0.collective.size: size 5 bytes over 6 ranks makes messages of 1 bytes, fewer than channels (2)"},
		{"op: all_to_all, algorithm: ring, size: 1MB", `f.yaml:6:45: traffic.0.collective.algorithm: unknown all_to_all algorithm "ring" (allowed: direct, hierarchical)`},
		{"op: allreduce, algorithm: halving_doubling, size: 1MB", "f.yaml:6:17: traffic.0.collective.hosts: allreduce over 6 hosts: halving_doubling needs a power of two ranks"},
		{"op: allreduce, hosts: [h1, h2, h3, h4], algorithm: halving_doubling, size: 1MB, channels: 0", "f.yaml:6:108: traffic.0.collective.channels: channels is the queue pairs each message is split over, 1 to 64; got 0"},
		{"op: allreduce", "traffic.0.collective.size: size is required"},
		{"op: allreduce, size: 5B", "f.yaml:6:39: traffic.0.collective.size: allreduce over 6 hosts: a size of 5 bytes cannot be cut into 6 pieces"},
		{"op: allreduce, size: 12B, channels: 4", "traffic.0.collective.size: size 12 bytes over 6 ranks makes messages of 2 bytes, fewer than channels (4)"},
		{"op: allreduce, size: 1MB, iterations: 0", "traffic.0.collective.iterations: iterations is 1 to 100000; got 0"},
		{"op: allreduce, size: 1MB, compute: -1us", `f.yaml:6:53: traffic.0.collective.compute: duration "-1us" is negative`},
		{"op: allreduce, size: 1MB, release_latency: -2us", `f.yaml:6:61: traffic.0.collective.release_latency: duration "-2us" is negative`},
		{"op: allreduce, size: 1MB, release_latency: soon", `traffic.0.collective.release_latency: `},
		{"op: allreduce, size: 1MB, hosts: [h1]", "traffic.0.collective.hosts: a collective needs at least 2 hosts"},
		{"op: allreduce, size: 1MB, hosts: [h1, h9]", `traffic.0.collective.hosts.1: unknown host "h9"`},
		{"op: allreduce, size: 1MB, label: 'a,b'", `traffic.0.collective.label: label "a,b" holds ','`},
		{"op: allreduce, size: 1MB, priority: 9", "traffic.0.collective.priority: priority is 0..7, got 9"},
		{"op: allreduce, size: 1MB, sise: 2", `f.yaml:6:44: traffic.0.collective.sise: unknown field "sise" in traffic.0.collective (did you mean "size"?)`},
	} {
		requireItemProblem(t, strings.Replace(collectiveBase, "ITEM", c.item, 1), c.want, c.item)
	}
}

// TestCollectiveDefaults: algorithm ring (direct for all_to_all), all hosts, 1 iteration, 1
// channel, no compute, the variant's transport, hosts.priority, label OP-INDEX; labels unique.
func TestCollectiveDefaults(t *testing.T) {
	f, problems, _ := Load("f.yaml", []byte(strings.Replace(collectiveBase, "ITEM", "op: allreduce, size: 6MB", 1)), nil)
	require.Empty(t, problems)
	c := f.Scenario(0).Traffic[0].Collective
	require.Equal(t, &Collective{Op: "allreduce", Algorithm: "ring", Size: 6_000_000, Iterations: 1, Channels: 1,
		Transport: "rocev2", Priority: 3, Label: "allreduce-0", Pos: c.Pos}, c)
	f, problems, _ = Load("f.yaml", []byte(strings.Replace(collectiveBase, "ITEM", "op: all_to_all, size: 6MB", 1)), nil)
	require.Empty(t, problems)
	require.Equal(t, "direct", f.Scenario(0).Traffic[0].Collective.Algorithm)
	for item, chunk := range map[string]int64{
		"op: allreduce, algorithm: tree, size: 6MB":               512 << 10, // one NCCL buffer slot
		"op: broadcast, size: 6MB":                                512 << 10,
		"op: allreduce, algorithm: tree, size: 6MB, chunk: 64KiB": 64 << 10,
	} {
		f, problems, _ = Load("f.yaml", []byte(strings.Replace(collectiveBase, "ITEM", item, 1)), nil)
		require.Empty(t, problems, item)
		require.Equal(t, chunk, f.Scenario(0).Traffic[0].Collective.Chunk, item)
	}

	two := strings.Replace(collectiveBase, "  - collective: {ITEM}\n", "  - collective: {op: allreduce, size: 6MB, label: job}\n  - collective: {op: allgather, size: 6MB, label: job}\n", 1)
	_, problems, _ = Load("f.yaml", []byte(two), nil)
	require.Len(t, problems, 1)
	require.Contains(t, problems[0].Error(), `f.yaml:7:51: traffic.1.collective.label: label "job" is the collective of traffic.0's too`)
}
