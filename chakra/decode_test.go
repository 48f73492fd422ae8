package chakra_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/fabricsim/fabricsim/chakra"
	"github.com/fabricsim/fabricsim/chakra/chakratest"
	"google.golang.org/protobuf/encoding/protowire"
)

// every attribute kind, scalar and list, with values at the edges of their types.
func allKinds() []chakra.Attr {
	v := func(k chakra.Kind, x chakra.Value) chakra.Attr {
		return chakra.Attr{Name: k.String(), Doc: "doc " + k.String(), Kind: k, Value: x}
	}
	l := func(k chakra.Kind, xs ...chakra.Value) chakra.Attr {
		return chakra.Attr{Name: k.String() + "_list", Kind: k, IsList: true, List: xs}
	}
	I := func(i int64) chakra.Value { return chakra.Value{I: i} }
	U := func(u uint64) chakra.Value { return chakra.Value{U: u} }
	F := func(f float64) chakra.Value { return chakra.Value{F: f} }
	S := func(s string) chakra.Value { return chakra.Value{S: s} }
	return []chakra.Attr{
		v(chakra.Double, F(1.2345)), l(chakra.Double, F(-2.5), F(math.MaxFloat64)),
		v(chakra.Float, F(0.5)), l(chakra.Float, F(1.5), F(-3)),
		v(chakra.Int32, I(math.MinInt32)), l(chakra.Int32, I(-1), I(math.MaxInt32)),
		v(chakra.Int64, I(math.MinInt64)), l(chakra.Int64, I(9876543210), I(-1)),
		v(chakra.Uint32, U(math.MaxUint32)), l(chakra.Uint32, U(0), U(7)),
		v(chakra.Uint64, U(math.MaxUint64)), l(chakra.Uint64, U(1<<63), U(3)),
		v(chakra.Sint32, I(-12345)), l(chakra.Sint32, I(math.MinInt32), I(math.MaxInt32)),
		v(chakra.Sint64, I(-9876543210)), l(chakra.Sint64, I(math.MinInt64), I(1)),
		v(chakra.Fixed32, U(12345)), l(chakra.Fixed32, U(math.MaxUint32)),
		v(chakra.Fixed64, U(9876543210)), l(chakra.Fixed64, U(math.MaxUint64), U(0)),
		v(chakra.Sfixed32, I(-12345)), l(chakra.Sfixed32, I(math.MinInt32)),
		v(chakra.Sfixed64, I(-9876543210)), l(chakra.Sfixed64, I(math.MinInt64)),
		v(chakra.Bool, I(1)), l(chakra.Bool, I(1), I(0), I(1)),
		v(chakra.String, S("12345")), l(chakra.String, S("a"), S(""), S("ünï")),
		v(chakra.Bytes, S("\x00\xff")), l(chakra.Bytes, S("x")),
	}
}

