package scenarios

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/fabricsim/fabricsim/chakra"
	"github.com/fabricsim/fabricsim/collective"
	"github.com/fabricsim/fabricsim/internal/infile"
	"github.com/fabricsim/fabricsim/sim"
)

// Bounds of a chakra item.
const (
	// maxTraceFile bounds one rank's trace file (gzip or not; package chakra bounds, while it
	// decodes, what a gzip one inflates to, the nodes and each message).
	maxTraceFile = 1 << 30
	// maxWait bounds one compute wait read from a trace: an hour, far beyond any run's stop.
	maxWait = 3_600_000_000 // us
)

// traceList is a chakra item's traces: one file name per rank, or a pattern (Pattern).
type traceList struct {
	Pattern string
	Files   []string
}

// UnmarshalYAML reads a pattern (a string) or a list of file names.
func (l *traceList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*l = traceList{Pattern: n.Value}
		return nil
	case yaml.SequenceNode:
		var files []string
		if err := n.Load(&files, yaml.WithKnownFields()); err != nil {
			return err
		}
		*l = traceList{Files: files}
		return nil
	}
	return fmt.Errorf("want a file pattern such as trace.%%d.et or a list of files, one per rank, got %s", kindName(n))
}

// chakraOps maps the CollectiveCommTypes fabricsim runs to its ops (et_def.proto lines
// 119-130); the others (REDUCE, GATHER, SCATTER, REDUCE_SCATTER_BLOCK, BARRIER) have no
// graph here and are refused by name.
var chakraOps = map[chakra.CommType]string{
	chakra.AllReduce:     collective.AllReduce,
	chakra.AllGather:     collective.AllGather,
	chakra.ReduceScatter: collective.ReduceScatter,
	chakra.AllToAll:      collective.AllToAll,
	chakra.Broadcast:     collective.Broadcast,
}

// chakra resolves traffic item index's chakra block at path: it reads one trace per rank,
// orders each rank's collectives (chakra.Trace.Sequence), checks that the ranks agree on
// them, and makes one job of them, a step per collective.
func (r *resolver) chakra(path string, index int, c *rawChakra) *Collective {
	out := &Collective{Op: "chakra", Channels: 1, Pos: r.pos(path)}
	n := r.jobHosts(path, out, c.Hosts, c.Start, c.Transport, c.Priority)
	algs := []string{collective.Ring, collective.HalvingDoubling} // allreduce's tree is not offered: allgather and reduce_scatter have none
	out.Algorithm = algs[0]
	okAlg := true
	if c.Algorithm != "" {
		okAlg = r.oneOf(path+".algorithm", "chakra algorithm (for allreduce, allgather and reduce_scatter)", c.Algorithm, algs)
		out.Algorithm = c.Algorithm
	}
	okTail := r.jobTail(path, fmt.Sprintf("chakra-%d", index), out, c.Channels, c.Label)
	names, files := r.traceFiles(path+".traces", c.Traces, n)
	if files == nil || n < 2 || !okAlg || !okTail {
		return out
	}
	out.Traces = names
	seqs := make([][]chakra.Collective, n)
	for rank, f := range files {
		seq, err := readSequence(f)
		if err != nil {
			r.errf(path+".traces", "rank %d: %v", rank, err)
			return out
		}
		seqs[rank] = seq
	}
	if msg := disagreement(files, seqs); msg != "" {
		r.errf(path+".traces", "%s", msg)
		return out
	}
	for k, col := range seqs[0] {
		step, err := chakraStep(k, col, out.Algorithm, n)
		if err != nil {
			r.errf(path+".traces", "%s: %v", files[0], err)
			return out
		}
		for rank := range seqs {
			w, err := waits(seqs[rank][k])
			if err != nil {
				r.errf(path+".traces", "%s: %v", files[rank], err)
				return out
			}
			step.Waits = append(step.Waits, w)
		}
		out.Steps = append(out.Steps, step)
		out.Size = addSat(out.Size, step.Size)
	}
	out.Iterations = len(out.Steps)
	if out.Iterations == 0 {
		r.errf(path+".traces", "%s holds no COMM_COLL_NODE: there is nothing to send", files[0])
		return out
	}
	if least := chakraSmallest(out.Steps, n); least < int64(out.Channels) {
		r.errf(path+".channels", "a collective of the traces makes messages of %d bytes, fewer than channels (%d): a channel carries at least a byte", least, out.Channels)
	}
	if f := collectiveFlows(out, int64(n)); f > maxGenerated {
		r.errf(path, "the traces' %d collectives over %d hosts and %d channels are %d queue pairs (flows); at most %d", out.Iterations, n, out.Channels, f, maxGenerated)
	}
	return out
}

