package experiment

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/ecn"
	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/transports"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// mk matches a golden mark (lessons_prose_test.go) after a figure in a lesson's sentence.
const mk = `(?:<!--[^>]*-->)?`

// The bundled scenario's variants, in the order of its file.
const (
	arDCQCN = iota
	arDCQCN4
	arPFC4
	arIRN
	arUET
)

// writtenAs fails unless the figure the lesson writes (thousands separators ignored) is got
// rounded to the decimals written.
func writtenAs(t *testing.T, sentence, written string, got float64) {
	t.Helper()
	w := strings.ReplaceAll(written, ",", "")
	decimals := 0
	if _, frac, ok := strings.Cut(w, "."); ok {
		decimals = len(frac)
	}
	require.Equal(t, w, strconv.FormatFloat(got, 'f', decimals, 64),
		"docs/lessons.md (allreduce-leafspine) says %q; the run gives %v", sentence, got)
}

// number parses a figure as the lesson writes it.
func number(t *testing.T, written string) float64 {
	t.Helper()
	x, err := strconv.ParseFloat(strings.ReplaceAll(written, ",", ""), 64)
	require.NoError(t, err)
	return x
}

// arSentence is lessonSentence for this lesson.
func arSentence(t *testing.T, pattern string) []string {
	t.Helper()
	return lessonSentence(t, "allreduce-leafspine", pattern)
}

// arRun runs one variant of the bundled scenario with the overrides sets.
func arRun(t *testing.T, variant int, sets ...string) *results.Variant {
	t.Helper()
	text, ok := scenarios.BundledYAML("allreduce-leafspine")
	require.True(t, ok)
	v, err := Run(load(t, string(text), sets...).Scenario(variant), nil)
	require.NoError(t, err)
	require.Len(t, v.Jobs, 1)
	require.Equal(t, 2, v.Jobs[0].Completed, "%s %v", v.Name, sets)
	return v
}

// ratio is a variant's mean iteration over its ideal.
func ratio(v *results.Variant) float64 { return *v.Jobs[0].CompletionUS / v.Jobs[0].IdealUS }

