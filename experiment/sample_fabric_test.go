package experiment

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/topology"
)

// runWithSeries runs every variant of an inline scenario with its time series, as -o does.
func runWithSeries(t *testing.T, text string) *results.Document {
	t.Helper()
	doc, err := RunFileWith(load(t, text), nil, Options{Workers: 1, Series: true})
	require.NoError(t, err)
	return doc
}

// lineRate: one RoCE v2 flow without congestion control at line rate, h1 -> sw -> h2, beside
// a 10 KB flow h3 -> h4 that ends within the first sample. Samples are 8,848 ns apart: 100
// middle frames' serialization at 100 Gb/s (1,106 wire bytes, 80 ps a byte: 88.48 ns each).
const lineRate = `
version: 1
name: line-rate
stop: 5ms
sample_interval: 8848ns
topology: {preset: star, params: {hosts: 4, link: {rate: 100Gbps, delay: 1us}}}
switch: {pfc: {enabled: false}, ecn: {enabled: false}}
transports: {rocev2: {cc: none}}
traffic:
  - flow: {src: h1, dst: h2, size: 2MB, transport: rocev2}
  - flow: {src: h3, dst: h4, size: 10KB, transport: rocev2}
`

// TestLinkSeriesAtLineRate: in every interval in which a data link was busy from before
// its start to after its end, exactly 100 middle frames start, so it carries 100 x 1,106
// wire bytes and its utilisation is 1. Exactly 100 and not 99 or 101: no frame starts at a
// sample time (h1's frame j >= 1 starts at 89.76 + (j-1) x 88.48 ns, the switch's at
// 1,089.76 + 89.76 + (j-1) x 88.48 ns: the first frame carries a 16-byte RETH, the switch
// forwards after 1 us of propagation, with no forwarding latency; neither is a multiple of
// 8,848 ns). The acknowledgement directions carry only 66-byte ACK frames (86 on the wire),
// h3's and h4's links nothing once their flow ended (utilisation 0), and each link's last
// total over the run is the document's utilization (both the serialization of its bytes).
func TestLinkSeriesAtLineRate(t *testing.T) {
	doc := runWithSeries(t, lineRate)
	v := &doc.Variants[0]
	s := v.Series
	require.Equal(t, "completed", v.PerFlow[0].Status)
	const middle = 1024 + roceV2Overhead // 1,106 wire bytes
	ack := int64(66 + topology.PreambleSFD + topology.InterFrameGap)
	byName := map[string]*results.LinkSeries{}
	for i := range s.Links {
		l := &s.Links[i]
		byName[l.From+"->"+l.To] = l
		require.Len(t, l.WireBytes, s.Len())
		require.True(t, slices.IsSorted(l.WireBytes), "%s->%s: cumulative", l.From, l.To)
	}
	require.Len(t, byName, 8, "the four hosts' links, both ways, all carried a frame")
	h3Done := v.PerFlow[1].FinishUS
	require.NotNil(t, h3Done)
	full := 0
	for k := 1; k < s.Len(); k++ {
		for _, name := range []string{"h1->sw", "sw->h2"} {
			l := byName[name]
			final := l.WireBytes[s.Len()-1]
			if k < 2 || l.WireBytes[k-2] == 0 || l.WireBytes[k] == final {
				// The interval of the first frame, or the one after it (h1's first frame,
				// at 0, is in sample 0; its RETH makes the next 99 frames start 1.28 ns
				// later, so 99 fit in sample 1), or that of the last.
				continue
			}
			full++
			require.Equal(t, int64(100*middle), l.WireBytes[k]-l.WireBytes[k-1], "%s, sample %d", name, k)
			require.InDelta(t, 1.0, results.LinkUtilization(s, l, k-1, k), 1e-9, "%s, sample %d", name, k)
		}
		for _, name := range []string{"h2->sw", "sw->h1"} {
			l := byName[name]
			require.Zero(t, (l.WireBytes[k]-l.WireBytes[k-1])%ack, "%s: ACK frames only, sample %d", name, k)
		}
		if s.TimesUS[k-1] > *h3Done+2 { // h3's last ACK has arrived (1 us a hop)
			for _, name := range []string{"h3->sw", "sw->h4", "h4->sw", "sw->h3"} {
				require.Zero(t, results.LinkUtilization(s, byName[name], k-1, k), "%s idle, sample %d", name, k)
			}
		}
	}
	// 2 MB at 100 x 1,106 bytes an interval is about 18 intervals per link, less the first
	// and last.
	require.GreaterOrEqual(t, full, 2*15)
	for _, dl := range v.Links {
		l := byName[dl.From+"->"+dl.To]
		require.NotNil(t, l, "%s->%s", dl.From, dl.To)
		busyUS := float64(l.WireBytes[s.Len()-1]) * 8 / (l.RateGbps * 1e3)
		require.InDelta(t, dl.Utilization, busyUS/v.SimTimeUS, 1e-12, "%s->%s", dl.From, dl.To)
	}
}

