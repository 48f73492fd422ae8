package main

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/fabricsim/fabricsim/results"
)

// maxDifferences is how many differing fields of the two resolved scenarios compare lists;
// the rest are counted.
const maxDifferences = 20

// comparisonNotes says what a reader of a comparison must know beyond its numbers: that the
// runs were made by different versions, and how the scenarios they ran differ, field by
// field (their resolved scenarios: after --set and the variant's set), or that they are
// the same.
func comparisonNotes(a, b *results.Document) []string {
	var notes []string
	if a.Version != b.Version {
		notes = append(notes, fmt.Sprintf("versions differ: a was made by %s, b by %s; a change in the results may be the simulator's", a.Version, b.Version))
	}
	if a.ResolvedScenario == "" || b.ResolvedScenario == "" {
		return append(notes, "a run without its resolved scenario (made by an older fabricsim): what each ran cannot be compared")
	}
	fa, errA := flattenYAML(a.ResolvedScenario)
	fb, errB := flattenYAML(b.ResolvedScenario)
	if errA != nil || errB != nil {
		return append(notes, "a resolved scenario does not parse: what each ran cannot be compared")
	}
	var diffs []string
	for _, path := range unionKeys(fa, fb) {
		va, inA := fa[path]
		vb, inB := fb[path]
		switch {
		case !inA:
			diffs = append(diffs, fmt.Sprintf("%s: not set in a (its default), %s in b", path, vb))
		case !inB:
			diffs = append(diffs, fmt.Sprintf("%s: %s in a, not set in b (its default)", path, va))
		case va != vb:
			diffs = append(diffs, fmt.Sprintf("%s: %s in a, %s in b", path, va, vb))
		}
	}
	switch {
	case len(diffs) == 0:
		notes = append(notes, "the two runs' resolved scenarios are the same")
	default:
		head := fmt.Sprintf("the scenarios differ in %d field(s):", len(diffs))
		if len(diffs) > maxDifferences {
			diffs = append(diffs[:maxDifferences], fmt.Sprintf("... and %d more", len(diffs)-maxDifferences))
		}
		notes = append(notes, head+"\n  "+strings.Join(diffs, "\n  "))
	}
	return notes
}

// flattenYAML maps each scalar of a YAML document to its path (traffic.0.flow.size), with
// its value as written.
func flattenYAML(text string) (map[string]string, error) {
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(text), &root); err != nil {
		return nil, err
	}
	out := map[string]string{}
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, path)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], join(path, n.Content[i].Value))
			}
		case yaml.SequenceNode:
			if len(n.Content) == 0 {
				out[path] = "[]"
			}
			for i, c := range n.Content {
				walk(c, join(path, fmt.Sprint(i)))
			}
		case yaml.ScalarNode:
			out[path] = n.Value
		case yaml.AliasNode:
			walk(n.Alias, path)
		}
	}
	walk(&root, "")
	return out, nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// unionKeys is the keys of a and b, sorted.
func unionKeys(a, b map[string]string) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
