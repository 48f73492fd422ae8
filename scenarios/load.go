package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"
)

// File is a loaded and checked scenario file: its variants, each fully resolved.
type File struct {
	name, description string
	seed              uint64
	variants          []VariantInfo
	scenarios         []*Scenario
	resolved          string
	series            bool        // loaded for a run that writes the time series (LoadOptions.Series)
	sets              [][]Setting // per variant, its set entries (VariantSets)
}

// Seeds are the seeds the file asks to replicate its variants under (seeds: [..]), or nil
// for one run.
func (f *File) Seeds() []uint64 {
	if len(f.scenarios) == 0 || f.scenarios[0] == nil {
		return nil
	}
	return append([]uint64(nil), f.scenarios[0].Seeds...)
}

// Sweep is the file's sweep block (sweep: {PATH: [values]}), its axes in file order, or
// nil when it has none.
func (f *File) Sweep() []Axis {
	if len(f.scenarios) == 0 || f.scenarios[0] == nil {
		return nil
	}
	return slices.Clone(f.scenarios[0].Sweep)
}

// Resolved is the file as run: its YAML after the --set overrides (each variant's set still
// in its variants list), so that running it again, with no flag, gives the same results.
func (f *File) Resolved() string { return f.resolved }

// Name returns the scenario's name.
func (f *File) Name() string { return f.name }

// Description returns the scenario's description ("" when it has none).
func (f *File) Description() string { return f.description }

// Seed returns the scenario's seed (default 1, or as set by SetSeed).
func (f *File) Seed() uint64 { return f.seed }

// SetSeed overrides the seed of the file and of every variant (the --seed flag).
func (f *File) SetSeed(seed uint64) {
	f.seed = seed
	for _, s := range f.scenarios {
		s.Seed = seed
	}
}

// Variants returns the variants in file order; a file without variants has one, "default".
func (f *File) Variants() []VariantInfo { return append([]VariantInfo(nil), f.variants...) }

// VariantIndex returns the index of the variant with that name, or -1.
func (f *File) VariantIndex(name string) int {
	for i, v := range f.variants {
		if v.Name == name {
			return i
		}
	}
	return -1
}

// Scenario returns the resolved, validated scenario of variant i (0 <= i < len(Variants())),
// or nil when i is out of range. The scenario is the file's own: treat it as read-only.
func (f *File) Scenario(i int) *Scenario {
	if i < 0 || i >= len(f.scenarios) {
		return nil
	}
	return f.scenarios[i]
}

// Load parses, overrides and validates a scenario file. path names the file in problems (as
// the user wrote it, or a bundled scenario's name); overrides are the --set flags, applied in
// order before the variants' sets. It returns the file, or nil with every error found; warnings
// (which do not make the file invalid) are returned in both cases. Load never panics.
func Load(path string, data []byte, overrides []Override) (*File, Problems, Problems) {
	return LoadWith(path, data, overrides, LoadOptions{})
}

// LoadOptions say what the run will do beyond the file, where a check depends on it.
type LoadOptions struct {
	// Series says the run keeps and writes the time series (run -o): only then is the series
	// bounded by MaxSeriesRows and counted in the memory estimate; without it nothing is
	// sampled, so however many flows and samples there would be, nothing is refused for them.
	Series bool
}

// LoadWith is Load for a run that does what opt says.
func LoadWith(path string, data []byte, overrides []Override, opt LoadOptions) (*File, Problems, Problems) {
	l := &loader{file: path, overrides: overrides, series: opt.Series}
	f := l.load(data)
	errs, warns := l.errs.normalize(), l.warns.normalize()
	if len(errs) > 0 {
		return nil, errs, warns
	}
	if len(warns) == 0 {
		warns = nil
	}
	return f, nil, warns
}

// loader holds the state of one Load.
type loader struct {
	file      string
	overrides []Override
	series    bool // LoadOptions.Series
	errs      Problems
	warns     Problems
}

// problem builds a Problem at m; marks of --set nodes (negative lines) become OverrideFile.
func (l *loader) problem(m mark, path, msg string) Problem {
	p := Problem{File: l.file, Line: m.line, Column: m.col, Path: path, Msg: msg}
	if m.line < 0 {
		p.File, p.Line, p.Column = OverrideFile, 0, 0
		if i := -m.line - 1; i < len(l.overrides) {
			p.Msg += fmt.Sprintf(" (from --set %s)", l.overrides[i])
		}
	}
	if p.Line <= 0 {
		p.Line, p.Column = 0, 0
	}
	return p
}

func (l *loader) errAt(n *yaml.Node, path, msg string) {
	l.errs = append(l.errs, l.problem(markOf(n), path, msg))
}

