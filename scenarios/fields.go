package scenarios

import (
	"reflect"
	"strings"

	"go.yaml.in/yaml/v4"
)

// FieldPaths lists every field of the scenario file format, as paths in file order: list
// items are written [] ("traffic[].poisson.load"); a node's own switch and hosts blocks take
// the same fields as the global ones and are listed once, as "topology.nodes[].switch" and
// "topology.nodes[].hosts". The list comes from the loader's own declarations, so a
// reference built from it cannot drift from what the loader reads.
func FieldPaths() []string {
	var out []string
	rawPaths(reflect.TypeFor[rawFile](), "", &out)
	return out
}

// rawPaths appends the paths of struct type t (a raw record of the file) under prefix.
func rawPaths(t reflect.Type, prefix string, out *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if key == "" || key == "-" {
			continue
		}
		path := key
		if prefix != "" {
			path = prefix + "." + key
		}
		ft := f.Type
		list := ""
		for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
			if ft.Kind() == reflect.Slice {
				list = "[]"
			}
			ft = ft.Elem()
		}
		switch {
		case ft == reflect.TypeFor[yaml.Node]() && prefix == "":
			// A settings block: its declared settings.
			for _, r := range settingsRoots {
				if r.path == key {
					*out = append(*out, key)
					settingPaths(blockOf(r.typ), key, out)
				}
			}
			if key == "variants" || key == "sweep" {
				*out = append(*out, path+list)
			}
		case ft.Kind() == reflect.Struct && rawTypes[ft.String()] != nil:
			*out = append(*out, path+list)
			rawPaths(ft, path+list, out)
		default:
			*out = append(*out, path+list)
		}
	}
}

// settingPaths appends the settings of block b under prefix.
func settingPaths(b *block, prefix string, out *[]string) {
	for _, s := range b.settings {
		p := prefix + "." + s.key
		*out = append(*out, p)
		if s.sub != nil {
			settingPaths(s.sub, p, out)
		}
	}
}
