package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/fabricsim/fabricsim/collective"
	"github.com/fabricsim/fabricsim/sim"
)

// Bounds of a collective item's fields.
const (
	// maxIterations bounds a collective's iterations, as maxRepeat an incast's bursts.
	maxIterations = maxRepeat
	// maxChannels bounds channels: NCCL's default is 1 QP per connection
	// (NCCL_IB_QPS_PER_CONNECTION, NCCL's docs, "Environment Variables"), which Meta's RoCE
	// training fabric raises for ECMP entropy (Gangidi et al., "RDMA over Ethernet for
	// Distributed AI Training at Meta Scale", SIGCOMM 2024: E-ECMP with QP scaling); 64 is
	// this simulator's bound, not NCCL's.
	maxChannels = 64
)

// collective resolves traffic item index's collective at path.
func (r *resolver) collective(path string, index int, c *rawCollective) *Collective {
	out := &Collective{Iterations: 1, Channels: 1, Pos: r.pos(path)}
	okOp := r.oneOf(path+".op", "op", c.Op, collective.Ops)
	out.Op = c.Op
	if okOp {
		algs := collective.Algorithms[c.Op]
		out.Algorithm = algs[0]
		if c.Algorithm == collective.Hierarchical && c.Op != collective.Broadcast {
			out.Algorithm = c.Algorithm
			okOp = r.hierarchicalTopology(path + ".algorithm")
		} else if c.Algorithm == collective.Tree && c.Op != collective.AllReduce {
			r.errf(path+".algorithm", "%s has no algorithm %q: NCCL builds its double binary tree for allreduce only (allowed for %s: %s)", c.Op, c.Algorithm, c.Op, listOf(algs))
			okOp = false
		} else if c.Algorithm != "" {
			if r.oneOf(path+".algorithm", c.Op+" algorithm", c.Algorithm, withHierarchical(c.Op, algs)) {
				out.Algorithm = c.Algorithm
			} else {
				okOp = false
			}
		}
	}
	n := r.jobHosts(path, out, c.Hosts, c.Start, c.Transport, c.Priority)
	if c.Size == nil {
		r.errf(path+".size", "size is required: the bytes each rank holds (allreduce's buffer, allgather's output), e.g. size: 64MB")
	} else if out.Size = int64(*c.Size); out.Size <= 0 || out.Size > maxFlowSize {
		r.errf(path+".size", "size is the bytes each rank holds, from 1B to 1TB; got %d bytes", out.Size)
		okOp = false
	}
	if okOp && collective.Pipelined(out.Op, out.Algorithm) {
		out.Chunk = collective.DefaultChunk
	}
	if c.Chunk != nil {
		switch {
		case okOp && !collective.Pipelined(out.Op, out.Algorithm):
			r.errf(path+".chunk", "chunk is the piece a pipelined algorithm sends at a time: it applies to algorithm tree and to broadcast, not to %s by %s", out.Op, out.Algorithm)
		case *c.Chunk < 1 || int64(*c.Chunk) > maxFlowSize:
			r.errf(path+".chunk", "chunk is the piece a pipelined algorithm sends at a time, from 1B to 1TB (default 512KiB, one NCCL buffer slot); got %d bytes", int64(*c.Chunk))
			okOp = false
		default:
			out.Chunk = int64(*c.Chunk)
		}
	}
	if c.Iterations != nil {
		if out.Iterations = *c.Iterations; out.Iterations < 1 || out.Iterations > maxIterations {
			r.errf(path+".iterations", "iterations is 1 to %d; got %d", maxIterations, out.Iterations)
			out.Iterations = 1 // one problem for one mistake: no flow count or estimate from it
		}
	}
	if c.Compute != nil {
		out.Compute = sim.Time(*c.Compute) // a negative duration is refused by its parser
	}
	if c.ReleaseLatency != nil {
		out.ReleaseLatency = sim.Time(*c.ReleaseLatency) // likewise
	}
	if c.PXN != nil && r.pxnTopology(path+".pxn") {
		out.PXN = c.PXN
	}
	if !r.jobTail(path, fmt.Sprintf("%s-%d", out.Op, index), out, c.Channels, c.Label) {
		okOp = false
	}
	if !r.moeFields(path, c, out) {
		okOp = false
	}
	if !okOp || out.Size <= 0 || n < 2 || (r.topo == nil && out.Hosts == nil) {
		return out
	}
	if err := checkOn(out, n); err != nil {
		field := ".size"
		if strings.Contains(err.Error(), "ranks") {
			field = ".hosts"
		}
		r.errf(path+field, "%s over %d hosts: %v", out.Op, n, err)
		return out
	}
	if least := smallestMessage(out, n); least < int64(out.Channels) {
		r.errf(path+".size", "size %d bytes over %d ranks makes messages of %d bytes, fewer than channels (%d): a channel carries at least a byte", out.Size, n, least, out.Channels)
	}
	if f := collectiveFlows(out, int64(n)); f > maxGenerated {
		r.errf(path, "%s by %s over %d hosts and %d channels is %d queue pairs (flows); at most %d", out.Op, out.Algorithm, n, out.Channels, f, maxGenerated)
	}
	return out
}

