package scenarios

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// Override is one --set PATH=VALUE flag: Path is a field path of the scenario file (dotted
// field names, list items by index from 0, e.g. "traffic.1.flow.size") and Value is parsed as
// a YAML value ("4MB", "false", "[3,4]", "{rate: 100Gbps, delay: 1us}").
type Override struct{ Path, Value string }

// String returns the flag as the user wrote it, PATH=VALUE.
func (o Override) String() string { return o.Path + "=" + o.Value }

// ParseOverride parses the argument of one --set flag, "PATH=VALUE". It checks the path's
// syntax and that the value is valid YAML; whether the path names a field is checked by Load,
// against the file.
func ParseOverride(s string) (Override, error) {
	path, value, ok := strings.Cut(s, "=")
	if !ok {
		return Override{}, fmt.Errorf("--set %q: want PATH=VALUE, e.g. --set switch.buffer=4MB", s)
	}
	o := Override{Path: strings.TrimSpace(path), Value: value}
	if err := checkPath(o.Path); err != nil {
		return Override{}, fmt.Errorf("--set %q: %w", s, err)
	}
	if _, err := parseValue(o.Value); err != nil {
		return Override{}, fmt.Errorf("--set %q: %w", s, err)
	}
	return o, nil
}

// checkPath checks the syntax of a field path: non-empty segments separated by dots.
func checkPath(p string) error {
	if p == "" {
		return errors.New("empty path; want a field path such as switch.pfc.enabled")
	}
	for _, seg := range strings.Split(p, ".") {
		if seg == "" {
			return fmt.Errorf("path %q has an empty segment; segments are field names or list indexes separated by single dots", p)
		}
		for _, c := range seg {
			if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				return fmt.Errorf("path %q: %q is not a field name or list index", p, seg)
			}
		}
	}
	return nil
}

// parseValue parses the VALUE of an override as one YAML value. An empty value is the empty
// string.
func parseValue(v string) (*yaml.Node, error) {
	if strings.TrimSpace(v) == "" {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "", Line: 1, Column: 1}, nil
	}
	var doc yaml.Node
	if err := yaml.Load([]byte(v), &doc); err != nil {
		msg := err.Error()
		var le *yaml.LoadError
		if errors.As(err, &le) {
			msg = le.Message
		}
		return nil, fmt.Errorf("the value %q is not valid YAML: %s", v, msg)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, fmt.Errorf("the value %q is not one YAML value", v)
	}
	var bad error
	checkPlain(doc.Content[0], 0, func(_ *yaml.Node, msg string) {
		if bad == nil {
			bad = fmt.Errorf("the value %q: %s", v, msg)
		}
	})
	if bad != nil {
		return nil, bad
	}
	return doc.Content[0], nil
}

// pathSeg is one segment of a set path, with the position its created key node gets.
type pathSeg struct {
	name string
	at   mark
}

// segments splits p into segments positioned from start: each segment's column is start's
// column plus its offset in p.
func segments(p string, start mark) []pathSeg {
	var segs []pathSeg
	off := 0
	for _, s := range strings.Split(p, ".") {
		segs = append(segs, pathSeg{name: s, at: mark{start.line, start.col + off}})
		off += len(s) + 1
	}
	return segs
}

// shiftMarks moves every node of n to line and shifts its column by dcol: the position a
// --set value's nodes get (see tree.go).
func shiftMarks(n *yaml.Node, line, dcol, depth int) {
	if depth > maxDepth {
		return
	}
	n.Line = line
	n.Column += dcol
	for _, c := range n.Content {
		shiftMarks(c, line, dcol, depth+1)
	}
}

func isIndex(s string) bool {
	i, err := strconv.Atoi(s)
	return err == nil && i >= 0 && strconv.Itoa(i) == s
}

// applyPath sets the field at segs in the tree under root (a mapping) to a copy of value,
// creating missing mapping keys on the way (an empty value on the way becomes a mapping).
// Lists are addressed by index and never grown. It returns "" or what stopped it.
func applyPath(root *yaml.Node, segs []pathSeg, value *yaml.Node) string {
	cur := root
	where := "the file"
	for i, s := range segs {
		last := i == len(segs)-1
		var next *yaml.Node
		switch cur.Kind {
		case yaml.MappingNode:
			j := -1
			for k := 0; k+1 < len(cur.Content); k += 2 {
				if cur.Content[k].Kind == yaml.ScalarNode && cur.Content[k].Value == s.name {
					j = k
				}
			}
			if j < 0 {
				if !last && isIndex(segs[i+1].name) {
					return fmt.Sprintf("%s has no list %q to take item %s of", where, s.name, segs[i+1].name)
				}
				key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s.name, Line: s.at.line, Column: s.at.col}
				if last {
					cur.Content = append(cur.Content, key, copyTree(value))
					return ""
				}
				next = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: s.at.line, Column: s.at.col}
				cur.Content = append(cur.Content, key, next)
			} else {
				if last {
					cur.Content[j+1] = copyTree(value)
					return ""
				}
				next = cur.Content[j+1]
				if isNull(next) {
					if isIndex(segs[i+1].name) {
						return fmt.Sprintf("%s is empty; it has no item %s", joinSegs(segs[:i+1]), segs[i+1].name)
					}
					next = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: next.Line, Column: next.Column}
					cur.Content[j+1] = next
				}
			}
		case yaml.SequenceNode:
			if !isIndex(s.name) {
				return fmt.Sprintf("%s is a list: address its items by index from 0, not %q", where, s.name)
			}
			idx, _ := strconv.Atoi(s.name)
			if n := len(cur.Content); idx >= n {
				return fmt.Sprintf("%s has %d items (indexes from 0); there is no item %d", where, n, idx)
			}
			if last {
				cur.Content[idx] = copyTree(value)
				return ""
			}
			next = cur.Content[idx]
			if isNull(next) {
				next = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: next.Line, Column: next.Column}
				cur.Content[idx] = next
			}
		default:
			return fmt.Sprintf("%s is a single value, not a mapping; it has no field %q", where, s.name)
		}
		cur = next
		where = joinSegs(segs[:i+1])
	}
	return ""
}

func joinSegs(segs []pathSeg) string {
	names := make([]string, len(segs))
	for i, s := range segs {
		names[i] = s.name
	}
	return strings.Join(names, ".")
}
