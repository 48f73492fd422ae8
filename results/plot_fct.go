package results

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// runsByName groups d's variants by name, in order: one run each, or a replicated run's
// one per seed.
func runsByName(d *Document) [][]*Variant {
	var out [][]*Variant
	at := map[string]int{}
	for i := range d.Variants {
		v := &d.Variants[i]
		k, ok := at[v.Name]
		if !ok {
			k = len(out)
			at[v.Name] = k
			out = append(out, nil)
		}
		out[k] = append(out[k], v)
	}
	return out
}

// fctFigure is the distribution of flow completion times, one line per variant, on a log
// axis, as a fraction of all the variant's flows, each variant in its colour and marker
// (identities): a variant whose flows did not all finish
// stops below 1, by the share that did not, which its legend entry names. Omitted when no
// variant has minCDFFlows flows. A replicated
// variant's seeds are pooled into one line.
func fctFigure(d *Document) (*Figure, string, error) {
	f := newFigure("fct-cdf", "", d.Scenario+": flow completion time", "FCT (us, log scale)", "flows completed (fraction of all)")
	f.Caption = "The share of each variant's flows (all of them, finished or not) that completed within a given time, on a logarithmic time axis. A variant whose curve stops below 1 left the rest unfinished (incomplete at stop, unroutable or failed): its legend entry says how many."
	if seedsDiffer(d) {
		f.Caption += " Each line pools the flows of all the variant's seeds."
	}
	most := 0
	for _, runs := range runsByName(d) {
		n := 0
		for _, v := range runs {
			n += len(v.PerFlow)
		}
		most = max(most, n)
	}
	if most < minCDFFlows {
		return nil, fmt.Sprintf("at most %d flows per variant: a distribution of so few says less than the flows table, which gives each FCT", most), nil
	}
	line := 0
	ids := identities(d)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, runs := range runsByName(d) {
		var fcts []float64
		total := 0
		for _, v := range runs {
			total += len(v.PerFlow)
			for _, fl := range v.PerFlow {
				if fct, ok := fl.fct(); ok && fl.Status == StatusCompleted && fct > 0 {
					fcts = append(fcts, fct)
				}
			}
		}
		if len(fcts) == 0 {
			continue
		}
		sort.Float64s(fcts)
		n := float64(total)
		pts := make(plotter.XYs, 0, 2*len(fcts))
		for k, x := range fcts {
			pts = append(pts, plotter.XY{X: x, Y: float64(k) / n}, plotter.XY{X: x, Y: float64(k+1) / n})
		}
		label := runs[0].Name
		if len(runs) > 1 {
			label += fmt.Sprintf(" (%d seeds)", len(runs))
		}
		if missing := total - len(fcts); missing > 0 {
			label += fmt.Sprintf(": %d of %d unfinished", missing, total)
		}
		// Variants can finish alike (a deep buffer and PFC, say): the markers, spread along
		// each line at places of its own, keep each visible where it lies on another.
		if _, err := f.addVariantLine(ids(runs[0].Name), label, pts); err != nil {
			return nil, "", err
		}
		lo, hi = min(lo, fcts[0]), max(hi, fcts[len(fcts)-1])
		line++
	}
	if line == 0 {
		return nil, "no flow completed in any variant", nil
	}
	f.plot.X.Scale = plot.LogScale{}
	f.plot.Y.Min, f.plot.Y.Max = 0, 1
	f.natural = true
	// A margin either side, and at least one decade, so the steps at the ends and a tick
	// label show.
	f.plot.X.Min, f.plot.X.Max = lo/1.5, max(hi*1.5, lo*10)
	return f, "", nil
}

// minCDFFlows is the fewest flows a variant needs for its FCTs to be drawn as a
// distribution: with fewer, the steps of a CDF say less than the flows' table.
const minCDFFlows = 5

// seedsDiffer reports whether d's variants ran under more than one seed.
func seedsDiffer(d *Document) bool {
	for i := range d.Variants {
		if d.Variants[i].Seed != d.Variants[0].Seed {
			return true
		}
	}
	return false
}
