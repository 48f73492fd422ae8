package results

import (
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter/tw"
)

// JobMetric is one number of a collective (Job) that the comparison's collectives table, a
// replicated run's summary and a sweep's rows carry per job, declared once here: its name
// with its unit (the column), its unit, its label on a plot's axis, what it means, and how
// it is read from a job (false when the job has none: no iteration completed).
type JobMetric struct {
	Name, Unit, Label, Meaning string
	Value                      func(j *Job) (float64, bool)
}

// JobMetrics are the collectives' numbers, in the collectives table's order.
var JobMetrics = []JobMetric{
	{Name: "size_bytes", Unit: "bytes", Label: "message size (bytes)",
		Meaning: "the collective's message size per rank (collective.size): the S that algbw = S / time divides",
		Value:   func(j *Job) (float64, bool) { return float64(j.SizeBytes), true }},
	{Name: "time_us", Unit: "us", Label: "iteration time (us)",
		Meaning: "the mean time of the iterations that completed, each from its first message's release to its last message's arrival (completion_us)",
		Value:   func(j *Job) (float64, bool) { return opt(j.CompletionUS) }},
	{Name: "ideal_us", Unit: "us", Label: "ideal iteration time (us)",
		Meaning: "one iteration alone on the empty fabric: the critical path of the algorithm's dependency graph, with headers and each path's latency (ideal_us)",
		Value:   func(j *Job) (float64, bool) { return j.IdealUS, true }},
	{Name: "algbw_gbps", Unit: "Gbit/s", Label: "algorithm bandwidth (Gbit/s)",
		Meaning: "size_bytes x 8 / time_us (nccl-tests' algbw)",
		Value:   func(j *Job) (float64, bool) { return opt(j.AlgbwGbps) }},
	{Name: "busbw_gbps", Unit: "Gbit/s", Label: "bus bandwidth (Gbit/s)",
		Meaning: "algbw x the op's bus factor (nccl-tests' busbw: 2(n-1)/n for allreduce, (n-1)/n for allgather and reduce_scatter), comparable with the links' rate",
		Value:   func(j *Job) (float64, bool) { return opt(j.BusbwGbps) }},
}

// JobMetricKey names metric name of the job labelled label where the metrics of jobs sit
// beside a variant's own (a replication's metrics, a sweep's rows and columns):
// "collective.LABEL.NAME". A label holds no comma or quote (scenarios), so the key is a
// plain CSV cell.
func JobMetricKey(label, name string) string { return "collective." + label + "." + name }

// jobMetricNamed is the job label and JobMetrics entry of key, a JobMetricKey, and whether
// key is one.
func jobMetricNamed(key string) (label string, m JobMetric, ok bool) {
	rest, ok := strings.CutPrefix(key, "collective.")
	if !ok {
		return "", JobMetric{}, false
	}
	for _, m := range JobMetrics {
		if label, ok := strings.CutSuffix(rest, "."+m.Name); ok && label != "" {
			return label, m, true
		}
	}
	return "", JobMetric{}, false
}

// JobMetricValues are v's jobs' metrics under their keys (JobMetricKey), in job then
// JobMetrics order; a metric a job has no value for is absent.
func JobMetricValues(v *Variant) (keys []string, values map[string]float64) {
	values = map[string]float64{}
	for i := range v.Jobs {
		j := &v.Jobs[i]
		for _, m := range JobMetrics {
			k := JobMetricKey(j.Label, m.Name)
			keys = append(keys, k)
			if x, ok := m.Value(j); ok {
				values[k] = x
			}
		}
	}
	return keys, values
}

// jobsTable is the collectives of d as a table of the report and summary.md (and under the
// CLI's table): per variant and job its op, algorithm, ranks, message size, iterations
// completed, and JobMetrics' times and bandwidths with the slowest step; for a replicated
// run, per variant and job each metric's mean ±95% half-width over the seeds.
func jobsTable(d *Document) (Table, bool) {
	t := Table{ID: "table-collectives", Title: "Collectives", Text: 4}
	if len(d.Replication) == 0 {
		t.Header, t.Rows = jobsHeader, jobRows(d)
		return t, len(t.Rows) > 0
	}
	t.Header = []string{"variant", "job", "op", "algorithm", "ranks", "seeds"}
	for _, m := range JobMetrics {
		t.Header = append(t.Header, m.Name)
	}
	for _, r := range d.Replication {
		var first *Variant
		for i := range d.Variants {
			if d.Variants[i].Name == r.Name {
				first = &d.Variants[i]
				break
			}
		}
		if first == nil {
			continue
		}
		for _, j := range first.Jobs {
			row := []string{r.Name, j.Label, j.Op, j.Algorithm, strconv.Itoa(j.Ranks), strconv.Itoa(len(r.Seeds))}
			for _, m := range JobMetrics {
				cell := "-"
				if e, ok := r.Metrics[JobMetricKey(j.Label, m.Name)]; ok {
					cell = e.cell()
					if m.Name == "size_bytes" && e.CI95 == 0 {
						cell = integer(int64(e.Mean))
					}
				}
				row = append(row, cell)
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t, len(t.Rows) > 0
}

// writeJobsTable writes the collectives table under the comparison (WriteTable), when there
// are collectives.
func writeJobsTable(w io.Writer, d *Document, format string) error {
	t, ok := jobsTable(d)
	if !ok {
		return nil
	}
	if _, err := io.WriteString(w, "\ncollectives (time_us: mean iteration; slowest: the longest message of the slowest iteration):\n"); err != nil {
		return err
	}
	return renderTable(w, format, t.Header, t.aligns(), t.Rows)
}

// aligns are t's columns' alignments: its text columns left, the rest right.
func (t Table) aligns() []tw.Align {
	align := make([]tw.Align, len(t.Header))
	for i := range align {
		align[i] = tw.AlignRight
		if i < t.TextColumns() {
			align[i] = tw.AlignLeft
		}
	}
	return align
}
