package collective

import (
	"fmt"
	"math"
	"math/bits"
	"strings"
	"testing"
)

// play runs plan p step by step with each rank's buffer as a contribution mask per piece
// (bit r: rank r's data): a reducing message adds the sender's masks into the receiver's
// (an overlap would count a contribution twice), any other replaces them with the sender's,
// which must then be complete (a rank forwards only finished data). It checks that every
// message's sender received the data it sends through a message its After reaches
// (transitively), and returns the final masks.
func play(t *testing.T, p *Plan) [][]uint64 {
	t.Helper()
	n := p.Ranks
	full := uint64(1)<<n - 1
	pieces := n
	switch {
	case p.Op == Broadcast:
		pieces = int(chunks(p.Size, p.Chunk))
	case p.Algorithm == Tree:
		h0, h1 := halves(p.Size)
		pieces = int(chunks(h0, p.Chunk) + chunks(h1, p.Chunk))
	}
	for _, m := range p.Messages { // a plan per channel (BuildOn on rails) numbers more pieces
		pieces = max(pieces, m.Hi)
	}
	hold := make([][]uint64, n)
	from := make([][]int32, n) // the message that last wrote each piece, -1 for none
	for r := range hold {
		hold[r], from[r] = make([]uint64, pieces), make([]int32, pieces)
		for j := range hold[r] {
			from[r][j] = -1
			switch p.Op {
			case AllReduce, ReduceScatter, AllToAll:
				hold[r][j] = 1 << r
			case AllGather:
				if j == r {
					hold[r][j] = full
				}
			case Broadcast:
				if r == 0 {
					hold[r][j] = full
				}
			}
		}
	}
	ancestors := make([]map[int32]bool, len(p.Messages))
	var anc func(m int32) map[int32]bool
	anc = func(m int32) map[int32]bool {
		if ancestors[m] == nil {
			a := map[int32]bool{}
			for _, x := range p.Messages[m].After {
				a[x] = true
				for y := range anc(x) {
					a[y] = true
				}
			}
			ancestors[m] = a
		}
		return ancestors[m]
	}
	for s := 0; s < p.Steps; s++ {
		snap := make([][]uint64, n)
		for r := range hold {
			snap[r] = append([]uint64(nil), hold[r]...)
		}
		for m := range p.Messages {
			msg := &p.Messages[m]
			if msg.Step != s {
				continue
			}
			if msg.Src == msg.Dst {
				t.Fatalf("message %d sends rank %d to itself", m, msg.Src)
			}
			for j := msg.Lo; j < msg.Hi; j++ {
				if w := from[msg.Src][j]; w >= 0 && !anc(int32(m))[w] {
					t.Fatalf("%s/%s: message %d (step %d, %d->%d) sends piece %d, which message %d brought, but does not wait for it", p.Op, p.Algorithm, m, s, msg.Src, msg.Dst, j, w)
				}
				switch {
				case p.Op == AllToAll:
					if j != msg.Dst {
						t.Fatalf("all_to_all message %d carries piece %d to rank %d", m, j, msg.Dst)
					}
					hold[msg.Dst][j] |= snap[msg.Src][j]
				case msg.Reduce:
					if hold[msg.Dst][j]&snap[msg.Src][j] != 0 {
						t.Fatalf("%s/%s: message %d counts a contribution twice into piece %d of rank %d", p.Op, p.Algorithm, m, j, msg.Dst)
					}
					hold[msg.Dst][j] |= snap[msg.Src][j]
				default:
					if snap[msg.Src][j] != full {
						t.Fatalf("%s/%s: message %d forwards piece %d of rank %d unfinished (%b)", p.Op, p.Algorithm, m, j, msg.Src, snap[msg.Src][j])
					}
					hold[msg.Dst][j] = full
				}
				from[msg.Dst][j] = int32(m)
			}
		}
	}
	return hold
}