// TestDecodeFields writes a node with every field and every attribute kind and reads each
// back; it fails on any field or value decoded wrong (a wrong zigzag, sign extension, byte
// order, packing, or field number).
func TestDecodeFields(t *testing.T) {
	want := chakra.Node{ID: 1 << 40, Name: "node", Type: chakra.CommCollNode, CtrlDeps: []uint64{3, 1 << 50},
		DataDeps: []uint64{2}, StartMicros: 77, DurationMicros: 1 << 33, Attrs: allKinds()}
	data := chakratest.Trace("0.0.4", chakra.Node{ID: 2, Type: chakra.CompNode}, chakra.Node{ID: 3}, want)
	tr, err := chakra.Decode("t.et", data)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Version != "0.0.4" || len(tr.Nodes) != 3 {
		t.Fatalf("version %q, %d nodes; want 0.0.4 and 3", tr.Version, len(tr.Nodes))
	}
	got := tr.Nodes[2]
	// The third message starts after the first two frames.
	wantOff := int64(len(chakratest.Frame(chakratest.Metadata("0.0.4"))) + len(chakratest.Frame(chakratest.Node(&chakra.Node{ID: 2, Type: chakra.CompNode}))) + len(chakratest.Frame(chakratest.Node(&chakra.Node{ID: 3}))))
	if got.Offset != wantOff {
		t.Errorf("offset %d, want %d", got.Offset, wantOff)
	}
	got.Offset = 0
	if !reflect.DeepEqual(got, want) {
		for i := range want.Attrs {
			if i < len(got.Attrs) && !reflect.DeepEqual(got.Attrs[i], want.Attrs[i]) {
				t.Errorf("attr %d: got %+v, want %+v", i, got.Attrs[i], want.Attrs[i])
			}
		}
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if tr.Nodes[1].Type != chakra.InvalidNode || tr.Nodes[0].Type != chakra.CompNode {
		t.Errorf("types %v %v", tr.Nodes[0].Type, tr.Nodes[1].Type)
	}
}

// TestDecodeUnpackedAndUnknown reads repeated numbers written one field each (legal in
// proto3, and what proto2 writers emit) and skips fields the schema does not have (the
// IOInfo inputs, a future field 99 of every wire type).
func TestDecodeUnpackedAndUnknown(t *testing.T) {
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, 9)
	for _, d := range []uint64{5, 6} {
		b = protowire.AppendTag(b, 5, protowire.VarintType)
		b = protowire.AppendVarint(b, d)
	}
	b = protowire.AppendTag(b, 8, protowire.BytesType)
	b = protowire.AppendString(b, "\x0a\x03abc")
	b = protowire.AppendTag(b, 99, protowire.Fixed32Type)
	b = protowire.AppendFixed32(b, 1)
	b = protowire.AppendTag(b, 99, protowire.Fixed64Type)
	b = protowire.AppendFixed64(b, 1)
	b = protowire.AppendTag(b, 99, protowire.StartGroupType)
	b = protowire.AppendTag(b, 99, protowire.EndGroupType)
	var list []byte // an int64 list unpacked
	for _, x := range []int64{-4, 4} {
		list = protowire.AppendTag(list, 1, protowire.VarintType)
		list = protowire.AppendVarint(list, uint64(x))
	}
	var attr []byte
	attr = protowire.AppendTag(attr, 1, protowire.BytesType)
	attr = protowire.AppendString(attr, "l")
	attr = protowire.AppendTag(attr, 10, protowire.BytesType)
	attr = protowire.AppendBytes(attr, list)
	b = protowire.AppendTag(b, 10, protowire.BytesType)
	b = protowire.AppendBytes(b, attr)
	tr, err := chakra.Decode("u.et", append(chakratest.Frame(nil), chakratest.Frame(b)...))
	if err != nil {
		t.Fatal(err)
	}
	n := tr.Nodes[0]
	if n.ID != 9 || !reflect.DeepEqual(n.DataDeps, []uint64{5, 6}) || len(n.Attrs) != 1 ||
		!reflect.DeepEqual(n.Attrs[0].List, []chakra.Value{{I: -4}, {I: 4}}) {
		t.Errorf("got %+v", n)
	}
}

