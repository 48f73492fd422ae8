package experiment

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/internal/accuracy"
	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// fresh is a bundled scenario's results document as this build computes it (freshJSON: the
// run TestGoldenResults just made, which it compares with the stored golden), so that a
// lesson's check fails on a change that moves its figure, not only the golden comparison.
func fresh(t *testing.T, name string) *results.Document {
	t.Helper()
	var d results.Document
	require.NoError(t, json.Unmarshal(freshJSON(t, name), &d))
	return &d
}

func variantNamed(t *testing.T, d *results.Document, name string) *results.Variant {
	t.Helper()
	for i := range d.Variants {
		if d.Variants[i].Name == name {
			return &d.Variants[i]
		}
	}
	require.FailNow(t, "no variant "+name)
	return nil
}

// TestWebsearchLeafSpineLesson: about 2,000 flows; the PFC variants drop nothing; lossy RoCE
// v2 retransmits; every variant reports the small flows' p99 slowdown; and what the
// description says to look for holds: PFC without congestion control has the worst
// small-flow tail of the lossless variants, DCQCN cuts it, DCTCP without PFC cuts it most,
// and the same DCTCP on RoCE with PFC cuts it below DCQCN's without a pause; NSCC on RoCE and
// Swift on UET run every flow to completion.
func TestWebsearchLeafSpineLesson(t *testing.T) {
	d := fresh(t, "websearch-leafspine")
	require.Len(t, d.Variants, 13)
	small := func(v *results.Variant) float64 {
		b := v.SlowdownBySize[0]
		require.EqualValues(t, 0, b.LoBytes)
		require.EqualValues(t, 10_000, *b.HiBytes)
		require.NotNil(t, b.P99, "%s: small flows' p99 slowdown", v.Name)
		return *b.P99
	}
	for i := range d.Variants {
		v := &d.Variants[i]
		require.InDelta(t, 2000, v.Flows.Total, 100, "%s: about 2,000 flows", v.Name)
		if strings.Contains(v.Name, "PFC") {
			require.Zero(t, v.Drops.Total, "%s: lossless", v.Name)
		}
		t.Logf("%-22s small-flow p99 slowdown %7.2f, drops %d, retransmitted %d", v.Name, small(v), v.Drops.Total, v.RetransmittedPackets)
	}
	lossy := variantNamed(t, d, "RoCEv2 lossy")
	require.Positive(t, lossy.Drops.Total)
	require.Positive(t, lossy.RetransmittedPackets)
	pfcOnly, dcqcn, dctcp := variantNamed(t, d, "RoCEv2 + PFC"), variantNamed(t, d, "RoCEv2 + PFC + DCQCN"), variantNamed(t, d, "iWARP lossy + DCTCP")
	require.Greater(t, small(pfcOnly), 5*small(dcqcn), "DCQCN shortens the small flows' tail under PFC")
	require.Less(t, small(dctcp), small(dcqcn), "DCTCP keeps queues shortest")
	require.Zero(t, dctcp.Drops.Total, "DCTCP's marks keep the lossy fabric from dropping")
	roceDCTCP := variantNamed(t, d, "RoCEv2 + PFC + DCTCP")
	require.Less(t, small(roceDCTCP), small(dcqcn), "DCTCP's window on RoCE keeps the queues shorter than DCQCN's rate")
	require.Zero(t, roceDCTCP.PFC.PauseFrames, "DCTCP on RoCE holds the queues below XOFF: PFC never acts")
	hpcc := variantNamed(t, d, "RoCEv2 + PFC + HPCC")
	require.Less(t, small(hpcc), small(dcqcn), "HPCC's telemetry keeps the queues shorter than DCQCN's marks")
	require.Zero(t, hpcc.PFC.PauseFrames, "HPCC holds the queues below XOFF: PFC never acts")
	// IRN without PFC or congestion control: its round-trip cap holds a cross-rack flow to
	// about 120 KB in flight (8.3 us x 100 Gb/s, plus 15 packets for the coalesced ACK), so
	// even an 8-to-1 incast (about 1 MB) stays within a queue's share of the 12 MB buffer:
	// it loses almost nothing, completes every flow, and its small flows' tail beats PFC's.
	irn := variantNamed(t, d, "RoCEv2 IRN lossy")
	require.Equal(t, irn.Flows.Total, irn.Flows.Completed)
	require.Less(t, irn.Drops.Total, lossy.Drops.Total/1000)
	require.Less(t, 5*small(irn), small(pfcOnly))
	// The delay-based schemes under PFC: no drop, no timeout; Swift's target delay keeps the
	// long flows' tail shorter than DCQCN's and HPCC's, and it carries more than TIMELY.
	mid := func(v *results.Variant) float64 {
		b := v.SlowdownBySize[3]
		require.EqualValues(t, 1_000_000, b.LoBytes)
		return *b.P99
	}
	sw, tm := variantNamed(t, d, "Swift"), variantNamed(t, d, "TIMELY")
	for _, v := range []*results.Variant{sw, tm} {
		require.Zero(t, v.Drops.Total, v.Name)
		require.Zero(t, v.Timeouts, v.Name)
		require.Equal(t, v.Flows.Total, v.Flows.Completed, v.Name)
	}
	require.Less(t, mid(sw), mid(dcqcn))
	require.Less(t, mid(sw), mid(hpcc))
	require.Greater(t, sw.GoodputGbps, tm.GoodputGbps)
	// UET without PFC: trimming and NSCC lose nothing whole, every flow completes, and it
	// carries the most.
	uet := variantNamed(t, d, "UET")
	require.Zero(t, uet.Drops.Total)
	require.Equal(t, uet.Flows.Total, uet.Flows.Completed)
	for i := range d.Variants {
		require.GreaterOrEqual(t, uet.GoodputGbps, d.Variants[i].GoodputGbps, d.Variants[i].Name)
	}
	// The swapped pairs (issue 39): NSCC on RoCE completes every flow under PFC; Swift on
	// UET loses nothing whole, trims nothing, and its small flows' tail is Swift's on RoCE
	// (within 20%).
	nscc, uetSwift := variantNamed(t, d, "RoCEv2 + PFC + NSCC"), variantNamed(t, d, "UET + Swift")
	require.Equal(t, nscc.Flows.Total, nscc.Flows.Completed)
	require.Zero(t, uetSwift.Drops.Total)
	require.Zero(t, uetSwift.TrimmedPackets)
	require.Equal(t, uetSwift.Flows.Total, uetSwift.Flows.Completed)
	require.InEpsilon(t, small(sw), small(uetSwift), 0.2, "Swift's small-flow tail on UET is its tail on RoCE")
}

