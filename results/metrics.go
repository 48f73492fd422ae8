package results

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter/tw"
)

// Metric is one column of the comparison table, or (Param) one scenario parameter a plot
// puts on an axis, declared once in metricTable: every form of the comparison is made from
// the columns' declarations (the terminal, Markdown and CSV tables, a replicated run's, the
// report's tables in column groups, the definitions under them and in docs/results.md, what
// a replication, a sweep and a comparison of two runs summarise), and every plot names its
// metrics and parameters by their Label. A new column is a new entry there, and its value in
// the document; a new parameter label a new Param entry.
type Metric struct {
	// Name is the metric's name with its unit: what a replication, a sweep and a comparison
	// call it (fct_p99_us, retransmitted_packets; counts have no unit), and its CSV column.
	Name string
	// Column is the column in the table and Markdown when it is shorter than Name (retx_pkts),
	// or names a cell made of two values (flows: completed/total); "" when it is Name.
	Column string
	// CSV are the CSV columns when they are not Name alone (flows: flows_completed and
	// flows_total).
	CSV []string
	// Unit and Meaning define the column (docs/results.md and the report say them); Label
	// names the metric on a plot's axis, in words with its unit.
	Unit, Meaning, Label string
	// Group is the report's table it goes in (columnGroups' id).
	Group string
	// Cell is how a value is written, and so how the column aligns.
	Cell CellKind
	// Value reads the metric from a variant: false when the variant has none (an FCT when no
	// flow completed). Text columns (the variant, its transport) have Text instead.
	Value func(v *Variant) (float64, bool)
	Text  func(v *Variant) string
	// Total is the whole that a CellOfTotal value is part of (the flows).
	Total func(v *Variant) int64
	// Param marks a scenario parameter: Name is its path, a list index written * (faults.*.loss
	// for faults.0.loss); Label names it on an axis without its unit, which is Unit, or the
	// unit its values are written in ("bytes", "Gb/s", "us") when Unit is ""; Scale, when set,
	// multiplies a value for its tick (a probability 0.0001 as 0.01 with Unit "%").
	Param bool
	Scale float64
}

// CellKind is how a column writes a value, in the tables and in CSV.
type CellKind int

// Cell kinds.
const (
	CellText     CellKind = iota // Text, as it is; aligned left
	CellCount                    // an integer (counts are below 2^53, exact in a float64)
	CellFixed                    // two decimals; full precision in CSV
	CellOptFixed                 // CellFixed, or "-" (empty in CSV) when the variant has no value
	CellOfTotal                  // value/total; two integer columns in CSV
)

// comparisonColumns are the comparison table's columns, in its order: metricTable's.
var comparisonColumns = func() []Metric {
	var out []Metric
	for _, m := range metricTable {
		if !m.Param {
			out = append(out, m)
		}
	}
	return out
}()

