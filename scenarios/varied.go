package scenarios

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// Setting is one entry of a variant's set: the field path and the value, as written (a
// value that is no single scalar, a list or a mapping, is NotScalar).
type Setting struct {
	Path, Value string
	NotScalar   bool
}

func settingsOf(entries []setEntry) []Setting {
	out := make([]Setting, 0, len(entries))
	for _, e := range entries {
		s := Setting{Path: e.path}
		if e.value != nil && e.value.Kind == yaml.ScalarNode {
			s.Value = e.value.Value
		} else {
			s.NotScalar = true
		}
		out = append(out, s)
	}
	return out
}

// VariantSets returns variant i's set entries in file order (none for a file without
// variants, or i out of range).
func (f *File) VariantSets(i int) []Setting {
	if i < 0 || i >= len(f.sets) {
		return nil
	}
	return append([]Setting(nil), f.sets[i]...)
}

// ParseQuantities reads values as numbers of one kind: all plain numbers (unit ""), or all
// sizes (unit "bytes"), rates ("Gb/s") or durations ("us"), each in that unit; ok is false
// when no one kind reads them all as finite numbers.
func ParseQuantities(values []string) (xs []float64, unit string, ok bool) {
	kinds := []struct {
		unit  string
		parse func(string) (float64, error)
	}{
		{"", func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }},
		{"bytes", func(s string) (float64, error) { n, err := ParseSize(s); return float64(n), err }},
		{"Gb/s", func(s string) (float64, error) { r, err := ParseRate(s); return float64(r) / 1e9, err }},
		{"us", func(s string) (float64, error) { t, err := ParseDuration(s); return t.Microseconds(), err }},
	}
	for _, k := range kinds {
		xs = make([]float64, len(values))
		ok = true
		for i, v := range values {
			x, err := k.parse(v)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				ok = false
				break
			}
			xs[i] = x
		}
		if ok {
			return xs, k.unit, true
		}
	}
	return nil, "", false
}

// ParameterAxis is the one numeric parameter a file's variants vary (VariedParameter): its
// set path, the unit its values are read in (as ParseQuantities), and the variants on it.
type ParameterAxis struct {
	Path   string
	Unit   string
	Points []AxisPoint
}

// AxisPoint is one variant on a ParameterAxis: its name, the series it belongs to (its
// transport and the rest of its set, the same for every variant of the series), and its
// value of the parameter, as written and as a number.
type AxisPoint struct {
	Variant, Series string
	Value           string
	X               float64
}

// VariedParameter finds the parameter the variants vary: a set path whose values, in the
// variants that set it, all read as numbers of one kind (ParseQuantities), grouping those
// variants into series by everything else that tells them apart (the transport and the
// other set entries). Only series with two values or more count; of all set paths, the one
// with the most variants in such series is the axis (the first in file order on a tie),
// and ok is false when no path has a series. lossy-link's is faults.0.loss, one series per
// transport and recovery or timeout setting. A variant that sets the path twice, or with
// the same value as another variant of its series, is left off the axis.
func (f *File) VariedParameter() (axis ParameterAxis, ok bool) {
	var paths []string
	seen := map[string]bool{}
	for _, sets := range f.sets {
		for _, s := range sets {
			if !seen[s.Path] {
				seen[s.Path] = true
				paths = append(paths, s.Path)
			}
		}
	}
	short := map[string]int{} // how many paths end in each last segment
	for _, p := range paths {
		short[lastSegment(p)]++
	}
	name := func(p string) string {
		if short[lastSegment(p)] > 1 {
			return p
		}
		return lastSegment(p)
	}
	for _, p := range paths {
		a, n := f.axisOf(p, name)
		if n > len(axis.Points) || (n == len(axis.Points) && !ok && n > 0) {
			axis, ok = a, n > 0
		}
	}
	return axis, ok
}

// axisOf is path p as an axis, and the number of its points (0: not an axis); name is how
// a series' label names another set path.
func (f *File) axisOf(p string, name func(string) string) (ParameterAxis, int) {
	var pts []AxisPoint
	var values []string
	for i, sets := range f.sets {
		value, count, series := "", 0, []string{}
		for _, s := range sets {
			switch {
			case s.Path == p && !s.NotScalar:
				value = s.Value
				count++
			case s.Path == p:
				count = 2 // a list or mapping: not a point
			default:
				series = append(series, name(s.Path)+"="+s.Value)
			}
		}
		if count != 1 {
			continue
		}
		sort.Strings(series)
		label := f.variants[i].Transport
		if label == "" && len(series) == 0 {
			label = "default"
		}
		if len(series) > 0 {
			if label != "" {
				label += ", "
			}
			label += strings.Join(series, ", ")
		}
		pts = append(pts, AxisPoint{Variant: f.variants[i].Name, Series: label, Value: value})
		values = append(values, value)
	}
	xs, unit, ok := ParseQuantities(values)
	if !ok {
		return ParameterAxis{}, 0
	}
	distinct := map[string]map[float64]bool{}
	for k := range pts {
		pts[k].X = xs[k]
		if distinct[pts[k].Series] == nil {
			distinct[pts[k].Series] = map[float64]bool{}
		}
		distinct[pts[k].Series][xs[k]] = false
	}
	var kept []AxisPoint
	for _, pt := range pts {
		d := distinct[pt.Series]
		if len(d) < 2 || d[pt.X] {
			continue // a series of one value, or a value its series already has
		}
		d[pt.X] = true
		kept = append(kept, pt)
	}
	return ParameterAxis{Path: p, Unit: unit, Points: kept}, len(kept)
}

// lastSegment is a field path's last part: "retransmit_timeout" of
// "transports.rocev2.retransmit_timeout".
func lastSegment(path string) string { return path[strings.LastIndexByte(path, '.')+1:] }
