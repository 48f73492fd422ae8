package collective

import "fmt"

// NCCL's double binary tree on a rail-optimized cluster (NVIDIA/nccl at commit 5067397). The
// tree graph is searched as the ring's, its pattern NCCL_TOPO_PATTERN_BALANCED_TREE
// (src/init.cc line 1183), so channel c's GPUs in a node are a chain in the ring's order
// (RailOrder): "NET n -> GPU a -> GPU b -> .. -> GPU x" (src/graph/search.cc line 828). Inside
// the node each GPU's parent is the one before it in the chain (src/graph/connect.cc lines
// 61-62). Across nodes the nodes form NCCL's double binary tree (ncclGetDtree,
// src/graph/trees.cc; connectTrees, connect.cc lines 138-175): the chain's first GPU is the
// node's link to its parent node (treeToParent: intra index 0, connect.cc line 54), and a
// child node attaches to the parent node's second GPU if it is the parent's first child
// (treeToChild0: intra index 1 for the balanced tree, line 55) or to its first GPU if the
// second (treeToChild1: index 0, line 56; which child it is, ncclGetBtree's parentChildType,
// trees.cc line 50: the first when its rank is below the parent's). NCCL runs each channel's
// chain with tree 0 and a copy of the channel with tree 1 (connect.cc line 157: channel c +
// nChannels); here one job channel carries both, half its part of the buffer each, as Build's
// tree does.

// RailTrees is channel c's two trees over the job's ranks on rails (see above): node x of
// the n servers (in the order of their first rank) in tree t's place of NCCL's double binary
// tree over n, its ranks a chain in RailOrder(c)'s order.
func (l Layout) RailTrees(c int) [2]Shape {
	N := len(l.GPUs)
	var chains [][]int
	for _, s := range l.servers() {
		k := len(s)
		chain := make([]int, k)
		for i := range k {
			chain[i] = s[(c%k+i)%k]
		}
		chains = append(chains, chain)
	}
	n := len(chains)
	toChild := func(x, kind int) int { // the rank of node x that child nodes of kind attach to
		if kind == 0 && len(chains[x]) > 1 {
			return chains[x][1]
		}
		return chains[x][0]
	}
	var out [2]Shape
	for t := range out {
		s := Shape{Parent: make([]int, N), Children: make([][]int, N)}
		for x, chain := range chains {
			for i, r := range chain {
				s.Parent[r] = -1
				if i > 0 {
					s.Parent[r] = chain[i-1]
				}
			}
			up, kind := nodeParent(n, x, t)
			if up < 0 {
				s.Root = chain[0]
				continue
			}
			s.Parent[chain[0]] = toChild(up, kind)
		}
		// Children in NCCL's order: the chain's next GPU first (tree.down[0], connect.cc line
		// 62), then child nodes by their place in the tree.
		for _, chain := range chains {
			for i := 1; i < len(chain); i++ {
				s.Children[chain[i-1]] = append(s.Children[chain[i-1]], chain[i])
			}
		}
		for _, chain := range chains {
			if p := s.Parent[chain[0]]; p >= 0 {
				s.Children[p] = append(s.Children[p], chain[0])
			}
		}
		out[t] = s
	}
	return out
}

// nodeParent is node x's parent node in tree t of NCCL's double binary tree over n nodes
// (dtree), -1 for the root, and which of the parent's children it is (0 or 1): ncclGetBtree's
// parentChildType, 0 when x's rank is below its parent's in the tree's own numbering
// (mirrored or shifted for tree 1).
func nodeParent(n, x, t int) (up, kind int) {
	up, _, _ = dtree(n, x, t)
	if up < 0 {
		return -1, 0
	}
	xr, ur := x, up
	if t == 1 {
		if n%2 == 1 {
			xr, ur = (x-1+n)%n, (up-1+n)%n
		} else {
			xr, ur = n-1-x, n-1-up
		}
	}
	if xr < ur {
		return up, 0
	}
	return up, 1
}

// railTree is allreduce by tree over ranks placed by l as NCCL runs it on rails: per channel
// c, part c of the buffer (share) over channel c's two trees (RailTrees), pipelined in chunks
// as Build's tree, its messages on channel c with the relay PXN takes.
func railTree(l Layout, size, chunk int64, channels int) (*Plan, error) {
	n, C := len(l.GPUs), max(channels, 1)
	if err := Check(AllReduce, Tree, n, size/int64(C), chunk); err != nil {
		return nil, fmt.Errorf("%v (the buffer is cut in %d channels first)", err, C)
	}
	var count int64
	for c := range C {
		count += Count(AllReduce, Tree, n, share(size, C, c), chunk)
	}
	if count > MaxMessages {
		return nil, fmt.Errorf("allreduce by tree over %d ranks and %d channels is %d messages an iteration; at most %d", n, C, count, MaxMessages)
	}
	p := &Plan{Op: AllReduce, Algorithm: Tree, Ranks: n, Size: size, Chunk: chunk}
	piece := 0
	for c := range C {
		piece = p.treesOn(l.RailTrees(c), share(size, C, c), c, piece)
	}
	for m := range p.Messages {
		p.Messages[m].Relay = l.relay(p.Messages[m].Src, p.Messages[m].Dst)
	}
	p.finish(true)
	return p, nil
}
