package results

import (
	"bytes"
	"image/png"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// seedRun is one seed's run of variant "v": one flow delivering rateGbps from 0 until
// endUS (its series ends there), sampled every 1 us.
func seedRun(seed uint64, rateGbps, endUS float64) Variant {
	var times []float64
	var bytes []int64
	for t := 0.0; t <= endUS; t++ {
		times = append(times, t)
		bytes = append(bytes, int64(rateGbps*125*t)) // 1 Gb/s is 125 bytes a microsecond
	}
	return Variant{Name: "v", Seed: seed, SimTimeUS: endUS,
		Series: &Series{IntervalUS: 1, TimesUS: times, Flows: []FlowSeries{{Flow: 1, DeliveredBytes: bytes}}}}
}

// TestSeedGoodputIsTheMeanAndStudentsInterval: three seeds at 10, 20 and 30 Gb/s, the
// third ending at 50 us. On 1-us intervals the mean is 20 Gb/s up to 50 us and 10 after
// (the ended seed adds 0), the sample standard deviation 10 both times, so the half-width
// is t(0.975, 2) x 10 / sqrt(3) with t(0.975, 2) = 4.302653 (the t table's 4.303).
func TestSeedGoodputIsTheMeanAndStudentsInterval(t *testing.T) {
	runs := []Variant{seedRun(1, 10, 100), seedRun(2, 20, 100), seedRun(3, 30, 50)}
	b := seedGoodput([]*Variant{&runs[0], &runs[1], &runs[2]}, 100)
	require.Len(t, b.Mean, 100)
	half := 4.302652729911275 * 10 / math.Sqrt(3)
	for j := range b.Mean {
		want := 20.0
		if j >= 50 {
			want = 10 // (10 + 20 + 0) / 3
		}
		require.InDelta(t, want, b.Mean[j], 1e-9, "interval %d", j)
		require.InDelta(t, half, b.CI95[j], 1e-6, "interval %d", j)
	}

	d := &Document{Scenario: "s", Variants: runs}
	figs, _, err := Figures(d)
	require.NoError(t, err)
	var f *Figure
	for _, g := range figs {
		if g.Name == seedFigure {
			f = g
		}
	}
	require.NotNil(t, f, "a replicated variant gets its seed band")
	require.Equal(t, throughputPoints, f.Curves[0].Points)
	x, y, _, _ := f.TickLabels()
	require.GreaterOrEqual(t, len(x), 4)
	require.GreaterOrEqual(t, len(y), 4)
	inked, area := renderedInk(t, f)
	require.Greater(t, inked, area/100, "not blank")

	// One seed: no band figure.
	figs, _, err = Figures(&Document{Scenario: "s", Variants: runs[:1]})
	require.NoError(t, err)
	for _, g := range figs {
		require.NotEqual(t, seedFigure, g.Name)
	}
}

// renderedInk renders f as a PNG and counts its drawn (non-white) pixels, of area; it fails
// when anything is drawn within 3 pixels of the image's left, right or bottom edge (a
// legend or label that runs off the image).
func renderedInk(t *testing.T, f *Figure) (inked, area int) {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, f.Render(&b, "png"))
	img, err := png.Decode(&b)
	require.NoError(t, err)
	bo := img.Bounds()
	for y := bo.Min.Y; y < bo.Max.Y; y++ {
		for x := bo.Min.X; x < bo.Max.X; x++ {
			if r, g, bl, _ := img.At(x, y).RGBA(); r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				inked++
				require.False(t, x < bo.Min.X+3 || x >= bo.Max.X-3 || y >= bo.Max.Y-3, "%s: drawn at the edge (%d, %d)", f.Name, x, y)
			}
		}
	}
	return inked, bo.Dx() * bo.Dy()
}