// TestPlansDeliverTheirResult plays every operation and algorithm over 2 to 16 ranks and
// checks the outcome nccl defines: allreduce, allgather and broadcast leave every rank
// every piece complete; reduce_scatter one complete piece per rank, each a different one;
// all_to_all every rank its piece from each other rank. It also checks the message counts
// and that the messages' bytes add up to the closed-form volume per rank.
func TestPlansDeliverTheirResult(t *testing.T) {
	for _, op := range Ops {
		for _, alg := range Algorithms[op] {
			for n := 2; n <= 16; n++ {
				if alg == HalvingDoubling && n&(n-1) != 0 {
					continue
				}
				size := int64(1000*n + 7) // not a multiple of n: the pieces differ by a byte
				var chunk int64
				switch {
				case op == Broadcast:
					size, chunk = 3*DefaultChunk+5, DefaultChunk
				case alg == Tree:
					chunk = 300 // halves of 500n+4 and 500n+3 bytes: a short last chunk
				}
				p, err := Build(op, alg, n, size, chunk)
				if err != nil {
					t.Fatalf("%s/%s n=%d: %v", op, alg, n, err)
				}
				if int64(len(p.Messages)) != Count(op, alg, n, size, chunk) {
					t.Fatalf("%s/%s n=%d: %d messages, Count says %d", op, alg, n, len(p.Messages), Count(op, alg, n, size, chunk))
				}
				checkResult(t, p, play(t, p), fmt.Sprintf("%s/%s n=%d", op, alg, n))
				// Bytes a rank sends, in all: allreduce 2(n-1)/n S, allgather and
				// reduce_scatter (n-1)/n S (as pieces: S less the rank's own piece).
				sent := make([]int64, n)
				for _, m := range p.Messages {
					sent[m.Src] += m.Bytes
				}
				if alg == Tree {
					// Each of a tree's n-1 edges carries its half up once and down once:
					// 2(n-1) S in all; a rank sends its half once per edge it has in
					// each tree, at most 3 edges in one and 1 in the other: at most 3 h0 +
					// h1 (2S and a byte: the halves differ by a byte).
					h0, h1 := halves(size)
					var all int64
					for r := range sent {
						all += sent[r]
						if sent[r] > 3*h0+h1 {
							t.Fatalf("tree n=%d: rank %d sends %d bytes, more than 3 h0 + h1 = %d", n, r, sent[r], 3*h0+h1)
						}
					}
					if all != 2*int64(n-1)*size {
						t.Fatalf("tree n=%d: the ranks send %d bytes in all, want 2(n-1)S = %d", n, all, 2*int64(n-1)*size)
					}
				}
				for r := 0; r < n && op != Broadcast && alg != Tree; r++ {
					want := float64(size) * float64(n-1) / float64(n)
					if op == AllReduce {
						want *= 2
					}
					// Pieces differ by at most one byte: each step's piece is within 1 of S/n.
					slack := float64(2 * p.Steps)
					if math.Abs(float64(sent[r])-want) > slack {
						t.Fatalf("%s/%s n=%d: rank %d sends %d bytes, want %.1f +- %.0f", op, alg, n, r, sent[r], want, slack)
					}
				}
			}
		}
	}
}

// TestIdealClosedForms checks Ideal against the algorithms' closed forms with S a multiple
// of N: ring allreduce 2(N-1)/N S b + 2(N-1) a; halving-doubling 2(N-1)/N S b + 2 log2 N a;
// ring allgather (N-1)/N S b + (N-1) a; all_to_all (N-1)/N S b + a; broadcast of K chunks
// (K+N-2)(C b + a).
func TestIdealClosedForms(t *testing.T) {
	const b, a = 0.08e-9, 2e-6 // 100 Gb/s, 2 us
	for _, n := range []int{2, 4, 8, 16} {
		S := int64(n) * 1 << 20
		N := float64(n)
		L := float64(bits.TrailingZeros(uint(n)))
		for _, c := range []struct {
			op, alg string
			want    float64
		}{
			{AllReduce, Ring, 2*(N-1)/N*float64(S)*b + 2*(N-1)*a},
			{AllReduce, HalvingDoubling, 2*(N-1)/N*float64(S)*b + 2*L*a},
			{AllGather, Ring, (N-1)/N*float64(S)*b + (N-1)*a},
			{ReduceScatter, HalvingDoubling, (N-1)/N*float64(S)*b + L*a},
			{AllToAll, Direct, (N-1)/N*float64(S)*b + a},
			{Broadcast, Ring, (float64(S/DefaultChunk) + N - 2) * (DefaultChunk*b + a)},
		} {
			var chunk int64
			if c.op == Broadcast {
				chunk = DefaultChunk
			}
			p, err := Build(c.op, c.alg, n, S, chunk)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Ideal(b, a); math.Abs(got-c.want) > 1e-9*c.want {
				t.Errorf("%s/%s n=%d: Ideal %.9g s, closed form %.9g s", c.op, c.alg, n, got, c.want)
			}
			// Uniform weights: the critical path is the step-synchronous form.
			loads := p.MessageLoads()
			if got := p.CriticalPath(func(m int) float64 { return float64(loads[m])*b + a }); math.Abs(got-c.want) > 1e-9*c.want {
				t.Errorf("%s/%s n=%d: CriticalPath %.9g s, closed form %.9g s", c.op, c.alg, n, got, c.want)
			}
		}
	}
}

