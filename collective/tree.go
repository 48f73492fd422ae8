package collective

// NCCL's double binary tree allreduce (Sanders, Speck and Traff, "Two-tree algorithms for
// full bandwidth broadcast, reduction and scan", Parallel Computing 35(12), 2009; NVIDIA's
// "Massively Scale Your Deep Learning Training with NCCL 2.4", 2019): the buffer is cut in
// two halves, one per tree; in each tree every rank reduces a chunk from its children into
// its own and sends it to its parent, and the root sends the reduced chunk back down, every
// rank passing it on to its children (NVIDIA/nccl src/device/all_reduce.h, runTreeSplit:
// the reduce up and the broadcast down run at once, chunk by chunk). The trees' shape is
// NCCL's (src/graph/trees.cc): a rank interior in one tree is a leaf in the other, so no
// rank carries more than twice its buffer each way.

// btree is NCCL's binary tree over n ranks rooted at rank 0 (NVIDIA/nccl
// src/graph/trees.cc, ncclGetBtree, line for line): rank r's parent up (-1 for the root)
// and its children d0 and d1 (-1 for none). With b the lowest set bit of r, r's parent is
// r XOR b with bit 2b set (r - b for xx11[0], r + b for xx01[0]) or r XOR b when that is out
// of range, and its children r - b/2 and the largest r + b/2^k in range; the root's one
// child is the highest power of two below n.
func btree(n, r int) (up, d0, d1 int) {
	bit := 1
	for ; bit < n; bit <<= 1 {
		if bit&r != 0 {
			break
		}
	}
	if r == 0 {
		return -1, -1, bit >> 1
	}
	up = (r ^ bit) | bit<<1
	if up >= n {
		up = r ^ bit
	}
	low := bit >> 1
	d0, d1 = -1, -1
	if low != 0 {
		d0, d1 = r-low, r+low
	}
	for d1 >= n { // NCCL's loop: the candidate again, then with the bit halved, until in range
		d1 = -1
		if low != 0 {
			d1 = r + low
		}
		low >>= 1
	}
	return up, d0, d1
}

// dtree is NCCL's double binary tree (src/graph/trees.cc, ncclGetDtree): tree 0 is btree;
// tree 1 is its mirror, rank r in the place of n-1-r, when n is even, and btree shifted by
// one rank, r in the place of r-1 mod n, when n is odd. It returns rank r's parent and
// children in tree t, -1 for none.
func dtree(n, r, t int) (up, d0, d1 int) {
	if t == 0 {
		return btree(n, r)
	}
	to, from := func(x int) int { return n - 1 - x }, func(x int) int { return n - 1 - x }
	if n%2 == 1 {
		to, from = func(x int) int { return (x - 1 + n) % n }, func(x int) int { return (x + 1) % n }
	}
	u, c0, c1 := btree(n, to(r))
	back := func(x int) int {
		if x < 0 {
			return -1
		}
		return from(x)
	}
	return back(u), back(c0), back(c1)
}

// Shape is a tree over Ranks ranks: each rank's Parent (-1 for the root) and Children.
type Shape struct {
	Root     int
	Parent   []int
	Children [][]int
}

// DoubleTree is NCCL's two trees over n ranks (dtree), rank i the i-th host of the job.
func DoubleTree(n int) [2]Shape {
	var out [2]Shape
	for t := range out {
		s := Shape{Parent: make([]int, n), Children: make([][]int, n)}
		for r := 0; r < n; r++ {
			up, d0, d1 := dtree(n, r, t)
			s.Parent[r] = up
			if up < 0 {
				s.Root = r
			}
			for _, d := range []int{d0, d1} {
				if d >= 0 {
					s.Children[r] = append(s.Children[r], d)
				}
			}
		}
		out[t] = s
	}
	return out
}

// Heights is each rank's height in the tree: 0 for a leaf, one more than its highest child.
func (s Shape) Heights() []int {
	h := make([]int, len(s.Parent))
	var walk func(r int) int
	walk = func(r int) int {
		for _, c := range s.Children[r] {
			h[r] = max(h[r], walk(c)+1)
		}
		return h[r]
	}
	walk(s.Root)
	return h
}

// Depths is each rank's distance from the root in hops.
func (s Shape) Depths() []int {
	d := make([]int, len(s.Parent))
	var walk func(r int)
	walk = func(r int) {
		for _, c := range s.Children[r] {
			d[c] = d[r] + 1
			walk(c)
		}
	}
	walk(s.Root)
	return d
}

// halves is the buffer's two halves, one per tree: tree 0 the first, a byte more when size
// is odd.
func halves(size int64) (h0, h1 int64) { return size - size/2, size / 2 }

// trees appends the double binary tree's allreduce. Tree t carries half t of the buffer in
// K_t chunks of Chunk bytes (the last the rest), pieces numbered tree 0's first. For chunk
// c of tree t with root height H: each rank r but the root sends it up to its parent,
// reduced, in step c + height(r); the root and every rank below it send it down to each
// child, as it is, in step c + H + depth(sender). The data dependencies follow from the
// steps (inputs): an up message waits for the chunk from each of its sender's children; a
// down message for the chunk's arrival from its sender's parent, or at the root from each
// child. Besides, every link holds one chunk in flight in each direction: chunk c on a
// link waits for chunk c-1 on the same link to arrive, as the ring broadcast's (chain).
func (p *Plan) trees() {
	p.treesOn(DoubleTree(p.Ranks), p.Size, -1, 0)
}

// treesOn appends the two trees of shapes carrying size bytes (half each, as trees), its
// pieces numbered from first, its messages on channel (-1: all channels); it returns the
// piece after its last.
func (p *Plan) treesOn(shapes [2]Shape, size int64, channel, first int) int {
	h0, h1 := halves(size)
	for t, half := range []int64{h0, h1} {
		s := shapes[t]
		height, depth := s.Heights(), s.Depths()
		H := height[s.Root]
		K := int(chunks(half, p.Chunk))
		up := make([]int32, p.Ranks)   // per rank, its last up message; -1 before the first
		down := make([]int32, p.Ranks) // per receiving rank, its last down message
		for r := range up {
			up[r], down[r] = -1, -1
		}
		for c := 0; c < K; c++ {
			b := chunkBytes(half, p.Chunk, c, K)
			piece := first + c
			for r := 0; r < p.Ranks; r++ {
				if par := s.Parent[r]; par >= 0 {
					up[r] = p.add(r, par, c+height[r], piece, piece+1, b, true, link(up[r])...)
					down[r] = p.add(par, r, c+H+depth[par], piece, piece+1, b, false, link(down[r])...)
					p.Messages[up[r]].Channel, p.Messages[down[r]].Channel = channel, channel
				}
			}
		}
		first += K
	}
	return first
}

// link is the wait of a chunk on its link: the link's previous chunk, if any.
func link(prev int32) []int32 {
	if prev < 0 {
		return nil
	}
	return []int32{prev}
}