// flowOf is the record of the flow from src to dst of v (the first such).
func flowOf(t *testing.T, v *results.Variant, src, dst string) *results.Flow {
	t.Helper()
	for i := range v.PerFlow {
		if f := &v.PerFlow[i]; f.Src == src && f.Dst == dst {
			return f
		}
	}
	require.FailNow(t, "no flow "+src+"->"+dst+" in "+v.Name)
	return nil
}

// shortP99 is the p99 FCT of v's flows of at most 100 KB.
func shortP99(v *results.Variant) float64 {
	var fcts []float64
	for _, f := range v.PerFlow {
		if f.SizeBytes <= results.ShortFlowBytes && f.FCTUS != nil {
			fcts = append(fcts, *f.FCTUS)
		}
	}
	slices.Sort(fcts)
	return fcts[max(int(math.Ceil(0.99*float64(len(fcts))))-1, 0)]
}

// TestTradeoffLesson: RoCE v1 cannot leave its rack; the PFC variants drop nothing but pause
// and spread congestion to a flow that avoids the bottleneck; RoCE v2 lossy drops and goes
// back N; iWARP lossy completes everything, its drops repaired by SACK one for one; DCTCP
// drops nothing and keeps short flows' latency below plain iWARP's; RoCE v2 with IRN needs no
// PFC either.
func TestTradeoffLesson(t *testing.T) {
	d := fresh(t, "tradeoff")
	require.LessOrEqual(t, len(d.Variants), 9, "one table of at most 9 rows")
	v1 := variantNamed(t, d, "RoCEv1 + PFC")
	require.EqualValues(t, 8, v1.Flows.Unroutable, "the incast and the background flows cross racks")
	require.EqualValues(t, 5, v1.Flows.Completed, "h4's messages stay in the rack")
	for _, name := range []string{"RoCEv2 + PFC", "RoCEv2 + PFC + DCQCN", "iWARP + PFC"} {
		v := variantNamed(t, d, name)
		require.Zero(t, v.Drops.Total, name)
		require.Positive(t, v.PFC.PauseFrames, name)
		require.Equal(t, v.Flows.Total, v.Flows.Completed, name)
	}
	lossy := variantNamed(t, d, "RoCEv2 lossy")
	require.Positive(t, lossy.Drops.Total)
	require.Greater(t, lossy.RetransmittedPackets, lossy.Drops.Total, "go-back-N resends more than it lost")
	iw := variantNamed(t, d, "iWARP lossy")
	require.Equal(t, iw.Flows.Total, iw.Flows.Completed)
	require.Positive(t, iw.Drops.Total)
	require.LessOrEqual(t, iw.RetransmittedPackets, 2*iw.Drops.Total, "SACK resends about what was lost")
	dctcp := variantNamed(t, d, "iWARP lossy + DCTCP")
	require.Zero(t, dctcp.Drops.Total)
	require.Positive(t, dctcp.ECN.MarkedPackets)
	require.Less(t, shortP99(dctcp), shortP99(iw), "DCTCP keeps the queue the short flows wait in short")
	// Congestion spreading: h15 -> h3 never crosses h1's port, yet PFC's pauses slow it.
	pfc := variantNamed(t, d, "RoCEv2 + PFC")
	victim, free := *flowOf(t, pfc, "h15", "h3").FCTUS, *flowOf(t, iw, "h15", "h3").FCTUS
	require.Greater(t, victim, 1.3*free, "the victim flow under PFC (%.0f us) against lossy iWARP (%.0f us)", victim, free)
	// IRN: RoCE without PFC, its few drops resent about once, the background flows at their
	// time alone (20 MB x 1106/1024 x 8 / 100 Gb/s = 1.73 ms, plus the path).
	irn := variantNamed(t, d, "RoCEv2 IRN lossy")
	require.Equal(t, irn.Flows.Total, irn.Flows.Completed)
	require.Positive(t, irn.Drops.Total)
	require.Less(t, irn.Drops.Total, lossy.Drops.Total/10)
	require.LessOrEqual(t, irn.RetransmittedPackets, 2*irn.Drops.Total, "selective repeat resends about what was lost")
	alone := 20e6 * 1106 / 1024 * 8 / 100e9 * 1e6
	require.InEpsilon(t, alone, *flowOf(t, irn, "h15", "h3").FCTUS, 0.01, "no PFC, no victim")
	require.Less(t, *irn.FCT.P50, *pfc.FCT.P50)
	// UET: no PFC and no whole packet lost (trimming), each trimmed packet resent once without
	// a timeout; the background flows at their time alone with 4096-byte packets and 122 bytes
	// of headers each (Ethernet 14, IPv4 20, UDP 8, PDS 12, SES 44, FCS 4, preamble and gap 20);
	// the short messages below PFC's p99; everything done first.
	uet := variantNamed(t, d, "UET")
	require.Equal(t, uet.Flows.Total, uet.Flows.Completed)
	require.Zero(t, uet.Drops.Total)
	require.Zero(t, uet.PFC.PauseFrames)
	require.Zero(t, uet.Timeouts)
	require.Equal(t, uet.TrimmedPackets, uet.RetransmittedPackets, "each trimmed packet resent once")
	uetAlone := 20e6 / 4096 * (4096 + 122) * 8 / 100e9 * 1e6
	require.InEpsilon(t, uetAlone, *flowOf(t, uet, "h15", "h3").FCTUS, 0.01, "no PFC, no victim")
	require.Less(t, shortP99(uet), shortP99(pfc))
	for _, v := range d.Variants {
		if v.Flows.Completed == v.Flows.Total { // RoCE v1 completes only its rack's 5
			require.LessOrEqual(t, *uet.FCT.Max, *v.FCT.Max, v.Name)
		}
	}
}

