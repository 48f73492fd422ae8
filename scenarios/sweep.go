package scenarios

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// MaxSweepPoints bounds a sweep: the product of its axes' value counts.
const MaxSweepPoints = 10_000

// Axis is one parameter of a sweep: a field path, as --set takes it, and its values in
// order, each a YAML value as --set takes it ("50KB", "false", "{rate: 1Gbps}").
type Axis struct {
	Path   string
	Values []string
}

// forbiddenAxes are the top-level fields a sweep may not vary: they name the file or the
// sweep itself. seeds is swept as the axis "seed".
var forbiddenAxes = []string{"version", "name", "description", "variants", "seeds", "sweep"}

// ParseGrid parses the argument of one --grid flag, "PATH=SPEC": PATH is a field path (as
// --set takes it) and SPEC its values, comma-separated, where each item is a value, an
// integer range "a..b" (a to b, both included) or "logspace(a,b,n)" / "linspace(a,b,n)" (n
// values from a to b, both included, geometrically or evenly spaced; a and b are plain
// numbers or quantities of one kind with units, e.g. logspace(1KB,1MB,4) = 1KB, 10KB,
// 100KB, 1MB; logspace's values are rounded to 3 significant digits). Commas inside
// brackets, braces or quotes do not split ("[3,4],[5]" is two values). Whether the values
// suit the field is checked by Load, against the file.
func ParseGrid(s string) (Axis, error) {
	path, spec, ok := strings.Cut(s, "=")
	if !ok {
		return Axis{}, fmt.Errorf("--grid %q: want PATH=V1,V2,..., e.g. --grid switch.ecn.kmax=50KB,100KB or --grid seed=1..10", s)
	}
	a, err := axisOf(strings.TrimSpace(path), splitTop(spec))
	if err != nil {
		return Axis{}, fmt.Errorf("--grid %q: %w", s, err)
	}
	return a, nil
}

// axisOf checks path and expands items into the axis's values.
func axisOf(path string, items []string) (Axis, error) {
	if err := checkPath(path); err != nil {
		return Axis{}, err
	}
	first, _, _ := strings.Cut(path, ".")
	if slices.Contains(forbiddenAxes, first) {
		if first == "seeds" {
			return Axis{}, fmt.Errorf("%s cannot be swept: sweep seed instead (e.g. seed=1..10); a file's seeds: become that axis", path)
		}
		return Axis{}, fmt.Errorf("%s cannot be swept; it belongs to the whole file", path)
	}
	a := Axis{Path: path}
	seen := map[string]bool{}
	for _, it := range items {
		vals, err := expandItem(it, MaxSweepPoints-len(a.Values))
		if err != nil {
			return Axis{}, err
		}
		for _, v := range vals {
			if seen[v] {
				return Axis{}, fmt.Errorf("the value %q is listed twice", v)
			}
			seen[v] = true
			a.Values = append(a.Values, v)
		}
	}
	if len(a.Values) == 0 {
		return Axis{}, fmt.Errorf("no values for %s; want e.g. %s=1,2,3", path, path)
	}
	return a, nil
}

