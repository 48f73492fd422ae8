// Package chakra reads Chakra execution traces (MLCommons Chakra, the workload format of
// ASTRA-sim): one file per rank, a stream of protobuf messages each preceded by its length
// as a varint, a GlobalMetadata first and then the Node messages. It decodes, by hand with
// the official wire-format primitives (google.golang.org/protobuf/encoding/protowire), the
// fields of schema/protobuf/et_def.proto that a network simulator needs (a node's id, name,
// type, control and data dependencies, start and duration, and its attributes, every one of
// the 30 typed values of AttributeProto's oneof), skips the others, and orders a rank's
// collective nodes with the compute that separates them (Sequence). Malformed input is an
// *Error naming the file and the byte offset, never a panic.
//
// Read decodes from the stream, a message at a time, as ASTRA-sim's feeder does (a gzip
// file through a GzipInputStream, protoio.cc lines 115-131; a node per read, et_feeder.cpp
// lines 97-103), with the bytes, the nodes and each message bounded while it reads. Two
// things the feeder takes, Read refuses: a second node of an id (the feeder's dep_graph_
// keeps the last, et_feeder.cpp lines 25-27, silently losing the first), and a node message
// of zero bytes, which protobuf parses as a node of id 0 and type INVALID_NODE with nothing
// else: it holds nothing to simulate, and a run of zero bytes reads as a run of them. An
// INVALID_NODE with fields is kept, and Sequence skips it as ASTRA-sim does.
//
// Sources, followed field by field (commit 21585d8f2d65603d791d2121e3d4632351120262 of
// github.com/mlcommons/chakra): schema/protobuf/et_def.proto lines 5-41 (AttributeProto),
// 43-101 (the typed lists), 103-106 (GlobalMetadata), 108-130 (NodeType,
// CollectiveCommType), 132-148 (Node); the stream framing in src/third_party/utils/protoio.cc
// lines 75-91 (a varint32 length, then the message) and 103-106 (a gzip stream is known by
// its magic bytes 1f 8b and read through gzip), and src/third_party/utils/protolib.py lines
// 131-168; the reading order (GlobalMetadata, then nodes) in src/feeder/et_feeder.cpp lines
// 87-121.
package chakra

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// NodeType is et_def.proto's NodeType (lines 108-117).
type NodeType int32

// The node types.
const (
	InvalidNode   NodeType = 0
	MetadataNode  NodeType = 1
	MemLoadNode   NodeType = 2
	MemStoreNode  NodeType = 3
	CompNode      NodeType = 4
	CommSendNode  NodeType = 5
	CommRecvNode  NodeType = 6
	CommCollNode  NodeType = 7
	lastNodeType           = CommCollNode
	nodeTypeNames          = "INVALID_NODE METADATA_NODE MEM_LOAD_NODE MEM_STORE_NODE COMP_NODE COMM_SEND_NODE COMM_RECV_NODE COMM_COLL_NODE"
)

// String is the type's name in et_def.proto, or its number when the schema has none.
func (t NodeType) String() string {
	if t < 0 || t > lastNodeType {
		return fmt.Sprintf("NodeType(%d)", int32(t))
	}
	return strings.Fields(nodeTypeNames)[t]
}

// Node is one node of a trace. Offset is the byte at which its length prefix starts.
type Node struct {
	ID                 uint64
	Name               string
	Type               NodeType
	CtrlDeps, DataDeps []uint64
	StartMicros        uint64
	DurationMicros     uint64
	Attrs              []Attr
	Offset             int64
}

// Attr returns the node's attribute named name, or nil.
func (n *Node) Attr(name string) *Attr {
	for i := range n.Attrs {
		if n.Attrs[i].Name == name {
			return &n.Attrs[i]
		}
	}
	return nil
}

// Trace is one rank's trace: its file, the GlobalMetadata's version and attributes, and its
// nodes in file order.
type Trace struct {
	File string
	// Compressed says the file is gzip: offsets count in its decompressed stream.
	Compressed bool
	Version    string
	Metadata   []Attr
	Nodes      []Node
}

