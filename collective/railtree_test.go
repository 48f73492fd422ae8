package collective

import (
	"fmt"
	"reflect"
	"testing"
)

// TestRailTreesByHand checks channel 0's trees on 4 servers of 2 GPUs against NCCL's rules
// worked by hand: chains [0 1] [2 3] [4 5] [6 7]; tree 0 is ncclGetBtree over the nodes (node
// 0 the root with child node 2; node 2's children node 1, its first, attached to node 2's
// second GPU 5, and node 3, its second, attached to its first GPU 4); tree 1 the mirror (node 3
// the root, child node 1 attached to 6; node 1's children node 2, first, at 3, node 0 at 2).
func TestRailTreesByHand(t *testing.T) {
	tr := railLayout(4, 2, 1, true).RailTrees(0)
	want := [2][]int{
		{-1, 0, 5, 2, 0, 4, 4, 6},
		{2, 0, 6, 2, 3, 4, -1, 6},
	}
	roots := [2]int{0, 6}
	for k := range tr {
		if !reflect.DeepEqual(tr[k].Parent, want[k]) || tr[k].Root != roots[k] {
			t.Errorf("tree %d: parents %v root %d, want %v root %d", k, tr[k].Parent, tr[k].Root, want[k], roots[k])
		}
	}
}

// TestRailTreeAllreduce plays NCCL's rail tree allreduce on 2 to 5 servers of 1 to 4 GPUs over
// 1 and 3 channels to nccl's result (every rank every piece, each contribution once), and
// checks on 4 servers of 2 GPUs, one channel, the spine bytes: none with PXN; without it, the
// links from a first child node's head (rail 1) to its parent's second GPU (rail 2), one per
// tree (nodes 1 and 2 above), each carrying its tree's half up and down: 2 S.
func TestRailTreeAllreduce(t *testing.T) {
	for servers := 2; servers <= 5; servers++ {
		for gpus := 1; gpus <= 4; gpus++ {
			for _, C := range []int{1, 3} {
				l := railLayout(servers, gpus, 1, true)
				p, err := BuildOn(AllReduce, Tree, l, int64(3000*servers*gpus+5), Options{Chunk: 700, Channels: C})
				if err != nil {
					t.Fatal(err)
				}
				checkResult(t, p, play(t, p), fmt.Sprintf("%dx%d C=%d", servers, gpus, C))
			}
		}
	}
	const S = 1 << 20
	for _, pxn := range []bool{true, false} {
		l := railLayout(4, 2, 1, pxn)
		p, err := BuildOn(AllReduce, Tree, l, S, Options{Chunk: DefaultChunk, Channels: 1})
		if err != nil {
			t.Fatal(err)
		}
		var spine int64
		for _, m := range p.Messages {
			if _, _, crosses := leaves(l, m); crosses {
				spine += m.Bytes
			}
		}
		want := int64(0)
		if !pxn {
			want = 2 * S
		}
		if spine != want {
			t.Errorf("pxn=%v: %d bytes on spines, want %d", pxn, spine, want)
		}
	}
}