// TestAllreduceLeafSpineLesson holds docs/lessons.md's allreduce-leafspine lesson to the fresh
// run of the bundled scenario: every figure and ordering it states, each failing with the
// sentence that states it. The runs under --set (no background, rack order, other seeds,
// NVIDIA's DCQCN parameters) are in TestAllreduceLeafSpineLessonSets.
func TestAllreduceLeafSpineLesson(t *testing.T) {
	d := fresh(t, "allreduce-leafspine")
	require.Len(t, d.Variants, 5)
	for i := range d.Variants {
		v := &d.Variants[i]
		require.Len(t, v.Jobs, 1)
		j := v.Jobs[0]
		require.Equal(t, 2, j.Completed, v.Name)
		require.Equal(t, 16, j.Ranks)
		for _, it := range j.PerIteration {
			require.GreaterOrEqual(t, *it.CompletionUS, j.IdealUS, v.Name)
		}
	}
	dcqcn := &d.Variants[arDCQCN]
	j := dcqcn.Jobs[0]

	// The ideal: 2 x 15/16 x 8 MB on the wire at 100 Gb/s, plus 30 steps of 4 link delays
	// of 1 us and 3 serializations of a full frame.
	wire := float64(frames.RoCEWireBytes(2, 1024, false))
	frame := (100 * sim.Gbps).TxTime(int64(wire)).Microseconds()
	ideal := 2*15.0/16*8e6*wire/1024*8/100e3 + 30*(4+3*frame)
	require.InDelta(t, ideal, j.IdealUS, 1e-3*ideal, "the ring's closed form")

	m := arSentence(t, `the iterations take ([0-9,]+)`+mk+` us on average, ([0-9.]+)x the ideal`)
	writtenAs(t, m[0], m[2], ratio(dcqcn))
	require.Greater(t, ratio(dcqcn), 5.0, m[0])
	require.Zero(t, dcqcn.PFC.PauseFrames, "with no pause, no drop and no resend")
	require.Zero(t, dcqcn.Drops.Total, "with no pause, no drop and no resend")
	require.Zero(t, dcqcn.RetransmittedPackets, "with no pause, no drop and no resend")

	m = arSentence(t, `The order, fastest first: ([^.]+)\.`)
	byTime := make([]string, 0, len(d.Variants))
	for _, v := range d.Variants {
		byTime = append(byTime, v.Name)
	}
	slices.SortStableFunc(byTime, func(a, b string) int {
		return int(math.Copysign(1, *variantNamed(t, d, a).Jobs[0].CompletionUS-*variantNamed(t, d, b).Jobs[0].CompletionUS))
	})
	require.Equal(t, strings.Split(m[1], ", "), byTime, m[0])

	// DCQCN's cuts last: every ring QP was cut, and none can reach hyper increase, which
	// needs F byte-counter stages of B bytes without a CNP, more than a QP carries.
	m = arSentence(t, `the ring's (\d+) QPs got (\d+) in all, (\d+) to (\d+) each`)
	var qps, cnps, least, most int64
	least = math.MaxInt64
	var qp results.Flow
	for _, f := range dcqcn.PerFlow {
		if f.QueuePair {
			qp = f
			qps, cnps, least, most = qps+1, cnps+f.CNPs, min(least, f.CNPs), max(most, f.CNPs)
		}
	}
	require.Positive(t, least, "every QP of the ring is cut: %q", m[0])
	for i, got := range []int64{qps, cnps, least, most} {
		require.Equal(t, m[i+1], strconv.FormatInt(got, 10), "docs/lessons.md says %q", m[0])
	}
	p := ecn.PaperParams()
	m = arSentence(t, `additive increase, (\d+) Mb/s per (\d+) us timer period, ([0-9.]+) Gb/s per millisecond`)
	climb := float64(p.RAI) / 1e9 / p.RateTimer.Seconds() / 1e3 // Gb/s per ms
	writtenAs(t, m[0], m[1], float64(p.RAI)/1e6)
	writtenAs(t, m[0], m[2], p.RateTimer.Microseconds())
	writtenAs(t, m[0], m[3], climb)
	m = arSentence(t, `passed F = (\d+) stages of (\d+) MB, (\d+) MB without a CNP, while a ring QP carries (\d+) MB in the whole job \((\d+) messages of (\d+) KB\)`)
	writtenAs(t, m[0], m[1], float64(p.F))
	writtenAs(t, m[0], m[2], float64(p.ByteCounter)/1e6)
	writtenAs(t, m[0], m[3], float64(p.F)*float64(p.ByteCounter)/1e6)
	writtenAs(t, m[0], m[4], float64(qp.SizeBytes)/1e6)
	writtenAs(t, m[0], m[5], float64(qp.Messages))
	writtenAs(t, m[0], m[6], float64(qp.SizeBytes/qp.Messages)/1e3)
	require.EqualValues(t, 2*j.Steps, qp.Messages, "a message per step and iteration: %q", m[0])
	require.Less(t, qp.SizeBytes, int64(p.F+1)*p.ByteCounter, "hyper increase never comes: %q", m[0])
	m = arSentence(t, `a QP cut to 1 Gb/s needs over (\d+) ms to reach the line rate, and the job lasts (\d+) ms`)
	last := j.PerIteration[1]
	end := (*last.StartUS + *last.CompletionUS) / 1e3
	require.Greater(t, 99/climb, number(t, m[1]), m[0])
	require.Greater(t, number(t, m[1]), end, "the cut outlasts the job: %q", m[0])
	writtenAs(t, m[0], m[2], end)
	m = arSentence(t, `in its step (\d+) at (h\d+), took ([0-9,]+) us for (\d+) KB`)
	first := j.PerIteration[0]
	writtenAs(t, m[0], m[1], float64(first.SlowestStep))
	require.Equal(t, m[2], first.SlowestHost, m[0])
	writtenAs(t, m[0], m[3], *first.SlowestStepUS)
	writtenAs(t, m[0], m[4], float64(qp.SizeBytes/qp.Messages)/1e3)
	m = arSentence(t, `The second iteration starts on the rates the first left \(([0-9.]+)x the ideal, against ([0-9.]+)x\)`)
	writtenAs(t, m[0], m[1], *last.CompletionUS/j.IdealUS)
	writtenAs(t, m[0], m[2], *first.CompletionUS/j.IdealUS)
	require.Less(t, *last.CompletionUS, *first.CompletionUS, m[0])

	dcqcn4 := &d.Variants[arDCQCN4]
	m = arSentence(t, `us\), (\d+)% less than at 2 QPs, still ([0-9.]+)x the ideal`)
	writtenAs(t, m[0], m[1], 100*(1 - *dcqcn4.Jobs[0].CompletionUS / *j.CompletionUS))
	writtenAs(t, m[0], m[2], ratio(dcqcn4))

	pfc := &d.Variants[arPFC4]
	m = arSentence(t, `us\), ([0-9.]+)x the ideal, with ([0-9,]+)`+mk+` pauses`)
	writtenAs(t, m[0], m[1], ratio(pfc))
	require.Zero(t, pfc.ECN.CNPs, "no congestion control")
	require.Zero(t, dcqcn4.PFC.PauseFrames, "DCQCN keeps the queues below XOFF")
	require.Positive(t, pfc.PFC.PauseFrames, m[0])

	irn := &d.Variants[arIRN]
	require.Zero(t, irn.Drops.Total, "IRN without PFC (with DCQCN) drops nothing")
	require.Positive(t, irn.ECN.CNPs, "the same reaction point, the same lasting cuts")

	uet := &d.Variants[arUET]
	m = arSentence(t, `With the background the job takes ([0-9,]+) us, ([0-9.]+)x, the fastest of the five`)
	writtenAs(t, m[0], m[1], *uet.Jobs[0].CompletionUS)
	writtenAs(t, m[0], m[2], ratio(uet))
	require.Equal(t, uet.Name, byTime[0], m[0])
	require.Zero(t, uet.Timeouts, "no timeout, nothing dropped or trimmed")
	require.Zero(t, uet.Drops.Total, "no timeout, nothing dropped or trimmed")
	require.Zero(t, uet.TrimmedPackets, "no timeout, nothing dropped or trimmed")
	// The wait that ACK_REQ removed: 15 us + 6 x the drain time of half the 12 MB buffer.
	m = arSentence(t, `A message once waited ([0-9.]+) ms for its retransmit timer`)
	rto := transports.UETDefaultRTO((100 * sim.Gbps).TxTime(12000000 / 2))
	writtenAs(t, m[0], m[1], rto.Microseconds()/1e3)

	m = arSentence(t, `busbw, ([0-9.]+) Gb/s with DCQCN against the link's ([0-9.]+) Gb/s of payload`)
	payload := 100 * 1024 / wire
	writtenAs(t, m[0], m[1], *j.BusbwGbps)
	writtenAs(t, m[0], m[2], payload)
	for _, v := range d.Variants {
		for _, it := range v.Jobs[0].PerIteration {
			limit := payload
			if v.Transport == "uet" {
				limit = 100 * 4096 / float64(frames.UETWireBytes(4096, false))
			}
			require.LessOrEqual(t, *it.BusbwGbps, limit, v.Name)
		}
	}
}