// Error is a malformed trace: the file, the byte offset at which the problem is (in the
// decompressed stream when the file is gzip), and what is wrong.
type Error struct {
	File       string
	Offset     int64
	Compressed bool
	Msg        string
}

func (e *Error) Error() string {
	where := "byte"
	if e.Compressed {
		where = "decompressed byte"
	}
	return fmt.Sprintf("%s: %s %d: %s", e.File, where, e.Offset, e.Msg)
}

// MaxDecompressed bounds the bytes of a trace's stream (after gzip when the file is gzip),
// counted while it is read: a guard against a file that inflates without end. 1 GiB is
// some ten million nodes of the size Chakra's converters write, more than MaxNodes.
const MaxDecompressed = 1 << 30

// MaxNodes bounds the nodes of one rank's trace, counted while they are decoded: the window
// of nodes ASTRA-sim's feeder holds at a time, 4096 x 256 = 1,048,576 (mlcommons/chakra
// src/feeder/et_feeder.cpp line 9). fabricsim holds the whole trace (Sequence orders all of
// it), and a trace at the bound (1M nodes of an id alone, a 5 MB file) takes about 3 s and
// 310 MB of heap in use (580 MB reserved) to decode, measured on a busy 2-core machine; a
// larger trace is refused when its node past the bound is read.
const MaxNodes = 1 << 20

// MaxMessage bounds one length-prefixed message: protobuf's CodedInputStream refused a
// message of more than 64 MB by default (kDefaultTotalBytesLimit, 64 << 20, before protobuf
// 3.11), which the traces Chakra writes respect. A length prefix above it is refused before
// anything is allocated for it.
const MaxMessage = 64 << 20

// Decode reads the trace in data, the contents of file (named in errors only): Read over
// the bytes.
func Decode(file string, data []byte) (*Trace, error) {
	return Read(file, bytes.NewReader(data))
}

// Read decodes the trace file (named in errors only) from r, a message at a time: a gzip
// stream (known by its magic bytes 1f 8b, as protoio.cc lines 103-106 knows it) is inflated
// as it is read, never whole, and the bytes (MaxDecompressed), the nodes (MaxNodes) and each
// message (MaxMessage) are bounded while they are read. A node message of zero bytes (no id,
// type, name or anything else: what a run of zero bytes decodes to) is refused, as is a node
// whose id an earlier node has; an INVALID_NODE with fields is kept (Sequence skips it, as
// ASTRA-sim does).
func Read(file string, r io.Reader) (*Trace, error) {
	d := decoder{file: file}
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &Error{File: file, Msg: fmt.Sprintf("starts with gzip's magic bytes but is not gzip: %v", err)}
		}
		defer zr.Close()
		br, d.gz = bufio.NewReaderSize(zr, 64<<10), true
	}
	d.r = br
	t := &Trace{File: file, Compressed: d.gz}
	ids := map[uint64]int32{} // each id's node, to refuse a second node of the same id
	for k := -1; ; k++ {
		start := d.pos
		msg, err := d.frame()
		if err == io.EOF {
			if k == -1 {
				return nil, d.errAt(0, "the file is empty: a trace starts with a GlobalMetadata message")
			}
			return t, nil
		}
		if err != nil {
			return nil, err
		}
		if k == -1 {
			if err := d.metadata(msg, t); err != nil {
				return nil, err
			}
			continue
		}
		if len(msg.b) == 0 {
			return nil, d.errAt(start, "node %d (from 0) is an empty message: no id, type, name or any other field; a Chakra node has them (a run of zero bytes reads as empty messages)", k)
		}
		if k >= MaxNodes {
			return nil, d.errAt(start, "more than %d nodes: one rank's trace holds at most %d here (the window of nodes ASTRA-sim's feeder holds)", MaxNodes, MaxNodes)
		}
		n := Node{Offset: int64(start)}
		if err := d.node(msg, &n); err != nil {
			return nil, err
		}
		if j, dup := ids[n.ID]; dup {
			return nil, d.errAt(start, "node %d (from 0) has id %d, as node %d at byte %d has: a node's id is its own", k, n.ID, j, t.Nodes[j].Offset)
		}
		ids[n.ID] = int32(k)
		t.Nodes = append(t.Nodes, n)
	}
}