// incastLossy: two senders into one receiver behind a star with a small lossy buffer, ECN
// with DCQCN, and random loss on h1's uplink: buffer drops at the switch, random losses on
// a link, retransmissions, marks and CNPs.
const incastLossy = `
version: 1
name: incast-lossy
stop: 20ms
topology: {preset: star, params: {hosts: 3, link: {rate: 100Gbps, delay: 1us}}}
switch: {buffer: 100KB, pfc: {enabled: false}, ecn: {enabled: true, kmin: 5KB, kmax: 40KB, pmax: 0.2}}
transports: {rocev2: {cc: dcqcn}}
traffic:
  - incast: {senders: [h1, h2], receiver: h3, size: 1MB, transport: rocev2}
faults:
  - {at: 0, link: [h1, sw], loss: 0.002}
`

// TestBufferQueuesAndEventsAgree: on a 2-to-1 incast, at every sample the switch's buffer
// holds exactly the sum of its egress queues and no more than its size; each queue's
// time-weighted depth distribution covers the whole run, reaches 1, and stops at the
// queue's maximum, which is within the buffer; and the counts over time end at the
// document's counters: drops by reason, ECN marks, CNPs, retransmissions.
func TestBufferQueuesAndEventsAgree(t *testing.T) {
	doc := runWithSeries(t, incastLossy)
	v := &doc.Variants[0]
	s := v.Series
	require.Len(t, s.Buffers, 1)
	b := s.Buffers[0]
	require.Equal(t, "sw", b.Node)
	require.Equal(t, int64(100_000), b.CapacityBytes)
	for k := range s.TimesUS {
		var sum int64
		for _, q := range s.Queues {
			if q.Node == b.Node {
				sum += q.Bytes[k]
			}
		}
		require.Equal(t, sum, b.Bytes[k], "sample %d", k)
		require.LessOrEqual(t, b.Bytes[k], b.CapacityBytes)
	}
	require.Positive(t, slices.Max(b.Bytes), "the incast queues")

	maxOf := map[string]int64{}
	for _, q := range v.Queues {
		maxOf[queueKey(q.Node, q.Port, q.Priority)] = q.MaxBytes
	}
	require.Len(t, s.QueueDepths, len(v.Queues))
	for _, q := range s.QueueDepths {
		var total float64
		for i, r := range q.Depths {
			total += r.TimeUS
			require.LessOrEqual(t, r.LoBytes, r.HiBytes)
			if i > 0 {
				require.Greater(t, r.LoBytes, q.Depths[i-1].HiBytes, "ranges in order, apart")
			}
		}
		require.InDelta(t, v.SimTimeUS, total, 1e-6, "%s:%d", q.Node, q.Port)
		require.Equal(t, maxOf[queueKey(q.Node, q.Port, q.Priority)], q.MaxBytes)
		require.LessOrEqual(t, q.Depths[len(q.Depths)-1].HiBytes, q.MaxBytes)
		if q.Node == "sw" {
			require.LessOrEqual(t, q.MaxBytes, b.CapacityBytes)
		}
	}

	drops := map[string]int64{}
	var marks, cnps, retx int64
	last := s.Len() - 1
	for _, e := range s.Events {
		require.True(t, slices.IsSorted(e.Counts), "%s %s: cumulative", e.Place, e.Event)
		n := e.Counts[last]
		switch e.Event {
		case results.EventDrop:
			drops[e.Reason] += n
			if e.Reason == "random_loss" {
				require.Equal(t, []string{"h1->sw", results.PlaceLink}, []string{e.Place, e.PlaceType}, "the lossy direction")
			}
		case results.EventMark:
			marks += n
			require.Equal(t, results.PlaceSwitch, e.PlaceType)
		case results.EventCNP:
			cnps += n
			require.Equal(t, "h3", e.Place, "the receiver sends the CNPs")
		case results.EventRetransmit:
			retx += n
			require.Contains(t, []string{"h1", "h2"}, e.Place, "a sender")
		}
	}
	by := v.Drops.ByReason
	require.Positive(t, by.Buffer)
	require.Positive(t, by.RandomLoss)
	require.Equal(t, map[string]int64{"buffer": by.Buffer, "random_loss": by.RandomLoss}, drops)
	require.Positive(t, marks)
	require.Equal(t, v.ECN.MarkedPackets, marks)
	require.Positive(t, cnps)
	require.Equal(t, v.ECN.CNPs, cnps)
	require.Equal(t, v.RetransmittedPackets, retx)
	checkFigures(t, doc)
}

func queueKey(node string, port, prio int) string { return fmt.Sprintf("%s:%d:%d", node, port, prio) }
