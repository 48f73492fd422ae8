package collective

import (
	"fmt"
	"slices"
)

// GPU places a rank on an AI cluster (topology's rail preset): its Server, its Rail (its
// position in the server, from 1: the rail its NIC is on) and its scale-up Domain (0: the
// server has none). A rank of a flat fabric has all three 0.
type GPU struct{ Server, Rail, Domain int }

// Layout is where a job's ranks are, rank i at GPUs[i], and whether the fabric relays
// traffic to another rail's GPU through the scale-up domain (PXN: topology's hosts.pxn).
type Layout struct {
	GPUs []GPU
	PXN  bool
}

// Options are what BuildOn needs besides the operation: Chunk as Build's; Channels, the
// job's channels (NCCL's rail rings give channel c to rail c mod the GPUs per server);
// Skew and MoE for all_to_all; Seed picks which rank is the Zipf skew's hottest.
type Options struct {
	Chunk    int64
	Channels int
	Skew     Skew
	MoE      *MoE
	Seed     uint64
}

// Hierarchical is the two-level algorithm of allreduce, allgather, reduce_scatter and
// all_to_all on an AI cluster (BuildOn): inside the scale-up domain and across domains
// between the GPUs of one rail (hier.go, moe.go).
const Hierarchical = "hierarchical"

// railed reports whether every rank is a GPU of a rail preset (Rail > 0).
func (l Layout) railed() bool {
	for _, g := range l.GPUs {
		if g.Rail < 1 {
			return false
		}
	}
	return len(l.GPUs) > 0
}

// servers is the job's ranks grouped by server, servers in the order of their first rank,
// each server's ranks by rail.
func (l Layout) servers() [][]int {
	return l.groups(func(g GPU) int { return g.Server })
}

// domains is the job's ranks grouped by scale-up domain, domains in the order of their first
// rank, each domain's ranks by server then rail.
func (l Layout) domains() [][]int {
	return l.groups(func(g GPU) int { return g.Domain })
}

func (l Layout) groups(key func(GPU) int) [][]int {
	var out [][]int
	at := map[int]int{}
	for r, g := range l.GPUs {
		i, ok := at[key(g)]
		if !ok {
			i = len(out)
			at[key(g)] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], r)
	}
	for _, grp := range out {
		slices.SortStableFunc(grp, func(a, b int) int {
			ga, gb := l.GPUs[a], l.GPUs[b]
			if ga.Server != gb.Server {
				return ga.Server - gb.Server
			}
			return ga.Rail - gb.Rail
		})
	}
	return out
}

// relay is the rail whose NIC a message from rank src to rank dst leaves through: with PXN,
// a message to another rail's GPU outside the sender's scale-up domain crosses the domain to
// the sender's server's GPU on the destination's rail (topology.Routes.HostPort; NCCL's
// PATH_PXN, NVIDIA/nccl src/graph/paths.cc lines 817-839); 0 otherwise.
func (l Layout) relay(src, dst int) int {
	s, d := l.GPUs[src], l.GPUs[dst]
	if l.PXN && s.Domain > 0 && s.Domain != d.Domain && s.Rail != d.Rail {
		return d.Rail
	}
	return 0
}

// BuildOn is Build for ranks placed on a fabric: on an AI cluster (every rank a GPU of the
// rail preset) the ring of allreduce, allgather and reduce_scatter is NCCL's rail ring
// (rails.go), and algorithm hierarchical and all_to_all's skew and MoE apply (hier.go,
// moe.go); every other case is Build's plan unchanged, each message on every channel.
func BuildOn(op, alg string, l Layout, size int64, o Options) (*Plan, error) {
	n := len(l.GPUs)
	moe := op == AllToAll && (o.MoE != nil || o.Skew.Dist == Zipf || alg == Hierarchical)
	switch {
	case alg == Hierarchical && op != AllToAll:
		return hierarchical(op, l, size)
	case moe:
		return allToAll(alg, l, size, o)
	case op == AllToAll && o.Skew.Dist != "" && o.Skew.Dist != Uniform:
		return nil, fmt.Errorf("skew dist %q (allowed: %s, %s)", o.Skew.Dist, Uniform, Zipf)
	case alg == Ring && l.railed() && (op == AllReduce || op == AllGather || op == ReduceScatter):
		return railRing(op, l, size, o.Channels)
	case alg == Tree && op == AllReduce && l.railed():
		return railTree(l, size, o.Chunk, o.Channels)
	}
	return Build(op, alg, n, size, o.Chunk)
}
