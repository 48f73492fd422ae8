package scenarios

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/fabricsim/fabricsim/sim"
)

// A settings block (switch, switch.pfc, switch.ecn, hosts, transports.rocev2, its dcqcn,
// transports.iwarp, ...) is declared once, as a Go struct whose fields carry, in struct tags,
// everything the loader, the validator, the documentation and the experiment need:
//
//	yaml     the key in the file; a field without one is not a setting
//	default  the default, written as in a file ("32MB", "auto", "strict", "[3]"); it is parsed
//	         by the field's own parser, so the documented default is the one applied
//	derived  instead of default: a default the block's code computes, as the docs say it
//	min max  inclusive limits, written with the field's unit ("1", "1us")
//	gt       an exclusive lower limit
//	zero     "off": 0 is allowed besides the limits, and turns the setting off
//	oneof    the allowed values: of an enumeration ("strict,dwrr"), where a field that is
//	         not a string maps each name to its value ("flow=false,port=true"); or of a
//	         whole number ("256,512")
//	what     how messages name an enumeration's value ("congestion control")
//	unit     "probability" for a number in [0,1]; sizes, rates and durations are known by
//	         their Go types (int64 bytes, sim.Rate, sim.Time)
//	means    what the value is, added to messages ("pause quanta of 512 bit times")
//	rule     what is allowed, in words, when the limits alone say it badly
//	eg       a typical value, for messages
//	doc      the line of documentation, with its source
//	model    the field of the model's config the value is copied to (see experiment)
//
// A field whose type is a struct with such fields is a nested block (switch.pfc). Checks that
// involve more than one field (xon <= xoff), and defaults computed from other fields, are the
// block's hooks (blockHooks). The package documentation's settings table is rendered from
// the declarations (settingsDoc), and a test keeps it current.

// setting is one field of a block, read from its declaration.
type setting struct {
	key   string
	name  string       // the Go field, in the block's target type
	typ   reflect.Type // the declared Go type
	file  reflect.Type // the type a value is decoded as: Size, Duration, Rate, string (enums), ...
	sub   *block       // a nested block, or nil
	tag   reflect.StructTag
	enum  []enumValue // oneof of an enumeration
	ints  []int64     // oneof of a whole number
	min   *reflect.Value
	max   *reflect.Value
	gt    *reflect.Value
	def   *reflect.Value // parsed default; nil when there is none
	zero  bool           // 0 is allowed besides the limits
	prob  bool           // a probability
	model string         // the model's field
}

// enumValue is one allowed value of an enumeration and what it stores.
type enumValue struct {
	name  string
	value reflect.Value
}

// block is a declared settings block: its settings in declaration order, which is the order
// in which they are applied (dcqcn's mode before the fields it resets, iwarp's min_rto before
// rto_init) and in which messages list them.
type block struct {
	decl     reflect.Type // the declaration
	target   reflect.Type // where values are stored: decl, or the model type it shadows
	settings []*setting
	byKey    map[string]*setting
	keys     []string
}

// shadows maps a model type whose fields are settings to the declaration of its block: the
// declaration has the same field names, and carries the tags the model type has no place for.
var shadows = map[reflect.Type]reflect.Type{}

// blocks caches the blocks by target type.
var blocks = map[reflect.Type]*block{}

// blockOf returns the block of the struct type t, reading its declaration the first time.
// A bad declaration is a programming error, found by the tests: it panics, at start-up.
func blockOf(t reflect.Type) *block {
	if b := blocks[t]; b != nil {
		return b
	}
	decl := t
	if d, ok := shadows[t]; ok {
		decl = d
	}
	b := &block{decl: decl, target: t, byKey: map[string]*setting{}}
	for i := range decl.NumField() {
		f := decl.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if key == "" || key == "-" {
			continue
		}
		s, err := newSetting(f, key)
		if err != nil {
			panic(fmt.Sprintf("scenarios: declaration of %s.%s: %v", decl.Name(), f.Name, err))
		}
		if tf, ok := t.FieldByName(f.Name); ok && tf.Type != f.Type {
			panic(fmt.Sprintf("scenarios: %s.%s is %s in the declaration and %s in %s", decl.Name(), f.Name, f.Type, tf.Type, t))
		}
		b.settings = append(b.settings, s)
		b.byKey[key] = s
		b.keys = append(b.keys, key)
	}
	blocks[t] = b
	return b
}

