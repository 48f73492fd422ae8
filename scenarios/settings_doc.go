package scenarios

import (
	"reflect"
	"strings"

	"github.com/fabricsim/fabricsim/ecn"
)

// settingsRoots are the settings blocks of a file, in the order the documentation lists them.
var settingsRoots = []struct {
	path string
	typ  reflect.Type
}{
	{"switch", reflect.TypeFor[SwitchConfig]()},
	{"hosts", reflect.TypeFor[HostConfig]()},
	{"transports", reflect.TypeFor[Transports]()},
}

// modeDefaults are the defaults a block takes from a mode rather than from its tags, by
// target type, as the documentation shows them.
func modeDefaults(t reflect.Type) (names []string, values []reflect.Value) {
	if t != reflect.TypeFor[ecn.Params]() {
		return nil, nil
	}
	for _, m := range dcqcnModes {
		names = append(names, m.name)
		values = append(values, reflect.ValueOf(m.params()))
	}
	return names, values
}

// The layout of the settings table: the key column's width and the text's.
const (
	docKeyWidth  = 30
	docTextWidth = 62
)

// settingsDoc renders the settings table of the package documentation, as comment lines:
// for each setting its path, its default, its limits and its doc line.
func settingsDoc() string {
	var b strings.Builder
	for _, r := range settingsRoots {
		docBlock(&b, blockOf(r.typ), r.path)
	}
	return b.String()
}

func docBlock(b *strings.Builder, blk *block, path string) {
	modes, values := modeDefaults(blk.target)
	for _, s := range blk.settings {
		p := path + "." + s.key
		doc := s.tag.Get("doc")
		if s.sub != nil {
			if doc != "" {
				docRow(b, p, doc)
			} else {
				docBlock(b, s.sub, p)
			}
			continue
		}
		def := s.tag.Get("default")
		switch {
		case s.tag.Get("derived") != "":
			def = s.tag.Get("derived")
		case def == "" && modes != nil:
			var parts []string
			for i, m := range modes {
				parts = append(parts, m+" "+s.format(values[i].FieldByName(s.name)))
			}
			def = strings.Join(parts, ", ")
		case def == "":
			def = "none"
		}
		if l := s.limits(); l != "" {
			def += " (" + l + ")"
		}
		docRow(b, p, def+": "+doc)
	}
}

// docRow writes one row of the table, its text wrapped under the text column.
func docRow(b *strings.Builder, key, text string) {
	indent := strings.Repeat(" ", docKeyWidth)
	line := "//\t" + key + strings.Repeat(" ", max(docKeyWidth-len(key), 1))
	width := docTextWidth
	if len(key) >= docKeyWidth {
		width -= len(key) + 1 - docKeyWidth
	}
	n := 0
	for _, w := range strings.Fields(text) {
		if n > 0 && n+1+len(w) > width {
			b.WriteString(line + "\n")
			line, n, width = "//\t"+indent, 0, docTextWidth
		}
		if n > 0 {
			line += " "
			n++
		}
		line += w
		n += len(w)
	}
	b.WriteString(line + "\n")
}
