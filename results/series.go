package results

import (
	"encoding/csv"
	"io"
	"strconv"
)

// Series is a variant's time series, sampled every sample_interval: each running flow's rate
// limit and delivered bytes, and the depth of each switch queue that has held anything by
// then (empty ones as 0). It is written with --out (rates.csv, queues.csv), not into the
// results document.
type Series struct {
	Rates  []RateSample
	Queues []QueueSample
}

// RateSample is one flow at one sampling time. RateGbps is the rate the flow's sender may
// send at (DCQCN's current rate, its pacing rate, or its NIC's line rate).
type RateSample struct {
	TimeUS         float64
	Flow           int
	RateGbps       float64
	DeliveredBytes int64
}

// QueueSample is one switch egress queue at one sampling time.
type QueueSample struct {
	TimeUS   float64
	Node     string
	Port     int
	Priority int
	Bytes    int64
}

// File names of the time series and plots in an --out directory.
const (
	FileRates   = "rates.csv"
	FileQueues  = "queues.csv"
	FilePlotFCT = "fct-cdf.png"
)

func writeRatesCSV(w io.Writer, d *Document) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"variant", "time_us", "flow", "rate_gbps", "delivered_bytes"}); err != nil {
		return err
	}
	for i := range d.Variants {
		v := &d.Variants[i]
		if v.Series == nil {
			continue
		}
		for _, s := range v.Series.Rates {
			if err := cw.Write([]string{v.Name, exact(s.TimeUS), strconv.Itoa(s.Flow), exact(s.RateGbps), integer(s.DeliveredBytes)}); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func writeQueuesCSV(w io.Writer, d *Document) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"variant", "time_us", "node", "port", "priority", "bytes"}); err != nil {
		return err
	}
	for i := range d.Variants {
		v := &d.Variants[i]
		if v.Series == nil {
			continue
		}
		for _, s := range v.Series.Queues {
			if err := cw.Write([]string{v.Name, exact(s.TimeUS), s.Node, strconv.Itoa(s.Port), strconv.Itoa(s.Priority), integer(s.Bytes)}); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
