package collective

import (
	"math"
	"math/bits"
	"strings"
	"testing"
)

// drawn are NCCL's own drawings of its trees (NVIDIA/nccl src/graph/trees.cc, the comments
// above ncclGetBtree and ncclGetDtree), as each rank's parent: btree over 14 ranks, and the
// second tree over 12 ranks (the mirror) and over 13 (the shift by one).
var drawn = []struct {
	n, tree int
	parent  []int
}{
	// 0-8; 8: 4, 12; 4: 2, 6; 12: 10, 13; 2: 1, 3; 6: 5, 7; 10: 9, 11.
	{14, 0, []int{-1, 2, 4, 2, 8, 6, 4, 6, 0, 10, 12, 10, 8, 12}},
	// 11-3; 3: 1, 7; 1: 0, 2; 7: 5, 9; 5: 4, 6; 9: 8, 10.
	{12, 1, []int{1, 3, 1, 11, 5, 7, 5, 3, 9, 7, 9, -1}},
	// 1-9; 9: 5, 0; 5: 3, 7; 0: 11; 3: 2, 4; 7: 6, 8; 11: 10, 12.
	{13, 1, []int{9, -1, 3, 5, 3, 9, 7, 5, 7, 1, 11, 0, 11}},
}

// ruleParent is rank r's parent in btree over n ranks by the rule trees.cc states in words,
// written apart from btree: with b the lowest set bit of r, xx11[0] goes to xx10[0] (r - b)
// and xx01[0] to xx10[0] (r + b), or to xx00[0] (r - b) when r + b is out of range.
func ruleParent(n, r int) int {
	if r == 0 {
		return -1
	}
	b := r & -r
	if r&(2*b) != 0 || r+b >= n {
		return r - b
	}
	return r + b
}

// TestDoubleTreeIsNCCLs: the trees' parents and children are NCCL's: its drawings (14, 12
// and 13 ranks); and for 4, 5, 8 and 16 ranks, tree 0 by trees.cc's rule in words and tree
// 1 its mirror (n even: rank r's parent is n-1 - the parent of n-1-r) or its shift by one
// (n odd: 1 + the parent of r-1, mod n); each rank's children are the ranks whose parent it
// is, at most two. Every rank is interior (a parent and a child) in at most one tree, so
// no rank has more than 4 tree edges: 3 where interior, 1 where a leaf.
func TestDoubleTreeIsNCCLs(t *testing.T) {
	check := func(n, tree int, want []int) {
		t.Helper()
		s := DoubleTree(n)[tree]
		for r := 0; r < n; r++ {
			if s.Parent[r] != want[r] {
				t.Fatalf("n=%d tree %d: rank %d's parent is %d, want %d", n, tree, r, s.Parent[r], want[r])
			}
			var kids []int
			for c := 0; c < n; c++ {
				if want[c] == r {
					kids = append(kids, c)
				}
			}
			if len(kids) > 2 || len(kids) != len(s.Children[r]) {
				t.Fatalf("n=%d tree %d: rank %d's children are %v, want %v", n, tree, r, s.Children[r], kids)
			}
			for _, k := range kids {
				if s.Parent[k] != r {
					t.Fatalf("n=%d tree %d: rank %d lists child %d whose parent is %d", n, tree, r, k, s.Parent[k])
				}
			}
			if want[r] < 0 && s.Root != r {
				t.Fatalf("n=%d tree %d: root %d, want %d", n, tree, s.Root, r)
			}
		}
	}
	for _, d := range drawn {
		check(d.n, d.tree, d.parent)
	}
	// 4 and 5 ranks written out: tree 0 is 0-2-{1,3} and 0-4-2-{1,3}; tree 1 the mirror
	// 3-1-{0,2} and the shift 1-0-3-{2,4}.
	check(4, 0, []int{-1, 2, 0, 2})
	check(4, 1, []int{1, 3, 1, -1})
	check(5, 0, []int{-1, 2, 4, 2, 0})
	check(5, 1, []int{1, -1, 3, 0, 3})
	for n := 2; n <= 16; n++ {
		p0, p1 := make([]int, n), make([]int, n)
		for r := range p0 {
			p0[r] = ruleParent(n, r)
		}
		for r := range p1 {
			switch {
			case n%2 == 0:
				if q := p0[n-1-r]; q >= 0 {
					p1[r] = n - 1 - q
				} else {
					p1[r] = -1
				}
			default:
				if q := p0[(r-1+n)%n]; q >= 0 {
					p1[r] = (q + 1) % n
				} else {
					p1[r] = -1
				}
			}
		}
		check(n, 0, p0)
		check(n, 1, p1)
		trees := DoubleTree(n)
		for r := 0; r < n; r++ {
			interior, edges := 0, 0
			for _, s := range trees {
				if s.Parent[r] >= 0 && len(s.Children[r]) > 0 {
					interior++
				}
				edges += len(s.Children[r])
				if s.Parent[r] >= 0 {
					edges++
				}
			}
			if interior > 1 || edges > 4 {
				t.Fatalf("n=%d: rank %d is interior in %d trees with %d edges in all", n, r, interior, edges)
			}
		}
	}
}

