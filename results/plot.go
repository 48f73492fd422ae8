package results

import (
	"fmt"
	"io"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// maxPlotLines bounds the lines of one time-series plot: beyond it a plot is unreadable, so
// the plot keeps the first flows (or the deepest queues) and says how many it left out.
const maxPlotLines = 12

// plotSize is the size of every plot: PNG output is byte-identical from run to run.
const plotWidth, plotHeight = 16 * vg.Centimeter, 10 * vg.Centimeter

// writePlot renders p as PNG.
func writePlot(w io.Writer, p *plot.Plot) error {
	wt, err := p.WriterTo(plotWidth, plotHeight, "png")
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}

// FCTPlot is the cumulative distribution of the completed flows' FCTs, one line per
// variant.
func FCTPlot(d *Document) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = d.Scenario + ": flow completion time"
	p.X.Label.Text = "FCT (us)"
	p.Y.Label.Text = "fraction of completed flows"
	var lines []any
	for i := range d.Variants {
		v := &d.Variants[i]
		var fcts []float64
		for _, f := range v.PerFlow {
			if f.FCTUS != nil {
				fcts = append(fcts, *f.FCTUS)
			}
		}
		if len(fcts) == 0 {
			continue
		}
		sort.Float64s(fcts)
		pts := make(plotter.XYs, 0, 2*len(fcts))
		for k, x := range fcts {
			pts = append(pts, plotter.XY{X: x, Y: float64(k) / float64(len(fcts))},
				plotter.XY{X: x, Y: float64(k+1) / float64(len(fcts))})
		}
		lines = append(lines, v.Name, pts)
	}
	if err := plotutil.AddLines(p, lines...); err != nil {
		return nil, err
	}
	return p, nil
}

// RatePlot is a variant's flows' rate limits over time (DCQCN's current rate, a pacing
// rate, or the line rate).
func RatePlot(v *Variant) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = v.Name + ": sending rate"
	p.X.Label.Text = "time (us)"
	p.Y.Label.Text = "rate (Gb/s)"
	byFlow := map[int]plotter.XYs{}
	var ids []int
	if v.Series != nil {
		for _, s := range v.Series.Rates {
			if _, ok := byFlow[s.Flow]; !ok {
				ids = append(ids, s.Flow)
			}
			byFlow[s.Flow] = append(byFlow[s.Flow], plotter.XY{X: s.TimeUS, Y: s.RateGbps})
		}
	}
	sort.Ints(ids)
	var lines []any
	for k, id := range ids {
		if k == maxPlotLines {
			p.Title.Text += fmt.Sprintf(" (first %d of %d flows)", maxPlotLines, len(ids))
			break
		}
		lines = append(lines, fmt.Sprintf("flow %d", id), byFlow[id])
	}
	if err := plotutil.AddLines(p, lines...); err != nil {
		return nil, err
	}
	return p, nil
}

// QueuePlot is the depth over time of a variant's deepest switch queues.
func QueuePlot(v *Variant) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = v.Name + ": queue depth"
	p.X.Label.Text = "time (us)"
	p.Y.Label.Text = "queue (KB)"
	type key struct {
		node           string
		port, priority int
	}
	series := map[key]plotter.XYs{}
	peak := map[key]int64{}
	var keys []key
	if v.Series != nil {
		for _, s := range v.Series.Queues {
			k := key{s.Node, s.Port, s.Priority}
			if _, ok := series[k]; !ok {
				keys = append(keys, k)
			}
			series[k] = append(series[k], plotter.XY{X: s.TimeUS, Y: float64(s.Bytes) / 1e3})
			peak[k] = max(peak[k], s.Bytes)
		}
	}
	sort.SliceStable(keys, func(i, j int) bool { return peak[keys[i]] > peak[keys[j]] })
	var lines []any
	for k, q := range keys {
		if k == maxPlotLines {
			p.Title.Text += fmt.Sprintf(" (deepest %d of %d queues)", maxPlotLines, len(keys))
			break
		}
		lines = append(lines, fmt.Sprintf("%s:%d prio %d", q.node, q.port, q.priority), series[q])
	}
	if err := plotutil.AddLines(p, lines...); err != nil {
		return nil, err
	}
	return p, nil
}
