package results

import (
	"math"
	"strconv"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Replication summarises one variant run under several seeds: per table metric, and per
// collective's metric (JobMetrics, under JobMetricKey: "collective.LABEL.busbw_gbps"), the
// mean over the seeds and the half-width of its 95% confidence interval.
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
		for _, m := range TableMetrics() {
			var xs []float64
			for k := range runs {
				if x, ok := m.Value(&runs[k]); ok {
					xs = append(xs, x)
				}
			}
			if len(xs) > 0 {
				r.Metrics[m.Name] = EstimateOf(xs)
			}
		}
		// The collectives' metrics, under their keys, in the first seed's job order.
		keys, _ := JobMetricValues(&runs[0])
		values := make([]map[string]float64, len(runs))
		for k := range runs {
			_, values[k] = JobMetricValues(&runs[k])
		}
		for _, key := range keys {
			var xs []float64
			for _, vs := range values {
				if x, ok := vs[key]; ok {
					xs = append(xs, x)
				}
			}
			if len(xs) > 0 {
				r.Metrics[key] = EstimateOf(xs)
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