// fileTypes are the types values of each Go type are decoded as.
var fileTypes = map[reflect.Type]reflect.Type{
	reflect.TypeFor[int64]():          reflect.TypeFor[Size](),
	reflect.TypeFor[sim.Time]():       reflect.TypeFor[Duration](),
	reflect.TypeFor[sim.Rate]():       reflect.TypeFor[Rate](),
	reflect.TypeFor[SizeOrAuto]():     reflect.TypeFor[SizeOrAuto](),
	reflect.TypeFor[XoffSize]():       reflect.TypeFor[XoffSize](),
	reflect.TypeFor[DurationOrAuto](): reflect.TypeFor[DurationOrAuto](),
	reflect.TypeFor[int]():            reflect.TypeFor[int](),
	reflect.TypeFor[float64]():        reflect.TypeFor[float64](),
	reflect.TypeFor[bool]():           reflect.TypeFor[bool](),
	reflect.TypeFor[string]():         reflect.TypeFor[string](),
	reflect.TypeFor[[]int]():          reflect.TypeFor[[]int](),
}

func newSetting(f reflect.StructField, key string) (*setting, error) {
	s := &setting{key: key, name: f.Name, typ: f.Type, tag: f.Tag, model: f.Tag.Get("model"),
		zero: f.Tag.Get("zero") == "off", prob: f.Tag.Get("unit") == "probability"}
	if f.Type.Kind() == reflect.Struct && fileTypes[f.Type] == nil {
		s.sub = blockOf(f.Type)
		return s, nil
	}
	s.file = fileTypes[f.Type]
	if oneof := f.Tag.Get("oneof"); oneof != "" {
		for _, v := range strings.Split(oneof, ",") {
			name, val, mapped := strings.Cut(v, "=")
			switch {
			case f.Type.Kind() == reflect.String:
				s.enum = append(s.enum, enumValue{name, reflect.ValueOf(name)})
			case mapped:
				pv, err := parseText(f.Type, val)
				if err != nil {
					return nil, fmt.Errorf("oneof %q: %v", v, err)
				}
				s.enum = append(s.enum, enumValue{name, pv})
			default:
				pv, err := parseText(f.Type, v)
				if err != nil {
					return nil, fmt.Errorf("oneof %q: %v", v, err)
				}
				s.ints = append(s.ints, pv.Int())
			}
		}
		if s.enum != nil {
			s.file = reflect.TypeFor[string]()
		}
	}
	if s.file == nil {
		return nil, fmt.Errorf("type %s has no file type", f.Type)
	}
	for _, l := range []struct {
		tag string
		dst **reflect.Value
	}{{"min", &s.min}, {"max", &s.max}, {"gt", &s.gt}, {"default", &s.def}} {
		text, ok := f.Tag.Lookup(l.tag)
		if !ok {
			continue
		}
		v, err := s.parse(text)
		if l.tag != "default" && (s.typ == reflectSizeOrAuto || s.typ == reflectXoffSize) {
			v, err = parseText(reflect.TypeFor[int64](), text) // a limit of the size
		}
		if err != nil {
			return nil, fmt.Errorf("%s %q: %v", l.tag, text, err)
		}
		*l.dst = &v
	}
	if s.def != nil {
		if msg := s.check(*s.def); msg != "" {
			return nil, fmt.Errorf("the default breaks the field's own rule: %s", msg)
		}
	}
	return s, nil
}

