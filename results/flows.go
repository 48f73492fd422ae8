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

// gpuHeader names the columns flows.csv adds when a flow's end is a GPU (rail preset).
var gpuHeader = []string{"src_server", "src_rail", "dst_server", "dst_rail"}

// hasGPUs reports whether any flow of vs has an end on a GPU.
func hasGPUs(vs ...*Variant) bool {
	for _, v := range vs {
		for i := range v.PerFlow {
			if f := &v.PerFlow[i]; f.SrcServer > 0 || f.DstServer > 0 {
				return true
			}
		}
	}
	return false
}

// gpuRecord is the GPU columns of f (empty cells for an end that is not a GPU).
func gpuRecord(f *Flow) []string {
	cell := func(n int) string {
		if n == 0 {
			return ""
		}
		return strconv.Itoa(n)
	}
	return []string{cell(f.SrcServer), cell(f.SrcRail), cell(f.DstServer), cell(f.DstRail)}
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
// additions timeouts, naks, cnps, rate_gbps and group; with flows between GPUs, then
// src_server, src_rail, dst_server and dst_rail). Numbers are at full precision; finish_us,
// fct_us and slowdown are empty for unfinished flows.
func WriteFlowsCSV(w io.Writer, v *Variant) error {
	cw := csv.NewWriter(w)
	gpus := hasGPUs(v)
	header := flowsHeader
	if gpus {
		header = append(append([]string(nil), flowsHeader...), gpuHeader...)
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for i := range v.PerFlow {
		rec := flowRecord(&v.PerFlow[i])
		if gpus {
			rec = append(rec, gpuRecord(&v.PerFlow[i])...)
		}
		if err := cw.Write(rec); err != nil {
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
	vs := make([]*Variant, len(d.Variants))
	for i := range d.Variants {
		vs[i] = &d.Variants[i]
	}
	gpus := hasGPUs(vs...)
	header := append([]string{"variant", "seed"}, flowsHeader...)
	if gpus {
		header = append(header, gpuHeader...)
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, v := range vs {
		for j := range v.PerFlow {
			rec := append([]string{v.Name, strconv.FormatUint(v.Seed, 10)}, flowRecord(&v.PerFlow[j])...)
			if gpus {
				rec = append(rec, gpuRecord(&v.PerFlow[j])...)
			}
			if err := cw.Write(rec); err != nil {
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
