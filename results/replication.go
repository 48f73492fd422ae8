package results

import (
	"math"
	"strconv"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Replication summarises one variant run under several seeds: per table metric, the mean
// over the seeds and the half-width of its 95% confidence interval.
type Replication struct {
	Name      string              `json:"name"`
	Transport string              `json:"transport"`
	Seeds     []uint64            `json:"seeds"`
	Metrics   map[string]Estimate `json:"metrics"`
}

// Estimate is a metric's mean over n seeds and the half-width of its 95% confidence
// interval, t(0.975, n-1) x s / sqrt(n) with s the sample standard deviation (Student's t,
// gonum's distuv.StudentsT), and the per-seed values it comes from. A metric that some seed
// has no value for (an FCT when no flow completed) counts the seeds that have one.
type Estimate struct {
	Mean   float64   `json:"mean"`
	CI95   float64   `json:"ci95"`
	Values []float64 `json:"values"`
}

// Metric is one numeric column of the comparison table, named with its unit as in the
// replication summary (fct_p99_us, goodput_gbps; counts have no unit), and how to read it
// from a variant: false when the variant has no value (an FCT when no flow completed).
type Metric struct {
	Name  string
	Value func(v *Variant) (float64, bool)
}

// TableMetrics are the comparison table's numeric columns, in its order: what a
// replication summarises and a sweep plots.
func TableMetrics() []Metric {
	out := make([]Metric, len(replicatedMetrics))
	for i, m := range replicatedMetrics {
		out[i] = Metric{m.name, m.of}
	}
	return out
}

// replicatedMetrics are the comparison table's numeric columns, and how to read each from a
// variant (false when the variant has no value).
var replicatedMetrics = []struct {
	name string
	of   func(v *Variant) (float64, bool)
}{
	{"completed", func(v *Variant) (float64, bool) { return float64(v.Flows.Completed), true }},
	{"fct_p50_us", func(v *Variant) (float64, bool) { return opt(v.FCT.P50) }},
	{"fct_p99_us", func(v *Variant) (float64, bool) { return opt(v.FCT.P99) }},
	{"fct_max_us", func(v *Variant) (float64, bool) { return opt(v.FCT.Max) }},
	{"goodput_gbps", func(v *Variant) (float64, bool) { return v.GoodputGbps, true }},
	{"flow_gbps", func(v *Variant) (float64, bool) { return opt(v.FlowGbps) }},
	{"drops", func(v *Variant) (float64, bool) { return float64(v.Drops.Total), true }},
	{"retransmitted_packets", func(v *Variant) (float64, bool) { return float64(v.RetransmittedPackets), true }},
	{"timeouts", func(v *Variant) (float64, bool) { return float64(v.Timeouts), true }},
	{"pause_frames", func(v *Variant) (float64, bool) { return float64(v.PFC.PauseFrames), true }},
	{"paused_us", func(v *Variant) (float64, bool) { return v.PFC.PausedTimeUS, true }},
	{"ecn_marks", func(v *Variant) (float64, bool) { return float64(v.ECN.MarkedPackets), true }},
	{"cnps", func(v *Variant) (float64, bool) { return float64(v.ECN.CNPs), true }},
	{"deadlocks", func(v *Variant) (float64, bool) { return float64(len(v.Deadlocks)), true }},
}

func opt(p *float64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return *p, true
}

// Replicate summarises d's variants, run under several seeds and listed variant by variant
// (every seed of a variant together, in seed order), into d.Replication.
func Replicate(d *Document) {
	d.Replication = nil
	for i := 0; i < len(d.Variants); {
		j := i
		for j < len(d.Variants) && d.Variants[j].Name == d.Variants[i].Name {
			j++
		}
		runs := d.Variants[i:j]
		r := Replication{Name: runs[0].Name, Transport: runs[0].Transport, Metrics: map[string]Estimate{}}
		for k := range runs {
			r.Seeds = append(r.Seeds, runs[k].Seed)
		}
		for _, m := range replicatedMetrics {
			var xs []float64
			for k := range runs {
				if x, ok := m.of(&runs[k]); ok {
					xs = append(xs, x)
				}
			}
			if len(xs) > 0 {
				r.Metrics[m.name] = EstimateOf(xs)
			}
		}
		d.Replication = append(d.Replication, r)
		i = j
	}
}

// EstimateOf is the mean of xs and its 95% confidence half-width (0 for a single value).
// Precondition: xs is not empty.
func EstimateOf(xs []float64) Estimate {
	e := Estimate{Mean: stat.Mean(xs, nil), Values: xs}
	if n := float64(len(xs)); n > 1 {
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(0.975)
		e.CI95 = t * stat.StdDev(xs, nil) / math.Sqrt(n)
	}
	return e
}

// cell is the estimate as a table cell: "mean ±ci95", with two decimals.
func (e Estimate) cell() string {
	return strconv.FormatFloat(e.Mean, 'f', 2, 64) + " ±" + strconv.FormatFloat(e.CI95, 'f', 2, 64)
}
