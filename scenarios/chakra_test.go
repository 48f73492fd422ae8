package scenarios

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/chakra"
	"github.com/fabricsim/fabricsim/chakra/chakratest"
	"github.com/fabricsim/fabricsim/sim"
)

const chakraBase = `version: 1
name: trace
stop: 1ms
topology: {preset: star, params: {hosts: 4, link: {rate: 100Gbps}}}
traffic:
  - chakra: {ITEM}
variants:
  - {name: v, transport: rocev2}
`

// rankTrace is a rank's trace: 10 us of compute, an allreduce of 4 MB, 20 us, an allgather
// of 1 MB.
func rankTrace(extra ...chakra.Node) []byte {
	nodes := []chakra.Node{chakratest.Comp(1, 10), chakratest.Coll(2, chakra.AllReduce, 4_000_000, 1),
		chakratest.Comp(3, 20, 2), chakratest.Coll(4, chakra.AllGather, 1_000_000, 3)}
	return chakratest.Trace("0.0.4", append(nodes, extra...)...)
}

// loadChakra writes files (name: contents) into a new directory, loads the scenario with
// item there, and returns its problems joined, and the scenario when there are none.
func loadChakra(t *testing.T, item string, files map[string][]byte) (string, *Scenario, string) {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	}
	file := filepath.Join(dir, "s.yaml")
	f, problems, _ := Load(file, []byte(strings.Replace(chakraBase, "ITEM", item, 1)), nil)
	var all []string
	for _, p := range problems {
		all = append(all, p.Error())
	}
	if len(all) > 0 {
		return strings.Join(all, "\n"), nil, dir
	}
	return "", f.Scenario(0), dir
}

func fourRanks(pattern string, trace func(r int) []byte) map[string][]byte {
	m := map[string][]byte{}
	for r := range 4 {
		m[fmt.Sprintf(pattern, r)] = trace(r)
	}
	return m
}

// TestChakraItem: the traces become one job of two steps, their sizes as fabricsim counts
// them (allgather's output: 4 x 1 MB), each rank's waits in simulated time, paths relative
// to the scenario file; the three ways of naming the traces name the same files.
func TestChakraItem(t *testing.T) {
	for _, c := range []struct{ item, pattern string }{
		{`traces: "t/r%d.et"`, "t/r%d.et"},
		{`traces: t/wl`, "t/wl.%d.et"},
		{`traces: [t/a0, t/a1, t/a2, t/a3], algorithm: halving_doubling`, "t/a%d"},
	} {
		msg, sc, dir := loadChakra(t, c.item, fourRanks(c.pattern, func(int) []byte { return rankTrace() }))
		require.Empty(t, msg, c.item)
		job := sc.Traffic[0].Collective
		require.Equal(t, "chakra", sc.Traffic[0].Kind)
		require.Equal(t, "chakra", job.Op)
		require.Equal(t, "chakra-0", job.Label)
		require.Len(t, job.Traces, 4)
		require.Equal(t, fmt.Sprintf(c.pattern, 3), job.Traces[3])
		require.DirExists(t, dir)
		alg := "ring"
		if strings.Contains(c.item, "halving") {
			alg = "halving_doubling"
		}
		require.Equal(t, []CollectiveStep{
			{Op: "allreduce", Algorithm: alg, Size: 4_000_000, Node: "2 (ALL_REDUCE)", Waits: [][]Wait{
				{{After: -1, Compute: 10 * sim.Microsecond}}, {{After: -1, Compute: 10 * sim.Microsecond}},
				{{After: -1, Compute: 10 * sim.Microsecond}}, {{After: -1, Compute: 10 * sim.Microsecond}}}},
			{Op: "allgather", Algorithm: alg, Size: 4_000_000, Node: "4 (ALL_GATHER)", Waits: [][]Wait{
				{{After: 0, Compute: 20 * sim.Microsecond}}, {{After: 0, Compute: 20 * sim.Microsecond}},
				{{After: 0, Compute: 20 * sim.Microsecond}}, {{After: 0, Compute: 20 * sim.Microsecond}}}},
		}, job.Steps, c.item)
		require.Equal(t, int64(8_000_000), job.Size)
		require.Equal(t, 2, job.Iterations)
	}
}