// variantSpec is one variant as written: its name, transport and set entries.
type variantSpec struct {
	name, transport string
	index           int // in variants; -1 for the default variant
	sets            []setEntry
}

type setEntry struct {
	path  string // the key as written, e.g. "switch.pfc.enabled"
	segs  []pathSeg
	value *yaml.Node
	key   *yaml.Node
}

func (l *loader) load(data []byte) *File {
	if len(data) > MaxFileBytes {
		l.errs = append(l.errs, Problem{File: l.file, Msg: FileTooLarge(int64(len(data)))})
		return nil
	}
	if len(bytes.TrimSpace(data)) == 0 {
		l.errs = append(l.errs, Problem{File: l.file, Msg: "the file is empty; a scenario needs at least version, name, topology and traffic"})
		return nil
	}
	if line, col, what, bad := badByte(data); bad {
		l.errs = append(l.errs, l.problem(mark{line, col}, "", what))
		return nil
	}
	var doc yaml.Node
	if err := yaml.Load(data, &doc); err != nil {
		l.syntaxErrors(err)
		return nil
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		l.errs = append(l.errs, Problem{File: l.file, Msg: "the file holds no YAML document; a scenario needs at least version, name, topology and traffic"})
		return nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		if isNull(root) {
			l.errAt(root, "", "the file holds no fields; a scenario needs at least version, name, topology and traffic")
		} else {
			// Not quoted: a file that is no mapping is no scenario, and its text is not ours to print.
			what := kindName(root)
			if root.Kind == yaml.ScalarNode {
				what = "a single value or a text"
			}
			l.errAt(root, "", fmt.Sprintf("a scenario is a mapping of fields (version, name, topology, traffic, ...), not %s", what))
		}
		return nil
	}
	checkPlain(root, 0, func(n *yaml.Node, msg string) { l.errAt(n, "", msg) })
	if len(l.errs) > 0 {
		return nil
	}
	if !looksLikeScenario(root) {
		keys := fmt.Sprintf("none of its %d top-level keys is a", len(root.Content)/2)
		if len(root.Content) == 2 {
			keys = "its one top-level key is no"
		}
		l.errAt(root, "", fmt.Sprintf("not a scenario file: %s scenario field or near one (a scenario starts with version: 1, name, topology and traffic)", keys))
		return nil
	}
	dropDuplicateKeys(root, "", 0, func(k *yaml.Node, path, msg string) { l.errAt(k, path, msg) })

	for i, o := range l.overrides {
		l.applyOverride(root, i, o)
	}
	resolved := ""
	if out, err := yaml.Dump(root); err == nil {
		resolved = string(out)
	}

	variants := l.variants(root)
	if len(variants) == 0 {
		variants = []variantSpec{{name: "default", index: -1}}
	}
	f := &File{resolved: resolved, series: l.series}
	for _, v := range variants {
		tree := copyTree(root)
		for _, s := range v.sets {
			if msg := applyPath(tree, s.segs, s.value); msg != "" {
				l.errAt(s.key, fmt.Sprintf("variants.%d.set.%s", v.index, s.path), msg)
			}
		}
		sc := l.resolve(tree, v)
		f.variants = append(f.variants, VariantInfo{Name: v.name, Transport: v.transport})
		f.sets = append(f.sets, settingsOf(v.sets))
		f.scenarios = append(f.scenarios, sc)
	}
	if sc := f.scenarios[0]; sc != nil {
		f.name, f.description, f.seed = sc.Name, sc.Description, sc.Seed
	}
	return f
}

// looksLikeScenario reports whether some top-level key of root is a scenario field, or near
// one (a misspelling "did you mean" answers). A mapping with none is some other file (a
// password file parses as YAML keys): it is refused in one problem that quotes none of it,
// not with an "unknown field" per line that would print the file.
func looksLikeScenario(root *yaml.Node) bool {
	fields := fieldNames(reflect.TypeOf(rawFile{}))
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if slices.Contains(fields, k.Value) || didYouMean(k.Value, fields) != "" {
			return true
		}
	}
	return false
}

// applyOverride applies --set flag i to the tree.
func (l *loader) applyOverride(root *yaml.Node, i int, o Override) {
	fail := func(msg string) {
		l.errs = append(l.errs, Problem{File: OverrideFile, Path: o.Path, Msg: msg})
	}
	if err := checkPath(o.Path); err != nil {
		fail(err.Error())
		return
	}
	value, err := parseValue(o.Value)
	if err != nil {
		fail(err.Error())
		return
	}
	line := -(i + 1)
	shiftMarks(value, line, len(o.Path)+1, 0)
	if msg := applyPath(root, segments(o.Path, mark{line, 1}), value); msg != "" {
		fail(msg)
	}
}