func TestIncastPFCLesson(t *testing.T) {
	d := fresh(t, "incast-pfc")
	pfc, lossy := variantNamed(t, d, "RoCEv2 + PFC"), variantNamed(t, d, "RoCEv2 lossy")
	require.Zero(t, pfc.Drops.Total)
	require.Positive(t, pfc.PFC.PauseFrames)
	// 16 x 1 MiB at line rate x 1024/1106: 1.4497 ms, plus a few microseconds of path.
	burst := 16 * float64(1<<20) * 1106 / 1024 * 8 / 100e9 * 1e6
	accurate(t, "PFC", "incast-pfc: 16 x 1 MiB into one 100 Gb/s port with PFC: last FCT", burst, *pfc.FCT.Max, "us", 0.01,
		accuracy.ClosedForm, "16 MiB x 1106/1024 at line rate")
	require.Positive(t, lossy.Drops.Total, "the lesson: without PFC the same buffer overflows")
	// The lesson's ratios, as docs/lessons.md writes them, are the run's to one decimal: a
	// change that moves them fails here with the lesson's sentence.
	m := lessonSentence(t, "incast-pfc", `the FCT is ([0-9.]+)x as long at the median and ([0-9.]+)x at the max`)
	for i, got := range []float64{*lossy.FCT.P50 / *pfc.FCT.P50, *lossy.FCT.Max / *pfc.FCT.Max} {
		require.Greater(t, got, 1.0, "the lesson: %q", m[0])
		require.Equal(t, m[i+1], strconv.FormatFloat(got, 'f', 1, 64), "docs/lessons.md (incast-pfc) says %q; the run gives %.2fx", m[0], got)
	}
}