// treeClosedForm is docs/model.md's closed form of the pipelined double binary tree over
// N = 2^H ranks with K chunks of C bytes per tree (S = 2KC), K >= 2H - 1: rounds of the
// pipeline, H at the start and H at the end carrying 2 chunks at the busiest rank, one each
// side 3, and the K - 3 between 4; each round also one latency a:
// (4(K + H) - 6) C b + (K + 2H - 1) a = 2 S b + (4H - 6) C b + (K + 2H - 1) a.
func treeClosedForm(n int, K, C int64, b, a float64) float64 {
	H := float64(bits.TrailingZeros(uint(n)))
	k := float64(K)
	return (4*(k+H)-6)*float64(C)*b + (k+2*H-1)*a
}

// TestTreeIdealClosedForm: the tree's Ideal, and the critical path through its graph with
// every message its round's load, are the closed form, for N = 4, 8, 16 and K from 2H - 1
// to 40 chunks a tree, whatever the chunk. On 2 ranks each rank is one tree's root and the
// other's leaf: it sends its chunk c of one half up in round c and chunk c-1 of the other
// down, round 0 carrying one chunk, rounds 1 to K-1 two, round K one: 2 K C b + (K + 1) a, S b
// and a latency a round.
func TestTreeIdealClosedForm(t *testing.T) {
	const b, a = 0.08e-9, 2e-6
	for _, n := range []int{4, 8, 16} {
		H := int64(bits.TrailingZeros(uint(n)))
		for _, C := range []int64{DefaultChunk, 100_000} {
			for K := 2*H - 1; K <= 40; K++ {
				p, err := Build(AllReduce, Tree, n, 2*K*C, C)
				if err != nil {
					t.Fatal(err)
				}
				want := treeClosedForm(n, K, C, b, a)
				if p.Steps != int(K+2*H-1) {
					t.Fatalf("n=%d K=%d: %d steps, want K + 2H - 1 = %d", n, K, p.Steps, K+2*H-1)
				}
				if got := p.Ideal(b, a); math.Abs(got-want) > 1e-9*want {
					t.Fatalf("n=%d K=%d C=%d: Ideal %.9g s, closed form %.9g s", n, K, C, got, want)
				}
				loads := p.MessageLoads()
				if got := p.CriticalPath(func(m int) float64 { return float64(loads[m])*b + a }); math.Abs(got-want) > 1e-9*want {
					t.Fatalf("n=%d K=%d C=%d: CriticalPath %.9g s, closed form %.9g s", n, K, C, got, want)
				}
			}
		}
	}
	const C, K = 1000, 7
	p, err := Build(AllReduce, Tree, 2, 2*K*C, C)
	if err != nil {
		t.Fatal(err)
	}
	if want, got := 2*K*C*b+(K+1)*a, p.Ideal(b, a); math.Abs(got-want) > 1e-9*want {
		t.Fatalf("n=2: Ideal %.9g s, want 2KCb + (K+1)a = %.9g s", got, want)
	}
}

// TestTreeRefusals: the tree is allreduce's only, needs a chunk, and at least a byte a half;
// chunk belongs to pipelined algorithms only.
func TestTreeRefusals(t *testing.T) {
	for _, c := range []struct {
		op, alg string
		size    int64
		chunk   int64
		want    string
	}{
		{AllGather, Tree, 1000, DefaultChunk, "NCCL builds its double binary tree for allreduce only"},
		{Broadcast, Tree, 1000, DefaultChunk, "broadcast has ring"},
		{AllReduce, Tree, 1000, 0, "chunk must be at least 1 byte"},
		{AllReduce, Tree, 1, 1, "at least 2 bytes"},
		{AllReduce, Ring, 1000, 64, "chunk applies to algorithm tree and to broadcast only"},
	} {
		err := Check(c.op, c.alg, 4, c.size, c.chunk)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check(%s, %s, 4, %d, %d) = %v, want %q", c.op, c.alg, c.size, c.chunk, err, c.want)
		}
	}
	if err := Check(AllReduce, Tree, 4, 2, 1); err != nil {
		t.Errorf("a 2-byte tree over 4 ranks (a byte a half) is refused: %v", err)
	}
}
