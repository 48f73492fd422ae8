package scenarios

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// The scenario is kept as a *yaml.Node tree until it is decoded, so that --set overrides and
// variant sets can be applied as edits of the tree and every value keeps the line and column
// it was written at. Nodes made from a --set flag carry a negative line, -(i+1) for the i-th
// flag, and their column in the "PATH=VALUE" argument; problems at such a position are
// reported against OverrideFile.

// mark is a position in the tree's coordinates (lines may be negative, see above).
type mark struct{ line, col int }

func markOf(n *yaml.Node) mark { return mark{n.Line, n.Column} }

// entry is what the index knows about a position: the field path there and its value node.
type entry struct {
	path string
	node *yaml.Node // the value at path
}

// index maps positions to paths and paths to nodes, for one tree. A block mapping starts at
// its first key, so keys and values are indexed apart.
type index struct {
	values   map[mark]entry // value positions
	keyMarks map[mark]entry // key positions
	byPath   map[string]*yaml.Node
	keys     map[string]*yaml.Node // path -> its key node
}

// maxDepth bounds how deep the walks of the tree go; scenario files are a few levels deep.
const maxDepth = 64

func joinPath(parent, seg string) string {
	if parent == "" {
		return seg
	}
	return parent + "." + seg
}

// parentPath returns the path without its last segment.
func parentPath(p string) string {
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i]
	}
	return ""
}

// buildIndex indexes the tree under root (a mapping). The values of variants.N.set are not
// indexed: their nodes are copied into the tree where they apply, and that is the path a
// problem with them must name.
func buildIndex(root *yaml.Node) *index {
	ix := &index{values: map[mark]entry{}, keyMarks: map[mark]entry{},
		byPath: map[string]*yaml.Node{}, keys: map[string]*yaml.Node{}}
	add(ix.values, "", root)
	ix.walk(root, "", 0)
	return ix
}

// add records path at n's position unless a node met earlier holds it (nodes created by a
// set path share their key's position).
func add(m map[mark]entry, path string, n *yaml.Node) {
	if _, ok := m[markOf(n)]; !ok {
		m[markOf(n)] = entry{path: path, node: n}
	}
}

// lookup returns what is at m: a key when key is true and one is there, else a value.
func (ix *index) lookup(m mark, key bool) entry {
	if key {
		if e, ok := ix.keyMarks[m]; ok {
			return e
		}
	}
	if e, ok := ix.values[m]; ok {
		return e
	}
	return ix.keyMarks[m]
}

func (ix *index) walk(n *yaml.Node, path string, depth int) {
	if depth > maxDepth {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := joinPath(path, k.Value)
			if _, dup := ix.byPath[p]; !dup {
				ix.byPath[p] = v
				ix.keys[p] = k
			}
			add(ix.values, p, v)
			add(ix.keyMarks, p, k)
			if isVariantSet(p) {
				continue
			}
			ix.walk(v, p, depth+1)
		}
	case yaml.SequenceNode:
		for i, v := range n.Content {
			p := joinPath(path, strconv.Itoa(i))
			ix.byPath[p] = v
			add(ix.values, p, v)
			ix.walk(v, p, depth+1)
		}
	}
}

// isVariantSet reports whether p is "variants.N.set".
func isVariantSet(p string) bool {
	rest, ok := strings.CutPrefix(p, "variants.")
	if !ok {
		return false
	}
	num, tail, ok := strings.Cut(rest, ".")
	_, err := strconv.Atoi(num)
	return ok && err == nil && tail == "set"
}

// at returns the position and path for a problem about path p: the position of p's value if
// the tree has it, else of its nearest ancestor that it has (a missing field is reported at
// the mapping that lacks it).
func (ix *index) at(p string) mark {
	for q := p; ; q = parentPath(q) {
		if n, ok := ix.byPath[q]; ok {
			return markOf(n)
		}
		if q == "" {
			return mark{}
		}
	}
}

// keyAt returns the position of p's key if the tree has it, else as at.
func (ix *index) keyAt(p string) mark {
	if k, ok := ix.keys[p]; ok {
		return markOf(k)
	}
	return ix.at(p)
}

// has reports whether the tree sets path p.
func (ix *index) has(p string) bool {
	_, ok := ix.byPath[p]
	return ok
}

// copyTree returns a deep copy of n.
func copyTree(n *yaml.Node) *yaml.Node {
	c := *n
	if n.Content != nil {
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, ch := range n.Content {
			c.Content[i] = copyTree(ch)
		}
	}
	return &c
}

// mapValue returns the value of key in mapping m, or nil.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Kind == yaml.ScalarNode && m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// isNull reports whether n is an empty or null scalar (`key:` with nothing after it).
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// present reports whether a field kept as a node was given a value other than null.
func present(n *yaml.Node) bool { return n.Kind != 0 && !isNull(n) }

// checkPlain reports the YAML features the scenario format does not accept: aliases (and so
// merge keys), and nesting deeper than maxDepth. Anchors alone are harmless and allowed.
func checkPlain(n *yaml.Node, depth int, report func(n *yaml.Node, msg string)) {
	if depth > maxDepth {
		report(n, "the file nests too deeply")
		return
	}
	switch n.Kind {
	case yaml.AliasNode:
		report(n, "YAML aliases (*name) are not supported in scenario files; write the value out")
		return
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Kind == yaml.ScalarNode && k.Value == "<<" && k.Style == 0 {
				report(k, "YAML merge keys (<<) are not supported in scenario files; write the fields out")
			}
		}
	}
	for _, c := range n.Content {
		checkPlain(c, depth+1, report)
	}
}
