// Package results holds the results document of a fabricsim run (docs/results.md), the
// summaries computed from its per-flow records, and its renderings: JSON, tables (text,
// Markdown, CSV), per-flow CSV and the files of an output directory.
//
// It also writes packet captures (PcapWriter): every frame crossing a link with real header
// bytes built by package header, the MAC addresses each router writes (ARP is not modelled:
// addresses are known, never resolved, so no ARP frames appear), IPv4 identification and
// checksums, TCP checksums, RoCE ICRCs and iWARP CRC32c with markers; payloads are zeros.
//
// Times are microseconds as float64 unless a name says otherwise; counts are int64. The
// simulation fills a Variant's counters and per-flow records, calls Summarize, and hands the
// Document to a writer. Writers never compute: they render what the document holds, so the
// same document always gives the same bytes.
package results

import (
	"bytes"
	"encoding/json"
)

// Flow statuses, as docs/results.md names them.
const (
	StatusCompleted  = "completed"  // the receiver holds the whole message
	StatusIncomplete = "incomplete" // not done at the scenario's stop time
	StatusUnroutable = "unroutable" // no path for the flow's transport (e.g. RoCE v1 across a router)
	StatusFailed     = "failed"     // the transport gave up (e.g. retry limit)
)

// Document is the results document: one scenario run as one or more variants.
type Document struct {
	Scenario string    `json:"scenario"`
	Seed     uint64    `json:"seed"`
	Version  string    `json:"version"`
	Variants []Variant `json:"variants"`
	// Interrupted is true when a variant was stopped early, by a signal or a bound
	// (--max-events, --max-wall): its results are those of the simulated time reached.
	Interrupted bool `json:"interrupted"`
	// ResolvedScenario is the scenario as run, in YAML: the file after the --set overrides
	// (Overrides, in order), each variant's set in its variants list. Run again with no
	// flag, it gives these results.
	ResolvedScenario string   `json:"resolved_scenario"`
	Overrides        []string `json:"overrides"`
	// Workloads are the flow-size distributions the traffic drew from.
	Workloads []Workload `json:"workloads"`
	// Replication, when the variants ran under several seeds (Variants then lists each
	// variant once per seed, seed after seed), gives per variant each table metric's mean
	// and 95% confidence interval; omitted for one seed.
	Replication []Replication `json:"replication,omitempty"`
	// Axis is the one numeric parameter the variants vary, when they vary one
	// (scenarios' VariedParameter): the metric-against-parameter plots' x. Not in the document.
	Axis *ParamAxis `json:"-"`
	// compared is true for a comparison's document of two runs (ComparisonFigures), whose
	// variant names end in " [a]" or " [b]".
	compared bool
}

// Workload names a flow-size distribution a run used: a bundled one (File empty) or a
// user's file, with its mean, so that a changed file shows.
type Workload struct {
	Name      string  `json:"name"`
	File      string  `json:"file,omitempty"`
	MeanBytes float64 `json:"mean_bytes"`
}