// decoder reads the stream; pos is the offset of the next byte (in the decompressed stream
// when gz), buf holds the message being decoded (reused: decoding copies what it keeps).
type decoder struct {
	file string
	r    *bufio.Reader
	pos  int
	gz   bool
	buf  []byte
}

// part is a message's bytes and where they start in the stream.
type part struct {
	b   []byte
	off int
}

func (d *decoder) errAt(off int, format string, args ...any) error {
	return &Error{File: d.file, Offset: int64(off), Compressed: d.gz, Msg: fmt.Sprintf(format, args...)}
}

// frame reads one length-prefixed message (protoio.cc lines 81-90: a varint32 length);
// io.EOF when the stream ends cleanly before it.
func (d *decoder) frame() (part, error) {
	at := d.pos
	var head [binary.MaxVarintLen64]byte
	k := 0
	for {
		c, err := d.r.ReadByte()
		if err == io.EOF && k == 0 {
			return part{}, io.EOF
		}
		if err != nil {
			return part{}, d.readErr(at, err, "the message length is not a valid varint (the stream ends within it): the file is truncated")
		}
		d.pos++
		head[k] = c
		k++
		if c < 0x80 || k == len(head) {
			break
		}
	}
	n, m := protowire.ConsumeVarint(head[:k])
	if m < 0 {
		return part{}, d.errAt(at, "the message length is not a valid varint (%v): the file is truncated or not a Chakra trace", protowire.ParseError(m))
	}
	if n > math.MaxUint32 {
		return part{}, d.errAt(at, "message length %d is more than a varint32 (protoio.cc writes WriteVarint32)", n)
	}
	if n > MaxMessage {
		return part{}, d.errAt(at, "a message of %d bytes is announced; at most %d are read (protobuf's default limit)", n, MaxMessage)
	}
	body := d.pos
	if d.pos+int(n) > MaxDecompressed {
		return part{}, d.errAt(at, "the stream goes on past %d bytes, the most a trace is read to", MaxDecompressed)
	}
	if cap(d.buf) < int(n) {
		d.buf = make([]byte, n)
	}
	b := d.buf[:n]
	got, err := io.ReadFull(d.r, b)
	d.pos += got
	if err != nil {
		return part{}, d.readErr(at, err, fmt.Sprintf("a message of %d bytes is announced but %d remain: the file is truncated", n, got))
	}
	return part{b: b, off: body}, nil
}

// readErr is the error of a read that failed at offset at: the stream ended (truncated),
// or gzip found it damaged.
func (d *decoder) readErr(at int, err error, truncated string) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return d.errAt(at, "%s", truncated)
	}
	if d.gz {
		return d.errAt(d.pos, "gzip: %v", err)
	}
	return d.errAt(d.pos, "%v", err)
}

// field is one field of a message: its number, wire type, value bytes (for bytes, the
// content; for a varint or fixed value, decoded into v) and where its tag starts.
type field struct {
	num protowire.Number
	typ protowire.Type
	v   uint64
	b   []byte
	off int
}

// fields calls fn for each field of message m in order; it stops at the first error.
func (d *decoder) fields(m part, fn func(f field) error) error {
	b, off := m.b, m.off
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return d.errAt(off, "bad field tag: %v", protowire.ParseError(n))
		}
		f := field{num: num, typ: typ, off: off}
		var m int
		switch typ {
		case protowire.VarintType:
			f.v, m = protowire.ConsumeVarint(b[n:])
		case protowire.Fixed32Type:
			var x uint32
			x, m = protowire.ConsumeFixed32(b[n:])
			f.v = uint64(x)
		case protowire.Fixed64Type:
			f.v, m = protowire.ConsumeFixed64(b[n:])
		case protowire.BytesType:
			f.b, m = protowire.ConsumeBytes(b[n:])
		default:
			m = protowire.ConsumeFieldValue(num, typ, b[n:])
		}
		if m < 0 {
			return d.errAt(off, "field %d (wire type %d): %v", num, typ, protowire.ParseError(m))
		}
		if err := fn(f); err != nil {
			return err
		}
		b, off = b[n+m:], off+n+m
	}
	return nil
}

