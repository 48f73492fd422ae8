package results

// Series is a variant's time series, written with --out (the CSV files and plots), never into
// the results document. Every column has one value per sample time in TimesUS, so the
// sampler can thin them all alike; counters are cumulative (DeliveredBytes, PausedUS), so
// a rate over any two samples is exact whatever the thinning, while depths and rates are
// the values at the sample time.
//
// The sampler starts at the first flow's start and samples every IntervalUS; it keeps at
// most a bounded number of samples by dropping every other one (doubling IntervalUS) when
// full, and takes a last sample at the end of the run. So the active period, from the first
// start to the last finish (or the stop), holds between half that bound and the bound of
// evenly spaced samples, whatever its length. A scenario's sample_interval fixes the
// interval instead.
type Series struct {
	IntervalUS float64
	TimesUS    []float64
	Flows      []FlowSeries
	Queues     []QueueSeries
	Ingress    []IngressSeries
	Pauses     []PauseSeries
	Links      []LinkSeries
	Buffers    []BufferSeries
	Events     []EventSeries
	// QueueDepths are not sampled: each queue's time-weighted depth over the run.
	QueueDepths []QueueDepths
}

// FlowSeries is one flow over time: its delivered payload (cumulative), the rate limit of
// its DCQCN reaction point (only when DCQCN runs, else nil), its TCP congestion window in
// segments (only for iWARP, else nil), and the window of a window-based congestion control
// other than TCP's in full packets (Swift's min(fcwnd, ecwnd); UET NSCC's cwnd bytes over a
// full packet's bytes, headers included), else nil; 0 at a sample before the sender held
// one.
type FlowSeries struct {
	Flow           int
	DeliveredBytes []int64
	RateGbps       []float64
	CwndSegments   []float64
	WindowPackets  []float64
}

// QueueSeries is one switch egress queue that held a frame at some sample: its depth. Peer
// is the node at the other end of its port's link. The thresholds its depth is held to, from
// its switch's configuration: ECN marking's Kmin and Kmax (a frame leaving a queue deeper
// than Kmin may be marked CE, deeper than Kmax always is; both 0 when the switch marks
// none) and, where the queue trims (Trims), the trimming threshold (a trimmable data packet
// that would take the queue past it is cut to its headers; 0: only what the buffer would
// drop is trimmed).
type QueueSeries struct {
	Node                 string
	Port                 int
	Peer                 string
	Priority             int
	KminBytes, KmaxBytes int64
	Trims                bool
	TrimBytes            int64
	Bytes                []int64
}

// IngressSeries is what one lossless port-class of a switch held from its peer over time,
// against its XOFF (pause above it) and XON (resume at or below it).
type IngressSeries struct {
	Node      string
	Port      int
	Peer      string
	Priority  int
	XoffBytes int64
	XonBytes  int64
	// HeadroomBytes is the room above XOFF for what is in flight after the PAUSE: a frame
	// that would take the count above XOFF + headroom is dropped.
	HeadroomBytes int64
	Bytes         []int64
}

// PauseSeries is one sending port-class (a switch port or a NIC) that a PFC frame paused:
// the time it has been paused so far (cumulative), so the share of each interval spent
// paused is the difference of two samples over the interval.
type PauseSeries struct {
	Node     string
	Port     int
	Peer     string
	Priority int
	PausedUS []float64
}

// Len is the number of samples.
func (s *Series) Len() int { return len(s.TimesUS) }

// LinkSeries is one direction of a link that carried a frame by some sample: the wire
// bytes put on it so far (cumulative; a frame with its preamble, SFD and inter-frame gap,
// counted when its serialization starts) and its line rate, so that its utilisation over
// any two samples is the bytes between them over what the line could carry in that time.
type LinkSeries struct {
	From, To         string
	FromPort, ToPort int
	RateGbps         float64
	WireBytes        []int64
	// Plane, Rail and ScaleUp are the AI cluster's groups the link is in (LinkGroup), 0
	// where none: links.csv's plane, rail and scaleup_domain columns.
	Plane, Rail, ScaleUp int
}

// BufferSeries is one switch whose shared buffer held a frame at some sample: the bytes of
// the frames queued on all its ports and classes at each sample, and the buffer's size.
type BufferSeries struct {
	Node          string
	CapacityBytes int64
	Bytes         []int64
}

// EventSeries is one count of things that happened at one place, so far (cumulative): a
// drop by reason at a switch (its counter, all ports together), a link direction
// ("a->b": random_loss, link_down) or a host (unroutable: a frame for another host); ECN
// marks and trimmed packets at a switch; retransmitted data packets at their sending host;
// CNPs at the host that sent them (the flows' receivers). It appears at the first sample
// with a count above 0.
type EventSeries struct {
	Place     string
	PlaceType string // switch, host or link
	Event     string // drop, retransmission, ecn_mark, cnp or trim
	Reason    string // for a drop: its reason, as drops.by_reason names it; else ""
	Counts    []int64
}

// The events and place types of EventSeries.
const (
	EventDrop       = "drop"
	EventRetransmit = "retransmission"
	EventMark       = "ecn_mark"
	EventCNP        = "cnp"
	EventTrim       = "trim"
	PlaceSwitch     = "switch"
	PlaceHost       = "host"
	PlaceLink       = "link"
)

// QueueDepths is the time-weighted distribution of one egress queue's depth over the whole
// run (the queues of the document's queues list): not sampled, but the queue's own record
// of how long it held each depth, in ranges of its histogram (exact below 32 bytes, then 16
// ranges per power of two), the first range depth 0.
type QueueDepths struct {
	Node     string
	Port     int
	Peer     string
	Priority int
	MaxBytes int64
	Depths   []DepthRange
}

// DepthRange is the time a queue spent at a depth in [LoBytes, HiBytes].
type DepthRange struct {
	LoBytes, HiBytes int64
	TimeUS           float64
}
