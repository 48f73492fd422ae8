package collective

import "fmt"

// hierarchical is op by algorithm hierarchical over ranks placed by l: the job's ranks in D
// scale-up domains of L ranks each (the i-th rank of a domain by server then rail; with a
// domain per server, the GPU on the i-th rail of the job), the buffer cut in N = L x D
// pieces, block b the D pieces b*D..b*D+D-1. The phases run one after the other on each
// rank, each a ring (Build's ring, ringOn), the data dependencies (inputs) chaining them:
//   - allreduce: a reduce-scatter of the L blocks inside each domain (rank i of a domain then
//     holds block i+1 mod L reduced over its domain); an allreduce of that block, piece by
//     piece, among the i-th ranks of all domains (same rail: GPU G with GPU G); an allgather
//     of the blocks inside each domain.
//   - reduce_scatter: the reduce-scatter inside, then a reduce-scatter of the block among
//     the i-th ranks of all domains (each ends with one piece reduced over all N ranks).
//   - allgather: the i-th rank of domain d starts with piece i*D+d; an allgather among the
//     i-th ranks of all domains (each then holds block i), then of the blocks inside.
//
// Its messages are split over all channels (Channel -1).
func hierarchical(op string, l Layout, size int64) (*Plan, error) {
	if op != AllReduce && op != AllGather && op != ReduceScatter {
		return nil, fmt.Errorf("%s has no algorithm %q (allowed for allreduce, allgather, reduce_scatter and all_to_all)", op, Hierarchical)
	}
	doms, err := l.evenDomains()
	if err != nil {
		return nil, err
	}
	D, L := len(doms), len(doms[0])
	n := D * L
	if size < int64(n) {
		return nil, fmt.Errorf("a size of %d bytes cannot be cut into %d pieces, one per rank", size, n)
	}
	p := &Plan{Op: op, Algorithm: Hierarchical, Ranks: n, Size: size}
	block := func(u int) (int, int, int64) { return u * D, (u + 1) * D, p.rangeBytes(u*D, (u+1)*D) }
	inside := func(count, shift int, reduce bool) {
		if L < 2 {
			return
		}
		first := p.Steps0()
		for _, d := range doms {
			p.ringOn(d, block, -1, first, count, shift, reduce)
		}
	}
	across := func(reduceScatter, allgather bool, blockOf func(i int) int) {
		if D < 2 {
			return
		}
		first := p.Steps0()
		for i := range L {
			b := blockOf(i)
			order := make([]int, D)
			for d := range doms {
				order[d] = doms[d][i]
			}
			piece := func(u int) (int, int, int64) { return b*D + u, b*D + u + 1, p.chunk(b*D + u) }
			steps, shift := 0, 0
			if reduceScatter {
				p.ringOn(order, piece, -1, first, D-1, 0, true)
				steps, shift = D-1, 1
			}
			if allgather {
				p.ringOn(order, piece, -1, first+steps, D-1, shift, false)
			}
		}
	}
	held := func(i int) int { return (i + 1) % L } // the block a domain's reduce-scatter leaves rank i
	switch op {
	case AllReduce:
		inside(L-1, 0, true)
		across(true, true, held)
		inside(L-1, 1, false)
	case ReduceScatter:
		inside(L-1, 0, true)
		across(true, false, held)
	case AllGather:
		across(false, true, func(i int) int { return i })
		inside(L-1, 0, false)
	}
	p.finish(true)
	return p, nil
}

// evenDomains is the job's ranks by scale-up domain (domains), or why the hierarchical
// algorithms cannot run on them: a rank outside any scale-up domain, or domains holding
// different numbers of the job's ranks.
func (l Layout) evenDomains() ([][]int, error) {
	for r, g := range l.GPUs {
		if g.Domain < 1 {
			return nil, fmt.Errorf("algorithm hierarchical needs every rank in a scale-up domain (topology rail with scaleup); rank %d is in none", r)
		}
	}
	doms := l.domains()
	for _, d := range doms[1:] {
		if len(d) != len(doms[0]) {
			return nil, fmt.Errorf("algorithm hierarchical needs the same number of the job's ranks in every scale-up domain; domain %d holds %d, domain %d holds %d",
				l.GPUs[doms[0][0]].Domain, len(doms[0]), l.GPUs[d[0]].Domain, len(d))
		}
	}
	return doms, nil
}