// lessonSentence finds pattern in scenario's lesson of docs/lessons.md (its section, from
// "## scenario" to the next) and returns the match and its groups; a lesson whose sentence
// is gone fails the test.
func lessonSentence(t *testing.T, scenario, pattern string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "docs", "lessons.md"))
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(data), "\n## "+scenario+"\n")
	require.True(t, ok, "docs/lessons.md has no lesson %s", scenario)
	section, _, _ = strings.Cut(section, "\n## ")
	m := regexp.MustCompile(pattern).FindStringSubmatch(section)
	require.NotNil(t, m, "docs/lessons.md, lesson %s, no longer says %q", scenario, pattern)
	return m
}

func TestCrossSubnetLesson(t *testing.T) {
	d := fresh(t, "cross-subnet")
	v1 := variantNamed(t, d, "RoCEv1")
	require.EqualValues(t, 1, v1.Flows.Unroutable)
	require.Contains(t, flowOf(t, v1, "h1", "h5").Reason, "RoCE v1 cannot cross a router")
	for _, name := range []string{"RoCEv2", "iWARP"} {
		v := variantNamed(t, d, name)
		require.EqualValues(t, 2, v.Flows.Completed, name)
	}
}

func TestLossyLinkLesson(t *testing.T) {
	d := fresh(t, "lossy-link")
	require.NotEmpty(t, d.Replication, "five seeds: one random run is not a result")
	rep := map[string]results.Replication{}
	for _, r := range d.Replication {
		require.Len(t, r.Seeds, 5, r.Name)
		rep[r.Name] = r
	}
	goodput := func(name string) results.Estimate { return rep[name].Metrics["goodput_gbps"] }
	// No loss: each transport near its payload share of 100 Gb/s, the same in every seed.
	for name, share := range map[string]float64{"RoCEv2 loss 0": 1024.0 / 1106, "RoCEv1 loss 0": 1024.0 / 1122, "iWARP loss 0": 1440.0 / 1538} {
		accurate(t, "Links and frames", "lossy-link, "+name+", 100 Gb/s: goodput (mean over seeds)", 100*share, goodput(name).Mean, "Gb/s", 0.01,
			accuracy.ClosedForm, "line rate x payload / wire bytes")
		require.Zero(t, goodput(name).CI95, name)
	}
	// At 1%, with the 67.1 ms timeout RoCE collapses in every seed that loses a
	// retransmission; TCP keeps tens of Gb/s in every seed.
	collapsed := 0
	for i, g := range goodput("RoCEv2 67ms RTO loss 1%").Values {
		if g < 5 {
			collapsed++
			require.Positive(t, rep["RoCEv2 67ms RTO loss 1%"].Metrics["timeouts"].Values[i])
		}
	}
	require.GreaterOrEqual(t, collapsed, 3, "most seeds collapse")
	for _, g := range goodput("iWARP loss 1%").Values {
		require.Greater(t, g, 10.0)
	}
	// IRN resends what was lost, not a round trip per loss: far fewer resends than
	// go-back-N, and more goodput at 1%, though below line x payload/wire x (1 - p) (its
	// round-trip cap stalls the flow while a loss is repaired).
	retx := func(name string) float64 { return rep[name].Metrics["retransmitted_packets"].Mean }
	require.Less(t, 10*retx("RoCEv2 IRN loss 1%"), retx("RoCEv2 loss 1%"))
	require.Greater(t, goodput("RoCEv2 IRN loss 1%").Mean, goodput("RoCEv2 loss 1%").Mean)
	require.Less(t, goodput("RoCEv2 IRN loss 1%").Mean, 100*1024.0/1106*0.99)
	// Where IRN's time goes at 1%, seed by seed: the timeouts (lost retransmissions) and
	// stalls of the cap shorter than an isolated loss's.
	m := rep["RoCEv2 IRN loss 1%"].Metrics
	for i := range m["fct_max_us"].Values {
		irnLossStalls(t, m["fct_max_us"].Values[i], int64(m["retransmitted_packets"].Values[i]),
			int64(m["timeouts"].Values[i]), int64(m["drops"].Values[i]))
	}
}

