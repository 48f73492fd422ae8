package results

import (
	"io"
	"strconv"
)

// File names of the fabric's time series in an --out directory (beside FileRates...).
const (
	FileLinks      = "links.csv"     // per link direction and sample: wire bytes and utilisation
	FileBuffers    = "buffers.csv"   // per switch and sample: shared-buffer occupancy
	FileQueueDepth = "queue-cdf.csv" // per egress queue: the time-weighted distribution of its depth
	FileEvents     = "events.csv"    // drops, retransmissions, ECN marks, CNPs, trims by place, per sample
)

// LinkUtilization is the share of its line rate that link l carried between samples a and
// b (a < b): the wire bytes put on it in that time over the bytes the line could carry.
// A frame counts when its serialization starts, so over a short time one frame more than
// fits may count: the share may pass 1 by one frame's serialization over the time.
func LinkUtilization(s *Series, l *LinkSeries, a, b int) float64 {
	dt := s.TimesUS[b] - s.TimesUS[a]
	if dt <= 0 || l.RateGbps <= 0 {
		return 0
	}
	return float64(l.WireBytes[b]-l.WireBytes[a]) * 8 / (l.RateGbps * 1e3 * dt)
}

// tierPair names a link's tiers, from then to: "hosts->leaf".
func tierPair(names map[int]string, from, to int) string { return names[from] + "->" + names[to] }

// writeLinksCSV writes each link direction that carried a frame by some sample, at every
// sample: its ends (node, port from 1, tier as the fabric drawing has it), the tier pair,
// its line rate, the wire bytes put on it since the previous sample (frame, preamble, SFD
// and inter-frame gap; each frame in the interval its serialization started) and so far,
// and its utilisation in the interval as a fraction of the line rate (empty at the first
// sample).
func writeLinksCSV(w io.Writer, d *Document) error {
	header := []string{"from", "from_port", "to", "to_port", "from_tier", "to_tier", "tier_pair", "rate_gbps",
		"wire_bytes", "total_wire_bytes", "utilization_fraction"}
	// An AI cluster's links say their plane, rail and scale-up domain (empty where none);
	// other fabrics' files keep their columns.
	groups := false
	for i := range d.Variants {
		groups = groups || len(d.Variants[i].LinkGroups) > 0
	}
	if groups {
		header = append(header, "plane", "rail", "scaleup_domain")
	}
	group := func(n int) string {
		if n == 0 {
			return ""
		}
		return strconv.Itoa(n)
	}
	return variantCSV(w, d, append([]string{"time_us"}, header...), func(v *Variant, emit func(...string) error) error {
		s := v.Series
		tiers := nodeTiers(v)
		names := tierNames(tiers)
		for k, t := range s.TimesUS {
			for li := range s.Links {
				l := &s.Links[li]
				bytes, util := "", ""
				if k > 0 {
					bytes = integer(l.WireBytes[k] - l.WireBytes[k-1])
					util = exact(LinkUtilization(s, l, k-1, k))
				}
				ft, tt := tiers[l.From], tiers[l.To]
				cells := []string{exact(t), l.From, strconv.Itoa(l.FromPort), l.To, strconv.Itoa(l.ToPort),
					strconv.Itoa(ft), strconv.Itoa(tt), tierPair(names, ft, tt), exact(l.RateGbps),
					bytes, integer(l.WireBytes[k]), util}
				if groups {
					cells = append(cells, group(l.Plane), group(l.Rail), group(l.ScaleUp))
				}
				if err := emit(cells...); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// writeBuffersCSV writes each switch whose shared buffer held a frame at some sample, at
// every sample: the bytes queued on all its ports and classes, the buffer's size, and
// their ratio.
func writeBuffersCSV(w io.Writer, d *Document) error {
	header := []string{"node", "bytes", "capacity_bytes", "occupancy_fraction"}
	return seriesCSV(w, d, header, func(s *Series, emit func(...string) error) error {
		for k, t := range s.TimesUS {
			for _, b := range s.Buffers {
				frac := 0.0
				if b.CapacityBytes > 0 {
					frac = float64(b.Bytes[k]) / float64(b.CapacityBytes)
				}
				if err := emit(exact(t), b.Node, integer(b.Bytes[k]), integer(b.CapacityBytes), exact(frac)); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// writeQueueDepthCSV writes each egress queue of the document's queues list, depth range
// by depth range (the first depth 0): the time spent at a depth in [depth_lo_bytes,
// depth_hi_bytes] over the whole run, its share of the run, and the cumulative share at or
// below depth_hi_bytes (the time-weighted CDF, ending at 1).
func writeQueueDepthCSV(w io.Writer, d *Document) error {
	header := []string{"node", "port", "peer", "priority", "depth_lo_bytes", "depth_hi_bytes", "time_us", "time_fraction", "cdf"}
	return variantCSV(w, d, header, func(v *Variant, emit func(...string) error) error {
		for _, q := range v.Series.QueueDepths {
			total := 0.0
			for _, r := range q.Depths {
				total += r.TimeUS
			}
			cum := 0.0
			for _, r := range q.Depths {
				cum += r.TimeUS
				share, cdf := 0.0, 0.0
				if total > 0 {
					share, cdf = r.TimeUS/total, cum/total
				}
				if err := emit(q.Node, strconv.Itoa(q.Port), q.Peer, strconv.Itoa(q.Priority), integer(r.LoBytes),
					integer(r.HiBytes), exact(r.TimeUS), exact(share), exact(cdf)); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// writeEventsCSV writes, at each sample, each count of EventSeries that grew since the
// previous sample (at the first sample, each above 0): the place and its type, the event and
// for a drop its reason, the count in the interval and the total so far.
func writeEventsCSV(w io.Writer, d *Document) error {
	header := []string{"place", "place_type", "event", "reason", "count", "total"}
	return seriesCSV(w, d, header, func(s *Series, emit func(...string) error) error {
		for k, t := range s.TimesUS {
			for _, e := range s.Events {
				n := e.Counts[k]
				if k > 0 {
					n -= e.Counts[k-1]
				}
				if n == 0 {
					continue
				}
				if err := emit(exact(t), e.Place, e.PlaceType, e.Event, e.Reason, integer(n), integer(e.Counts[k])); err != nil {
					return err
				}
			}
		}
		return nil
	})
}