// metricTable declares the comparison table's columns, in its order, then the scenario
// parameters that plots put on an axis (Param). Each parameter's source is the scenario
// field it names (README's field reference).
var metricTable = []Metric{
	{Name: "variant", Cell: CellText, Group: "completion",
		Meaning: "the variant's name, as the scenario's variants list gives it",
		Text:    func(v *Variant) string { return v.Name }},
	{Name: "transport", Cell: CellText, Group: "completion",
		Meaning: "the variant's transport (rocev2, rocev1, iwarp; several joined by + when its flows differ)",
		Text:    func(v *Variant) string { return v.Transport }},
	{Name: "completed", Column: "flows", CSV: []string{"flows_completed", "flows_total"}, Cell: CellOfTotal, Group: "completion",
		Unit: "count", Label: "flows completed (count)",
		Meaning: "completed/total: the flows that completed, over every flow of the variant whatever its status (incomplete at stop, unroutable, failed); in CSV the two columns flows_completed and flows_total",
		Value:   func(v *Variant) (float64, bool) { return float64(v.Flows.Completed), true },
		Total:   func(v *Variant) int64 { return v.Flows.Total }},
	{Name: "fct_p50_us", Cell: CellOptFixed, Group: "completion", Unit: "us", Label: "FCT p50 (us)",
		Meaning: "the median flow completion time of the completed flows only (fct_us.p50); - when no flow completed",
		Value:   func(v *Variant) (float64, bool) { return opt(v.FCT.P50) }},
	{Name: "fct_p99_us", Cell: CellOptFixed, Group: "completion", Unit: "us", Label: "FCT p99 (us)",
		Meaning: "the 99th percentile FCT of the completed flows only (fct_us.p99): the smallest FCT that at least 99% of them are at or below, never interpolated",
		Value:   func(v *Variant) (float64, bool) { return opt(v.FCT.P99) }},
	{Name: "fct_max_us", Cell: CellOptFixed, Group: "completion", Unit: "us", Label: "FCT max (us)",
		Meaning: "the longest FCT of a completed flow (fct_us.max)",
		Value:   func(v *Variant) (float64, bool) { return opt(v.FCT.Max) }},
	{Name: "goodput_gbps", Cell: CellFixed, Group: "completion", Unit: "Gbit/s", Label: "goodput (Gbit/s)",
		Meaning: "the sum over all flows of delivered_bytes x 8, divided by the time from the first flow's start to the last flow's finish (to the end of the run when any flow is unfinished): an aggregate over flows, not a per-flow mean",
		Value:   func(v *Variant) (float64, bool) { return v.GoodputGbps, true }},
	{Name: "flow_gbps", Cell: CellOptFixed, Group: "completion", Unit: "Gbit/s", Label: "mean flow rate (Gbit/s)",
		Meaning: "the mean over flows of each flow's rate_gbps (its delivered bytes over its own active time): the throughput of flows that never end",
		Value:   func(v *Variant) (float64, bool) { return opt(v.FlowGbps) }},
	{Name: "drops", Cell: CellCount, Group: "loss", Unit: "count", Label: "packets dropped (count)",
		Meaning: "every packet lost for any reason (drops.total), the sum of drops.by_reason over all switches, links and NICs",
		Value:   func(v *Variant) (float64, bool) { return float64(v.Drops.Total), true }},
	{Name: "retransmitted_packets", Column: "retx_pkts", Cell: CellCount, Group: "loss", Unit: "count", Label: "packets retransmitted (count)",
		Meaning: "data packets sent again, summed over flows (retransmitted_packets; the CSV uses that name)",
		Value:   func(v *Variant) (float64, bool) { return float64(v.RetransmittedPackets), true }},
	{Name: "timeouts", Cell: CellCount, Group: "loss", Unit: "count", Label: "retransmit timeouts (count)",
		Meaning: "retransmit timer expiries, summed over flows",
		Value:   func(v *Variant) (float64, bool) { return float64(v.Timeouts), true }},
	{Name: "pause_frames", Cell: CellCount, Group: "flow-control", Unit: "count", Label: "PFC pause frames (count)",
		Meaning: "PFC frames sent with non-zero quanta, summed over every switch port, class and NIC (pfc.pause_frames)",
		Value:   func(v *Variant) (float64, bool) { return float64(v.PFC.PauseFrames), true }},
	{Name: "paused_us", Cell: CellFixed, Group: "flow-control", Unit: "us", Label: "time paused, summed over ports (us)",
		Meaning: "time spent paused, summed over every (sending port, class) of switches and NICs: ten ports paused 1 us each count 10 us (pfc.paused_time_us)",
		Value:   func(v *Variant) (float64, bool) { return v.PFC.PausedTimeUS, true }},
	{Name: "ecn_marks", Cell: CellCount, Group: "congestion-control", Unit: "count", Label: "packets marked CE (count)",
		Meaning: "frames marked CE by switches (ecn.marked_packets)",
		Value:   func(v *Variant) (float64, bool) { return float64(v.ECN.MarkedPackets), true }},
	{Name: "cnps", Cell: CellCount, Group: "congestion-control", Unit: "count", Label: "CNPs sent (count)",
		Meaning: "CNPs sent by all receivers, the sum of the per-flow cnps (ecn.cnps)",
		Value:   func(v *Variant) (float64, bool) { return float64(v.ECN.CNPs), true }},
	{Name: "deadlocks", Cell: CellCount, Group: "flow-control", Unit: "count", Label: "PFC deadlocks (count)",
		Meaning: "PFC deadlocks found: cycles of paused queues that made no progress (the deadlocks list)",
		Value:   func(v *Variant) (float64, bool) { return float64(len(v.Deadlocks)), true }},

	{Param: true, Name: "faults.*.loss", Label: "frame loss rate", Unit: "%", Scale: 100,
		Meaning: "the probability that the fault's link loses a frame, as a percentage"},
	{Param: true, Name: "switch.ecn.kmin", Label: "ECN Kmin (marking starts)", Meaning: "the egress queue depth above which switches start to mark CE"},
	{Param: true, Name: "switch.ecn.kmax", Label: "ECN Kmax (marking certain)", Meaning: "the egress queue depth above which switches mark every frame"},
	{Param: true, Name: "switch.ecn.pmax", Label: "ECN marking probability at Kmax", Unit: "%", Scale: 100,
		Meaning: "the marking probability at Kmax, as a percentage"},
	{Param: true, Name: "switch.pfc.headroom", Label: "PFC headroom", Meaning: "the buffer a lossless ingress keeps above XOFF"},
	{Param: true, Name: "switch.pfc.xoff", Label: "PFC XOFF threshold", Meaning: "the ingress occupancy above which a switch pauses its peer"},
	{Param: true, Name: "switch.pfc.watchdog", Label: "PFC watchdog timeout", Meaning: "how long a queue may stay paused before the watchdog drops its frames"},
	{Param: true, Name: "transports.rocev2.retransmit_timeout", Label: "RoCE retransmit timeout", Meaning: "the retransmit timer of RoCE v2"},
	{Param: true, Name: "transports.rocev2.irn.reorder_threshold", Label: "IRN reorder threshold", Unit: "packets", Meaning: "the out-of-order packets IRN waits for before it resends"},
	{Param: true, Name: "traffic.*.collective.channels", Label: "collective channels", Unit: "count", Meaning: "the channels (rings or trees) a collective runs on at once"},
	{Param: true, Name: "traffic.*.collective.size", Label: "collective message size", Meaning: "the collective's buffer size per rank"},
	{Param: true, Name: "traffic.*.flow.rate", Label: "offered flow rate", Meaning: "the rate a flow is offered at"},
	{Param: true, Name: "traffic.*.flow.size", Label: "flow size", Meaning: "the bytes a flow carries"},
	{Param: true, Name: "traffic.*.poisson.load", Label: "offered load", Unit: "%", Scale: 100, Meaning: "the Poisson traffic's load on the hosts' links, as a percentage"},
}