// want checks that field f of message msg has wire type t.
func (d *decoder) want(msg, name string, f field, t protowire.Type) error {
	if f.typ != t {
		return d.errAt(f.off, "%s.%s (field %d) has wire type %d; et_def.proto makes it %d", msg, name, f.num, f.typ, t)
	}
	return nil
}

// metadata decodes GlobalMetadata (et_def.proto lines 103-106).
func (d *decoder) metadata(m part, t *Trace) error {
	return d.fields(m, func(f field) error {
		switch f.num {
		case 1:
			if err := d.want("GlobalMetadata", "version", f, protowire.BytesType); err != nil {
				return err
			}
			t.Version = string(f.b)
		case 2:
			if err := d.want("GlobalMetadata", "attr", f, protowire.BytesType); err != nil {
				return err
			}
			a, err := d.attr(part{b: f.b, off: f.off + tagLen(f)})
			if err != nil {
				return err
			}
			t.Metadata = append(t.Metadata, a)
		}
		return nil
	})
}

// tagLen is the bytes of f's tag and, for a bytes field, its length prefix: where its
// content starts after f.off.
func tagLen(f field) int {
	n := protowire.SizeTag(f.num)
	if f.typ == protowire.BytesType {
		n += protowire.SizeVarint(uint64(len(f.b)))
	}
	return n
}

// node decodes Node (et_def.proto lines 132-148); inputs and outputs (IOInfo) and unknown
// fields are skipped.
func (d *decoder) node(m part, n *Node) error {
	return d.fields(m, func(f field) error {
		var err error
		switch f.num {
		case 1:
			err = d.want("Node", "id", f, protowire.VarintType)
			n.ID = f.v
		case 2:
			err = d.want("Node", "name", f, protowire.BytesType)
			n.Name = string(f.b)
		case 3:
			err = d.want("Node", "type", f, protowire.VarintType)
			n.Type = NodeType(int32(f.v)) // an enum is an int32 on the wire
		case 4:
			n.CtrlDeps, err = d.uints("Node.ctrl_deps", f, n.CtrlDeps)
		case 5:
			n.DataDeps, err = d.uints("Node.data_deps", f, n.DataDeps)
		case 6:
			err = d.want("Node", "start_time_micros", f, protowire.VarintType)
			n.StartMicros = f.v
		case 7:
			err = d.want("Node", "duration_micros", f, protowire.VarintType)
			n.DurationMicros = f.v
		case 10:
			if err = d.want("Node", "attr", f, protowire.BytesType); err == nil {
				var a Attr
				a, err = d.attr(part{b: f.b, off: f.off + tagLen(f)})
				n.Attrs = append(n.Attrs, a)
			}
		}
		return err
	})
}

// uints appends a repeated uint64 field's values, packed (one bytes field of varints, proto3's
// default) or not (one varint field each).
func (d *decoder) uints(name string, f field, to []uint64) ([]uint64, error) {
	switch f.typ {
	case protowire.VarintType:
		return append(to, f.v), nil
	case protowire.BytesType:
		b, off := f.b, f.off+tagLen(f)
		for len(b) > 0 {
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return nil, d.errAt(off, "%s: packed varint: %v", name, protowire.ParseError(n))
			}
			to = append(to, v)
			b, off = b[n:], off+n
		}
		return to, nil
	}
	return nil, d.errAt(f.off, "%s has wire type %d; a repeated uint64 is a varint or packed", name, f.typ)
}