// splitTop splits s at the commas outside brackets, braces and quotes, trimming each part.
func splitTop(s string) []string {
	var parts []string
	depth, start := 0, 0
	var quote rune
	for i, c := range s {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{' || c == '(':
			depth++
		case c == ']' || c == '}' || c == ')':
			depth--
		case c == ',' && depth == 0:
			parts = append(parts, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(parts, strings.TrimSpace(s[start:]))
}

var (
	rangeRE  = regexp.MustCompile(`^(-?[0-9]+)\s*\.\.\s*(-?[0-9]+)$`)
	spacedRE = regexp.MustCompile(`^(logspace|linspace)\((.*)\)$`)
)

// expandItem expands one item of a grid spec into at most limit values.
func expandItem(it string, limit int) ([]string, error) {
	if m := rangeRE.FindStringSubmatch(it); m != nil {
		a, errA := strconv.ParseInt(m[1], 10, 64)
		b, errB := strconv.ParseInt(m[2], 10, 64)
		switch {
		case errA != nil || errB != nil:
			return nil, fmt.Errorf("range %q: the ends are whole numbers of at most 18 digits", it)
		case a > b:
			return nil, fmt.Errorf("range %q goes down; write the smaller end first, e.g. %d..%d", it, b, a)
		case b-a >= int64(limit):
			return nil, fmt.Errorf("range %q has %d values; a sweep has at most %d points", it, uint64(b-a)+1, MaxSweepPoints)
		}
		var out []string
		for k := a; k <= b; k++ {
			out = append(out, strconv.FormatInt(k, 10))
		}
		return out, nil
	}
	if m := spacedRE.FindStringSubmatch(it); m != nil {
		return spaced(it, m[1] == "logspace", splitTop(m[2]), limit)
	}
	if strings.Contains(it, "..") && !strings.ContainsAny(it, "[{\"'") {
		return nil, fmt.Errorf("%q: a range is two whole numbers, e.g. 1..10; for other quantities use logspace(a,b,n) or linspace(a,b,n)", it)
	}
	if _, err := parseValue(it); err != nil {
		return nil, err
	}
	if strings.TrimSpace(it) == "" {
		return nil, fmt.Errorf("an empty value; values are separated by single commas, e.g. 1KB,2KB")
	}
	return []string{it}, nil
}

// spacedKind is the kind of quantity a logspace or linspace runs over.
type spacedKind struct {
	q     *quantity // nil: plain numbers
	units []unit    // the units a value is written in, smallest first
}

// binarySizes are the units of a logspace or linspace of sizes whose ends are written in
// KiB, MiB or GiB; other sizes take the decimal ones.
var binarySizes = []unit{{"B", 1}, {"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}}

var spacedKinds = []spacedKind{
	{&sizeQ, []unit{{"B", 1}, {"KB", 1000}, {"MB", 1000_000}, {"GB", 1000_000_000}}},
	{&rateQ, []unit{{"bps", 1}, {"Kbps", 1e3}, {"Mbps", 1e6}, {"Gbps", 1e9}, {"Tbps", 1e12}}},
	{&durationQ, []unit{{"ps", 1}, {"ns", 1e3}, {"us", 1e6}, {"ms", 1e9}, {"s", 1e12}}},
}

// spaced expands logspace(a,b,n) or linspace(a,b,n).
func spaced(it string, log bool, args []string, limit int) ([]string, error) {
	name := "linspace"
	if log {
		name = "logspace"
	}
	if len(args) != 3 {
		return nil, fmt.Errorf("%q: want %s(a,b,n), e.g. %s(1KB,1MB,4)", it, name, name)
	}
	n, err := strconv.Atoi(args[2])
	if err != nil || n < 2 || n > limit {
		return nil, fmt.Errorf("%q: n is the number of values, 2 to %d", it, min(limit, MaxSweepPoints))
	}
	// The kind: plain numbers, or the quantity both ends parse as.
	var kind spacedKind
	lo, errLo := strconv.ParseFloat(args[0], 64)
	hi, errHi := strconv.ParseFloat(args[1], 64)
	if errLo != nil || errHi != nil {
		found := false
		for _, k := range spacedKinds {
			a, errA := k.q.parse(args[0])
			b, errB := k.q.parse(args[1])
			if errA == nil && errB == nil {
				kind, lo, hi, found = k, float64(a), float64(b), true
				if k.q == &sizeQ && strings.Contains(args[0]+args[1], "iB") {
					kind.units = binarySizes
				}
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("%q: a and b are plain numbers, or both sizes, rates or durations with units, e.g. %s(1KB,1MB,4)", it, name)
		}
	}
	if math.IsInf(lo, 0) || math.IsNaN(lo) || math.IsInf(hi, 0) || math.IsNaN(hi) {
		return nil, fmt.Errorf("%q: a and b are finite numbers", it)
	}
	if log && (lo <= 0 || hi <= 0) {
		return nil, fmt.Errorf("%q: logspace's ends are above 0", it)
	}
	var out []string
	seen := map[string]bool{}
	for k := range n {
		t := float64(k) / float64(n-1)
		x := lo + t*(hi-lo)
		digits := 12
		if log {
			x = lo * math.Pow(hi/lo, t)
			digits = 3
		}
		var s string
		switch k {
		case 0:
			s = args[0] // the ends as written
		case n - 1:
			s = args[1]
		default:
			s = formatSpaced(x, kind, digits)
		}
		if seen[s] {
			return nil, fmt.Errorf("%q: its values repeat once rounded (%s); ask for fewer", it, s)
		}
		seen[s] = true
		out = append(out, s)
	}
	return out, nil
}

// formatSpaced writes x rounded to digits significant digits: a plain number, or a quantity
// in the largest unit not above it, rounded there (or, when that is not a whole number of
// base units, as a whole number of base units).
func formatSpaced(x float64, kind spacedKind, digits int) string {
	round := func(y float64) string {
		y, _ = strconv.ParseFloat(strconv.FormatFloat(y, 'g', digits, 64), 64)
		return strconv.FormatFloat(y, 'f', -1, 64)
	}
	if kind.q == nil {
		return round(x)
	}
	best := kind.units[0]
	for _, u := range kind.units {
		if x >= float64(u.mult) {
			best = u
		}
	}
	if s := round(x/float64(best.mult)) + best.name; validQuantity(kind.q, s) {
		return s
	}
	return strconv.FormatFloat(math.Round(x), 'f', -1, 64) + kind.units[0].name
}

func validQuantity(q *quantity, s string) bool {
	_, err := q.parse(s)
	return err == nil
}

// sweepAxes reads the file's sweep block: a mapping of field paths to a list of values (each
// item expanded as a --grid item is) or to a string in --grid's syntax.
func (r *resolver) sweepAxes(n *yaml.Node) []Axis {
	// A null decoded into a node field keeps no tag: tell it by its plain text.
	plainNull := n.Kind == yaml.ScalarNode && n.Style == 0 && slices.Contains([]string{"null", "Null", "NULL", "~", ""}, n.Value)
	if n.Kind == 0 || isNull(n) || plainNull {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		r.errf("sweep", "sweep is a mapping of field paths to their values, e.g. sweep: {switch.ecn.kmax: [50KB, 100KB], seed: 1..5}, not %s", kindName(n))
		return nil
	}
	var axes []Axis
	total := 1
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		path := "sweep." + k.Value
		var items []string
		switch v.Kind {
		case yaml.SequenceNode:
			for _, it := range v.Content {
				items = append(items, flowText(it))
			}
		case yaml.ScalarNode:
			items = splitTop(v.Value)
		default:
			r.errf(path, "want a list of values, e.g. [50KB, 100KB], or a range such as 1..10 or logspace(1KB,1MB,4); got %s", kindName(v))
			continue
		}
		a, err := axisOf(k.Value, items)
		if err != nil {
			r.errf(path, "%v", err)
			continue
		}
		if slices.ContainsFunc(axes, func(b Axis) bool { return b.Path == a.Path }) {
			r.errf(path, "%s is swept twice", a.Path)
			continue
		}
		total *= len(a.Values)
		if total > MaxSweepPoints {
			r.errf(path, "the sweep has more than %d points; sweep fewer values", MaxSweepPoints)
			return nil
		}
		axes = append(axes, a)
	}
	return axes
}

// flowText is a node as one line of YAML: a scalar's text, else the node in flow style.
func flowText(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	c := copyTree(n)
	setFlow(c, 0)
	out, err := yaml.Dump(c)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func setFlow(n *yaml.Node, depth int) {
	if depth > maxDepth {
		return
	}
	n.Style |= yaml.FlowStyle
	for _, c := range n.Content {
		setFlow(c, depth+1)
	}
}