func TestHeadroomLesson(t *testing.T) {
	d := fresh(t, "headroom")
	require.Zero(t, variantNamed(t, d, "auto headroom").Drops.Total)
	small := variantNamed(t, d, "16KB headroom")
	require.Positive(t, small.Drops.ByReason.Headroom)
	require.Equal(t, small.Drops.Total, small.Drops.ByReason.Headroom, "a lossless class never counts buffer drops")
}

func TestPFCDeadlockLesson(t *testing.T) {
	d := fresh(t, "pfc-deadlock")
	require.NotEmpty(t, variantNamed(t, d, "20G + PFC").Deadlocks, "above n B / TTL the loop deadlocks")
	require.Empty(t, variantNamed(t, d, "5G + PFC").Deadlocks, "below it, it does not")
	require.Empty(t, variantNamed(t, d, "20G lossy").Deadlocks, "without PFC nothing can deadlock")
	wd := variantNamed(t, d, "20G + PFC + watchdog")
	require.Empty(t, wd.Deadlocks)
	require.Positive(t, wd.Drops.ByReason.Watchdog, "the watchdog breaks it by dropping")
}

func TestDCQCNConvergenceLesson(t *testing.T) {
	d := fresh(t, "dcqcn-convergence")
	for _, name := range []string{"DCQCN paper", "DCQCN nvidia"} {
		v := variantNamed(t, d, name)
		require.Zero(t, v.Drops.Total, name)
		require.Zero(t, v.PFC.PauseFrames, "%s: the rates converge before PFC must act", name)
		require.Positive(t, v.ECN.CNPs, name)
	}
	pfcOnly := variantNamed(t, d, "PFC only")
	require.Positive(t, pfcOnly.PFC.PauseFrames)

	// HPCC: no loss, no pause, no CNP; the link at eta x line rate on the wire, so goodput
	// 40 Gb/s x 0.95 x 1024/1148 (a 1,024-byte WRITE packet is 1,148 wire bytes with its
	// 42-byte INT header); the bottleneck queue below one BDP on average (the path's base RTT
	// T is 3 x 1 us each way plus, store and forward at three hops, a 1,148-byte data packet
	// and a 128-byte ACK: 6.77 us, 33.8 KB at 40 Gb/s) and, when a newcomer joins at line
	// rate with a window of one BDP, below two at its peak.
	hp := variantNamed(t, d, "HPCC")
	require.Zero(t, hp.Drops.Total)
	require.Zero(t, hp.PFC.PauseFrames)
	require.Zero(t, hp.ECN.CNPs)
	require.Zero(t, hp.Timeouts)
	require.InEpsilon(t, 40*0.95*1024/1148, hp.GoodputGbps, 0.03)
	bdp := 40e9 / 8 * (6e-6 + 3*(1148+128)*8/40e9)
	for _, q := range hp.Queues {
		if q.Node == "swl" && q.Peer == "swr" {
			require.Less(t, q.MeanBytes, bdp)
			require.Less(t, float64(q.MaxBytes), 2*bdp)
			t.Logf("HPCC: bottleneck queue mean %.0f B, max %d B (BDP %.0f B); goodput %.2f Gb/s", q.MeanBytes, q.MaxBytes, bdp, hp.GoodputGbps)
		}
	}

	// The delay-based schemes: no CNP, no pause, no loss. Swift keeps the link full, so
	// goodput 40 Gb/s x 1024/1106, and its bottleneck queue settles at its target's fixed
	// point less the empty round trip (3 x 1 us each way, store and forward of a 1,106-byte
	// data packet and an 86-byte ACK at three hops) in each phase of 2, 3 and 4 flows, and at
	// nothing while one flow is alone (its 40 Gb/s NIC is the bottleneck): over the four
	// equal phases the time-mean is the mean of the four. TIMELY's queue stays below one BDP.
	c := 40 * sim.Gbps
	data, ack := frames.RoCEWireBytes(2, 1024, false), frames.RoCEAckWireBytes(2)
	base := 6*sim.Microsecond + 3*(c.TxTime(data)+c.TxTime(ack))
	var want float64
	for n := 2; n <= 4; n++ {
		want += float64(swiftFixedPoint(transports.DefaultSwiftParams(), n, 2, data, c)-base) * float64(c) / 8 / 1e12 / 4
	}
	sw, tm := variantNamed(t, d, "Swift"), variantNamed(t, d, "TIMELY")
	for _, v := range []*results.Variant{sw, tm} {
		require.Zero(t, v.Drops.Total, v.Name)
		require.Zero(t, v.PFC.PauseFrames, v.Name)
		require.Zero(t, v.ECN.CNPs, v.Name)
		require.Zero(t, v.Timeouts, v.Name)
	}
	require.InEpsilon(t, 40*1024.0/1106, sw.GoodputGbps, 0.01, "Swift keeps the link full")
	require.Less(t, tm.GoodputGbps, sw.GoodputGbps)
	bdpSwift := float64(c) / 8 * (base.Seconds())
	for _, v := range []*results.Variant{sw, tm} {
		for _, q := range v.Queues {
			if q.Node == "swl" && q.Peer == "swr" {
				t.Logf("%s: bottleneck queue mean %.0f B, max %d B (Swift's fixed points averaged %.0f B, BDP %.0f B)", v.Name, q.MeanBytes, q.MaxBytes, want, bdpSwift)
				if v == sw {
					require.InEpsilon(t, want, q.MeanBytes, 0.1, "Swift's queue is where its target puts it")
				} else {
					require.Less(t, q.MeanBytes, bdpSwift, "TIMELY's queue stays below one BDP")
				}
			}
		}
	}
}