// Variant is the outcome of one variant of a scenario: one run of the engine.
type Variant struct {
	Name                 string          `json:"name"`
	Transport            string          `json:"transport"`
	SimTimeUS            float64         `json:"sim_time_us"`
	WallSeconds          float64         `json:"wall_seconds"`
	Events               int64           `json:"events"`
	PacketHops           int64           `json:"packet_hops"`
	Flows                FlowCounts      `json:"flows"`
	FCT                  FCTSummary      `json:"fct_us"`
	Slowdown             SlowdownSummary `json:"slowdown"`
	GoodputGbps          float64         `json:"goodput_gbps"`
	Drops                Drops           `json:"drops"`
	PFC                  PFC             `json:"pfc"`
	ECN                  ECN             `json:"ecn"`
	RetransmittedPackets int64           `json:"retransmitted_packets"`
	Deadlocks            []Deadlock      `json:"deadlocks"`
	Queues               []Queue         `json:"queues"`
	Links                []Link          `json:"links"`
	PerFlow              []Flow          `json:"per_flow"`
	// PFCPorts lists, per port and lossless class where PFC acted, what it did: an addition
	// to docs/results.md, empty when PFC is off.
	PFCPorts []PFCPort `json:"pfc_ports"`
	// Timeouts and NAKs sum the flows' retransmit timer expiries and RoCE sequence NAKs
	// (additions to docs/results.md; the variant's CNPs are ecn.cnps).
	Timeouts int64 `json:"timeouts"`
	NAKs     int64 `json:"naks"`
	// TrimmedPackets counts the data packets switches cut to their headers instead of
	// dropping them (switch.trimming; an addition to docs/results.md). They are not drops.
	TrimmedPackets int64 `json:"trimmed_packets"`
	// FlowGbps is the mean of the flows' rate_gbps, nil when no flow has one: the
	// throughput of flows that never end (an addition to docs/results.md).
	FlowGbps *float64 `json:"flow_gbps"`
	// SlowdownBySize bins the flows by size (SizeEdges, DefaultSizeEdges when nil).
	SlowdownBySize []SizeBin `json:"slowdown_by_size"`
	// Seed is the seed of this run (the document's, or one of a replication's).
	Seed uint64 `json:"seed"`
	// Jobs are the variant's collectives (docs/results.md, "jobs"); omitted without any.
	Jobs []Job `json:"jobs,omitempty"`
	// LinkGroups sum the links of an AI cluster's planes, rails and scale-up domains
	// (docs/results.md, "link_groups"); omitted for a fabric without any.
	LinkGroups []LinkGroup `json:"link_groups,omitempty"`
	// SizeEdges are the bin edges of SlowdownBySize, ascending; not in the document.
	SizeEdges []int64 `json:"-"`
	// SizeQuantiles, when above 0, replaces SizeEdges by the edges of that many
	// equal-population bins of the measured flows' sizes (--size-bins quantiles:N).
	SizeQuantiles int `json:"-"`
	// WarmupUS leaves the flows that start before it out of fct_us, slowdown and
	// slowdown_by_size (--warmup); omitted when 0.
	WarmupUS float64 `json:"warmup_us,omitempty"`
	// StopReason says why the variant stopped before its stop time or its last flow:
	// "signal", "max-events" or "max-wall"; omitted when it ran to its end.
	StopReason string `json:"stop_reason,omitempty"`
	// Warnings explain, in words, anything a reader should not miss (e.g. a headroom drop on
	// a lossless class). Not part of docs/results.md's fixed keys; omitted when empty.
	Warnings []string `json:"warnings,omitempty"`
	// Series is the sampled time series, written to CSV files with --out only.
	Series *Series `json:"-"`
	// DropPlaces are where the variant's drops happened, each place and reason that lost a
	// packet (drops.csv and the fabric drawing, with --out only): not in the results document.
	DropPlaces []DropPlace `json:"-"`
	// Storms are the PFC pause storms the scenario's faults set off (the fabric drawing
	// marks their sources, with --out only): not in the results document.
	Storms []Storm `json:"-"`
	// NodeGroups place an AI cluster's nodes in their servers, rails, scale-up domains and
	// planes (the fabric drawing draws them as groups, with --out only): not in the results
	// document.
	NodeGroups []NodeGroup `json:"-"`
	// Parallel is how the run was cut (bench reports it): not in the document, which is the
	// same however many threads ran it.
	Parallel Parallel `json:"-"`
	// window is the time axis its figures share with the run's other variants (Figures sets
	// it); nil for a figure drawn on its own.
	window *timeWindow
	// groups is how the run's figures draw its flows, alike in every panel (Figures sets
	// it); nil for a figure drawn on its own.
	groups *flowGroups
}

// LinkGroup is what one group of host links carried, both directions: a plane's (every host
// link to a switch of plane Index), a rail's (the NIC links of the GPUs in position Index), a
// scale-up domain's (its GPUs' links to switch nv<Index>).
type LinkGroup struct {
	Kind  string `json:"kind"` // plane, rail or scaleup
	Index int    `json:"index"`
	// Links counts the group's links; WireBytes is what they carried both ways, preamble and
	// gap included; Utilization their mean busy time over the simulated time, in [0,1].
	Links       int     `json:"links"`
	WireBytes   int64   `json:"wire_bytes"`
	Utilization float64 `json:"utilization"`
}

