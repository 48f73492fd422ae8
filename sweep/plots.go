package sweep

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/scenarios"
)

// maxCurves bounds the curves of one plot; the caption says how many were left out.
const maxCurves = 10

// figures are the sweep's plots: each table metric, and each collective's (jobKeys,
// results.JobMetricKey), against each swept parameter but seed,
// one curve per variant (and per value of the other parameters, if any), each point the
// seeds' mean with its 95% interval as an error bar. Named METRIC-vs-PARAMETER (the
// parameter's path as a file-name part), in metric order, then parameter order. A metric
// that is the same at every point of every curve, with no interval (a count that stayed 0,
// say), is not drawn: flat lists it, as "METRIC (VALUE at every point)".
func figures(m *Manifest, jobKeys []string) ([]*results.Figure, []string, error) {
	var figs []*results.Figure
	var flat []string
	flatSeen := map[string]bool{}
	for pi, p := range m.Parameters {
		if p.Path == seedParam {
			continue
		}
		x := xAxisOf(p)
		for _, name := range metricNames(jobKeys) {
			curves, labels := curvesOf(m, pi, x, name)
			if len(curves) == 0 {
				continue
			}
			if v, ok := results.FlatValue(curves); ok {
				if !flatSeen[name] {
					flatSeen[name] = true
					flat = append(flat, fmt.Sprintf("%s (%s at every point)", name, strconv.FormatFloat(v, 'f', -1, 64)))
				}
				continue
			}
			caption := fmt.Sprintf("%s against %s, one curve per %s: each point is the mean over the seeds", name, p.Path, strings.Join(labels, " and "))
			if n := seedCount(m); n > 1 {
				caption += fmt.Sprintf(" (%d seeds), with its 95%% confidence interval (Student's t) as the error bar", n)
			} else {
				caption += " (one seed: no interval; sweep seed for one)"
			}
			if len(curves) > maxCurves {
				caption += fmt.Sprintf("; the first %d of %d curves are drawn", maxCurves, len(curves))
				curves = curves[:maxCurves]
			}
			caption += "."
			f, err := results.NewErrorFigure(fileStem(name)+"-vs-"+results.Slug(p.Path), m.Scenario+": "+name+" against "+p.Path,
				caption, x.axis, results.MetricLabel(name, ""), curves)
			if err != nil {
				return nil, nil, err
			}
			figs = append(figs, f)
		}
	}
	return figs, flat, nil
}

// fileStem is metric name as a file-name part: a table metric as it is (goodput_gbps), a
// collective's (collective.LABEL.busbw_gbps) with its label slugged (results.Slug), for a
// label may hold any printable character.
func fileStem(name string) string {
	rest, ok := strings.CutPrefix(name, "collective.")
	if !ok {
		return name
	}
	dot := strings.LastIndexByte(rest, '.')
	return "collective-" + results.Slug(rest[:dot]) + "-" + rest[dot+1:]
}

// seedCount is the number of seeds each combination ran under (the seed axis's values).
func seedCount(m *Manifest) int {
	for _, p := range m.Parameters {
		if p.Path == seedParam {
			return len(p.Values)
		}
	}
	return 1
}

// xAxis places a parameter's values on a plot's x axis.
type xAxis struct {
	axis results.XAxis
	pos  []float64 // the x of each value
}

// xAxisOf reads a parameter's values as numbers when all are plain numbers, or all sizes
// (bytes), rates (Gb/s) or durations (us), on a log2 scale when each is twice the one
// before, on a log scale when they are positive and span two decades or more; otherwise the values are categories at 0, 1, ...
func xAxisOf(p Parameter) xAxis {
	if pos, unit, ok := scenarios.ParseQuantities(p.Values); ok {
		label := results.MetricLabel(p.Path, unit)
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, x := range pos {
			lo, hi = min(lo, x), max(hi, x)
		}
		sorted := append([]float64(nil), pos...)
		sort.Float64s(sorted)
		log := lo > 0 && hi/lo >= 100
		switch {
		case results.Doubling(sorted):
			log = true
			label += ", log2 scale"
		case log:
			label += ", log scale"
		}
		return xAxis{results.XAxis{Label: label, LogX: log, TickAt: pos, TickLabels: p.Values}, pos}
	}
	pos := make([]float64, len(p.Values))
	for i := range pos {
		pos[i] = float64(i)
	}
	return xAxis{results.XAxis{Label: results.MetricLabel(p.Path, "setting"), XLabels: p.Values}, pos}
}

// curvesOf builds the curves of metric against parameter pi from the summary: one per
// variant and combination of the other parameters (but seed), its points in the
// parameter's value order. labels says what the curves are per.
func curvesOf(m *Manifest, pi int, x xAxis, metric string) (curves []results.ErrorCurve, labels []string) {
	param := m.Parameters[pi].Path
	labels = []string{"variant"}
	for _, p := range m.Parameters {
		if p.Path != seedParam && p.Path != param {
			labels = append(labels, p.Path)
		}
	}
	index := map[string]int{}
	for _, s := range m.Summary {
		label := s.Variant
		for _, p := range m.Parameters {
			if p.Path != seedParam && p.Path != param {
				label += ", " + lastSegment(p.Path) + "=" + s.Parameters[p.Path]
			}
		}
		k, ok := index[label]
		if !ok {
			k = len(curves)
			index[label] = k
			curves = append(curves, results.ErrorCurve{Label: label})
		}
		e, ok := s.Metrics[metric]
		if !ok {
			continue
		}
		v := indexOf(m.Parameters[pi].Values, s.Parameters[param])
		c := &curves[k]
		c.X = append(c.X, x.pos[v])
		c.Y = append(c.Y, e.Mean)
		c.Err = append(c.Err, e.CI95)
	}
	var drawn []results.ErrorCurve
	for _, c := range curves {
		if len(c.X) > 0 {
			drawn = append(drawn, c)
		}
	}
	return drawn, labels
}

func lastSegment(path string) string { return path[strings.LastIndexByte(path, '.')+1:] }

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return 0
}
