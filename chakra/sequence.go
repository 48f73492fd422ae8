package chakra

import (
	"container/heap"
	"fmt"
	"math"
	"slices"
	"strings"
)

// CommType is et_def.proto's CollectiveCommType (lines 119-130).
type CommType int64

// The collective types.
const (
	AllReduce          CommType = 0
	Reduce             CommType = 1
	AllGather          CommType = 2
	Gather             CommType = 3
	Scatter            CommType = 4
	Broadcast          CommType = 5
	AllToAll           CommType = 6
	ReduceScatter      CommType = 7
	ReduceScatterBlock CommType = 8
	Barrier            CommType = 9
	commTypeNames               = "ALL_REDUCE REDUCE ALL_GATHER GATHER SCATTER BROADCAST ALL_TO_ALL REDUCE_SCATTER REDUCE_SCATTER_BLOCK BARRIER"
)

// String is the type's name in et_def.proto, or its number when the schema has none.
func (c CommType) String() string {
	if c < 0 || c > Barrier {
		return fmt.Sprintf("CollectiveCommType(%d)", int64(c))
	}
	return strings.Fields(commTypeNames)[c]
}

// Wait is one thing a collective waits for on its rank: Micros of compute after collective
// After of the sequence has ended (-1: after the trace's start).
type Wait struct {
	After  int
	Micros uint64
}

// Collective is one COMM_COLL_NODE of a rank's trace, in the rank's sequence: the node, its
// comm_type, comm_size (bytes), pg_name, and what it waits for: for each earlier collective
// of the sequence it depends on (through any chain of nodes), the longest chain of compute
// durations from that collective's end (or the trace's start) to it, keeping only the
// waits no other one makes redundant (one after a later collective with at least as much
// compute).
type Collective struct {
	Node     *Node
	CommType CommType
	CommSize int64
	PG       string
	Waits    []Wait
}

// Sequence returns the trace's collectives in dependency order: the nodes taken in a
// topological order of their data and control dependencies (ASTRA-sim resolves both:
// astra-sim/chakra branch feederv3, src/feeder_v3/common.h lines 22-23, and
// dependancy_solver.cpp lines 140-160), among the nodes whose dependencies are met the
// smallest id first (src/feeder/et_feeder.h lines 13-22 of mlcommons/chakra: the feeder's
// queue pops the smallest id). COMP_NODEs take their duration_micros; METADATA_NODEs and
// INVALID_NODEs take no time (ASTRA-sim skips them: astra-sim/workload/Workload.cc lines
// 192-211 at commit 518bd513ae110428cd62eb60efc0f3993fd53c70). A node of any other type
// (point-to-point send and receive, remote memory) is an error naming it, as is a
// dependency on a node the trace lacks, a cycle, and a collective without comm_type or
// comm_size.
func (t *Trace) Sequence() ([]Collective, error) {
	index := make(map[uint64]int, len(t.Nodes))
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if j, dup := index[n.ID]; dup {
			return nil, t.nodeErr(n, "has the id of the node at byte %d too", t.Nodes[j].Offset)
		}
		index[n.ID] = i
	}
	pending := make([]int, len(t.Nodes))
	children := make([][]int32, len(t.Nodes))
	for i := range t.Nodes {
		n := &t.Nodes[i]
		for _, deps := range [][]uint64{n.DataDeps, n.CtrlDeps} {
			for _, d := range deps {
				j, ok := index[d]
				if !ok {
					return nil, t.nodeErr(n, "depends on node %d, which the trace does not hold", d)
				}
				// Nodes are visited in order, so a repeated dependency is the last child.
				if c := children[j]; len(c) == 0 || c[len(c)-1] != int32(i) {
					children[j] = append(children[j], int32(i))
					pending[i]++
				}
			}
		}
		if err := t.runnable(n); err != nil {
			return nil, err
		}
	}
	ready := &idHeap{nodes: t.Nodes}
	for i := range t.Nodes {
		if pending[i] == 0 {
			ready.push(i)
		}
	}
	// waits[i]: what node i's end waits for, as the frontier of (collective, compute) pairs.
	waits := make([][]Wait, len(t.Nodes))
	var out []Collective
	done := 0
	for ready.Len() > 0 {
		i := heap.Pop(ready).(int)
		done++
		n := &t.Nodes[i]
		w := waits[i]
		if len(w) == 0 {
			w = []Wait{{After: -1}}
		}
		switch n.Type {
		case CompNode:
			w = slices.Clone(w)
			for k := range w {
				w[k].Micros = addSaturating(w[k].Micros, n.DurationMicros)
			}
		case CommCollNode:
			c, err := t.collective(n, w)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
			w = []Wait{{After: len(out) - 1}}
		}
		for _, ch := range children[i] {
			waits[ch] = merge(waits[ch], w)
			if pending[ch]--; pending[ch] == 0 {
				ready.push(int(ch))
			}
		}
	}
	if done < len(t.Nodes) {
		for i := range t.Nodes {
			if pending[i] > 0 {
				return nil, t.nodeErr(&t.Nodes[i], "is on a dependency cycle, or after one: its dependencies never complete")
			}
		}
	}
	return out, nil
}