// FlowCounts counts a variant's flows by status. Total counts every flow, whatever its status.
type FlowCounts struct {
	Total      int64 `json:"total"`
	Completed  int64 `json:"completed"`
	Incomplete int64 `json:"incomplete"`
	Unroutable int64 `json:"unroutable"`
	Failed     int64 `json:"failed"`
}

// FCTSummary summarises the flow completion times of completed flows, in microseconds. Every
// field is nil (JSON null) when no flow completed.
type FCTSummary struct {
	Mean *float64 `json:"mean"`
	P50  *float64 `json:"p50"`
	P95  *float64 `json:"p95"`
	P99  *float64 `json:"p99"`
	Max  *float64 `json:"max"`
}

// SlowdownSummary summarises the slowdowns of completed flows; nil when there are none.
type SlowdownSummary struct {
	P50 *float64 `json:"p50"`
	P95 *float64 `json:"p95"`
	P99 *float64 `json:"p99"`
}

// SizeBin summarises the flows whose size is in [LoBytes, HiBytes) (HiBytes nil: no upper
// bound): how many there are and completed, the completed ones' FCT p50 and p99, and their
// slowdown p50, p95 and p99 (nil when none completed). Group is empty for a bin of all the
// flows and names the group for a bin of one group's.
type SizeBin struct {
	Group     string   `json:"group,omitempty"`
	LoBytes   int64    `json:"lo_bytes"`
	HiBytes   *int64   `json:"hi_bytes"`
	Flows     int64    `json:"flows"`
	Completed int64    `json:"completed"`
	FCTP50US  *float64 `json:"fct_p50_us"`
	FCTP99US  *float64 `json:"fct_p99_us"`
	P50       *float64 `json:"p50"`
	P95       *float64 `json:"p95"`
	P99       *float64 `json:"p99"`
}

// OverallSizeBins are the bins of SlowdownBySize that are of all the flows (no group): the
// list's first ones.
func (v *Variant) OverallSizeBins() []SizeBin {
	n := 0
	for n < len(v.SlowdownBySize) && v.SlowdownBySize[n].Group == "" {
		n++
	}
	return v.SlowdownBySize[:n]
}

// DefaultSizeEdges are the flow-size bin edges of slowdown_by_size: 10 KB, 100 KB, 1 MB and
// 10 MB, so five bins.
var DefaultSizeEdges = []int64{10_000, 100_000, 1_000_000, 10_000_000}

// Drops counts every packet lost, in total and by reason. Total equals ByReason.Sum().
type Drops struct {
	Total    int64    `json:"total"`
	ByReason ByReason `json:"by_reason"`
}

// ByReason counts dropped packets by the reason they were lost.
type ByReason struct {
	Buffer     int64 `json:"buffer"`      // lossy tail drop: the buffer or queue was full
	Headroom   int64 `json:"headroom"`    // a lossless class overflowed its PFC headroom
	RandomLoss int64 `json:"random_loss"` // the link's random per-packet loss or drop_every
	LinkDown   int64 `json:"link_down"`   // sent onto, or in flight on, a link that is down
	Unroutable int64 `json:"unroutable"`  // no route or no L2 path at a switch
	TTL        int64 `json:"ttl"`         // IP TTL expired (e.g. a routing loop)
	Watchdog   int64 `json:"watchdog"`    // dropped by the PFC watchdog breaking a pause storm
}

// Sum is the total over all reasons.
func (b ByReason) Sum() int64 {
	return b.Buffer + b.Headroom + b.RandomLoss + b.LinkDown + b.Unroutable + b.TTL + b.Watchdog
}

// PFC counts priority flow control activity over the whole fabric.
type PFC struct {
	PauseFrames  int64   `json:"pause_frames"`
	ResumeFrames int64   `json:"resume_frames"`
	PausedTimeUS float64 `json:"paused_time_us"`
}

