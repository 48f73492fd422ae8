package chakra_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/fabricsim/fabricsim/chakra"
	"github.com/fabricsim/fabricsim/chakra/chakratest"
)

func sequence(t *testing.T, nodes ...chakra.Node) ([]chakra.Collective, error) {
	t.Helper()
	tr, err := chakra.Decode("s.et", chakratest.Trace("1", nodes...))
	if err != nil {
		t.Fatal(err)
	}
	return tr.Sequence()
}

// ctrlAfter makes n depend on dep by a control dependency.
func ctrlAfter(n chakra.Node, dep uint64) chakra.Node {
	n.CtrlDeps = append(n.CtrlDeps, dep)
	return n
}

// TestSequenceWaits: compute 10 us, allreduce, compute 20 us, allgather (after the compute by
// a control dependency, which counts as a data one does) gives two collectives
// waiting 10 us after the start and 20 us after the first; branches take the longest chain,
// a metadata node takes no time, and a collective that does not wait for the one before it
// keeps both waits (after the start, and none after the first).
func TestSequenceWaits(t *testing.T) {
	seq, err := sequence(t,
		chakratest.Comp(1, 10),
		chakratest.Coll(2, chakra.AllReduce, 4_000_000, 1),
		chakratest.Comp(3, 20, 2),
		ctrlAfter(chakratest.Coll(4, chakra.AllGather, 1_000_000), 3))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]chakra.Wait{{{After: -1, Micros: 10}}, {{After: 0, Micros: 20}}}
	if len(seq) != 2 || seq[0].CommType != chakra.AllReduce || seq[0].CommSize != 4_000_000 ||
		seq[1].CommType != chakra.AllGather || seq[1].CommSize != 1_000_000 {
		t.Fatalf("got %+v", seq)
	}
	for k := range seq {
		if !reflect.DeepEqual(seq[k].Waits, want[k]) {
			t.Errorf("collective %d waits %+v, want %+v", k, seq[k].Waits, want[k])
		}
	}
	// Two branches of 5 + 7 and 30 us before the first collective; the second collective
	// waits for a 100 us chain from the start and for 1 us after the first.
	seq, err = sequence(t,
		chakratest.Comp(1, 5), chakratest.Comp(2, 7, 1), chakratest.Comp(3, 30),
		chakra.Node{ID: 4, Type: chakra.MetadataNode, DurationMicros: 1000, DataDeps: []uint64{2}},
		chakratest.Coll(5, chakra.AllReduce, 64, 4, 3),
		chakratest.Comp(6, 100), chakratest.Comp(7, 1, 5),
		chakratest.Coll(8, chakra.AllToAll, 64, 6, 7),
		chakratest.Coll(9, chakra.Broadcast, 64))
	if err != nil {
		t.Fatal(err)
	}
	// Node 9 is ready from the start, but the smallest id ready goes first: 5 (once 1-4
	// are done), then 8 (once 6 and 7 are), then 9.
	want = [][]chakra.Wait{{{After: -1, Micros: 30}}, {{After: -1, Micros: 100}, {After: 0, Micros: 1}}, {{After: -1, Micros: 0}}}
	got := [][]chakra.Wait{}
	for _, c := range seq {
		got = append(got, c.Waits)
	}
	if !reflect.DeepEqual(got, want) || seq[0].Node.ID != 5 || seq[1].Node.ID != 8 || seq[2].Node.ID != 9 {
		t.Errorf("waits %+v (order %d %d %d), want %+v in the order 5 8 9", got, seq[0].Node.ID, seq[1].Node.ID, seq[2].Node.ID, want)
	}
}

// TestSequenceErrors: what Sequence refuses, each with the node and its byte.
func TestSequenceErrors(t *testing.T) {
	send := chakra.Node{ID: 2, Name: "send", Type: chakra.CommSendNode}
	noType := chakratest.Coll(2, chakra.AllReduce, 10)
	noType.Attrs = noType.Attrs[1:]
	float := chakratest.Coll(2, chakra.AllReduce, 10)
	float.Attrs[1] = chakra.Attr{Name: "comm_size", Kind: chakra.Double, Value: chakra.Value{F: 10}}
	for _, c := range []struct {
		name  string
		nodes []chakra.Node
		msg   string
	}{
		{"send", []chakra.Node{chakratest.Comp(1, 1), send}, `node 2 ("send") is a COMM_SEND_NODE: point-to-point`},
		{"memory", []chakra.Node{chakratest.Comp(1, 1), {ID: 2, Type: chakra.MemLoadNode}}, "is a MEM_LOAD_NODE: remote memory is not modelled"},
		{"unknown type", []chakra.Node{chakratest.Comp(1, 1), {ID: 2, Type: 12}}, "has type 12"},
		{"missing dep", []chakra.Node{chakratest.Comp(1, 1), chakratest.Comp(2, 1, 7)}, "depends on node 7, which the trace does not hold"},
		{"cycle", []chakra.Node{chakratest.Comp(1, 1, 2), chakratest.Comp(2, 1, 1)}, "dependency cycle"},
		{"no comm_type", []chakra.Node{chakratest.Comp(1, 1), noType}, "without the attribute comm_type"},
		{"float size", []chakra.Node{chakratest.Comp(1, 1), float}, `"comm_size" is a double, not an integer`},
	} {
		_, err := sequence(t, c.nodes...)
		var e *chakra.Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), c.msg) || !strings.HasPrefix(err.Error(), "s.et: byte ") {
			t.Errorf("%s: got %v, want s.et: byte N: ... %s", c.name, err, c.msg)
		}
	}
}