// TestAllreduceLeafSpineLessonSets holds the lesson's figures from the runs under --set: no
// background, rack order, other seeds (a QP's path drawn once for the job), congestion
// control off and NVIDIA's DCQCN parameters.
func TestAllreduceLeafSpineLessonSets(t *testing.T) {
	slow(t, "about 30 runs of the allreduce")
	d := fresh(t, "allreduce-leafspine")
	quiet := "traffic.1.poisson.count=1"
	rack := "traffic.0.collective.hosts=[h1,h2,h9,h10,h17,h18,h25,h26,h33,h34,h41,h42,h49,h50,h57,h58]"

	m := arSentence(t, `Without background every RoCE variant takes ([0-9,.]+) us \(2 QPs\) or ([0-9,.]+) us \(4 QPs\), ([0-9.]+)x and ([0-9.]+)x the ideal, interleaved; in rack order ([0-9,]+\.[0-9]+) us against its ideal of ([0-9,]+\.[0-9]+)`)
	for _, v := range []int{arDCQCN, arDCQCN4, arPFC4, arIRN} {
		q := arRun(t, v, quiet)
		qps := 1 // 2 QPs: the figures m[1], m[3]; 4 QPs: m[2], m[4]
		if v == arDCQCN4 || v == arPFC4 {
			qps = 2
		}
		writtenAs(t, m[0], m[qps], *q.Jobs[0].CompletionUS)
		writtenAs(t, m[0], m[qps+2], ratio(q))
	}
	r := arRun(t, arDCQCN, quiet, rack)
	writtenAs(t, m[0], m[5], *r.Jobs[0].CompletionUS)
	writtenAs(t, m[0], m[6], r.Jobs[0].IdealUS)
	require.Less(t, ratio(r), 1.01, m[0])

	m = arSentence(t, `rack order changes little \(([0-9,]+) us with DCQCN against ([0-9,]+) interleaved\)`)
	r = arRun(t, arDCQCN, rack)
	writtenAs(t, m[0], m[1], *r.Jobs[0].CompletionUS)
	writtenAs(t, m[0], m[2], *d.Variants[arDCQCN].Jobs[0].CompletionUS)
	require.InDelta(t, 1, *r.Jobs[0].CompletionUS / *d.Variants[arDCQCN].Jobs[0].CompletionUS, 0.05, m[0])

	// A collision lasts the job: under each seed the ring's QPs draw their paths once.
	m = arSentence(t, `at 2 QPs takes ([0-9.]+)x its ideal under seed (\d+) and ([0-9.]+)x under seed (\d+), and within ([0-9.]+)x under the six other seeds of 1 to (\d+); at 4 QPs of 25 Gb/s all eight seeds are within ([0-9.]+)x`)
	within, within4 := number(t, m[5]), number(t, m[7])
	seeds := int(number(t, m[6]))
	require.Equal(t, 8, seeds, m[0])
	unlucky := map[string]string{m[2]: m[1], m[4]: m[3]}
	placements := [][2]string{{m[2], m[1]}, {m[4], m[3]}} // seed, ratio with DCQCN
	for s := 1; s <= seeds; s++ {
		seed := "seed=" + strconv.Itoa(s)
		v := arRun(t, arDCQCN, quiet, seed)
		if want, ok := unlucky[strconv.Itoa(s)]; ok {
			writtenAs(t, m[0], want, ratio(v))
			require.Greater(t, ratio(v), 1.5, m[0])
		} else {
			require.Less(t, ratio(v), within, "%s: %q", seed, m[0])
		}
		require.Less(t, ratio(arRun(t, arDCQCN4, quiet, seed)), within4, "%s: %q", seed, m[0])
	}
	m = arSentence(t, "without congestion control \\(`--set transports.rocev2.cc=none`\\) the same two placements take ([0-9.]+)x and ([0-9.]+)x")
	for i, pl := range placements {
		v := arRun(t, arDCQCN, quiet, "seed="+pl[0], "transports.rocev2.cc=none")
		writtenAs(t, m[0], m[i+1], ratio(v))
		require.Less(t, ratio(v)-1, (number(t, pl[1])-1)/2, "most of the price is DCQCN's: %q", m[0])
	}

	m = arSentence(t, `Without background the iteration takes ([0-9,.]+) us against its ideal of ([0-9,]+) \(([0-9.]+)% above it; UET's headers make its ideal (\d+) us shorter than RoCE's\)`)
	u := arRun(t, arUET, quiet)
	writtenAs(t, m[0], m[1], *u.Jobs[0].CompletionUS)
	writtenAs(t, m[0], m[2], u.Jobs[0].IdealUS)
	writtenAs(t, m[0], m[3], 100*(ratio(u)-1))
	writtenAs(t, m[0], m[4], d.Variants[arDCQCN].Jobs[0].IdealUS-u.Jobs[0].IdealUS)

	// NVIDIA's parameters: a cut QP climbs by hyper increase within 64 KB and two timer
	// periods, so each DCQCN variant takes less than half its time under the paper's.
	m = arSentence(t, `takes ([0-9,]+) us at 2 QPs, ([0-9,]+) us at 4 QPs and ([0-9,]+) us with IRN: the parameters decide`)
	try := arSentence(t, `DCQCN at 2 QPs in ([0-9,]+) us instead of ([0-9,]+)`)
	for i, v := range []int{arDCQCN, arDCQCN4, arIRN} {
		n := arRun(t, v, "transports.rocev2.dcqcn.mode=nvidia")
		writtenAs(t, m[0], m[i+1], *n.Jobs[0].CompletionUS)
		require.Less(t, *n.Jobs[0].CompletionUS, *d.Variants[v].Jobs[0].CompletionUS/2, m[0])
		if v == arDCQCN {
			writtenAs(t, try[0], try[1], *n.Jobs[0].CompletionUS)
			writtenAs(t, try[0], try[2], *d.Variants[v].Jobs[0].CompletionUS)
		}
	}
}
