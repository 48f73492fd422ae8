package results

import (
	"encoding/csv"
	"io"
	"strconv"
)

// flowsHeader names the per-flow CSV columns: the per_flow keys of docs/results.md, in order.
var flowsHeader = []string{
	"id", "src", "dst", "transport", "priority", "size_bytes", "start_us", "finish_us",
	"fct_us", "slowdown", "status", "retransmitted_packets", "delivered_bytes", "reason",
	"timeouts", "naks", "cnps", "rate_gbps", "group",
}

// flowRecord is f as CSV cells: numbers at full precision, null times as empty cells.
func flowRecord(f *Flow) []string {
	return []string{
		strconv.Itoa(f.ID),
		f.Src,
		f.Dst,
		f.Transport,
		strconv.Itoa(f.Priority),
		integer(f.SizeBytes),
		exact(f.StartUS),
		optExact(f.FinishUS),
		optExact(f.FCTUS),
		optExact(f.Slowdown),
		f.Status,
		integer(f.RetransmittedPackets),
		integer(f.DeliveredBytes),
		f.Reason,
		integer(f.Timeouts),
		integer(f.NAKs),
		integer(f.CNPs),
		optExact(f.RateGbps),
		f.Group,
	}
}

func optExact(f *float64) string {
	if f == nil {
		return ""
	}
	return exact(*f)
}

// WriteFlowsCSV writes v's flows as CSV, one row per flow under a header of the per_flow keys
// of docs/results.md (id, src, dst, transport, priority, size_bytes, start_us, finish_us,
// fct_us, slowdown, status, retransmitted_packets, delivered_bytes, reason, then the
// additions timeouts, naks, cnps, rate_gbps and group). Numbers are at
// full precision; finish_us, fct_us and slowdown are empty for unfinished flows.
func WriteFlowsCSV(w io.Writer, v *Variant) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(flowsHeader); err != nil {
		return err
	}
	for i := range v.PerFlow {
		if err := cw.Write(flowRecord(&v.PerFlow[i])); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeAllFlowsCSV writes the flows of every variant of d as one CSV with leading variant
// and seed columns (one row per flow and seed when the variants ran under several).
func writeAllFlowsCSV(w io.Writer, d *Document) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(append([]string{"variant", "seed"}, flowsHeader...)); err != nil {
		return err
	}
	for i := range d.Variants {
		v := &d.Variants[i]
		for j := range v.PerFlow {
			if err := cw.Write(append([]string{v.Name, strconv.FormatUint(v.Seed, 10)}, flowRecord(&v.PerFlow[j])...)); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// sizesHeader names the columns of sizes.csv: the variant and seed, then the
// slowdown_by_size keys.
var sizesHeader = []string{"variant", "seed", "lo_bytes", "hi_bytes", "flows", "completed", "fct_p50_us",
	"fct_p99_us", "p50", "p95", "p99", "group"}

// writeSizesCSV writes every variant's slowdown_by_size bins, one row per bin; an unbounded
// hi_bytes and the statistics of a bin with no completed flow are empty cells, and so is
// the group of a bin of all the flows.
func writeSizesCSV(w io.Writer, d *Document) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(sizesHeader); err != nil {
		return err
	}
	for i := range d.Variants {
		v := &d.Variants[i]
		for _, b := range v.SlowdownBySize {
			hi := ""
			if b.HiBytes != nil {
				hi = integer(*b.HiBytes)
			}
			if err := cw.Write([]string{v.Name, strconv.FormatUint(v.Seed, 10), integer(b.LoBytes), hi, integer(b.Flows), integer(b.Completed),
				optExact(b.FCTP50US), optExact(b.FCTP99US), optExact(b.P50), optExact(b.P95), optExact(b.P99), b.Group}); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
