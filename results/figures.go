package results

import (
	"fmt"
	"strings"
)

// Figures are the plots of d that have something to show, in the order a report shows them:
// the FCT distribution, the slowdown by flow size, the jobs, the metrics against the one
// numeric parameter the variants vary (Document.Axis), then per variant its fabric, its
// goodput, DCQCN or HPCC rate, TCP window, queue, ingress, PFC and pause-spreading plots,
// the links' utilisation heat map, the queues' depth CDF, the shared buffers' occupancy and
// the drops, retransmissions, marks and CNPs over time, then (plot_rates.go) its goodput in
// Gb/s per flow or group, Jain's index over time per shared receiver, Swift's or NSCC's
// window, the events and the paused port-classes as rates (time series only for variants
// that have them), and with several seeds each variant's goodput over time as the seeds' mean
// and 95% band. Omitted lists each plot not drawn and why. Names are file names without
// extension, VARIANT being the variant's file slug (VariantFileSlugs).
func Figures(d *Document) (figs []*Figure, omitted []Omitted, err error) {
	for _, pl := range []struct {
		name string
		make func(*Document) (*Figure, string, error)
	}{{"fct-cdf", fctFigure}, {"slowdown-by-size", sizesFigure}, {"jobs-iterations", jobsFigure}, {"jobs-steps", jobStepsFigure}} {
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
	for i, slug := range VariantFileSlugs(d) {
		v := &d.Variants[i]
		for k, draw := range []func(*Variant) (*Figure, string, error){
			fabricFigure, throughputFigure, rateFigure, cwndFigure, queueFigure, ingressFigure, pfcFigure, spreadFigure,
			linksHeatmapFigure, queueCDFFigure, bufferFigure, eventsFigure,
			goodputFigure, fairnessFigure, windowFigure, eventRatesFigure, pausedFigure} {
			name := variantFigurePrefixes[k] + slug
			if k > 0 && (v.Series == nil || v.Series.Len() == 0) {
				omitted = append(omitted, Omitted{name, "no time series (the variant ran no flow)"})
				continue
			}
			f, why, err := draw(v)
			if err != nil {
				return nil, nil, fmt.Errorf("results: %s: %w", name, err)
			}
			if f == nil {
				omitted = append(omitted, Omitted{name, v.Name + ": " + why})
				continue
			}
			f.Name = name
			figs = append(figs, f)
		}
	}
	if seedsDiffer(d) {
		groups := runsByName(d)
		names := make([]string, len(groups))
		for k, runs := range groups {
			names[k] = runs[0].Name
		}
		for k, slug := range VariantSlugs(names) {
			name := seedFigurePrefix + slug
			f, why, err := seedsGoodputFigure(groups[k])
			if err != nil {
				return nil, nil, fmt.Errorf("results: %s: %w", name, err)
			}
			if f == nil {
				omitted = append(omitted, Omitted{name, names[k] + ": " + why})
				continue
			}
			f.Name = name
			figs = append(figs, f)
		}
	}
	return figs, omitted, nil
}

// seedFigurePrefix names a replicated variant's goodput over its seeds (before its slug).
const seedFigurePrefix = "goodput-seeds-"

// variantFigurePrefixes name a variant's figures (before its slug), in Figures' order.
var variantFigurePrefixes = []string{"fabric-", "throughput-", "rate-", "cwnd-", "queues-", "ingress-", "pfc-", "pause-spread-",
	"links-heatmap-", "queue-cdf-", "buffer-", "events-", "goodput-", "fairness-", "window-", "event-rates-", "paused-"}
