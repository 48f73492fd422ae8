package results

import (
	"bytes"
	"fmt"
	"image/png"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

func labelsOf(ticks []plot.Tick) []string {
	var out []string
	for _, tk := range ticks {
		if tk.Label != "" {
			out = append(out, tk.Label)
		}
	}
	return out
}

func TestReadableTicks(t *testing.T) {
	lin := readableTicks{}
	// 0..20: step 5 (10 would give 3 labels).
	require.Equal(t, []string{"0", "5", "10", "15", "20"}, labelsOf(lin.Ticks(0, 20)))
	// 0..1: step 0.25, every label with two decimals.
	require.Equal(t, []string{"0.00", "0.25", "0.50", "0.75", "1.00"}, labelsOf(lin.Ticks(0, 1)))
	require.Equal(t, []string{"0", "500", "1000", "1500", "2000", "2500"}, labelsOf(lin.Ticks(0, 2617)))
	log := readableTicks{log: true}
	// Four decades: decades only, written out (no 1e+03).
	require.Equal(t, []string{"10", "100", "1000", "10000"}, labelsOf(log.Ticks(3, 18000)))
	// Two decades: 1-2-5.
	require.Equal(t, []string{"1", "2", "5", "10", "20", "50", "100"}, labelsOf(log.Ticks(1, 100)))
	// Under a decade: every integer multiple.
	require.Equal(t, []string{"2", "3", "4", "5", "6"}, labelsOf(log.Ticks(1.5, 6.5)))
	require.Equal(t, []string{"-1.0", "-0.5", "0.0", "0.5", "1.0"}, labelsOf(lin.Ticks(0, 0)), "one value")
}

// TestLegendStaysInsideTheImage: 90 legend entries (lossy-link's 18 variants x 5 seeds
// once had them) and a label longer than the legend's column: the image's last rows and
// right columns stay blank, the legend says how many it left out.
func TestLegendStaysInsideTheImage(t *testing.T) {
	f := newFigure("many", "", "many lines", "x", "y")
	for i := range 90 {
		label := fmt.Sprintf("variant %d", i)
		if i == 0 {
			label = "a variant name far longer than the legend's column can hold in one row of text"
		}
		_, err := f.addLine(i, label, plotter.XYs{{X: 0, Y: float64(i)}, {X: 1, Y: float64(i + 1)}})
		require.NoError(t, err)
	}
	var b bytes.Buffer
	require.NoError(t, f.Render(&b, "png"))
	img, err := png.Decode(&b)
	require.NoError(t, err)
	bo := img.Bounds()
	for y := bo.Min.Y; y < bo.Max.Y; y++ {
		for x := bo.Min.X; x < bo.Max.X; x++ {
			if x >= bo.Max.X-3 || y >= bo.Max.Y-3 || x < 3 {
				r, g, bl, _ := img.At(x, y).RGBA()
				require.True(t, r > 0xf000 && g > 0xf000 && bl > 0xf000, "drawn at (%d, %d): the legend runs off the image", x, y)
			}
		}
	}
	entries := fitLegend(f.legend, plot.NewLegend(), figHeight)
	require.Less(t, len(entries), 90)
	require.Contains(t, entries[len(entries)-1].label, fmt.Sprintf("and %d more", 90-len(entries)+1))
}

// TestPDFIsTheSameEveryTime: a figure rendered twice as PDF gives the same bytes (no
// creation date of the moment, no map-ordered catalog).
func TestPDFIsTheSameEveryTime(t *testing.T) {
	render := func() []byte {
		f := newFigure("pdf", "", "pdf", "x", "y")
		_, err := f.addLine(0, "a line", plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 2}})
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, f.Render(&b, "pdf"))
		return b.Bytes()
	}
	first := render()
	require.True(t, bytes.HasPrefix(first, []byte("%PDF-")))
	require.Contains(t, string(first), "D:20000101")
	require.Equal(t, first, render())
}
