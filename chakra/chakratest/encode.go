// Package chakratest writes Chakra execution traces for tests: the inverse of package
// chakra's decoder, with the same wire-format primitives (protowire) and the field numbers
// of et_def.proto (mlcommons/chakra commit 21585d8f2d65603d791d2121e3d4632351120262,
// schema/protobuf/et_def.proto lines 5-148), each message preceded by its length as a
// varint (src/third_party/utils/protoio.cc lines 75-91).
package chakratest

import (
	"math"

	"github.com/fabricsim/fabricsim/chakra"
	"google.golang.org/protobuf/encoding/protowire"
)

// Trace is a whole trace file: GlobalMetadata with version, then the nodes.
func Trace(version string, nodes ...chakra.Node) []byte {
	out := Frame(Metadata(version))
	for i := range nodes {
		out = append(out, Frame(Node(&nodes[i]))...)
	}
	return out
}

// Frame is msg preceded by its length.
func Frame(msg []byte) []byte {
	return append(protowire.AppendVarint(nil, uint64(len(msg))), msg...)
}

// Metadata is a GlobalMetadata message (fields 1 and 2).
func Metadata(version string, attrs ...chakra.Attr) []byte {
	var b []byte
	if version != "" {
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, version)
	}
	for i := range attrs {
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendBytes(b, Attr(&attrs[i]))
	}
	return b
}

// Node is a Node message; proto3 leaves zero scalars out, and the dependencies are packed.
func Node(n *chakra.Node) []byte {
	var b []byte
	varint := func(num protowire.Number, v uint64) {
		if v != 0 {
			b = protowire.AppendTag(b, num, protowire.VarintType)
			b = protowire.AppendVarint(b, v)
		}
	}
	packed := func(num protowire.Number, vs []uint64) {
		if len(vs) == 0 {
			return
		}
		var p []byte
		for _, v := range vs {
			p = protowire.AppendVarint(p, v)
		}
		b = protowire.AppendTag(b, num, protowire.BytesType)
		b = protowire.AppendBytes(b, p)
	}
	varint(1, n.ID)
	if n.Name != "" {
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendString(b, n.Name)
	}
	varint(3, uint64(n.Type))
	packed(4, n.CtrlDeps)
	packed(5, n.DataDeps)
	varint(6, n.StartMicros)
	varint(7, n.DurationMicros)
	for i := range n.Attrs {
		b = protowire.AppendTag(b, 10, protowire.BytesType)
		b = protowire.AppendBytes(b, Attr(&n.Attrs[i]))
	}
	return b
}

// Attr is an AttributeProto message: name, doc_string, and the value of its kind (a list
// packed when its kind is a number).
func Attr(a *chakra.Attr) []byte {
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendString(b, a.Name)
	if a.Doc != "" {
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendString(b, a.Doc)
	}
	if a.Kind == chakra.NoValue {
		return b
	}
	num := protowire.Number(2*a.Kind + 1)
	if !a.IsList {
		b = protowire.AppendTag(b, num, wire(a.Kind))
		return value(b, a.Kind, a.Value)
	}
	var l []byte
	if wire(a.Kind) == protowire.BytesType {
		for _, v := range a.List {
			l = protowire.AppendTag(l, 1, protowire.BytesType)
			l = value(l, a.Kind, v)
		}
	} else if len(a.List) > 0 {
		var p []byte
		for _, v := range a.List {
			p = value(p, a.Kind, v)
		}
		l = protowire.AppendTag(l, 1, protowire.BytesType)
		l = protowire.AppendBytes(l, p)
	}
	b = protowire.AppendTag(b, num+1, protowire.BytesType)
	return protowire.AppendBytes(b, l)
}

// wire is the wire type of kind k (the protobuf encoding guide, "Message Structure").
func wire(k chakra.Kind) protowire.Type {
	switch k {
	case chakra.Double, chakra.Fixed64, chakra.Sfixed64:
		return protowire.Fixed64Type
	case chakra.Float, chakra.Fixed32, chakra.Sfixed32:
		return protowire.Fixed32Type
	case chakra.String, chakra.Bytes:
		return protowire.BytesType
	}
	return protowire.VarintType
}

// value appends v of kind k without a tag.
func value(b []byte, k chakra.Kind, v chakra.Value) []byte {
	switch k {
	case chakra.Double:
		return protowire.AppendFixed64(b, math.Float64bits(v.F))
	case chakra.Float:
		return protowire.AppendFixed32(b, math.Float32bits(float32(v.F)))
	case chakra.Int32, chakra.Int64, chakra.Bool:
		return protowire.AppendVarint(b, uint64(v.I))
	case chakra.Uint32, chakra.Uint64:
		return protowire.AppendVarint(b, v.U)
	case chakra.Sint32, chakra.Sint64:
		return protowire.AppendVarint(b, protowire.EncodeZigZag(v.I))
	case chakra.Fixed32:
		return protowire.AppendFixed32(b, uint32(v.U))
	case chakra.Sfixed32:
		return protowire.AppendFixed32(b, uint32(int32(v.I)))
	case chakra.Fixed64:
		return protowire.AppendFixed64(b, v.U)
	case chakra.Sfixed64:
		return protowire.AppendFixed64(b, uint64(v.I))
	}
	return protowire.AppendString(b, v.S)
}

// Int64 is an int64_val attribute, as Chakra's converter writes comm_type and comm_size
// (src/converter/pytorch_converter.py lines 246-247).
func Int64(name string, v int64) chakra.Attr {
	return chakra.Attr{Name: name, Kind: chakra.Int64, Value: chakra.Value{I: v}}
}

// String is a string_val attribute.
func String(name, v string) chakra.Attr {
	return chakra.Attr{Name: name, Kind: chakra.String, Value: chakra.Value{S: v}}
}

// Comp is a COMP_NODE of the given duration after deps.
func Comp(id uint64, micros uint64, deps ...uint64) chakra.Node {
	return chakra.Node{ID: id, Name: "compute", Type: chakra.CompNode, DurationMicros: micros, DataDeps: deps}
}

// Coll is a COMM_COLL_NODE of type ct and size bytes after deps.
func Coll(id uint64, ct chakra.CommType, size int64, deps ...uint64) chakra.Node {
	return chakra.Node{ID: id, Name: ct.String(), Type: chakra.CommCollNode, DataDeps: deps,
		Attrs: []chakra.Attr{Int64("comm_type", int64(ct)), Int64("comm_size", size)}}
}
