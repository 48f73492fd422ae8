package results

import (
	"fmt"
	"sort"
	"strings"
)

// Figures are the plots of d that have something to show, the key ones first (Key:
// markKeyFigures), the rest in the order a report shows them:
// the FCT distribution, the slowdown by flow size, the jobs (iterations, steps, and the
// per-rank step timeline of each variant's first job), the metrics against the one
// numeric parameter the variants vary (Document.Axis), then each variant's fabric
// (fabric-VARIANT, VARIANT being the variant's file slug, VariantFileSlugs), then one figure
// per kind with a panel per variant (variantFigures): goodput, DCQCN or HPCC rate, TCP
// window, queue, ingress, PFC and pause-spreading plots, the links' utilisation heat map,
// the queues' depth CDF, the shared buffers' occupancy and the drops, retransmissions, marks
// and CNPs over time, then the rates over time (plot_rates.go): goodput in Gb/s per flow or
// group, Jain's index per shared receiver, Swift's or NSCC's window, the events and the
// paused port-classes per microsecond; and with several seeds the goodput over time as the
// seeds' mean and 95% band. Omitted lists each plot not drawn and why (NotPlotted). Names are file names
// without extension.
func Figures(d *Document) (figs []*Figure, omitted []Omitted, err error) {
	for _, pl := range []struct {
		name string
		make func(*Document) (*Figure, string, error)
	}{{"fct-cdf", fctFigure}, {"slowdown-by-size", sizesFigure}, {"jobs-iterations", jobsFigure}, {"jobs-steps", jobStepsFigure}, {"jobs-timeline", jobTimelineFigure}} {
		f, why, err := pl.make(d)
		if err != nil {
			return nil, nil, err
		}
		if f == nil && strings.HasPrefix(pl.name, "jobs-") && !hasJobs(d) {
			continue // nothing to omit: the scenario has no collective
		}
		if f == nil {
			omitted = append(omitted, Omitted{pl.name, why})
			continue
		}
		figs = append(figs, f)
	}
	pf, po, err := paramFigures(d)
	if err != nil {
		return nil, nil, err
	}
	figs, omitted = append(figs, pf...), append(omitted, po...)
	vf, vo, err := variantFigures(d)
	if err != nil {
		return nil, nil, err
	}
	figs = append(figs, vf...)
	markKeyFigures(d, figs)
	sort.SliceStable(figs, func(a, b int) bool { return figs[a].Key && !figs[b].Key })
	return figs, append(omitted, vo...), nil
}

// keyKinds are the figures that show what a scenario's variants differ in, when drawn, in
// the order a reader wants them: the metrics against the varied setting, the completion
// times, the collectives, then the congestion control's rates and windows (TCP's, Swift's
// and NSCC's) and the pauses' spread. A run whose flows never complete has its goodput over
// time as a key figure.
var keyKinds = []string{"fct-cdf", "slowdown-by-size", "jobs-steps", "jobs-timeline", "jobs-iterations", "rate", "cwnd", "window", "pause-spread", "goodput-seeds"}

// markKeyFigures sets Key on the figures of figs that show what d's variants differ in:
// those against the varied setting, and those of keyKinds; the throughput when no FCT
// distribution was drawn.
func markKeyFigures(d *Document, figs []*Figure) {
	names := map[string]*Figure{}
	for _, f := range figs {
		names[f.Name] = f
	}
	if d.Axis != nil {
		for _, n := range ParamFigureNames(d.Axis.Path) {
			if f := names[n]; f != nil {
				f.Key = true
			}
		}
	}
	for _, k := range keyKinds {
		if f := names[k]; f != nil {
			f.Key = true
		}
	}
	if f := names["throughput"]; f != nil && names["fct-cdf"] == nil {
		f.Key = true
	}
}

// NotPlotted are the figures of d that Figures does not draw, each with why (nothing to
// show: no pause, no rate-based congestion control...): what a report lists under "Not
// plotted".
func NotPlotted(d *Document) ([]Omitted, error) {
	_, omitted, err := Figures(d)
	return omitted, err
}