// jobHosts resolves a job's ranks (hosts) and its sending fields into out, and returns the
// number of ranks (0 when the topology is unknown).
func (r *resolver) jobHosts(path string, out *Collective, hosts *hostList, start *Duration, transport string, priority *int) int {
	out.Hosts = r.hostSet(path+".hosts", hosts, "a collective")
	n := len(out.Hosts)
	if out.Hosts == nil && r.topo != nil {
		n = r.topo.hostCount()
	}
	s := r.sending(path, start, transport, priority, nil, r.sc.Hosts.Priority)
	out.Start, out.Transport, out.Priority = s.start, s.transport, s.priority
	return n
}

// jobTail resolves a job's channels and label (def when none is given, unique among the
// jobs) into out; false when channels is out of range.
func (r *resolver) jobTail(path, def string, out *Collective, channels *int, label *string) bool {
	ok := true
	if channels != nil {
		if out.Channels = *channels; out.Channels < 1 || out.Channels > maxChannels {
			r.errf(path+".channels", "channels is the queue pairs each message is split over, 1 to %d; got %d", maxChannels, out.Channels)
			ok = false
		}
	}
	out.Label = def
	if label != nil {
		out.Label = *label
		if msg := labelProblem(out.Label); msg != "" {
			r.errf(path+".label", "label %s", msg)
		}
	}
	for j, t := range r.sc.Traffic {
		if t.Collective != nil && t.Collective.Label == out.Label {
			r.errf(path+".label", "label %q is the %s of traffic.%d's too; each job needs its own label", out.Label, t.Kind, j)
		}
	}
	return ok
}

// smallestMessage is the fewest bytes one of collective c's messages over n ranks carries:
// a piece, Size/N rounded down, or a pipelined buffer's last chunk (the tree's: of the
// smaller half).
func smallestMessage(c *Collective, n int) int64 {
	if c.Skew.Dist == collective.Zipf { // the coldest rank's share, less a byte of rounding
		return slices.Min(c.Skew.Shares(n, c.Size, 0)) - 1
	}
	if !collective.Pipelined(c.Op, c.Algorithm) {
		return c.Size / int64(n)
	}
	smallest := func(buf int64) int64 { // the last of buf's chunks, the rest, is the smallest
		if rest := buf % c.Chunk; rest > 0 {
			return rest
		}
		return min(buf, c.Chunk)
	}
	if c.Algorithm == collective.Tree { // each tree carries a half: size - size/2 and size/2
		return min(smallest(c.Size-c.Size/2), smallest(c.Size/2))
	}
	return smallest(c.Size)
}

// collectiveFlows is the number of flows collective c over n hosts makes: its queue pairs,
// one per channel and ordered pair of ranks that exchange a message (collective.Pairs; a
// chakra item's collectives of one op and algorithm share theirs), saturating.
func collectiveFlows(c *Collective, n int64) int64 {
	if c.Steps == nil {
		return mulSat(collective.Pairs(c.Op, c.Algorithm, int(n)), int64(c.Channels))
	}
	var sum int64
	seen := map[[2]string]bool{}
	for _, s := range c.Steps {
		if k := [2]string{s.Op, s.Algorithm}; !seen[k] {
			seen[k] = true
			sum = addSat(sum, collective.Pairs(s.Op, s.Algorithm, int(n)))
		}
	}
	return mulSat(sum, int64(c.Channels))
}

// collectiveMessages is the number of messages collective c over n hosts sends in all
// (messages per iteration x iterations, a chakra item's collectives summed), and of those
// in its distinct plans (one iteration's; each chakra collective its own), saturating.
func collectiveMessages(c *Collective, n int64) (all, planned int64) {
	if c.Steps == nil {
		m := countOn(c, int(n))
		return mulSat(m, int64(c.Iterations)), m
	}
	for _, s := range c.Steps {
		all = addSat(all, collective.Count(s.Op, s.Algorithm, int(n), s.Size, s.Chunk))
	}
	return all, all
}

// labelProblem says what is wrong with a job label, or "" when nothing is: it is 1 to 64
// printable characters, none a comma or a quote (it goes into CSV cells and table rows
// as it is).
func labelProblem(l string) string {
	switch {
	case l == "":
		return "is empty; give a name, e.g. label: training"
	case len(l) > 64:
		return fmt.Sprintf("is %d bytes long; at most 64", len(l))
	}
	for _, c := range l {
		if !unicode.IsPrint(c) || c == ',' || c == '"' {
			return fmt.Sprintf("%q holds %q; allowed are printable characters other than , and \"", l, c)
		}
	}
	return ""
}
