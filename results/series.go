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
}

// FlowSeries is one flow over time: its delivered payload (cumulative), the rate limit of
// its DCQCN reaction point (only when DCQCN runs, else nil) and its TCP congestion window in
// segments (only for iWARP, else nil).
type FlowSeries struct {
	Flow           int
	DeliveredBytes []int64
	RateGbps       []float64
	CwndSegments   []float64
}

// QueueSeries is one switch egress queue that held a frame at some sample: its depth.
type QueueSeries struct {
	Node     string
	Port     int
	Priority int
	Bytes    []int64
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
	Bytes     []int64
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