// traceFiles is the trace file of each of n ranks as the scenario names it, and as a path
// (relative to the scenario's directory): a list as given (one per rank), or a pattern with
// %d for the rank (trace.%d.et), or without it ASTRA-sim's prefix, to which it appends
// .RANK.et (astra-sim/workload/Workload.cc line 29 at commit
// 518bd513ae110428cd62eb60efc0f3993fd53c70). nil after an error, or when the number of
// ranks is not known.
func (r *resolver) traceFiles(path string, l *traceList, n int) (names, paths []string) {
	var files []string
	switch {
	case l == nil || l.Pattern == "" && l.Files == nil:
		r.errf(path, `traces is required: one Chakra trace per rank, a pattern such as "trace.%%d.et" (%%d is the rank) or a list of files`)
		return nil, nil
	case l.Files != nil:
		if n > 0 && len(l.Files) != n {
			r.errf(path, "traces lists %d files for %d ranks (hosts); give one per rank", len(l.Files), n)
			return nil, nil
		}
		files = l.Files
	case strings.Count(l.Pattern, "%d") > 1:
		r.errf(path, "traces pattern %q has %%d more than once; it stands for the rank once", l.Pattern)
		return nil, nil
	default:
		for rank := range n {
			f := l.Pattern + "." + strconv.Itoa(rank) + ".et"
			if strings.Contains(l.Pattern, "%d") {
				f = strings.Replace(l.Pattern, "%d", strconv.Itoa(rank), 1)
			}
			files = append(files, f)
		}
	}
	if n == 0 {
		return nil, nil
	}
	out := make([]string, len(files))
	for i, f := range files {
		if f == "" {
			r.errf(fmt.Sprintf("%s.%d", path, i), "a trace file name is empty")
			return nil, nil
		}
		out[i] = f
		if !filepath.IsAbs(f) {
			out[i] = filepath.Join(filepath.Dir(r.l.file), f)
		}
	}
	return files, out
}

// readSequence reads one rank's trace and orders its collectives.
func readSequence(file string) ([]chakra.Collective, error) {
	f, err := infile.Open(file, maxTraceFile)
	if err != nil {
		return nil, fmt.Errorf("cannot read the trace: %w", err)
	}
	defer f.Close()
	tr, err := chakra.Read(file, f) // streamed: a gzip file is inflated as it is decoded
	if err != nil {
		return nil, err
	}
	return tr.Sequence()
}

// disagreement says where the ranks' sequences differ (count, type or size at a position),
// or "".
func disagreement(files []string, seqs [][]chakra.Collective) string {
	for rank := 1; rank < len(seqs); rank++ {
		a, b := seqs[0], seqs[rank]
		for k := range min(len(a), len(b)) {
			if a[k].CommType != b[k].CommType || a[k].CommSize != b[k].CommSize {
				return fmt.Sprintf("the ranks disagree at collective %d (from 0): rank %d's %s is %s of %d bytes (node %d at byte %d), rank 0's %s is %s of %d bytes (node %d at byte %d); every rank runs the same collectives in the same order",
					k, rank, files[rank], b[k].CommType, b[k].CommSize, b[k].Node.ID, b[k].Node.Offset,
					files[0], a[k].CommType, a[k].CommSize, a[k].Node.ID, a[k].Node.Offset)
			}
		}
		if len(a) != len(b) {
			return fmt.Sprintf("the ranks disagree: rank %d's %s has %d collectives, rank 0's %s has %d; every rank runs the same collectives in the same order",
				rank, files[rank], len(b), files[0], len(a))
		}
	}
	return ""
}