// TestDecodeErrors: each malformed trace is an *Error naming the file and the byte where the
// problem is, computed here from the bytes written.
func TestDecodeErrors(t *testing.T) {
	meta := chakratest.Frame(chakratest.Metadata("1"))
	node := chakratest.Frame(chakratest.Node(&chakra.Node{ID: 1, Name: "n", Type: chakra.CompNode, DurationMicros: 10}))
	badWire := protowire.AppendTag(nil, 7, protowire.BytesType) // duration as bytes
	badWire = protowire.AppendString(badWire, "x")
	badAttr := chakratest.Attr(&chakra.Attr{Name: "a"})
	badAttr = protowire.AppendTag(badAttr, 9, protowire.Fixed64Type) // int64_val as fixed64
	badAttr = protowire.AppendFixed64(badAttr, 1)
	attrNode := protowire.AppendBytes(protowire.AppendTag(nil, 10, protowire.BytesType), badAttr)
	for _, c := range []struct {
		name string
		data []byte
		off  int
		msg  string
	}{
		{"empty", nil, 0, "the file is empty"},
		{"truncated body", append(slices(meta), node[:len(node)-1]...), len(meta), "is announced but"},
		{"truncated length", append(slices(meta), 0x80), len(meta), "not a valid varint"},
		{"wrong wire type", append(slices(meta), chakratest.Frame(badWire)...), len(meta) + 1, "duration_micros (field 7) has wire type 2"},
		{"attr wire type", append(slices(meta), chakratest.Frame(attrNode)...), len(meta) + 1 + 2 + 3, "int64_val (field 9) has wire type 1"},
		{"bad tag", append(slices(meta), 1, 0), len(meta) + 1, "bad field tag"},
		{"duplicate id", append(append(slices(meta), node...), node...), len(meta) + len(node),
			fmt.Sprintf("node 1 (from 0) has id 1, as node 0 at byte %d has", len(meta))},
		{"empty node", append(append(slices(meta), node...), 0, 0), len(meta) + len(node),
			"node 1 (from 0) is an empty message: no id, type, name or any other field"},
		{"huge message", append(slices(meta), protowire.AppendVarint(nil, chakra.MaxMessage+1)...), len(meta),
			fmt.Sprintf("a message of %d bytes is announced; at most %d", chakra.MaxMessage+1, chakra.MaxMessage)},
	} {
		_, err := chakra.Decode("x/rank.0.et", c.data)
		var e *chakra.Error
		if !errors.As(err, &e) {
			t.Errorf("%s: error %v is no *chakra.Error", c.name, err)
			continue
		}
		if e.File != "x/rank.0.et" || e.Offset != int64(c.off) || !strings.Contains(e.Msg, c.msg) {
			t.Errorf("%s: got %v; want x/rank.0.et at byte %d saying %q", c.name, err, c.off, c.msg)
		}
		if !strings.HasPrefix(err.Error(), "x/rank.0.et: byte ") {
			t.Errorf("%s: message %q does not start with the file and byte", c.name, err)
		}
	}
}

func slices(b []byte) []byte { return append([]byte(nil), b...) }

// TestGzip reads a gzip trace as protoio.cc does (by its magic bytes); errors then count
// bytes in the decompressed stream and say so.
func TestGzip(t *testing.T) {
	raw := chakratest.Trace("1", chakratest.Comp(1, 5))
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(raw[:len(raw)-1])
	w.Close()
	_, err := chakra.Decode("g.et.gz", z.Bytes())
	if want := fmt.Sprintf("g.et.gz: decompressed byte %d: ", len(chakratest.Frame(chakratest.Metadata("1")))); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("truncated gzip trace: %v", err)
	}
	if _, err := chakra.Decode("h.et", []byte{0x1f, 0x8b, 0}); err == nil || !strings.Contains(err.Error(), "not gzip") {
		t.Errorf("bad gzip: %v", err)
	}
}

// TestASTRASimSample decodes ASTRA-sim's 4-NPU all-reduce microbenchmark (testdata/README.md
// says where it came from): version 0.0.4, one COMM_COLL_NODE per rank with comm_type 0
// (ALL_REDUCE) and comm_size 1 MiB, as its directory's name 4npus_1MB says.
func TestASTRASimSample(t *testing.T) {
	for r := range 4 {
		name := "testdata/all_reduce." + string(rune('0'+r)) + ".et"
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := chakra.Decode(name, data)
		if err != nil {
			t.Fatal(err)
		}
		seq, err := tr.Sequence()
		if err != nil {
			t.Fatal(err)
		}
		if tr.Version != "0.0.4" || len(seq) != 1 || seq[0].CommType != chakra.AllReduce || seq[0].CommSize != 1<<20 ||
			!reflect.DeepEqual(seq[0].Waits, []chakra.Wait{{After: -1}}) || seq[0].Node.Name != "all_reduce_4npus_1MB" {
			t.Errorf("%s: version %q, %+v", name, tr.Version, seq)
		}
	}
}

