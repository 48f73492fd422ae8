package results

import (
	"encoding/csv"
	"io"
	"strconv"
)

// File names of the time series in an --out directory. Each is long ("tidy"): one row per
// variant, seed, sample time and series, units in the column names.
const (
	FileRates   = "rates.csv"   // per flow: delivered bytes, throughput, DCQCN or HPCC rate, TCP cwnd
	FileQueues  = "queues.csv"  // per switch egress queue: depth
	FileIngress = "ingress.csv" // per lossless ingress port-class: occupancy, XOFF, XON
	FilePauses  = "pauses.csv"  // per paused sending port-class: paused time
)

// seriesCSV writes a header, then the rows each variant's series gives, each led by the
// variant's name and seed; the rows' first cell is the sample's time_us.
func seriesCSV(w io.Writer, d *Document, header []string, rows func(s *Series, emit func(...string) error) error) error {
	return variantCSV(w, d, append([]string{"time_us"}, header...), func(v *Variant, emit func(...string) error) error {
		return rows(v.Series, emit)
	})
}

// variantCSV writes a header, then the rows each variant with a series gives, each led by
// the variant's name and seed.
func variantCSV(w io.Writer, d *Document, header []string, rows func(v *Variant, emit func(...string) error) error) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(append([]string{"variant", "seed"}, header...)); err != nil {
		return err
	}
	for i := range d.Variants {
		v := &d.Variants[i]
		if v.Series == nil {
			continue
		}
		lead := []string{v.Name, strconv.FormatUint(v.Seed, 10)}
		if err := rows(v, func(cells ...string) error {
			return cw.Write(append(lead[:2:2], cells...))
		}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeRatesCSV writes each flow at every sample from its start to the first sample after
// its end: delivered_bytes so far, throughput_gbps (the bytes delivered since the previous
// sample over the time between them; empty at the first sample), rate_gbps (DCQCN's rate
// limit, empty without DCQCN), cwnd_segments (TCP's window, empty but for iWARP) and
// window_packets (Swift's or UET NSCC's window, FlowSeries.WindowPackets; empty for others).
func writeRatesCSV(w io.Writer, d *Document) error {
	header := []string{"flow", "delivered_bytes", "throughput_gbps", "rate_gbps", "cwnd_segments", "window_packets"}
	return seriesCSV(w, d, header, func(s *Series, emit func(...string) error) error {
		for _, k := range s.order() {
			t, fs := s.TimesUS[k.at], &s.Flows[k.flow]
			thr := ""
			if k.at > 0 {
				thr = exact(throughputGbps(fs.DeliveredBytes[k.at]-fs.DeliveredBytes[k.at-1], t-s.TimesUS[k.at-1]))
			}
			rate, cwnd, window := "", "", ""
			if fs.RateGbps != nil {
				rate = exact(fs.RateGbps[k.at])
			}
			if fs.CwndSegments != nil {
				cwnd = exact(fs.CwndSegments[k.at])
			}
			if fs.WindowPackets != nil {
				window = exact(fs.WindowPackets[k.at])
			}
			if err := emit(exact(t), strconv.Itoa(fs.Flow), integer(fs.DeliveredBytes[k.at]), thr, rate, cwnd, window); err != nil {
				return err
			}
		}
		return nil
	})
}

// sampleKey is one row of rates.csv: a sample and a flow.
type sampleKey struct{ at, flow int }

// order lists the (sample, flow) pairs of rates.csv, time by time: a flow from the sample
// before it first delivered to the first sample at which it had delivered all it ever
// did. A flow that delivered nothing has no rows.
func (s *Series) order() []sampleKey {
	var out []sampleKey
	first, last := make([]int, len(s.Flows)), make([]int, len(s.Flows))
	for i := range s.Flows {
		b := s.Flows[i].DeliveredBytes
		first[i], last[i] = -1, -1
		for k := range b {
			if b[k] > 0 && first[i] < 0 {
				first[i] = max(k-1, 0)
			}
			if k > 0 && b[k] != b[k-1] {
				last[i] = k
			}
		}
		if first[i] >= 0 && last[i] < first[i] {
			last[i] = first[i]
		}
	}
	for k := range s.TimesUS {
		for i := range s.Flows {
			if first[i] >= 0 && k >= first[i] && k <= last[i] {
				out = append(out, sampleKey{k, i})
			}
		}
	}
	return out
}

// throughputGbps is bytes delivered over us microseconds, in Gbit/s.
func throughputGbps(bytes int64, us float64) float64 {
	if us <= 0 {
		return 0
	}
	return float64(bytes) * 8 / us / 1e3
}

// writeQueuesCSV writes each switch egress queue that held a frame at some sample, at every
// sample: its depth in bytes, and its port's peer.
func writeQueuesCSV(w io.Writer, d *Document) error {
	// peer comes last: a CSV file's columns may be extended, never moved (docs/results.md).
	return seriesCSV(w, d, []string{"node", "port", "priority", "bytes", "peer"}, func(s *Series, emit func(...string) error) error {
		for k, t := range s.TimesUS {
			for _, q := range s.Queues {
				if err := emit(exact(t), q.Node, strconv.Itoa(q.Port), strconv.Itoa(q.Priority), integer(q.Bytes[k]), q.Peer); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// writeIngressCSV writes each lossless ingress port-class that held a frame at some sample,
// at every sample: the bytes it held from its peer, and its XOFF and XON.
func writeIngressCSV(w io.Writer, d *Document) error {
	header := []string{"node", "port", "peer", "priority", "bytes", "xoff_bytes", "xon_bytes", "headroom_bytes"}
	return seriesCSV(w, d, header, func(s *Series, emit func(...string) error) error {
		for k, t := range s.TimesUS {
			for _, in := range s.Ingress {
				if err := emit(exact(t), in.Node, strconv.Itoa(in.Port), in.Peer, strconv.Itoa(in.Priority),
					integer(in.Bytes[k]), integer(in.XoffBytes), integer(in.XonBytes), integer(in.HeadroomBytes)); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// writePausesCSV writes each sending port-class that was paused at some sample, at every
// sample: paused_us, the time paused so far, and paused_fraction, the share of the time
// since the previous sample it spent paused (empty at the first sample).
func writePausesCSV(w io.Writer, d *Document) error {
	header := []string{"node", "port", "peer", "priority", "paused_us", "paused_fraction"}
	return seriesCSV(w, d, header, func(s *Series, emit func(...string) error) error {
		for k, t := range s.TimesUS {
			for _, p := range s.Pauses {
				frac := ""
				if k > 0 {
					frac = exact(pausedFraction(p.PausedUS, s.TimesUS, k))
				}
				if err := emit(exact(t), p.Node, strconv.Itoa(p.Port), p.Peer, strconv.Itoa(p.Priority),
					exact(p.PausedUS[k]), frac); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// pausedFraction is the share of the interval ending at sample k (k > 0) spent paused.
func pausedFraction(paused, times []float64, k int) float64 {
	dt := times[k] - times[k-1]
	if dt <= 0 {
		return 0
	}
	return min(max((paused[k]-paused[k-1])/dt, 0), 1)
}