// paramNamed is metricTable's parameter entry for path (list indices match *), and whether
// there is one.
func paramNamed(path string) (Metric, bool) {
	parts := strings.Split(path, ".")
	for i, p := range parts {
		if _, err := strconv.Atoi(p); err == nil {
			parts[i] = "*"
		}
	}
	key := strings.Join(parts, ".")
	for _, m := range metricTable {
		if m.Param && m.Name == key {
			return m, true
		}
	}
	return Metric{}, false
}

// MetricLabel is the axis label of a table metric, a collective's metric (JobMetricKey: its
// job's label and the metric's, "ring: bus bandwidth (Gbit/s)") or a parameter path, in words with its
// unit (unit, when the entry has none of its own: the unit the parameter's values are
// written in); the name itself, with unit, when metricTable has no entry for it.
func MetricLabel(name, unit string) string {
	if m, ok := metricNamed(name); ok {
		return m.Label
	}
	if job, m, ok := jobMetricNamed(name); ok {
		return job + ": " + m.Label
	}
	label := name
	if m, ok := paramNamed(name); ok {
		label = m.Label
		if m.Unit != "" {
			unit = m.Unit
		}
	}
	if unit == "" {
		unit = "value as set"
	}
	return label + " (" + unit + ")"
}

// textColumns is how many of comparisonColumns lead with text: the variant and its transport.
const textColumns = 2