// TestChakraSample decodes Chakra's feeder test trace (a PyTorch run's, gzip here) and checks
// what Chakra's own feeder test asserts of it (tests/feeder/tests.cpp lines 20-56): node 216
// is a COMP_NODE with is_cpu_op true and rf_id 2, node 432 a COMM_COLL_NODE with rf_id 110,
// and nodes 217, 430 and 435 depend on 216. Node 216 has a control dependency on node 3,
// which the file lacks, so Sequence refuses the trace naming both, as ASTRA-sim's feeder
// does ("file might be corrupted": astra-sim/chakra branch feederv3,
// src/feeder_v3/et_feeder.cpp lines 95-117).
func TestChakraSample(t *testing.T) {
	data, err := os.ReadFile("testdata/chakra.0.et.gz")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := chakra.Decode("chakra.0.et.gz", data)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[uint64]*chakra.Node{}
	for i := range tr.Nodes {
		byID[tr.Nodes[i].ID] = &tr.Nodes[i]
	}
	intAttr := func(n *chakra.Node, name string) int64 {
		a := n.Attr(name)
		if a == nil {
			t.Fatalf("node %d has no %s", n.ID, name)
		}
		v, err := a.Int()
		if err != nil {
			if a.Kind == chakra.Bool {
				return a.Value.I
			}
			t.Fatal(err)
		}
		return v
	}
	n216, n432 := byID[216], byID[432]
	if n216 == nil || n432 == nil {
		t.Fatal("nodes 216 and 432 missing")
	}
	if n216.Type != chakra.CompNode || intAttr(n216, "is_cpu_op") != 1 || intAttr(n216, "rf_id") != 2 {
		t.Errorf("node 216: %+v", n216)
	}
	if n432.Type != chakra.CommCollNode || intAttr(n432, "rf_id") != 110 {
		t.Errorf("node 432: %+v", n432)
	}
	for _, c := range []uint64{217, 430, 435} {
		if n := byID[c]; n == nil || !contains(n.DataDeps, 216) {
			t.Errorf("node %d does not depend on 216", c)
		}
	}
	_, err = tr.Sequence()
	if err == nil || !strings.Contains(err.Error(), "node 216") || !strings.Contains(err.Error(), "depends on node 3,") {
		t.Errorf("Sequence: %v", err)
	}
}

func contains(xs []uint64, x uint64) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// FuzzDecode: no input makes Decode or Sequence panic or hang; an error is always an *Error.
func FuzzDecode(f *testing.F) {
	f.Add(chakratest.Trace("1", chakratest.Comp(1, 10), chakratest.Coll(2, chakra.AllReduce, 4<<20, 1)))
	f.Add(chakratest.Trace("1", chakra.Node{ID: 1, Attrs: allKinds()}))
	for r := range 4 {
		if b, err := os.ReadFile("testdata/all_reduce." + string(rune('0'+r)) + ".et"); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := chakra.Decode("f.et", data)
		var e *chakra.Error
		if err != nil {
			if !errors.As(err, &e) {
				t.Fatalf("error %v is no *chakra.Error", err)
			}
			return
		}
		if _, err := tr.Sequence(); err != nil && !errors.As(err, &e) {
			t.Fatalf("Sequence error %v is no *chakra.Error", err)
		}
	})
}

// TestDecodeBoundsTheNodes: a trace of more than MaxNodes nodes (each an id alone, distinct)
// is refused at the node past the bound, naming its byte, which is computed here.
func TestDecodeBoundsTheNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: full suite (./test.sh --full)")
	}
	data := chakratest.Frame(chakratest.Metadata("1"))
	var at int
	for i := 1; i <= chakra.MaxNodes+1; i++ {
		at = len(data)
		b := protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), uint64(i))
		data = append(data, chakratest.Frame(b)...)
	}
	_, err := chakra.Decode("n.et", data)
	want := fmt.Sprintf("n.et: byte %d: more than %d nodes", at, chakra.MaxNodes)
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want %s", err, want)
	}
	if _, err := chakra.Decode("n.et", data[:at]); err != nil {
		t.Errorf("MaxNodes nodes: %v", err)
	}
}
