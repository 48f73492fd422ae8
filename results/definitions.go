package results

// Definition says what a table column means: its unit and what it sums or summarises
// over, in the words of docs/results.md (which a test holds to the same columns).
type Definition struct {
	Column  string
	Unit    string
	Meaning string
}

// TableDefinitions define the comparison table's columns, in its order.
var TableDefinitions = []Definition{
	{"variant", "", "the variant's name, as the scenario's variants list gives it"},
	{"transport", "", "the variant's transport (rocev2, rocev1, iwarp; several joined by + when its flows differ)"},
	{"flows", "count", "completed/total: the flows that completed, over every flow of the variant whatever its status (incomplete at stop, unroutable, failed); in CSV the two columns flows_completed and flows_total"},
	{"fct_p50_us", "us", "the median flow completion time of the completed flows only (fct_us.p50); - when no flow completed"},
	{"fct_p99_us", "us", "the 99th percentile FCT of the completed flows only (fct_us.p99): the smallest FCT that at least 99% of them are at or below, never interpolated"},
	{"fct_max_us", "us", "the longest FCT of a completed flow (fct_us.max)"},
	{"goodput_gbps", "Gbit/s", "the sum over all flows of delivered_bytes x 8, divided by the time from the first flow's start to the last flow's finish (to the end of the run when any flow is unfinished): an aggregate over flows, not a per-flow mean"},
	{"flow_gbps", "Gbit/s", "the mean over flows of each flow's rate_gbps (its delivered bytes over its own active time): the throughput of flows that never end"},
	{"drops", "count", "every packet lost for any reason (drops.total), the sum of drops.by_reason over all switches, links and NICs"},
	{"retx_pkts", "count", "data packets sent again, summed over flows (retransmitted_packets; the CSV uses that name)"},
	{"timeouts", "count", "retransmit timer expiries, summed over flows"},
	{"pause_frames", "count", "PFC frames sent with non-zero quanta, summed over every switch port, class and NIC (pfc.pause_frames)"},
	{"paused_us", "us", "time spent paused, summed over every (sending port, class) of switches and NICs: ten ports paused 1 us each count 10 us (pfc.paused_time_us)"},
	{"ecn_marks", "count", "frames marked CE by switches (ecn.marked_packets)"},
	{"cnps", "count", "CNPs sent by all receivers, the sum of the per-flow cnps (ecn.cnps)"},
	{"deadlocks", "count", "PFC deadlocks found: cycles of paused queues that made no progress (the deadlocks list)"},
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