// chakraStep maps collective k of the sequence to a step: its op, the algorithm for it, and
// its size as fabricsim counts it. ASTRA-sim's comm_size is what each rank puts in (its ring
// sends allgather's comm_size whole, N-1 times: astra-sim/system/astraccl/native_collectives/
// collective_algorithm/Ring.cc lines 71-86), so an allgather's size here, its output, is
// comm_size x N; the other ops count the same bytes in both.
func chakraStep(k int, c chakra.Collective, alg string, n int) (CollectiveStep, error) {
	where := fmt.Sprintf("collective %d, node %d (%q) at byte %d", k, c.Node.ID, c.Node.Name, c.Node.Offset)
	op, ok := chakraOps[c.CommType]
	if !ok {
		return CollectiveStep{}, fmt.Errorf("%s is %s, which fabricsim does not model (it runs ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL and BROADCAST)", where, c.CommType)
	}
	if c.PG != "" && c.PG != "0" {
		// ASTRA-sim takes "" and "0" for the group of all ranks (Workload.cc lines 589-600).
		return CollectiveStep{}, fmt.Errorf("%s runs in process group %q; only the group of all ranks (pg_name empty or \"0\") is modelled", where, c.PG)
	}
	if a := c.Node.Attr("involved_dim"); a != nil {
		if a.Kind != chakra.Bool || !a.IsList {
			// ASTRA-sim exits on any other type (Workload.cc lines 308-324).
			return CollectiveStep{}, fmt.Errorf("%s has involved_dim of type %s; it is a bool list", where, a.Kind)
		}
		for _, v := range a.List {
			if v.I == 0 {
				return CollectiveStep{}, fmt.Errorf("%s involves only some dimensions of ASTRA-sim's logical topology (involved_dim %v); a collective here spans every rank", where, a.List)
			}
		}
	}
	if op == collective.AllToAll {
		alg = collective.Direct
	} else if op == collective.Broadcast {
		alg = collective.Ring
	}
	size := c.CommSize
	if op == collective.AllGather {
		size = mulSat(size, int64(n))
	}
	if c.CommSize <= 0 || size > maxFlowSize {
		return CollectiveStep{}, fmt.Errorf("%s: %s of comm_size %d bytes over %d ranks: a rank's buffer is 1B to 1TB (%d bytes)", where, c.CommType, c.CommSize, n, size)
	}
	var chunk int64
	if collective.Pipelined(op, alg) {
		chunk = collective.DefaultChunk
	}
	if err := collective.Check(op, alg, n, size, chunk); err != nil {
		return CollectiveStep{}, fmt.Errorf("%s: %s of comm_size %d bytes over %d ranks: %v", where, c.CommType, c.CommSize, n, err)
	}
	return CollectiveStep{Op: op, Algorithm: alg, Size: size, Chunk: chunk, Node: fmt.Sprintf("%d (%s)", c.Node.ID, c.Node.Name)}, nil
}

// waits converts a collective's waits to simulated time.
func waits(c chakra.Collective) ([]Wait, error) {
	out := make([]Wait, len(c.Waits))
	for i, w := range c.Waits {
		if w.Micros > maxWait {
			return nil, fmt.Errorf("node %d (%q) waits for %d us of compute; at most %d", c.Node.ID, c.Node.Name, w.Micros, maxWait)
		}
		out[i] = Wait{After: w.After, Compute: sim.Time(w.Micros) * sim.Microsecond}
	}
	return out, nil
}

// chakraSmallest is the fewest bytes one message of the steps carries.
func chakraSmallest(steps []CollectiveStep, n int) int64 {
	least := int64(-1)
	for _, s := range steps {
		if m := smallestMessage(&Collective{Op: s.Op, Algorithm: s.Algorithm, Size: s.Size, Chunk: s.Chunk}, n); least < 0 || m < least {
			least = m
		}
	}
	return least
}
