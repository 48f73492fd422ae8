package collective

// Link is a link class's cost: PerByte, the time a payload byte takes on it (the transport's
// wire bytes per payload byte w over the link's rate), and Alpha, a message's latency on it.
type Link struct{ PerByte, Alpha float64 }

// HierarchicalIdeal is the closed form of op by algorithm hierarchical over D scale-up
// domains of L ranks, Size bytes a rank, each phase's steps at its link's cost (scale-up su
// inside a domain, rail across domains) with a rank's one message of a step alone on its
// link (docs/model.md, "Collectives on AI clusters"):
//   - allreduce: 2 (L-1) (S/L su.PerByte + su.Alpha) + 2 (D-1) (S/(L D) rail.PerByte + rail.Alpha);
//   - reduce_scatter and allgather: half of each.
//
// Pieces are taken as S/(L D) bytes exactly (Size a multiple of L x D).
func HierarchicalIdeal(op string, size int64, L, D int, su, rail Link) float64 {
	S := float64(size)
	inside := float64(L-1) * (S/float64(L)*su.PerByte + su.Alpha)
	across := float64(D-1) * (S/float64(L*D)*rail.PerByte + rail.Alpha)
	if op == AllReduce {
		return 2*inside + 2*across
	}
	return inside + across
}