// ECN counts congestion marking and notification.
type ECN struct {
	MarkedPackets int64 `json:"marked_packets"`
	CNPs          int64 `json:"cnps"`
}

// Deadlock is a cycle of paused queues that made no progress, found at AtUS. Cycle names the
// queues as "node:port", in the order each waits on the next (the last waits on the first).
type Deadlock struct {
	AtUS  float64  `json:"at_us"`
	Cycle []string `json:"cycle"`
}

// Queue describes one egress queue (switch or host NIC) that ever held a packet. MeanBytes and
// P99Bytes are time-weighted over the run: the mean exactly, the p99 as the midpoint of a
// log-linear histogram bucket (within about 3%), never above MaxBytes.
type Queue struct {
	Node      string  `json:"node"`
	Port      int     `json:"port"`
	Peer      string  `json:"peer"`
	Priority  int     `json:"priority"`
	MeanBytes float64 `json:"mean_bytes"`
	P99Bytes  float64 `json:"p99_bytes"`
	MaxBytes  int64   `json:"max_bytes"`
	// Relay marks a GPU NIC's queue of the data it relays for other GPUs of its server (PXN),
	// beside the NIC's own queue of that class; omitted otherwise.
	Relay bool `json:"relay,omitempty"`
}

// PFCPort is the PFC activity of one port and class that sent or received a pause. Node's
// port Port faces Peer. PausesSent and ResumesSent are the PFC frames it sent upstream (to
// Peer) for frames that came in on it; PausedUS is how long its own sending was paused by
// Peer; IngressMaxBytes is the most it ever held from Peer in the class, against XoffBytes.
type PFCPort struct {
	Node            string  `json:"node"`
	Port            int     `json:"port"`
	Peer            string  `json:"peer"`
	Priority        int     `json:"priority"`
	PausesSent      int64   `json:"pauses_sent"`
	ResumesSent     int64   `json:"resumes_sent"`
	PausedUS        float64 `json:"paused_us"`
	IngressMaxBytes int64   `json:"ingress_max_bytes"`
	XoffBytes       int64   `json:"xoff_bytes"`
	HeadroomBytes   int64   `json:"headroom_bytes"`
}

// Link describes one direction of one link that carried a frame. Utilization is busy time
// over simulated time, in [0,1].
type Link struct {
	From        string  `json:"from"`
	To          string  `json:"to"`
	Utilization float64 `json:"utilization"`
	Packets     int64   `json:"packets"`
}

// Flow is the record of one flow. FinishUS, FCTUS and Slowdown are nil (JSON null) until the
// flow finishes; DeliveredBytes is the payload delivered in order by the end of the run,
// finished or not. Reason says why in words for every status but completed.
type Flow struct {
	ID                   int      `json:"id"`
	Src                  string   `json:"src"`
	Dst                  string   `json:"dst"`
	Transport            string   `json:"transport"`
	Priority             int      `json:"priority"`
	SizeBytes            int64    `json:"size_bytes"`
	StartUS              float64  `json:"start_us"`
	FinishUS             *float64 `json:"finish_us"`
	FCTUS                *float64 `json:"fct_us"`
	Slowdown             *float64 `json:"slowdown"`
	Status               string   `json:"status"`
	RetransmittedPackets int64    `json:"retransmitted_packets"`
	DeliveredBytes       int64    `json:"delivered_bytes"`
	Reason               string   `json:"reason"`
	// Timeouts counts the sender's retransmit timer expiries, NAKs the sequence NAKs the
	// RoCE responder sent, CNPs the congestion notifications the receiver sent (additions to
	// docs/results.md).
	Timeouts int64 `json:"timeouts"`
	NAKs     int64 `json:"naks"`
	CNPs     int64 `json:"cnps"`
	// RateGbps is the payload delivered over the flow's active time (from its start to its
	// finish, or to the end of the run), in Gbit/s; nil for a flow that never ran (unroutable,
	// or starting after the run ended).
	RateGbps *float64 `json:"rate_gbps"`
	// Group names the flows of one traffic item (or of the items sharing a label): the
	// item's label, else its kind and index ("poisson 0", "incast 1").
	Group string `json:"group"`
	// SrcServer, SrcRail, DstServer and DstRail place a flow's ends that are GPUs (rail
	// preset): server and rail from 1; absent (0) for other hosts.
	SrcServer int `json:"src_server,omitempty"`
	SrcRail   int `json:"src_rail,omitempty"`
	DstServer int `json:"dst_server,omitempty"`
	DstRail   int `json:"dst_rail,omitempty"`
	// QueuePair marks a collective's queue pair, which carries its messages from one rank to
	// another on one channel for the job's life: SizeBytes is the bytes posted on it,
	// Messages the messages its receiver completed, FinishUS its last one's arrival once the
	// job ended; it has no FCT or slowdown, and the FCT statistics leave it out.
	QueuePair bool  `json:"queue_pair,omitempty"`
	Messages  int64 `json:"messages,omitempty"`
}