// parse reads text as a file would write the field's value.
func (s *setting) parse(text string) (reflect.Value, error) {
	if s.enum != nil {
		for _, e := range s.enum {
			if e.name == text {
				return e.value, nil
			}
		}
		return reflect.Value{}, fmt.Errorf("not one of the allowed values")
	}
	return parseText(s.typ, text)
}

// parseText reads text as a file would write a value of Go type t.
func parseText(t reflect.Type, text string) (reflect.Value, error) {
	ft := fileTypes[t]
	switch {
	case ft != nil:
	case t.Kind() == reflect.Bool:
		ft = reflect.TypeFor[bool]()
	case t.ConvertibleTo(reflect.TypeFor[int64]()):
		ft = reflect.TypeFor[int64]() // a model's enumeration, such as ecn.NPRule
	default:
		return reflect.Value{}, fmt.Errorf("no file type for %s", t)
	}
	fv := reflect.New(ft)
	if err := yaml.Load([]byte(text), fv.Interface()); err != nil {
		return reflect.Value{}, err
	}
	return fv.Elem().Convert(t), nil
}

// defaults returns the block's defaults: each field's default, nested blocks' defaults, then
// the block's own init hook.
func defaultsOf[T any]() T {
	var v T
	setDefaults(blockOf(reflect.TypeFor[T]()), reflect.ValueOf(&v).Elem())
	return v
}

func setDefaults(b *block, dst reflect.Value) {
	for _, s := range b.settings {
		f := dst.FieldByName(s.name)
		switch {
		case !f.IsValid():
		case s.sub != nil:
			setDefaults(s.sub, f)
		case s.def != nil:
			f.Set(cloneValue(*s.def))
		}
	}
	if h := blockHooks[b.target]; h.init != nil {
		h.init(dst)
	}
}

// cloneValue copies v, so that a default list is not shared between scenarios.
func cloneValue(v reflect.Value) reflect.Value {
	if v.Kind() == reflect.Slice && !v.IsNil() {
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(c, v)
		return c
	}
	return v
}

// hooks are a block's hand-written parts: init sets the defaults the tags cannot say, before
// runs when the block is given and before its fields are applied, after checks what involves
// more than one field (given holds the keys the block was given).
type hooks struct {
	init   func(dst reflect.Value)
	before func(r *resolver, n *yaml.Node, path string, dst reflect.Value)
	after  func(r *resolver, path string, dst reflect.Value, given map[string]bool)
}

// blockHooks holds the hooks of each block, by target type (see hooksFor).
var blockHooks = map[reflect.Type]hooks{}

// hooksFor registers the hooks of the block of T; nil hooks are left out.
func hooksFor[T any](init func(*T), before func(*resolver, *yaml.Node, string, *T), after func(*resolver, string, *T, map[string]bool)) bool {
	var h hooks
	if init != nil {
		h.init = func(dst reflect.Value) { init(dst.Addr().Interface().(*T)) }
	}
	if before != nil {
		h.before = func(r *resolver, n *yaml.Node, path string, dst reflect.Value) {
			before(r, n, path, dst.Addr().Interface().(*T))
		}
	}
	if after != nil {
		h.after = func(r *resolver, path string, dst reflect.Value, given map[string]bool) {
			after(r, path, dst.Addr().Interface().(*T), given)
		}
	}
	blockHooks[reflect.TypeFor[T]()] = h
	return true
}

// enumName is the name of an enumeration's value v, as a file writes it.
func (s *setting) enumName(v reflect.Value) string {
	i := slices.IndexFunc(s.enum, func(e enumValue) bool { return e.value.Equal(v) })
	if i < 0 {
		return fmt.Sprint(v.Interface())
	}
	return s.enum[i].name
}

// enumNames lists the allowed names of an enumeration.
func (s *setting) enumNames() []string {
	names := make([]string, len(s.enum))
	for i, e := range s.enum {
		names[i] = e.name
	}
	return names
}
