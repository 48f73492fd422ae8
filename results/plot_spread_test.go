package results

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// spreadChain is a chain h1 - sw1 - sw2 - sw3 - h2 whose pauses spread from sw3 back to h1:
// sw2's port to sw3 is paused from inside the interval (2, 3] us, sw1's port to sw2 from
// (4, 5], h1's NIC from (6, 7]; sw3's port to h2 was never paused. The series are listed out
// of order. Samples every 1 us from 0 to 10.
func spreadChain() *Variant {
	times := []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	// Cumulative paused time: paused from t0 to the end.
	from := func(t0 float64) []float64 {
		out := make([]float64, len(times))
		for k, t := range times {
			out[k] = max(0, t-t0)
		}
		return out
	}
	return &Variant{Name: "chain", SimTimeUS: 10,
		Links: []Link{{From: "h1", To: "sw1"}, {From: "sw1", To: "sw2"}, {From: "sw2", To: "sw3"}, {From: "sw3", To: "h2"}},
		Series: &Series{IntervalUS: 1, TimesUS: times, Pauses: []PauseSeries{
			{Node: "h1", Port: 1, Peer: "sw1", Priority: 3, PausedUS: from(6.5)},
			{Node: "sw2", Port: 2, Peer: "sw3", Priority: 3, PausedUS: from(2.25)},
			{Node: "sw1", Port: 2, Peer: "sw2", Priority: 3, PausedUS: from(4.5)},
			{Node: "sw3", Port: 2, Peer: "h2", Priority: 3, PausedUS: make([]float64, len(times))},
		}}}
}

// TestPauseSpreadOrdersByHopsFromTheCongestedNode: the root is sw2's port to sw3 (paused
// first), so sw3 is the congested node; the rows are sw2 (1 hop from sw3), sw1 (2) and h1
// (3); a port never paused has no row; and each row's shading is exactly its recorded pause:
// 0.75 of the interval (2, 3] for sw2, then all of every later one.
func TestPauseSpreadOrdersByHopsFromTheCongestedNode(t *testing.T) {
	v := spreadChain()
	rows, congested := pauseSpread(v)
	require.Equal(t, "sw3", congested)
	var got []string
	var hops []int
	for _, r := range rows {
		got = append(got, r.label)
		hops = append(hops, r.hops)
	}
	require.Equal(t, []string{"sw2:2->sw3 prio 3", "sw1:2->sw2 prio 3", "h1:1->sw1 prio 3"}, got)
	require.Equal(t, []int{1, 2, 3}, hops)
	require.Equal(t, []int{3, 5, 7}, []int{rows[0].first, rows[1].first, rows[2].first})

	f, why, err := spreadFigure(v)
	require.NoError(t, err)
	require.Empty(t, why)
	require.Contains(t, f.Caption, "sw3")
	// Drawn from the bottom up: the nearest row (sw2) on top.
	var labels []string
	for _, c := range f.Curves {
		labels = append(labels, c.Label)
	}
	require.Equal(t, []string{"3 hops: h1:1->sw1 prio 3", "2 hops: sw1:2->sw2 prio 3", "1 hop: sw2:2->sw3 prio 3"}, labels)
	pr := f.pauses
	want := []float64{0, 0, 0, 0.75, 1, 1, 1, 1, 1, 1, 1} // sw2: paused from 2.25 us
	require.Equal(t, want, pr.rows[2])
	require.Equal(t, []float64{0, 0, 0, 0, 0, 0, 0, 0.5, 1, 1, 1}, pr.rows[0], "h1: paused from 6.5 us")

	inked, area := renderedInk(t, f)
	require.Greater(t, inked, area/100, "not blank")
}

// TestPauseSpreadRootTieAndKeptRows: two port-classes first paused in the same interval:
// the one paused longer in it is the root. And cutting rows keeps the first of each
// distance in turn.
func TestPauseSpreadRootTieAndKeptRows(t *testing.T) {
	v := spreadChain()
	// h1 now starts in sw2's interval too, but later in it (2.5 us): sw2 is still the root.
	v.Series.Pauses[0].PausedUS = []float64{0, 0, 0, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5}
	rows, congested := pauseSpread(v)
	require.Equal(t, "sw3", congested)
	require.Equal(t, "sw2:2->sw3 prio 3", rows[0].label)
	// sw1 later in the same interval than sw2 but paused longer in it would take the root.
	v.Series.Pauses[2].PausedUS = []float64{0, 0, 0, 0.9, 1.9, 2.9, 3.9, 4.9, 5.9, 6.9, 7.9}
	_, congested = pauseSpread(v)
	require.Equal(t, "sw2", congested, "sw1:2->sw2 paused 0.9 us of (2, 3], sw2's port 0.75")

	rs := []spreadRow{{hops: 1, label: "a"}, {hops: 1, label: "b"}, {hops: 1, label: "c"}, {hops: 2, label: "d"}, {hops: 3, label: "e"}}
	var kept []string
	for _, r := range keepSpreadRows(rs, 3) {
		kept = append(kept, r.label)
	}
	require.Equal(t, []string{"a", "d", "e"}, kept)
	kept = nil
	for _, r := range keepSpreadRows(rs, 4) {
		kept = append(kept, r.label)
	}
	require.Equal(t, []string{"a", "b", "d", "e"}, kept)
}