func TestVictimFlowLesson(t *testing.T) {
	d := fresh(t, "victim-flow")
	pfc := variantNamed(t, d, "RoCEv2 + PFC")
	// With PFC the victim a2 -> v gets about C/(n+1) of goodput, n = 3: 25 Gb/s x 1024/1106.
	share := 100.0 / 4 * 1024 / 1106
	require.InEpsilon(t, share, *flowOf(t, pfc, "a2", "v").RateGbps, 0.1)
	require.Zero(t, pfc.Drops.Total)
	require.Positive(t, variantNamed(t, d, "RoCEv2 lossy").Drops.Total)
}

func TestPFCStormLesson(t *testing.T) {
	d := fresh(t, "pfc-storm")
	storm, wd := variantNamed(t, d, "storm"), variantNamed(t, d, "storm + watchdog")
	// b -> v alone: 4 MB at line rate x 1024/1106, about 0.35 ms; the storm holds it past its
	// end at 3 ms; the watchdog frees it within a millisecond.
	alone := 4e6 * 1106 / 1024 * 8 / 100e9 * 1e6
	require.Greater(t, *flowOf(t, storm, "b", "v").FCTUS, 3000.0, "the victim waits out the storm")
	require.Less(t, *flowOf(t, wd, "b", "v").FCTUS, 1000.0, "the watchdog frees it (alone: %.0f us)", alone)
	require.Zero(t, storm.Drops.Total, "PFC drops nothing, however long the storm")
	require.Positive(t, storm.Timeouts, "paused past the retransmit timer")
	require.Equal(t, wd.Drops.Total, wd.Drops.ByReason.Watchdog)
	require.Positive(t, wd.Drops.ByReason.Watchdog)
	spread := false
	for _, p := range storm.PFCPorts {
		spread = spread || (p.Node == "sw1" && p.Peer == "sw2" && p.PausedUS > 1000)
	}
	require.True(t, spread, "sw2 paused sw1: the storm spread")
}

func TestVictimFlowDCQCNLesson(t *testing.T) {
	d := fresh(t, "victim-flow")
	pfc, cc := variantNamed(t, d, "RoCEv2 + PFC"), variantNamed(t, d, "RoCEv2 + PFC + DCQCN")
	victimPFC, victimCC := *flowOf(t, pfc, "a2", "v").RateGbps, *flowOf(t, cc, "a2", "v").RateGbps
	require.Greater(t, victimCC, 2*victimPFC, "DCQCN gives the victim back more than twice its PFC share")
	require.Zero(t, cc.Drops.Total)
	for _, f := range variantNamed(t, d, "RoCEv2 lossy").PerFlow {
		require.Less(t, *f.RateGbps, 1.0, "lossy without congestion control: %s collapses", f.Src)
	}
}

