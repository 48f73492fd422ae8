package scenarios

import (
	"fmt"
	"slices"

	"github.com/fabricsim/fabricsim/collective"
)

// Bounds and defaults of a collective's skew and moe blocks (all_to_all on AI clusters).
const (
	// maxZipfS bounds Zipf's exponent: at s = 10 the hottest rank already takes over 99.9%
	// of the bytes (1/H(N, 10) > 0.999), so larger says nothing more.
	maxZipfS = 10
	// defaultDispatchBits and defaultCombineBits are DeepSeek-V3's MoE exchange as DeepEP
	// runs it: "FP8 dispatching, and BF16 combining" (deepseek-ai/DeepEP README.md, its
	// benchmark configuration); maxElementBits is FP64's.
	defaultDispatchBits = 8
	defaultCombineBits  = 16
	maxElementBits      = 64
)

// withHierarchical is op's algorithms as the scenario file allows them: Build's, and
// hierarchical for every op but broadcast (collective.BuildOn).
func withHierarchical(op string, algs []string) []string {
	if op == collective.Broadcast {
		return algs
	}
	return append(slices.Clip(algs), collective.Hierarchical)
}

// hierarchicalTopology reports whether the topology can run algorithm hierarchical: a rail
// preset with scale-up domains, or explicit servers (whose domains the run checks); an
// error at path otherwise.
func (r *resolver) hierarchicalTopology(path string) bool {
	return r.scaleUpTopology(path, "algorithm hierarchical runs inside scale-up domains first")
}

// pxnTopology reports whether the topology has scale-up domains for a collective's pxn: as
// scaleUpTopology, and an explicit topology must give a server a scaleup_domain (without
// one, pxn would be taken and change nothing); an error at path otherwise.
func (r *resolver) pxnTopology(path string) bool {
	const what = "pxn relays a GPU's traffic to another rail through its scale-up domain"
	if !r.scaleUpTopology(path, what) {
		return false
	}
	if r.topo == nil || r.topo.t.Preset != "" {
		return true
	}
	for _, s := range r.topo.t.Servers {
		if s.ScaleupDomain != "" {
			return true
		}
	}
	r.errf(path, "%s: the explicit topology gives no server a scaleup_domain (topology.servers: [{name, gpus, scaleup_domain}])", what)
	return false
}

// scaleUpTopology reports whether the topology has scale-up domains for what (a field that
// needs them, said in words): a rail preset with a scaleup block, or explicit servers (whose
// domains the run checks); an error at path otherwise.
func (r *resolver) scaleUpTopology(path, what string) bool {
	if r.topo == nil {
		return true
	}
	t := r.topo.t
	switch {
	case t.Preset == "rail" && t.Params.ScaleUp == nil:
		r.errf(path, "%s: give the rail preset a scaleup block (scaleup: {} for the H100 defaults)", what)
		return false
	case t.Preset != "" && t.Preset != "rail":
		r.errf(path, "%s: it needs GPUs in servers with scale-up domains, topology preset rail with scaleup, or explicit servers; %s has none", what, t.Preset)
		return false
	}
	return true
}

// moeFields resolves a collective's skew and moe blocks into out: all_to_all's alone; false
// when one is wrong.
func (r *resolver) moeFields(path string, c *rawCollective, out *Collective) bool {
	ok := true
	if c.Skew != nil {
		p := path + ".skew"
		switch {
		case out.Op != collective.AllToAll:
			r.errf(p, "skew spreads all_to_all's bytes over destinations; %s has no skew", out.Op)
			ok = false
		case !r.oneOf(p+".dist", "skew dist", c.Skew.Dist, []string{collective.Uniform, collective.Zipf}):
			ok = false
		case c.Skew.Dist == collective.Zipf && c.Skew.S == nil:
			r.errf(p+".s", "s is required with dist zipf: the exponent, above 0 and at most %d (e.g. s: 1.2)", maxZipfS)
			ok = false
		case c.Skew.Dist == collective.Zipf && !(*c.Skew.S > 0 && *c.Skew.S <= maxZipfS):
			r.errf(p+".s", "s is Zipf's exponent, above 0 and at most %d; got %g", maxZipfS, *c.Skew.S)
			ok = false
		case c.Skew.Dist == collective.Uniform && c.Skew.S != nil:
			r.errf(p+".s", "s is Zipf's exponent; dist uniform takes none")
			ok = false
		default:
			out.Skew.Dist = c.Skew.Dist
			if c.Skew.S != nil {
				out.Skew.S = *c.Skew.S
			}
		}
	}
	if c.MoE != nil {
		p := path + ".moe"
		if out.Op != collective.AllToAll {
			r.errf(p, "moe makes all_to_all a MoE layer's dispatch and combine; %s has no moe", out.Op)
			return false
		}
		m := &collective.MoE{DispatchBits: defaultDispatchBits, CombineBits: defaultCombineBits}
		for _, f := range []struct {
			name string
			v    *int
			to   *int
		}{{"dispatch_bits", c.MoE.DispatchBits, &m.DispatchBits}, {"combine_bits", c.MoE.CombineBits, &m.CombineBits}} {
			if f.v == nil {
				continue
			}
			if *f.v < 1 || *f.v > maxElementBits {
				r.errf(p+"."+f.name, "%s is an element's size in bits, 1 to %d (8: FP8, 16: BF16); got %d", f.name, maxElementBits, *f.v)
				ok = false
				continue
			}
			*f.to = *f.v
		}
		out.MoE = m
	}
	return ok
}

// checkOn is collective.Check for the plans collective.BuildOn adds: hierarchical and an
// all_to_all with skew or moe need a byte a piece, the layout's checks wait for the run.
func checkOn(c *Collective, n int) error {
	if c.Algorithm != collective.Hierarchical && c.Skew.Dist == "" && c.MoE == nil {
		return collective.Check(c.Op, c.Algorithm, n, c.Size, c.Chunk)
	}
	if c.Size < int64(n) {
		return fmt.Errorf("a size of %d bytes cannot be cut into %d pieces, one per rank", c.Size, n)
	}
	return nil
}

// countOn is collective.Count, and for the plans collective.BuildOn adds a bound: a
// hierarchical allreduce, allgather or reduce_scatter has no more messages than the ring
// over the same ranks (2(L-1)N + 2(D-1)N <= 2(N-1)N); an all_to_all at most twice its
// direct count for the hierarchical forwards and twice again for the combine.
func countOn(c *Collective, n int) int64 {
	switch {
	case c.Op == collective.AllToAll && (c.Algorithm == collective.Hierarchical || c.Skew.Dist != "" || c.MoE != nil):
		k := collective.Count(c.Op, collective.Direct, n, c.Size, 0)
		if c.Algorithm == collective.Hierarchical {
			k *= 2
		}
		if c.MoE != nil {
			k *= 2
		}
		return k
	case c.Algorithm == collective.Hierarchical:
		return collective.Count(c.Op, collective.Ring, n, c.Size, 0)
	}
	return collective.Count(c.Op, c.Algorithm, n, c.Size, c.Chunk)
}