// runnable reports a node whose type Sequence cannot turn into collectives and compute.
func (t *Trace) runnable(n *Node) error {
	switch n.Type {
	case CompNode, CommCollNode, MetadataNode, InvalidNode:
		return nil
	case CommSendNode, CommRecvNode:
		return t.nodeErr(n, "is a %s: point-to-point sends and receives are not modelled, only collectives (COMM_COLL_NODE)", n.Type)
	case MemLoadNode, MemStoreNode:
		return t.nodeErr(n, "is a %s: remote memory is not modelled, only collectives (COMM_COLL_NODE) and compute (COMP_NODE)", n.Type)
	}
	return t.nodeErr(n, "has type %d, which et_def.proto does not define (0 to 7)", int32(n.Type))
}

// collective reads collective node n's attributes (ASTRA-sim reads the same names:
// astra-sim/workload/Workload.cc lines 304-345; Chakra's feeder, src/feeder/et_feeder_node.cpp
// lines 35-49).
func (t *Trace) collective(n *Node, w []Wait) (Collective, error) {
	c := Collective{Node: n, Waits: w}
	for _, name := range []string{"comm_type", "comm_size"} {
		a := n.Attr(name)
		if a == nil {
			return c, t.nodeErr(n, "is a COMM_COLL_NODE without the attribute %s", name)
		}
		v, err := a.Int()
		if err != nil {
			return c, t.nodeErr(n, "%v", err)
		}
		if name == "comm_type" {
			c.CommType = CommType(v)
		} else if c.CommSize = v; v < 0 {
			return c, t.nodeErr(n, "has comm_size %d bytes; it cannot be negative", v)
		}
	}
	if a := n.Attr("pg_name"); a != nil {
		if a.Kind != String || a.IsList {
			return c, t.nodeErr(n, "has pg_name of type %s; it is a string", a.Kind)
		}
		c.PG = a.Value.S
	}
	return c, nil
}

// merge adds the waits of b to a, keeping the frontier: a wait after collective k with c
// microseconds makes redundant any after a collective j <= k with at most c.
func merge(a, b []Wait) []Wait {
	out := slices.Clone(a)
	for _, w := range b {
		if slices.ContainsFunc(out, func(o Wait) bool { return o.After >= w.After && o.Micros >= w.Micros }) {
			continue
		}
		out = slices.DeleteFunc(out, func(o Wait) bool { return o.After <= w.After && o.Micros <= w.Micros })
		out = append(out, w)
	}
	slices.SortFunc(out, func(x, y Wait) int { return x.After - y.After })
	return out
}

func (t *Trace) nodeErr(n *Node, format string, args ...any) error {
	return &Error{File: t.File, Offset: n.Offset, Compressed: t.Compressed, Msg: fmt.Sprintf("node %d (%q) ", n.ID, n.Name) + fmt.Sprintf(format, args...)}
}

// idHeap holds node indices, the smallest node id first.
type idHeap struct {
	nodes []Node
	items []int
}

func (h *idHeap) Len() int           { return len(h.items) }
func (h *idHeap) Less(a, b int) bool { return h.nodes[h.items[a]].ID < h.nodes[h.items[b]].ID }
func (h *idHeap) Swap(a, b int)      { h.items[a], h.items[b] = h.items[b], h.items[a] }
func (h *idHeap) Push(x any)         { h.items = append(h.items, x.(int)) }
func (h *idHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}
func (h *idHeap) push(i int) { heap.Push(h, i) }

// addSaturating is a + b, or the largest uint64 when that overflows: a chain of compute
// nodes whose durations sum past it waits "forever", which the scenario refuses, instead of
// wrapping to a short wait.
func addSaturating(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}
