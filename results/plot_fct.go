package results

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
)

// fctFigure is the distribution of flow completion times, one line per variant, on a log
// axis, as a fraction of all the variant's flows: a variant whose flows did not all finish
// stops below 1, by the share that did not, which its legend entry names.
func fctFigure(d *Document) (*Figure, string, error) {
	f := newFigure("fct-cdf", "", d.Scenario+": flow completion time", "FCT (us, log scale)", "fraction of all flows")
	f.Caption = "The share of each variant's flows (all of them, finished or not) that completed within a given time, on a logarithmic time axis. A variant whose curve stops below 1 left the rest unfinished (incomplete at stop, unroutable or failed): its legend entry says how many."
	line := 0
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range d.Variants {
		v := &d.Variants[i]
		var fcts []float64
		for _, fl := range v.PerFlow {
			if fct, ok := fl.fct(); ok && fl.Status == StatusCompleted && fct > 0 {
				fcts = append(fcts, fct)
			}
		}
		if len(fcts) == 0 {
			continue
		}
		sort.Float64s(fcts)
		n := float64(len(v.PerFlow))
		pts := make(plotter.XYs, 0, 2*len(fcts))
		for k, x := range fcts {
			pts = append(pts, plotter.XY{X: x, Y: float64(k) / n}, plotter.XY{X: x, Y: float64(k+1) / n})
		}
		label := v.Name
		if len(d.Variants) > 1 && seedsDiffer(d) {
			label += fmt.Sprintf(" (seed %d)", v.Seed)
		}
		if missing := len(v.PerFlow) - len(fcts); missing > 0 {
			label += fmt.Sprintf(": %d of %d unfinished", missing, len(v.PerFlow))
		}
		l, err := f.addLine(line, label, pts)
		if err != nil {
			return nil, "", err
		}
		// Variants can finish alike (a deep buffer and PFC, say): a dash of its own keeps
		// each line visible where it lies on another.
		l.Dashes = plotutil.Dashes(line)
		lo, hi = min(lo, fcts[0]), max(hi, fcts[len(fcts)-1])
		line++
	}
	if line == 0 {
		return nil, "no flow completed in any variant", nil
	}
	f.plot.X.Scale = plot.LogScale{}
	f.plot.X.Tick.Marker = plot.LogTicks{Prec: -1}
	f.plot.Y.Min, f.plot.Y.Max = 0, 1
	// A margin either side, and at least one decade, so the steps at the ends and a tick
	// label show.
	f.plot.X.Min, f.plot.X.Max = lo/1.5, max(hi*1.5, lo*10)
	return f, "", nil
}

// seedsDiffer reports whether d's variants ran under more than one seed.
func seedsDiffer(d *Document) bool {
	for i := range d.Variants {
		if d.Variants[i].Seed != d.Variants[0].Seed {
			return true
		}
	}
	return false
}