// TestCrossSubnetNICDelay: iWARP's NIC delay costs its flows a few microseconds, not a
// microsecond per packet: the per-packet processing is pipelined.
func TestCrossSubnetNICDelay(t *testing.T) {
	data, ok := scenarios.BundledYAML("cross-subnet")
	require.True(t, ok)
	fct := func(delay string) float64 {
		f, problems, _ := scenarios.Load("cross-subnet.yaml", data, overrides(t, "transports.iwarp.nic_delay="+delay))
		require.Empty(t, problems)
		i := f.VariantIndex("iWARP")
		v, err := Run(f.Scenario(i), nil)
		require.NoError(t, err)
		return *v.FCT.Max
	}
	with, without := fct("1us"), fct("0")
	require.Greater(t, with-without, 1.0, "the delay shows")
	require.Less(t, with-without, 10.0, "but pipelined: far less than 1 us x %d packets", 4_000_000/1440)
}

func TestFatTreeECMPLesson(t *testing.T) {
	d := fresh(t, "fattree-ecmp")
	ideal := 10e6 * 1106 / 1024 * 8 / 100e9 * 1e6 // 0.86 ms: a permutation at line rate
	pfc := variantNamed(t, d, "RoCEv2 + PFC")
	require.Zero(t, pfc.Drops.Total)
	require.Greater(t, *pfc.FCT.Max, 2*ideal, "hash collisions: some link carries two or more flows")
	require.Greater(t, *pfc.FCT.P50, 1.5*ideal, "most flows collide")
	require.Zero(t, variantNamed(t, d, "iWARP lossy + DCTCP").Drops.Total)
	require.Positive(t, variantNamed(t, d, "RoCEv2 lossy").Drops.Total)
}

// TestPerfLeafSpineLesson: the benchmark fabric is lossless: PFC pauses, nothing is dropped.
func TestPerfLeafSpineLesson(t *testing.T) {
	v := &fresh(t, "perf-leafspine").Variants[0]
	require.EqualValues(t, 128, v.Flows.Total)
	require.Zero(t, v.Drops.Total)
	require.Positive(t, v.PFC.PauseFrames)
}