// FinishQueuePair records that queue pair f carried its last message, which arrived at
// finishUS: it sets FinishUS and the status, and clears the reason.
func (f *Flow) FinishQueuePair(finishUS float64) {
	f.FinishUS = &finishUS
	f.Status = StatusCompleted
	f.Reason = ""
}

// Finish records that f completed at finishUS: it sets FinishUS, FCTUS = finishUS - StartUS
// and the status, and clears the reason. aloneFCTUS is the flow's FCT alone on the empty
// fabric; when it is positive Slowdown is set to FCTUS / aloneFCTUS, otherwise it stays nil.
func (f *Flow) Finish(finishUS, aloneFCTUS float64) {
	fct := finishUS - f.StartUS
	f.FinishUS = &finishUS
	f.FCTUS = &fct
	f.Slowdown = nil
	if aloneFCTUS > 0 {
		s := fct / aloneFCTUS
		f.Slowdown = &s
	}
	f.Status = StatusCompleted
	f.Reason = ""
}

// MarshalJSON encodes d with an empty list, never null, for no variants.
func (d Document) MarshalJSON() ([]byte, error) {
	type plain Document
	p := plain(d)
	if p.Variants == nil {
		p.Variants = []Variant{}
	}
	if p.Overrides == nil {
		p.Overrides = []string{}
	}
	if p.Workloads == nil {
		p.Workloads = []Workload{}
	}
	return marshal(p)
}

// MarshalJSON encodes v with empty lists, never null, for deadlocks, queues, links and
// per_flow.
func (v Variant) MarshalJSON() ([]byte, error) {
	type plain Variant
	p := plain(v)
	if p.Deadlocks == nil {
		p.Deadlocks = []Deadlock{}
	}
	if p.Queues == nil {
		p.Queues = []Queue{}
	}
	if p.Links == nil {
		p.Links = []Link{}
	}
	if p.PerFlow == nil {
		p.PerFlow = []Flow{}
	}
	if p.PFCPorts == nil {
		p.PFCPorts = []PFCPort{}
	}
	if p.SlowdownBySize == nil {
		p.SlowdownBySize = []SizeBin{}
	}
	return marshal(p)
}

// MarshalJSON encodes d with an empty list, never null, for an empty cycle.
func (d Deadlock) MarshalJSON() ([]byte, error) {
	type plain Deadlock
	p := plain(d)
	if p.Cycle == nil {
		p.Cycle = []string{}
	}
	return marshal(p)
}

// marshal encodes v compactly without HTML escaping, so names such as "h1->h5" stay readable.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// Parallel is how one variant's run was cut for threads (sim.Group): the partitions, the
// threads they ran on, the window (the lookahead) and the windows run, each partition's
// events.
type Parallel struct {
	Threads    int
	Partitions int
	WindowUS   float64
	Windows    uint64
	Events     []uint64 // per partition; the whole fabric's events (samples, faults) are not in them
	// Reason says why the run has fewer partitions than threads, "" when it does not.
	Reason string
}