// TestCriticalPathFollowsTheRing: on a ring one of whose links takes L (the others 0), an
// allreduce's chain of 2(N-1) dependent messages walks back over 2(N-1) consecutive links of
// the ring, so it crosses the slow one at most ceil(2(N-1)/N) = 2 times; the step-synchronous
// form would charge L in all 2(N-1) steps.
func TestCriticalPathFollowsTheRing(t *testing.T) {
	const n, L = 8, 1.0
	p, err := Build(AllReduce, Ring, n, 8<<20, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := p.CriticalPath(func(m int) float64 {
		if p.Messages[m].Src == n-1 { // the link n-1 -> 0
			return L
		}
		return 0
	})
	if got != 2*L {
		t.Fatalf("critical path %v, want %v (two crossings of the slow link)", got, 2*L)
	}
}

// TestBusFactor is nccl-tests' table (doc/PERFORMANCE.md).
func TestBusFactor(t *testing.T) {
	for _, c := range []struct {
		op   string
		n    int
		want float64
	}{{AllReduce, 8, 14.0 / 8}, {AllGather, 8, 7.0 / 8}, {ReduceScatter, 4, 3.0 / 4}, {AllToAll, 16, 15.0 / 16}, {Broadcast, 8, 1}} {
		if got := BusFactor(c.op, c.n); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("BusFactor(%s, %d) = %v, want %v", c.op, c.n, got, c.want)
		}
	}
}

// TestCheckRefuses names what is wrong.
func TestCheckRefuses(t *testing.T) {
	for _, c := range []struct {
		op, alg string
		n       int
		size    int64
		want    string
	}{
		{AllReduce, HalvingDoubling, 6, 600, "power of two"},
		{AllToAll, Ring, 4, 400, "has no algorithm"},
		{AllReduce, Ring, 1, 400, "at least 2 ranks"},
		{AllReduce, Ring, 8, 5, "cannot be cut"},
		{"gather", Ring, 4, 400, "unknown op"},
	} {
		err := Check(c.op, c.alg, c.n, c.size, 0)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check(%s, %s, %d, %d) = %v, want %q", c.op, c.alg, c.n, c.size, err, c.want)
		}
	}
}

// TestPairsAreThePlansPairs: Pairs counts exactly the ordered (sender, receiver) pairs of
// the messages Build makes, for every op and algorithm over 2 to 17 ranks; the closed forms
// hold where the algorithm has one (ring n, chain n-1, direct n(n-1), halving-doubling
// n log2 n).
func TestPairsAreThePlansPairs(t *testing.T) {
	for _, op := range Ops {
		for _, alg := range Algorithms[op] {
			for n := 2; n <= 17; n++ {
				p, err := Build(op, alg, n, 1<<20, 128<<10)
				if err != nil {
					continue // halving-doubling wants a power of two
				}
				seen := map[[2]int]bool{}
				for _, m := range p.Messages {
					seen[[2]int{m.Src, m.Dst}] = true
				}
				if got := Pairs(op, alg, n); got != int64(len(seen)) {
					t.Errorf("%s %s over %d ranks: Pairs %d, the plan has %d", op, alg, n, got, len(seen))
				}
			}
		}
	}
}

// checkResult checks the final masks hold of plan p (play) against nccl's outcome:
// allreduce, allgather and broadcast leave every rank every piece complete; reduce_scatter
// one complete piece per rank, each a different one; all_to_all every rank its piece from
// each other rank. name says which plan in a failure.
func checkResult(t *testing.T, p *Plan, hold [][]uint64, name string) {
	t.Helper()
	n, op := p.Ranks, p.Op
	full := uint64(1)<<n - 1
	owned := map[int]bool{}
	for r := range hold {
		complete := 0
		for j, h := range hold[r] {
			if h == full {
				complete++
				if op == ReduceScatter {
					owned[j] = true
				}
			}
			if op == AllToAll && h != full && j == r {
				t.Fatalf("%s: rank %d got piece %d from %b only", name, r, j, h)
			}
		}
		switch op {
		case AllReduce, AllGather, Broadcast:
			if complete != len(hold[r]) {
				t.Fatalf("%s: rank %d ends with %d of %d pieces complete", name, r, complete, len(hold[r]))
			}
		case ReduceScatter:
			if complete != 1 {
				t.Fatalf("%s: rank %d ends with %d pieces complete, want 1", name, r, complete)
			}
		}
	}
	if op == ReduceScatter && len(owned) != n {
		t.Fatalf("%s: the ranks own %d distinct pieces, want %d", name, len(owned), n)
	}
}