// variantFigures are the figures of each variant (the first seed of a replicated one):
// its fabric drawing, a file per variant (fabric-VARIANT), then one figure per kind with
// every variant that has something to show as a panel, on one time axis for the scenario
// (scenarioWindow), and with several seeds the seeds' goodput bands as panels. A kind no
// variant has is omitted once, saying why; a variant missing from a kind's panels says why
// in the omitted list under the kind's name.
func variantFigures(d *Document) (figs []*Figure, omitted []Omitted, err error) {
	slugs := VariantFileSlugs(d)
	groups := runsByName(d)
	win := scenarioWindow(d)
	var firsts []int // d.Variants index of each name's first run
	seen := map[string]bool{}
	var all []*Variant
	for i := range d.Variants {
		all = append(all, &d.Variants[i])
	}
	fg := runFlowGroups(all)
	for i := range d.Variants {
		v := &d.Variants[i]
		v.window, v.groups = win, fg
		if !seen[v.Name] {
			seen[v.Name] = true
			firsts = append(firsts, i)
		}
	}
	for k, draw := range variantDrawers {
		kind := panelKind(variantFigurePrefixes[k])
		var panels []*Figure
		var why []Omitted
		for _, i := range firsts {
			v := &d.Variants[i]
			name := variantFigurePrefixes[k] + slugs[i]
			if k > 0 && (v.Series == nil || v.Series.Len() == 0) {
				why = append(why, Omitted{kind, v.Name + ": no time series (the variant ran no flow)"})
				continue
			}
			f, reason, err := draw(v)
			if err != nil {
				return nil, nil, fmt.Errorf("results: %s: %w", name, err)
			}
			if f == nil {
				why = append(why, Omitted{kind, v.Name + ": " + reason})
				continue
			}
			if k == 0 { // the fabric: a file per variant (SPEC: fabric-VARIANT)
				f.Name = name
				figs = append(figs, f)
				continue
			}
			f.panelTitle = v.Name
			panels = append(panels, f)
		}
		panels, flat := dropFlatPanels(kind, panels)
		why = append(why, flat...)
		omitted = append(omitted, collapseOmitted(kind, why, len(firsts))...)
		if len(panels) > 0 {
			figs = append(figs, kindFigure(kind, d, panels))
		}
	}
	if seedsDiffer(d) {
		ids := identities(d)
		var panels []*Figure
		var why []Omitted
		for _, runs := range groups {
			f, reason, err := seedsGoodputFigure(runs, ids(runs[0].Name))
			if err != nil {
				return nil, nil, fmt.Errorf("results: %s: %w", seedFigure, err)
			}
			if f == nil {
				why = append(why, Omitted{seedFigure, runs[0].Name + ": " + reason})
				continue
			}
			f.panelTitle = runs[0].Name
			panels = append(panels, f)
		}
		omitted = append(omitted, collapseOmitted(seedFigure, why, len(groups))...)
		if len(panels) > 0 {
			figs = append(figs, kindFigure(seedFigure, d, panels))
		}
	}
	return figs, omitted, nil
}

// kindFigure is the figure of one kind: the one variant's figure itself, named by the kind
// and of no one variant (Variant ""), or a panel per variant; zoomed to where anything
// changes when that is a small part of the run (zoomToActivity).
func kindFigure(kind string, d *Document, panels []*Figure) *Figure {
	zoom := zoomToActivity(panels)
	if len(panels) == 1 {
		f := panels[0]
		f.Name = kind
		// A kind, though one variant has it: the report shows it among the kinds (and the
		// key figures), not in the variant's section; its title names the variant.
		f.Variant = ""
		f.Caption += zoom
		return f
	}
	title := panels[0].Title
	if i := strings.Index(title, ": "); i >= 0 {
		title = title[i+2:]
	}
	f := panelFigure(kind, d.Scenario+": "+title+", by variant", panels)
	f.Caption += zoom
	switch {
	case panels[0].ownX:
		f.notes = append(f.notes, "each panel's time zoomed to its own activity")
	case zoom != "":
		f.notes = append(f.notes, "time zoomed to where anything changes")
	}
	return f
}

// collapseOmitted is why: one entry for the kind when every one of n variants lacks it
// for one reason, else an entry per variant.
func collapseOmitted(kind string, why []Omitted, n int) []Omitted {
	if len(why) < n || n < 2 {
		return why
	}
	reason := func(o Omitted) string { return o.Reason[strings.Index(o.Reason, ": ")+2:] }
	for _, o := range why {
		if reason(o) != reason(why[0]) {
			return why
		}
	}
	return []Omitted{{kind, "every variant: " + reason(why[0])}}
}

// variantDrawers draw a variant's figures, in variantFigurePrefixes' order.
var variantDrawers = []func(*Variant) (*Figure, string, error){
	fabricFigure, throughputFigure, rateFigure, cwndFigure, queueFigure, ingressFigure, pfcFigure, spreadFigure,
	linksHeatmapFigure, queueCDFFigure, bufferFigure, eventsFigure,
	goodputFigure, fairnessFigure, windowFigure, eventRatesFigure, pausedFigure}

// seedFigure names the replicated variants' goodput over their seeds, a panel per variant.
const seedFigure = "goodput-seeds"

// seedFigurePrefix names a replicated variant's goodput over its seeds (before its slug).
const seedFigurePrefix = "goodput-seeds-"

// variantFigurePrefixes name a variant's figures (before its slug), in Figures' order.
var variantFigurePrefixes = []string{"fabric-", "throughput-", "rate-", "cwnd-", "queues-", "ingress-", "pfc-", "pause-spread-",
	"links-heatmap-", "queue-cdf-", "buffer-", "events-", "goodput-", "fairness-", "window-", "event-rates-", "paused-"}
