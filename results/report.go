package results

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter/tw"
)

var (
	flowTableHeader = []string{
		"id", "src", "dst", "transport", "priority", "size_bytes", "status", "start_us",
		"fct_us", "slowdown", "delivered_bytes", "retx_pkts", "reason",
	}
	flowTableAlign = []tw.Align{
		tw.AlignRight, tw.AlignLeft, tw.AlignLeft, tw.AlignLeft, tw.AlignRight, tw.AlignRight,
		tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight,
		tw.AlignLeft,
	}
	queueTableHeader = []string{"node", "port", "peer", "priority", "mean_bytes", "p99_bytes", "max_bytes"}
	queueTableAlign  = []tw.Align{
		tw.AlignLeft, tw.AlignRight, tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight,
		tw.AlignRight,
	}
	linkTableHeader = []string{"from", "to", "utilization", "packets"}
	linkTableAlign  = []tw.Align{tw.AlignLeft, tw.AlignLeft, tw.AlignRight, tw.AlignRight}
)

// WriteVariantTable writes a plain-text report of one variant: a heading with its run
// statistics, its row of the comparison table, the remaining summaries (FCT and slowdown
// quantiles, drops by reason, PFC and ECN counts), its notes (see Notes), and ASCII tables of
// its flows, queues and links (the last two only when it has any). Unfinished flows show "-"
// for their times and slowdown.
func WriteVariantTable(w io.Writer, v *Variant) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (transport %s)\n", v.Name, v.Transport)
	fmt.Fprintf(&b, "simulated %sus in %ss wall: %d events, %d packet hops\n\n",
		fixed(v.SimTimeUS), fixed(v.WallSeconds), v.Events, v.PacketHops)
	if err := flush(w, &b); err != nil {
		return err
	}
	if err := renderTable(w, FormatTable, summaryHeader, summaryAlign, [][]string{summaryRow(v)}); err != nil {
		return err
	}

	b.WriteString("\n")
	fmt.Fprintf(&b, "fct_us of %d completed: mean %s, p50 %s, p95 %s, p99 %s, max %s\n",
		v.Flows.Completed, optFixed(v.FCT.Mean), optFixed(v.FCT.P50), optFixed(v.FCT.P95), optFixed(v.FCT.P99),
		optFixed(v.FCT.Max))
	fmt.Fprintf(&b, "slowdown: p50 %s, p95 %s, p99 %s\n",
		optFixed(v.Slowdown.P50), optFixed(v.Slowdown.P95), optFixed(v.Slowdown.P99))
	r := v.Drops.ByReason
	fmt.Fprintf(&b, "drops: %d (buffer %d, headroom %d, random_loss %d, link_down %d, unroutable %d, ttl %d, watchdog %d)\n",
		v.Drops.Total, r.Buffer, r.Headroom, r.RandomLoss, r.LinkDown, r.Unroutable, r.TTL, r.Watchdog)
	fmt.Fprintf(&b, "pfc: %d pause frames, %d resume frames, paused %sus; ecn: %d marked packets, %d cnps\n",
		v.PFC.PauseFrames, v.PFC.ResumeFrames, fixed(v.PFC.PausedTimeUS), v.ECN.MarkedPackets, v.ECN.CNPs)
	for _, n := range Notes(v) {
		b.WriteString(n)
		b.WriteString("\n")
	}

	flows := make([][]string, len(v.PerFlow))
	for i := range v.PerFlow {
		f := &v.PerFlow[i]
		flows[i] = []string{
			strconv.Itoa(f.ID), f.Src, f.Dst, f.Transport, strconv.Itoa(f.Priority),
			integer(f.SizeBytes), f.Status, fixed(f.StartUS), optFixed(f.FCTUS), optFixed(f.Slowdown),
			integer(f.DeliveredBytes), integer(f.RetransmittedPackets), f.Reason,
		}
	}
	fmt.Fprintf(&b, "\nflows (%d)\n", len(flows))
	if err := flush(w, &b); err != nil {
		return err
	}
	if err := renderTable(w, FormatTable, flowTableHeader, flowTableAlign, flows); err != nil {
		return err
	}

	if len(v.Queues) > 0 {
		rows := make([][]string, len(v.Queues))
		for i, q := range v.Queues {
			rows[i] = []string{q.Node, strconv.Itoa(q.Port), q.Peer, strconv.Itoa(q.Priority),
				fixed(q.MeanBytes), fixed(q.P99Bytes), integer(q.MaxBytes)}
		}
		fmt.Fprintf(&b, "\nqueues (%d)\n", len(rows))
		if err := flush(w, &b); err != nil {
			return err
		}
		if err := renderTable(w, FormatTable, queueTableHeader, queueTableAlign, rows); err != nil {
			return err
		}
	}
	if len(v.PFCPorts) > 0 {
		rows := make([][]string, len(v.PFCPorts))
		for i, p := range v.PFCPorts {
			rows[i] = []string{p.Node, strconv.Itoa(p.Port), p.Peer, strconv.Itoa(p.Priority), integer(p.PausesSent),
				integer(p.ResumesSent), fixed(p.PausedUS), integer(p.IngressMaxBytes), integer(p.XoffBytes), integer(p.HeadroomBytes)}
		}
		fmt.Fprintf(&b, "\npfc ports (%d)\n", len(rows))
		if err := flush(w, &b); err != nil {
			return err
		}
		header := []string{"node", "port", "peer", "priority", "pauses_sent", "resumes_sent", "paused_us", "ingress_max_bytes", "xoff_bytes", "headroom_bytes"}
		align := []tw.Align{tw.AlignLeft, tw.AlignRight, tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight}
		if err := renderTable(w, FormatTable, header, align, rows); err != nil {
			return err
		}
	}
	if len(v.Links) > 0 {
		rows := make([][]string, len(v.Links))
		for i, l := range v.Links {
			rows[i] = []string{l.From, l.To, strconv.FormatFloat(l.Utilization, 'f', 3, 64), integer(l.Packets)}
		}
		fmt.Fprintf(&b, "\nlinks (%d)\n", len(rows))
		if err := flush(w, &b); err != nil {
			return err
		}
		if err := renderTable(w, FormatTable, linkTableHeader, linkTableAlign, rows); err != nil {
			return err
		}
	}
	return nil
}

// flush writes and resets b.
func flush(w io.Writer, b *strings.Builder) error {
	_, err := io.WriteString(w, b.String())
	b.Reset()
	return err
}
