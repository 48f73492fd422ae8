package results

import "math"

// Histogram counts values in bins whose edges double: bin 0 holds values below
// HistogramFirstEdge, bin k (k >= 1) those from HistogramFirstEdge x 2^(k-1) up to twice
// that. Counts runs to the highest bin that holds a value.
type Histogram struct {
	// FirstEdgeUS is bin 1's lower edge, in us; Counts the values in each bin.
	FirstEdgeUS float64 `json:"first_edge_us"`
	Counts      []int64 `json:"counts"`
}

// HistogramFirstEdge is the lower edge of a histogram's bin 1, in us: a quarter of a
// microsecond, below one MTU's serialization at 100 Gb/s (4,096 B in 0.33 us), so the
// smallest messages a collective sends land in the first bins and a 1 s message in bin 23.
const HistogramFirstEdge = 0.25

// NewHistogram returns an empty histogram.
func NewHistogram() *Histogram { return &Histogram{FirstEdgeUS: HistogramFirstEdge, Counts: []int64{}} }

// Add counts the value us.
func (h *Histogram) Add(us float64) {
	bin := 0
	if us >= h.FirstEdgeUS {
		bin = 1 + int(math.Floor(math.Log2(us/h.FirstEdgeUS)))
	}
	for len(h.Counts) <= bin {
		h.Counts = append(h.Counts, 0)
	}
	h.Counts[bin]++
}