// TestIRNLesson: IRN without PFC finishes the incast with PFC's last flow after a few hundred
// drops, each resent about once; go-back-N without PFC loses orders of magnitude more and
// takes many times as long. On the lossy link PFC is no help to go-back-N, and IRN is more
// than twice as fast, held below line x payload/wire x (1 - p) by its BDP cap; lifting the
// cap reaches that figure but floods the incast, whose flows all still complete.
func TestIRNLesson(t *testing.T) {
	d := fresh(t, "irn")
	irn, pfc := variantNamed(t, d, "IRN no PFC"), variantNamed(t, d, "RoCEv2 + PFC")
	gbn, both := variantNamed(t, d, "go-back-N no PFC"), variantNamed(t, d, "IRN + PFC")
	for _, v := range []*results.Variant{irn, pfc, gbn, both} {
		require.EqualValues(t, 17, v.Flows.Completed, v.Name)
	}
	incast := func(v *results.Variant) (p50, last float64) {
		var fcts []float64
		for _, f := range v.PerFlow {
			if f.Dst == "h17" {
				fcts = append(fcts, *f.FCTUS)
			}
		}
		slices.Sort(fcts)
		return fcts[len(fcts)/2], fcts[len(fcts)-1]
	}
	irnP50, irnLast := incast(irn)
	pfcP50, pfcLast := incast(pfc)
	gbnP50, gbnLast := incast(gbn)
	floor := 16 * 1e6 * 1106 / 1024 * 8 / 100e9 * 1e6 // 1.38 ms: the port's line-rate floor
	require.Greater(t, irnLast, floor)
	require.InEpsilon(t, pfcLast, irnLast, 0.01, "IRN's last incast flow ends with PFC's")
	require.Less(t, irnP50, pfcP50, "and its median is earlier")
	require.Positive(t, irn.Drops.ByReason.Buffer)
	require.Less(t, irn.Drops.ByReason.Buffer, int64(1000), "BDP-FC: a few hundred drops")
	require.Less(t, irn.RetransmittedPackets, 2*irn.Drops.Total, "each loss resent about once")
	require.Greater(t, gbn.Drops.ByReason.Buffer, 100*irn.Drops.ByReason.Buffer)
	require.Greater(t, gbnP50, 5*pfcP50)
	require.Greater(t, gbnLast, 5*pfcLast)

	lossy := func(v *results.Variant) float64 { return *flowOf(t, v, "h18", "h19").RateGbps }
	require.InEpsilon(t, lossy(gbn), lossy(pfc), 0.01, "PFC does not help against random loss")
	require.Greater(t, lossy(irn), 2*lossy(pfc))
	line := 100 * 1024.0 / 1106 * (1 - 0.01)
	require.Less(t, lossy(irn), 0.7*line, "BDP-FC stalls the flow while a loss is repaired")
	h18 := flowOf(t, irn, "h18", "h19")
	irnLossStalls(t, *h18.FCTUS, h18.RetransmittedPackets, h18.Timeouts, irn.Drops.ByReason.RandomLoss)

	// Lifting the cap: the lossy flow reaches line x payload/wire x (1 - p), and the incast
	// without PFC floods.
	data, ok := scenarios.BundledYAML("irn")
	require.True(t, ok)
	f, problems, _ := scenarios.Load("irn.yaml", data, overrides(t, "transports.rocev2.irn.bdp_cap=16MB"))
	require.Empty(t, problems)
	open, err := Run(f.Scenario(f.VariantIndex("IRN no PFC")), nil)
	require.NoError(t, err)
	// Every flow completes: a timeout resends every packet the responder does not hold,
	// so an incast flow whose tail the overflow took whole is repaired by one timeout (it
	// used to regain one packet per timeout, and h12 -> h17 was unfinished at 50 ms).
	require.EqualValues(t, 17, open.Flows.Completed)
	accurate(t, "Loss recovery", "IRN without its BDP cap, 20 MB over a link losing 1%, 100 Gb/s (irn): goodput", line, lossy(open), "Gb/s", 0.02,
		accuracy.ClosedForm, "selective repeat: line x payload/wire x (1 - p)")
	require.Greater(t, open.Drops.ByReason.Buffer, 50*irn.Drops.ByReason.Buffer)
}

// irnLossStalls checks where the time of a 20 MB IRN flow at 1% loss on the two 100 Gb/s
// hops of 1 us goes (docs/lessons.md, lossy-link and irn): it sends its 19,532 packets and
// its resends back to back, sends nothing for RTO_high after each timeout (a lost
// retransmission, found by the timer alone, while the cap is full), and for each other loss
// stalls while the cumulative acknowledgement stands at the hole: two round trips (the NAK
// of the next packet, then the resend's ACK) and the packet after the hole, less the cap's
// W packets, at most. What is left of the FCT after the sending and the timeouts, the cap's
// stalls, is positive and below that bound per loss; it returns the stall per loss in
// packet times.
func irnLossStalls(t *testing.T, fctUS float64, resent, timeouts, losses int64) float64 {
	t.Helper()
	rate := 100 * sim.Gbps
	pkt := rate.TxTime(1024 + roceV2Overhead)
	rtt := 2*(pkt+sim.Microsecond) + 2*(rate.TxTime(frames.RoCEAckWireBytes(2)+topology.IRNSACK)+sim.Microsecond)
	const w, n = 63, (20000000 + 1023) / 1024 // the auto cap (TestIRNBDPCapIsThePathsRoundTrip)
	isolated := 2*float64(rtt)/float64(pkt) + 2 - w
	stalls := fctUS*1e6 - float64((n+resent)*int64(pkt)) - float64(timeouts*int64(320*sim.Microsecond))
	perLoss := stalls / float64(losses) / float64(pkt)
	t.Logf("%.0f us sending, %d timeouts, %.0f us of stalls: %.1f packet times per loss (an isolated loss: %.1f)",
		float64((n+resent)*int64(pkt))/1e6, timeouts, stalls/1e6, perLoss, isolated)
	require.Positive(t, stalls)
	require.Less(t, perLoss, isolated)
	return perLoss
}

// TestEveryScenarioHasALesson: docs/lessons.md has a section for each bundled scenario.
func TestEveryScenarioHasALesson(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "lessons.md"))
	require.NoError(t, err)
	for _, s := range scenarios.Bundled() {
		require.Contains(t, string(data), "\n## "+s.Name+"\n", "docs/lessons.md has no lesson for %s", s.Name)
	}
}