// forbiddenSets are the top-level fields a variant's set may not change: they describe the
// file, not one run.
var forbiddenSets = []string{"version", "name", "description", "variants", "seeds", "sweep"}

// variants reads the variant list from the tree. Its type errors and unknown fields are left
// to the decoder, which sees the same nodes in every variant.
func (l *loader) variants(root *yaml.Node) []variantSpec {
	vn := mapValue(root, "variants")
	if vn == nil || isNull(vn) || vn.Kind != yaml.SequenceNode {
		return nil
	}
	if len(vn.Content) == 0 {
		l.errAt(vn, "variants", "variants is empty; list at least one variant, or remove variants for a single run")
		return nil
	}
	var specs []variantSpec
	seen := map[string]int{}
	for i, item := range vn.Content {
		path := fmt.Sprintf("variants.%d", i)
		if item.Kind != yaml.MappingNode {
			continue
		}
		v := variantSpec{index: i}
		switch name := mapValue(item, "name"); {
		case name == nil || name.Kind != yaml.ScalarNode || isNull(name) || strings.TrimSpace(name.Value) == "":
			if name == nil || isNull(name) || name.Kind == yaml.ScalarNode {
				l.errAt(item, path+".name", "a variant needs a name, e.g. {name: lossy, transport: rocev2}")
			}
			v.name = fmt.Sprintf("variant %d", i+1)
		default:
			v.name = name.Value
			if c, bad := unprintable(v.name, false); bad {
				l.errAt(name, path+".name", fmt.Sprintf("variant name %q holds the character %U, which a table, summary.md or report.html would not show as itself (a control character, a line break or a bidirectional override): name it in plain text", v.name, c))
			}
			if j, dup := seen[v.name]; dup {
				l.errAt(name, path+".name", fmt.Sprintf("variant name %q is already used by variants.%d", v.name, j))
			}
			seen[v.name] = i
		}
		if t := mapValue(item, "transport"); t != nil && t.Kind == yaml.ScalarNode && !isNull(t) {
			v.transport = t.Value
		}
		v.sets = l.setEntries(item, path)
		specs = append(specs, v)
	}
	return specs
}

// setEntries reads a variant's set mapping.
func (l *loader) setEntries(item *yaml.Node, path string) []setEntry {
	set := mapValue(item, "set")
	if set == nil || isNull(set) {
		return nil
	}
	path += ".set"
	if set.Kind != yaml.MappingNode {
		l.errAt(set, path, fmt.Sprintf("set is a mapping of field paths to values, e.g. {switch.buffer: 1MB}, not %s", kindName(set)))
		return nil
	}
	var entries []setEntry
	seen := map[string]bool{}
	for i := 0; i+1 < len(set.Content); i += 2 {
		k, v := set.Content[i], set.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			l.errAt(k, path, "a set key is a field path such as switch.pfc.enabled")
			continue
		}
		kp := path + "." + k.Value
		if err := checkPath(k.Value); err != nil {
			l.errAt(k, kp, err.Error())
			continue
		}
		if seen[k.Value] {
			l.errAt(k, kp, fmt.Sprintf("%q is set twice", k.Value))
			continue
		}
		seen[k.Value] = true
		first, _, _ := strings.Cut(k.Value, ".")
		if i := indexOf(forbiddenSets, first); i >= 0 {
			l.errAt(k, kp, fmt.Sprintf("a variant cannot set %s; it belongs to the whole file", first))
			continue
		}
		start := markOf(k)
		if k.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			start.col++
		}
		entries = append(entries, setEntry{path: k.Value, segs: segments(k.Value, start), value: v, key: k})
	}
	return entries
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// syntaxErrors converts an error of parsing the file into problems.
func (l *loader) syntaxErrors(err error) {
	var les *yaml.LoadErrors
	if errors.As(err, &les) {
		for _, e := range les.Errors {
			if strings.Contains(e.Message, "no documents in stream") {
				l.errs = append(l.errs, Problem{File: l.file, Msg: "the file holds no YAML document; a scenario needs at least version, name, topology and traffic"})
				continue
			}
			l.errs = append(l.errs, l.problem(mark{e.Mark.Line, e.Mark.Column}, "", loadErrorMsg(e)))
		}
		return
	}
	var le *yaml.LoadError
	if errors.As(err, &le) {
		l.errs = append(l.errs, l.problem(mark{le.Mark.Line, le.Mark.Column}, "", loadErrorMsg(le)))
		return
	}
	l.errs = append(l.errs, Problem{File: l.file, Msg: err.Error()})
}