// TestChakraErrors: what a chakra item refuses, each message naming the trace file and the
// byte where the problem is (offsets computed from the bytes written).
func TestChakraErrors(t *testing.T) {
	good := rankTrace()
	meta := len(chakratest.Frame(chakratest.Metadata("0.0.4")))
	comp := len(chakratest.Frame(chakratest.Node(&chakra.Node{ID: 1, Name: "compute", Type: chakra.CompNode, DurationMicros: 10})))
	ar := chakratest.Coll(2, chakra.AllReduce, 4_000_000, 1)
	arLen := len(chakratest.Frame(chakratest.Node(&ar)))
	withRank := func(r int, data []byte) func(int) []byte {
		return func(k int) []byte {
			if k == r {
				return data
			}
			return good
		}
	}
	other := chakratest.Trace("0.0.4", chakratest.Comp(1, 10), chakratest.Coll(2, chakra.AllReduce, 4_000_000, 1),
		chakratest.Comp(3, 20, 2), chakratest.Coll(4, chakra.ReduceScatter, 1_000_000, 3))
	gather := chakratest.Trace("0.0.4", chakratest.Comp(1, 10), chakratest.Coll(2, chakra.Gather, 4_000_000, 1))
	pg := chakratest.Coll(2, chakra.AllReduce, 4_000_000, 1)
	pg.Attrs = append(pg.Attrs, chakratest.String("pg_name", "3"))
	dims := chakratest.Coll(2, chakra.AllReduce, 4_000_000)
	dims.Attrs = append(dims.Attrs, chakra.Attr{Name: "involved_dim", Kind: chakra.Bool, IsList: true, List: []chakra.Value{{I: 1}, {I: 0}}})
	dimsInt := chakratest.Coll(2, chakra.AllReduce, 4_000_000)
	dimsInt.Attrs = append(dimsInt.Attrs, chakratest.Int64("involved_dim", 1))
	for _, c := range []struct {
		name  string
		item  string
		files map[string][]byte
		want  string
	}{
		{"dimensions", `traces: "r%d.et"`, fourRanks("r%d.et", func(int) []byte { return chakratest.Trace("1", dims) }),
			"involves only some dimensions of ASTRA-sim's logical topology"},
		{"dimensions type", `traces: "r%d.et"`, fourRanks("r%d.et", func(int) []byte { return chakratest.Trace("1", dimsInt) }),
			"has involved_dim of type int64; it is a bool list"},
		{"truncated", `traces: "r%d.et"`, fourRanks("r%d.et", withRank(2, good[:len(good)-3])),
			fmt.Sprintf("traffic.0.chakra.traces: rank 2: %%s/r2.et: byte %d: a message of", meta+comp+arLen+len(chakratest.Frame(chakratest.Node(&chakra.Node{ID: 3, Name: "compute", Type: chakra.CompNode, DurationMicros: 20, DataDeps: []uint64{2}}))))},
		{"send node", `traces: "r%d.et"`, fourRanks("r%d.et", withRank(1, rankTrace(chakra.Node{ID: 9, Name: "send", Type: chakra.CommSendNode}))),
			fmt.Sprintf(`traffic.0.chakra.traces: rank 1: %%s/r1.et: byte %d: node 9 ("send") is a COMM_SEND_NODE: point-to-point sends and receives are not modelled`, len(good))},
		{"disagree", `traces: "r%d.et"`, fourRanks("r%d.et", withRank(3, other)),
			fmt.Sprintf("traffic.0.chakra.traces: the ranks disagree at collective 1 (from 0): rank 3's %%s/r3.et is REDUCE_SCATTER of 1000000 bytes (node 4 at byte %d), rank 0's %%s/r0.et is ALL_GATHER", len(good)-len(chakratest.Frame(chakratest.Node(ptr(chakratest.Coll(4, chakra.AllGather, 1_000_000, 3))))))},
		{"count", `traces: "r%d.et"`, fourRanks("r%d.et", withRank(1, chakratest.Trace("1", chakratest.Coll(2, chakra.AllReduce, 4_000_000)))),
			"rank 1's %s/r1.et has 1 collectives, rank 0's %s/r0.et has 2"},
		{"missing", `traces: "r%d.et"`, map[string][]byte{"r0.et": good, "r1.et": good, "r2.et": good},
			"traffic.0.chakra.traces: rank 3: cannot read the trace: stat %s/r3.et: no such file or directory"},
		{"unmodelled", `traces: "r%d.et"`, fourRanks("r%d.et", func(int) []byte { return gather }),
			fmt.Sprintf(`%%s/r0.et: collective 0, node 2 ("GATHER") at byte %d is GATHER, which fabricsim does not model`, meta+comp)},
		{"group", `traces: "r%d.et"`, fourRanks("r%d.et", func(int) []byte { return chakratest.Trace("0.0.4", chakratest.Comp(1, 10), pg) }),
			`runs in process group "3"; only the group of all ranks`},
		{"huge", `traces: "r%d.et"`, fourRanks("r%d.et", func(int) []byte { return chakratest.Trace("1", chakratest.Coll(2, chakra.AllReduce, 1<<52)) }),
			"ALL_REDUCE of comm_size 4503599627370496 bytes over 4 ranks: a rank's buffer is 1B to 1TB"},
		{"long wait", `traces: "r%d.et"`, fourRanks("r%d.et", func(int) []byte {
			return chakratest.Trace("1", chakratest.Comp(1, math.MaxUint64), chakratest.Comp(3, 11, 1), chakratest.Coll(2, chakra.AllReduce, 4_000_000, 3))
		}), "waits for 18446744073709551615 us"},
		{"list length", `traces: [a, b]`, nil, "traffic.0.chakra.traces: traces lists 2 files for 4 ranks (hosts)"},
		{"no traces", `hosts: all`, nil, "traffic.0.chakra.traces: traces is required"},
		{"algorithm", `traces: "r%d.et", algorithm: tree`, nil, `traffic.0.chakra.algorithm: unknown chakra algorithm (for allreduce, allgather and reduce_scatter) "tree"`},
		{"hd on 3", `traces: "r%d.et", hosts: [h1, h2, h3], algorithm: halving_doubling`, fourRanks("r%d.et", func(int) []byte { return good }),
			"halving_doubling needs a power of two ranks"},
	} {
		msg, _, dir := loadChakra(t, c.item, c.files)
		want := strings.ReplaceAll(c.want, "%s", dir)
		require.Contains(t, msg, want, c.name)
		require.True(t, strings.HasPrefix(msg, filepath.Join(dir, "s.yaml")+":6:"), "%s: %q names the scenario file and line", c.name, msg)
	}
}

func ptr[T any](v T) *T { return &v }
