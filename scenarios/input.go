package scenarios

import (
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"
)

// badByte finds the first byte of data that a YAML scenario cannot hold: invalid UTF-8, or a
// control character other than tab, line feed and carriage return. It returns its 1-based
// line and column (in characters) and what it is, or ok when there is none. The parser's own
// messages for these carry no position.
func badByte(data []byte) (line, col int, what string, ok bool) {
	line, col = 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return line, col, fmt.Sprintf("byte 0x%02x is not UTF-8: a scenario file is UTF-8 text", data[i]), true
		case r == '\n':
			line, col = line+1, 0
		case r == 0xFEFF && i == 0:
			col-- // a byte-order mark takes no column
		case r < 0x20 && r != '\t' && r != '\r', r == 0x7f:
			return line, col, fmt.Sprintf("control character 0x%02x: a scenario file is text", r), true
		}
		i += size
		col++
	}
	return 0, 0, "", false
}

// unprintable finds the first character of s that a terminal, summary.md or report.html
// would not show as itself: a control character (ESC, BEL, ...: a YAML double-quoted
// string can hold any, as "\e"), a bidirectional override or another format character
// (U+202E turns the text after it around), or anything else unicode.IsPrint refuses. Tab,
// line feed and carriage return pass where lines is set (a description of several lines).
func unprintable(s string, lines bool) (rune, bool) {
	for _, c := range s {
		if lines && (c == '\t' || c == '\n' || c == '\r') {
			continue
		}
		if !unicode.IsPrint(c) {
			return c, true
		}
	}
	return 0, false
}

// dropDuplicateKeys removes, from every mapping under n (at path), each key given a second
// time, reporting it, so that the rest of the mapping still decodes and is checked: a
// duplicate key is one problem, not a mapping lost.
func dropDuplicateKeys(n *yaml.Node, path string, depth int, report func(k *yaml.Node, path, msg string)) {
	if n == nil || depth > maxDepth {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		first := map[string]*yaml.Node{}
		kept := n.Content[:0]
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode {
				if f, dup := first[k.Value]; dup {
					report(k, joinPath(path, k.Value), fmt.Sprintf("field %q is given twice (first at line %d); remove one", k.Value, f.Line))
					continue
				}
				first[k.Value] = k
			}
			kept = append(kept, k, v)
			dropDuplicateKeys(v, joinPath(path, k.Value), depth+1, report)
		}
		n.Content = kept
	case yaml.SequenceNode, yaml.DocumentNode:
		for i, c := range n.Content {
			dropDuplicateKeys(c, joinPath(path, strconv.Itoa(i)), depth+1, report)
		}
	}
}