// TableMetrics are the comparison table's numeric columns, in its order: what a replication
// summarises, a sweep plots and a comparison of two runs sets side by side.
func TableMetrics() []Metric { return comparisonColumns[textColumns:] }

// metricNamed is the table metric called name, and whether there is one.
func metricNamed(name string) (Metric, bool) {
	for _, m := range TableMetrics() {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// ColumnName is the metric's column in the table and Markdown.
func (m Metric) ColumnName() string {
	if m.Column != "" {
		return m.Column
	}
	return m.Name
}

// CSVColumns are the metric's columns in CSV.
func (m Metric) CSVColumns() []string {
	if m.CSV != nil {
		return m.CSV
	}
	return []string{m.Name}
}

// align is the column's alignment: text left, numbers right.
func (m Metric) align() tw.Align {
	if m.Cell == CellText {
		return tw.AlignLeft
	}
	return tw.AlignRight
}

// cell is v's value as a table cell: times and rates with two decimals ("-" for a statistic
// of nothing, e.g. the FCT when no flow completed), counts as integers.
func (m Metric) cell(v *Variant) string {
	if m.Cell == CellText {
		return m.Text(v)
	}
	x, ok := m.Value(v)
	switch m.Cell {
	case CellCount:
		return integer(int64(x))
	case CellOfTotal:
		return fmt.Sprintf("%d/%d", int64(x), m.Total(v))
	case CellOptFixed:
		if !ok {
			return "-"
		}
	}
	return fixed(x)
}

// csvCells are v's value as CSV cells: numbers at full precision, an empty cell for a
// statistic of nothing.
func (m Metric) csvCells(v *Variant) []string {
	if m.Cell == CellText {
		return []string{m.Text(v)}
	}
	x, ok := m.Value(v)
	switch m.Cell {
	case CellCount:
		return []string{integer(int64(x))}
	case CellOfTotal:
		return []string{integer(int64(x)), integer(m.Total(v))}
	case CellOptFixed:
		if !ok {
			return []string{""}
		}
	}
	return []string{exact(x)}
}

// definition is the column's definition.
func (m Metric) definition() Definition {
	return Definition{Column: m.ColumnName(), Unit: m.Unit, Meaning: m.Meaning}
}

// summaryHeader is the comparison table's header; units are in the names.
var summaryHeader = func() []string {
	out := make([]string, len(comparisonColumns))
	for i, m := range comparisonColumns {
		out[i] = m.ColumnName()
	}
	return out
}()

// summaryAlign aligns text left and numbers right.
var summaryAlign = func() []tw.Align {
	out := make([]tw.Align, len(comparisonColumns))
	for i, m := range comparisonColumns {
		out[i] = m.align()
	}
	return out
}()

// csvHeader is the comparison's header in CSV: the table's, with the names of the results
// document where the table shortens them (retransmitted_packets), and flows as two integer
// columns.
var csvHeader = func() []string {
	var out []string
	for _, m := range comparisonColumns {
		out = append(out, m.CSVColumns()...)
	}
	return out
}()

// summaryRow is v's row of the comparison table.
func summaryRow(v *Variant) []string {
	out := make([]string, len(comparisonColumns))
	for i, m := range comparisonColumns {
		out[i] = m.cell(v)
	}
	return out
}

// csvRow is v's row of the comparison in CSV.
func csvRow(v *Variant) []string {
	out := make([]string, 0, len(csvHeader))
	for _, m := range comparisonColumns {
		out = append(out, m.csvCells(v)...)
	}
	return out
}

// TableDefinitions define the comparison table's columns, in its order.
var TableDefinitions = func() []Definition {
	out := make([]Definition, len(comparisonColumns))
	for i, m := range comparisonColumns {
		out[i] = m.definition()
	}
	return out
}()

// groupOf is the id of the report's table the column named name goes in (by its table or
// its metric name), "" when no column is called that.
func groupOf(name string) string {
	for _, m := range comparisonColumns {
		if m.ColumnName() == name || m.Name == name {
			return m.Group
		}
	}
	return ""
}
