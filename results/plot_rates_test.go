package results

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// rateVariant is a variant of 100 us sampled every 0.5 us: flow 1 (h1->h3) delivers at
// 10 Gb/s and flow 2 (h2->h3) at 30 Gb/s from time 0 to the end, flow 3 (h4->h5) alone at
// 50 Gb/s; switch sw marks 2 packets per us and a NIC sends a CNP every 2 us; two
// port-classes are paused throughout, one of them half the time.
func rateVariant() *Variant {
	const n = 201
	s := &Series{IntervalUS: 0.5}
	f1, f2, f3 := FlowSeries{Flow: 1}, FlowSeries{Flow: 2}, FlowSeries{Flow: 3}
	marks := EventSeries{Place: "sw", PlaceType: PlaceSwitch, Event: EventMark}
	cnps := EventSeries{Place: "h3", PlaceType: PlaceHost, Event: EventCNP}
	p1, p2 := PauseSeries{Node: "sw", Port: 1}, PauseSeries{Node: "sw", Port: 2}
	for k := range n {
		t := float64(k) / 2
		s.TimesUS = append(s.TimesUS, t)
		// Gb/s x 1e3 / 8 = bytes per us.
		f1.DeliveredBytes = append(f1.DeliveredBytes, int64(t*10*1e3/8))
		f2.DeliveredBytes = append(f2.DeliveredBytes, int64(t*30*1e3/8))
		f3.DeliveredBytes = append(f3.DeliveredBytes, int64(t*50*1e3/8))
		marks.Counts = append(marks.Counts, int64(2*t))
		cnps.Counts = append(cnps.Counts, int64(t/2))
		p1.PausedUS = append(p1.PausedUS, t)
		p2.PausedUS = append(p2.PausedUS, t/2)
	}
	s.Flows = []FlowSeries{f1, f2, f3}
	s.Events = []EventSeries{marks, cnps}
	s.Pauses = []PauseSeries{p1, p2}
	return &Variant{Name: "v", Series: s, PerFlow: []Flow{
		{ID: 1, Src: "h1", Dst: "h3"}, {ID: 2, Src: "h2", Dst: "h3"}, {ID: 3, Src: "h4", Dst: "h5"}}}
}

// points are the y values of a figure's line i.
func points(f *Figure, i int) []float64 {
	var ys []float64
	for _, p := range f.lines[i].XYs {
		ys = append(ys, p.Y)
	}
	return ys
}

// TestGoodputOverTimeInGbps: constant rates come out as those rates at every interval (the
// binning reads the cumulative bytes exactly, whatever the sampling).
func TestGoodputOverTimeInGbps(t *testing.T) {
	f, why, err := goodputFigure(rateVariant())
	require.NoError(t, err)
	require.NotNil(t, f, why)
	require.Len(t, f.lines, 3)
	for i, want := range []float64{10, 30, 50} {
		ys := points(f, i)
		require.Len(t, ys, rateBins)
		for _, y := range ys {
			require.InDelta(t, want, y, 1e-9)
		}
	}
	require.Equal(t, "goodput (Gb/s)", f.plot.Y.Label.Text)
}

// TestJain: the index's closed forms, and the figure of the two flows into h3 (10 and 30
// Gb/s: 40^2 / (2 x (100 + 900)) = 0.8 at every interval); h5's one flow has no line.
func TestJain(t *testing.T) {
	j, ok := Jain([]float64{5, 5, 5, 5})
	require.True(t, ok)
	require.InDelta(t, 1, j, 1e-12)
	j, _ = Jain([]float64{7, 0, 0, 0})
	require.InDelta(t, 0.25, j, 1e-12)
	_, ok = Jain([]float64{0, 0})
	require.False(t, ok)

	f, why, err := fairnessFigure(rateVariant())
	require.NoError(t, err)
	require.NotNil(t, f, why)
	require.Len(t, f.lines, 1)
	require.Equal(t, "into h3 (2 flows)", f.Curves[0].Label)
	for _, y := range points(f, 0) {
		require.InDelta(t, 0.8, y, 1e-9)
	}
	require.Equal(t, 1.0, f.plot.Y.Max)

	v := rateVariant()
	v.PerFlow[1].Dst = "h6" // no shared receiver left
	f, why, err = fairnessFigure(v)
	require.NoError(t, err)
	require.Nil(t, f)
	require.Contains(t, why, "no two flows into one receiver ran together")
}

// TestEventsAndPausesAsRates: 2 marks and 0.5 CNPs per us; 1.5 port-classes paused.
func TestEventsAndPausesAsRates(t *testing.T) {
	f, why, err := eventRatesFigure(rateVariant())
	require.NoError(t, err)
	require.NotNil(t, f, why)
	require.Equal(t, "ECN marks", f.Curves[0].Label, "no total in the label: one colour per kind across panels")
	require.Equal(t, "CNPs", f.Curves[1].Label)
	mean := func(ys []float64) float64 {
		s := 0.0
		for _, y := range ys {
			s += y
		}
		return s / float64(len(ys))
	}
	require.InDelta(t, 2, mean(points(f, 0)), 1e-9, "200 marks over 100 us")
	require.InDelta(t, 0.5, mean(points(f, 1)), 1e-9, "50 CNPs over 100 us")

	f, why, err = pausedFigure(rateVariant())
	require.NoError(t, err)
	require.NotNil(t, f, why)
	for _, y := range points(f, 0) {
		require.InDelta(t, 1.5, y, 1e-9)
	}
}

// TestWindowFigure: a flow with a window column gets a line of it; none, an omission.
func TestWindowFigure(t *testing.T) {
	v := rateVariant()
	_, why, err := windowFigure(v)
	require.NoError(t, err)
	require.Equal(t, "no flow with Swift's or UET NSCC's window", why)
	w := make([]float64, v.Series.Len())
	for k := range w {
		w[k] = 1 + float64(k%7)
	}
	v.Series.Flows[0].WindowPackets = append([]float64{0}, w[1:]...) // before the sender held one
	f, why, err := windowFigure(v)
	require.NoError(t, err)
	require.NotNil(t, f, why)
	require.Equal(t, w[1:], points(f, 0), "the 0 before the sender is not drawn")
}
