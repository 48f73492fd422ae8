package scenarios

import (
	"errors"
	"fmt"
	"reflect"
	"slices"

	"go.yaml.in/yaml/v4"
)

// settings applies the block given at path (its node n, nil or null when absent) over dst, a
// pointer to the block's values (the defaults, or the global block for a node's own), and
// checks each value it sets; it returns dst's block resolved.
func settings[T any](r *resolver, n *yaml.Node, path string, base T) T {
	dst := base
	r.block(blockOf(reflect.TypeFor[T]()), n, path, reflect.ValueOf(&dst).Elem())
	return dst
}

// block decodes the mapping n into dst field by field: unknown and repeated keys, values of
// the wrong type or unit, and values outside the limits are reported at their position.
func (r *resolver) block(b *block, n *yaml.Node, path string, dst reflect.Value) {
	if n == nil || n.Kind == 0 || isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		r.decodeProblem(n, path, fmt.Sprintf("want a mapping (fields: %s), got %s", listOf(b.keys), kindName(n)))
		return
	}
	h := blockHooks[b.target]
	if h.before != nil {
		h.before(r, n, path, dst)
	}
	values := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		kp := joinPath(path, k.Value)
		if first, dup := values[k.Value]; dup {
			r.keyProblem(k, kp, fmt.Sprintf("field %q is given twice (first at line %d)", k.Value, first.Line))
			continue
		}
		if b.byKey[k.Value] == nil {
			r.keyProblem(k, kp, unknownField(k.Value, path, b.keys))
			continue
		}
		values[k.Value] = v
	}
	given := map[string]bool{}
	for _, s := range b.settings {
		v := values[s.key]
		if v == nil {
			continue
		}
		given[s.key] = true
		sp := joinPath(path, s.key)
		f := dst.FieldByName(s.name)
		if s.sub != nil {
			r.block(s.sub, v, sp, f)
			continue
		}
		val, ok := r.settingValue(s, v, sp)
		if !ok || !f.IsValid() {
			continue // a value the block's hooks apply (dcqcn.mode)
		}
		f.Set(val)
		if msg := s.check(val); msg != "" {
			r.errf(sp, "%s", msg)
		}
	}
	if h.after != nil {
		h.after(r, path, dst, given)
	}
}

// settingValue decodes the value node v of setting s; ok is false when it is null or wrong
// (which is reported).
func (r *resolver) settingValue(s *setting, v *yaml.Node, path string) (reflect.Value, bool) {
	fv := reflect.New(reflect.PointerTo(s.file))
	if err := v.Load(fv.Interface(), yaml.WithKnownFields()); err != nil {
		r.loadProblems(err, path)
		return reflect.Value{}, false
	}
	if fv.Elem().IsNil() {
		return reflect.Value{}, false
	}
	val := fv.Elem().Elem()
	if s.enum != nil {
		name := val.String()
		what := s.tag.Get("what")
		if what == "" {
			what = s.key
		}
		i := slices.IndexFunc(s.enum, func(e enumValue) bool { return e.name == name })
		if i < 0 {
			r.oneOf(path, what, name, s.enumNames())
			return reflect.Value{}, false
		}
		return s.enum[i].value, true
	}
	return val.Convert(s.typ), true
}

// loadProblems reports the errors of decoding a value at path, each at its position (an item
// of a list at its own path).
func (r *resolver) loadProblems(err error, path string) {
	var les *yaml.LoadErrors
	var le *yaml.LoadError
	switch {
	case errors.As(err, &les):
	case errors.As(err, &le):
		les = &yaml.LoadErrors{Errors: []*yaml.LoadError{le}}
	default:
		r.errf(path, "%v", err)
		return
	}
	for _, e := range les.Errors {
		m := mark{e.Mark.Line, e.Mark.Column}
		ent := r.ix.lookup(m, false)
		if ent.path == "" {
			ent = entry{path: path}
		}
		r.failed[ent.path] = true
		r.l.errs = append(r.l.errs, r.l.problem(m, ent.path, r.l.decodeMsg(e, ent, r.ix)))
	}
}

// decodeProblem reports a value of the wrong shape at path and leaves the path out of the
// checks that follow.
func (r *resolver) decodeProblem(n *yaml.Node, path, msg string) {
	r.failed[path] = true
	r.l.errs = append(r.l.errs, r.l.problem(markOf(n), path, msg))
}

// keyProblem reports a key that cannot be used.
func (r *resolver) keyProblem(k *yaml.Node, path, msg string) {
	r.failed[path] = true
	r.l.errs = append(r.l.errs, r.l.problem(markOf(k), path, msg))
}

// unknownField is the message for a key that section does not have.
func unknownField(name, section string, fields []string) string {
	where := "at the top level"
	if section != "" {
		where = "in " + section
	}
	if s := didYouMean(name, fields); s != "" {
		return fmt.Sprintf("unknown field %q %s%s", name, where, s)
	}
	return fmt.Sprintf("unknown field %q %s (fields: %s)", name, where, listOf(fields))
}
