package chakra

import (
	"fmt"
	"math"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// Kind is the type of an attribute's value: which member of AttributeProto's oneof it is.
// The scalars are the oneof's odd field numbers 3 to 31 and the lists the even ones 4 to 32
// (et_def.proto lines 9-40), both in this order, so field f holds kind (f-1)/2 and is a list
// when f is even.
type Kind int8

// The kinds, in et_def.proto's order.
const (
	NoValue Kind = iota
	Double
	Float
	Int32
	Int64
	Uint32
	Uint64
	Sint32
	Sint64
	Fixed32
	Fixed64
	Sfixed32
	Sfixed64
	Bool
	String
	Bytes
	kindNames = "none double float int32 int64 uint32 uint64 sint32 sint64 fixed32 fixed64 sfixed32 sfixed64 bool string bytes"
)

// String is the kind's protobuf type name.
func (k Kind) String() string { return strings.Fields(kindNames)[k] }

// wire is the wire type a value of kind k has (the protobuf encoding guide, "Message
// Structure": varint for int32, int64, uint32, uint64, sint32, sint64, bool, enum; I64 for
// fixed64, sfixed64, double; LEN for string, bytes; I32 for fixed32, sfixed32, float).
func (k Kind) wire() protowire.Type {
	switch k {
	case Double, Fixed64, Sfixed64:
		return protowire.Fixed64Type
	case Float, Fixed32, Sfixed32:
		return protowire.Fixed32Type
	case String, Bytes:
		return protowire.BytesType
	}
	return protowire.VarintType
}

// Value is one typed value: I for the signed integers and bool (0 or 1), U for the unsigned
// ones, F for double and float, S for string and bytes.
type Value struct {
	I int64
	U uint64
	F float64
	S string
}

// Attr is one AttributeProto: its name, doc string, and value, a scalar (Value) or a list
// (List), of kind Kind (NoValue when the oneof is unset).
type Attr struct {
	Name, Doc string
	Kind      Kind
	IsList    bool
	Value     Value
	List      []Value
}

// Int is the attribute's value as an integer, when it is a scalar of an integer kind (int32
// to sfixed64; ASTRA-sim's Chakra feeder converts between integer kinds the same way:
// astra-sim/chakra branch feederv3, src/feeder_v3/common.h line 14, and refuses a float
// for an integer, line 17).
func (a *Attr) Int() (int64, error) {
	switch {
	case a.IsList:
		return 0, fmt.Errorf("attribute %q is a %s list, not an integer", a.Name, a.Kind)
	case a.Kind == Uint32 || a.Kind == Uint64 || a.Kind == Fixed32 || a.Kind == Fixed64:
		if a.Value.U > math.MaxInt64 {
			return 0, fmt.Errorf("attribute %q is %d, more than an int64", a.Name, a.Value.U)
		}
		return int64(a.Value.U), nil
	case a.Kind >= Int32 && a.Kind <= Sfixed64:
		return a.Value.I, nil
	case a.Kind == NoValue:
		return 0, fmt.Errorf("attribute %q has no value", a.Name)
	}
	return 0, fmt.Errorf("attribute %q is a %s, not an integer", a.Name, a.Kind)
}

// scalar decodes one value of kind k from a field's raw value v (varint or fixed) or b.
func scalar(k Kind, v uint64, b []byte) Value {
	switch k {
	case Double:
		return Value{F: math.Float64frombits(v)}
	case Float:
		return Value{F: float64(math.Float32frombits(uint32(v)))}
	case Int32:
		return Value{I: int64(int32(v))}
	case Int64, Sfixed64:
		return Value{I: int64(v)}
	case Sfixed32:
		return Value{I: int64(int32(uint32(v)))}
	case Uint32, Fixed32:
		return Value{U: uint64(uint32(v))}
	case Uint64, Fixed64:
		return Value{U: v}
	case Sint32:
		return Value{I: int64(int32(protowire.DecodeZigZag(v & math.MaxUint32)))}
	case Sint64:
		return Value{I: protowire.DecodeZigZag(v)}
	case Bool:
		if protowire.DecodeBool(v) {
			return Value{I: 1}
		}
		return Value{}
	}
	return Value{S: string(b)}
}

// attr decodes an AttributeProto (et_def.proto lines 5-41).
func (d *decoder) attr(m part) (Attr, error) {
	var a Attr
	err := d.fields(m, func(f field) error {
		switch {
		case f.num == 1 || f.num == 2:
			if err := d.want("AttributeProto", "name", f, protowire.BytesType); err != nil {
				return err
			}
			if f.num == 1 {
				a.Name = string(f.b)
			} else {
				a.Doc = string(f.b)
			}
		case f.num >= 3 && f.num <= 32:
			// A oneof keeps the last member set (the protobuf language guide, "Oneof").
			k := Kind((f.num - 1) / 2)
			a.Kind, a.IsList, a.Value, a.List = k, f.num%2 == 0, Value{}, nil
			if !a.IsList {
				if f.typ != k.wire() {
					return d.errAt(f.off, "attribute %q: %s_val (field %d) has wire type %d; a %s is %d", a.Name, k, f.num, f.typ, k, k.wire())
				}
				a.Value = scalar(k, f.v, f.b)
				return nil
			}
			if f.typ != protowire.BytesType {
				return d.errAt(f.off, "attribute %q: %s_list (field %d) has wire type %d; a list is a message (2)", a.Name, k, f.num, f.typ)
			}
			l, err := d.list(k, part{b: f.b, off: f.off + tagLen(f)})
			a.List = l
			return err
		}
		return nil
	})
	return a, err
}

// list decodes a typed list message (et_def.proto lines 43-101: repeated values = 1), its
// numbers packed or one field each.
func (d *decoder) list(k Kind, m part) ([]Value, error) {
	out := []Value{}
	err := d.fields(m, func(f field) error {
		if f.num != 1 {
			return nil
		}
		w := k.wire()
		switch {
		case f.typ == w:
			out = append(out, scalar(k, f.v, f.b))
			return nil
		case f.typ != protowire.BytesType || w == protowire.BytesType:
			return d.errAt(f.off, "%s list value has wire type %d; a %s is %d", k, f.typ, k, w)
		}
		b, off := f.b, f.off+tagLen(f)
		for len(b) > 0 {
			var v uint64
			var n int
			switch w {
			case protowire.VarintType:
				v, n = protowire.ConsumeVarint(b)
			case protowire.Fixed32Type:
				var x uint32
				x, n = protowire.ConsumeFixed32(b)
				v = uint64(x)
			default:
				v, n = protowire.ConsumeFixed64(b)
			}
			if n < 0 {
				return d.errAt(off, "packed %s list: %v", k, protowire.ParseError(n))
			}
			out = append(out, scalar(k, v, nil))
			b, off = b[n:], off+n
		}
		return nil
	})
	return out, err
}