func loadErrorMsg(e *yaml.LoadError) string {
	msg := strings.TrimPrefix(e.Message, "yaml: ")
	if e.ContextMsg != "" {
		if e.ContextMark.Line > 0 && e.ContextMark != e.Mark {
			msg += fmt.Sprintf(" (%s that starts at line %d, column %d)", e.ContextMsg, e.ContextMark.Line, e.ContextMark.Column)
		} else {
			msg += " (" + e.ContextMsg + ")"
		}
	}
	return msg
}

// decode decodes the tree into raw, strictly, and turns the decoder's errors into problems.
// It returns the paths whose values failed to decode, so that the validator does not report
// them a second time.
func (l *loader) decode(tree *yaml.Node, ix *index, raw *rawFile) map[string]bool {
	failed := map[string]bool{}
	err := tree.Load(raw, yaml.WithKnownFields())
	if err == nil {
		return failed
	}
	var les *yaml.LoadErrors
	if !errors.As(err, &les) {
		var le *yaml.LoadError
		if errors.As(err, &le) {
			les = &yaml.LoadErrors{Errors: []*yaml.LoadError{le}}
		} else {
			l.errs = append(l.errs, Problem{File: l.file, Msg: err.Error()})
			failed[""] = true
			return failed
		}
	}
	for _, e := range les.Errors {
		m := mark{e.Mark.Line, e.Mark.Column}
		ent := ix.lookup(m, isKeyError(e.Message))
		failed[ent.path] = true
		l.errs = append(l.errs, l.problem(m, ent.path, l.decodeMsg(e, ent, ix)))
	}
	return failed
}

var (
	reUnknownField = regexp.MustCompile(`^field (.*) not found in type (\S+)$`)
	reConstruct    = regexp.MustCompile("^cannot construct (!!\\w+|\\S+)(?: `.*`)? into (\\S+)$")
	reDuplicateKey = regexp.MustCompile(`^mapping key "(.*)" already defined at line (\d+)$`)
	reAlreadySet   = regexp.MustCompile(`^field (.*) already set in type \S+$`)
)

// isKeyError reports whether a decoder message is about a key rather than a value.
func isKeyError(msg string) bool {
	return reUnknownField.MatchString(msg) || reDuplicateKey.MatchString(msg) || reAlreadySet.MatchString(msg)
}

// decodeMsg rewrites a decoder message in the file's terms: field names, not Go types.
func (l *loader) decodeMsg(e *yaml.LoadError, ent entry, ix *index) string {
	msg := e.Message
	if m := reUnknownField.FindStringSubmatch(msg); m != nil {
		name, typ := m[1], rawTypes[m[2]]
		section := parentPath(ent.path)
		if typ == reflect.TypeOf(rawParams{}) {
			if p := ix.byPath["topology.preset"]; p != nil && presetParams[p.Value] != nil {
				return paramProblem(p.Value, name)
			}
		}
		fields := fieldNames(typ)
		if typ == reflect.TypeOf(rawTraffic{}) {
			return fmt.Sprintf("unknown traffic kind %q%s (kinds: %s)", name, didYouMean(name, fields), listOf(fields))
		}
		where := "at the top level"
		if section != "" {
			where = "in " + section
		}
		if s := didYouMean(name, fields); s != "" {
			return fmt.Sprintf("unknown field %q %s%s", name, where, s)
		}
		return fmt.Sprintf("unknown field %q %s (fields: %s)", name, where, listOf(fields))
	}
	if m := reConstruct.FindStringSubmatch(msg); m != nil {
		got := m[1]
		if ent.node != nil {
			got = kindName(ent.node)
		}
		return fmt.Sprintf("want %s, got %s", describeType(m[2]), got)
	}
	if m := reDuplicateKey.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("field %q is given twice (first at line %s)", m[1], m[2])
	}
	if m := reAlreadySet.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("field %q is given twice", m[1])
	}
	return strings.TrimPrefix(msg, "yaml: ")
}

// describeType says in words what a value of the Go type named typ looks like in the file.
func describeType(typ string) string {
	typ = strings.TrimLeft(typ, "*")
	switch typ {
	case "int":
		return "a whole number"
	case "uint64":
		return "a whole number >= 0"
	case "float64":
		return "a number"
	case "bool":
		return "true or false"
	case "string":
		return "a single value (a name or word)"
	case "[]string":
		return "a list of names, e.g. [h1, h2]"
	case "[]int":
		return "a list of whole numbers, e.g. [3, 4]"
	}
	if t := rawTypes[typ]; t != nil {
		return fmt.Sprintf("a mapping (fields: %s)", listOf(fieldNames(t)))
	}
	if strings.HasPrefix(typ, "[]") {
		return "a list"
	}
	return typ
}
