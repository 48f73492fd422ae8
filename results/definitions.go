package results

// Definition says what a table column means: its unit and what it sums or summarises
// over, in the words of docs/results.md. The comparison's are its columns' (TableDefinitions,
// metrics.go), which a test holds docs/results.md to.
type Definition struct {
	Column  string
	Unit    string
	Meaning string
}

// SizeDefinitions define the slowdown-by-size table's columns.
var SizeDefinitions = []Definition{
	{"variant", "", "the variant's name"},
	{"group", "", "shown when the flows come from two traffic items or more: the traffic item's label (its kind and index when it has none), or " + AllFlowsGroup + " for the bins of every flow"},
	{"size", "bytes", "the bin of flow sizes, from its lower edge (included) to its upper edge (excluded); the last bin is unbounded"},
	{"flows", "count", "every flow of that size, any status"},
	{"completed", "count", "the bin's flows that completed"},
	{"fct_p50_us", "us", "the median FCT of the bin's completed flows"},
	{"fct_p99_us", "us", "the 99th percentile FCT of the bin's completed flows"},
	{"slowdown_p50", "ratio", "the median slowdown of the bin's completed flows: FCT over the flow's FCT alone on the empty fabric (same path, transport and MTU)"},
	{"slowdown_p95", "ratio", "the 95th percentile slowdown of the bin's completed flows"},
	{"slowdown_p99", "ratio", "the 99th percentile slowdown of the bin's completed flows"},
}
