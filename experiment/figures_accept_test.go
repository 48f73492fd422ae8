package experiment

import (
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"

	"github.com/fabricsim/fabricsim/results"
)

// Limits a run's figures are held to (issue 41).
const (
	minPNGWidth       = 1600 // pixels: sharp on a wide screen and a slide
	maxLossyLinkPNGs  = 60   // lossy-link's 18 variants x 5 seeds once wrote 595
	minHeadroomFactor = 1.05 // a y axis ends at least this far above the data's maximum
)

// checkOutputFigures holds the figures of bundled scenario name's output directory (doc
// written as `-o DIR` writes it) to what a paper and a slide need: every PNG at least
// minPNGWidth wide (and lossy-link's at most maxLossyLinkPNGs of them); no two labelled
// series of one panel drawn alike (colour, dash and marker); each variant one colour in
// every figure of the run and of a comparison of the run with itself (run b dashed); every
// y axis without a natural bound ending at least minHeadroomFactor above the data; every
// numeric axis labelled with its unit in parentheses; and no two texts of an SVG overlapping.
func checkOutputFigures(t *testing.T, name string, doc *results.Document) {
	t.Helper()
	dir := t.TempDir()
	_, err := results.WriteDirFiles(dir, doc)
	require.NoError(t, err)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	pngs := 0
	for _, e := range entries {
		switch filepath.Ext(e.Name()) {
		case ".png":
			pngs++
			f, err := os.Open(filepath.Join(dir, e.Name()))
			require.NoError(t, err)
			cfg, err := png.DecodeConfig(f)
			f.Close()
			require.NoError(t, err, e.Name())
			assert.GreaterOrEqual(t, cfg.Width, minPNGWidth, "%s: %d px wide", e.Name(), cfg.Width)
		case ".svg":
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			require.NoError(t, err)
			checkNoTextOverlaps(t, e.Name(), string(data))
		}
	}
	if name == "lossy-link" {
		assert.LessOrEqual(t, pngs, maxLossyLinkPNGs, "lossy-link writes %d PNGs", pngs)
	}
	for _, file := range []string{"summary.md", "report.html"} {
		data, err := os.ReadFile(filepath.Join(dir, file))
		require.NoError(t, err)
		assert.Empty(t, emptySizeRows.FindAllString(string(data), 5), "%s: size bins of no flow have rows", file)
	}

	figs, _, err := results.Figures(doc)
	require.NoError(t, err)
	var names []string
	for i := range doc.Variants {
		names = append(names, doc.Variants[i].Name)
	}
	colours := map[string]string{} // variant -> its colour, over every figure of the run
	for _, f := range figs {
		checkSeriesApart(t, f)
		checkVariantColours(t, f, names, "", colours)
		checkLegendIsWhole(t, f)
		for k, p := range f.Panels() {
			top, dataMax, natural := p.YAxis()
			if !natural && dataMax > 0 {
				assert.GreaterOrEqual(t, top, minHeadroomFactor*dataMax*(1-1e-9), "%s panel %d: the y axis ends at %g, the data reach %g", f.Name, k, top, dataMax)
			}
		}
		if strings.HasPrefix(f.Name, "fabric-") {
			continue // a drawing, not a chart
		}
		_, _, xNamed, yNamed := f.TickLabels()
		x, y := f.AxisLabels()
		for _, ax := range []struct {
			label string
			named bool
		}{{x, xNamed}, {y, yNamed}} {
			if !ax.named {
				assert.Regexp(t, `\(.+\)`, ax.label, "%s: the axis %q has no unit", f.Name, ax.label)
			}
		}
	}
	// A comparison of the run with itself: each variant twice, in its run's colour.
	cfigs, _, err := results.ComparisonFigures(results.Compare(doc, doc, "a", "b"))
	require.NoError(t, err)
	for _, f := range cfigs {
		checkSeriesApart(t, f)
		for _, side := range []string{" [a]", " [b]"} {
			checkVariantColours(t, f, names, side, colours)
		}
	}
}

// emptySizeRows are rows of a by-size table (Markdown or HTML) whose bin holds no flow: the
// bin's range, then a flow count of 0.
var emptySizeRows = regexp.MustCompile(`(\| *|<td[^>]*>)(>=[0-9]+[KMG]?B|[0-9]+[KMG]?B-[0-9]+[KMG]?B)( *\| *0 *\||</td><td[^>]*>0</td>)`)

// checkSeriesApart: no two labelled lines of one panel share colour, dash and marker.
func checkSeriesApart(t *testing.T, f *results.Figure) {
	t.Helper()
	seen := map[int]map[results.Style]string{}
	for _, c := range f.Curves {
		st := c.Style()
		if c.Label == "" || st.Color == "" {
			continue
		}
		if seen[c.Panel] == nil {
			seen[c.Panel] = map[results.Style]string{}
		}
		other, dup := seen[c.Panel][st]
		assert.False(t, dup, "%s: %q and %q are drawn alike (%+v)", f.Name, other, c.Label, st)
		seen[c.Panel][st] = c.Label
	}
}

// checkLegendIsWhole: the legend lists every labelled line of every panel (but a panel's
// own variant's line, "VARIANT: ...", which the panel's title names), and a label (a group,
// a flow, a queue) is one colour in every panel of the figure: one legend entry stands for it
// in all of them.
func checkLegendIsWhole(t *testing.T, f *results.Figure) {
	t.Helper()
	listed := map[string]bool{}
	for _, l := range f.LegendLabels() {
		listed[l] = true
	}
	panels := f.Panels()
	colour := map[string]string{}
	for _, c := range f.Curves {
		st := c.Style()
		if c.Label == "" || st.Color == "" {
			continue
		}
		own := c.Panel < len(panels) && panels[c.Panel].PanelTitle() != "" &&
			strings.HasPrefix(c.Label, panels[c.Panel].PanelTitle()+":")
		assert.True(t, listed[c.Label] || own, "%s: %q (panel %d) is not in the legend", f.Name, c.Label, c.Panel)
		if want, ok := colour[c.Label]; ok {
			assert.Equal(t, want, st.Color, "%s: %q is two colours across the panels", f.Name, c.Label)
		}
		colour[c.Label] = st.Color
	}
}

// checkVariantColours: every line labelled by a variant (its name, then the end tag, then
// nothing, a space or a colon) has the colour colours holds for it, or gives it one.
func checkVariantColours(t *testing.T, f *results.Figure, names []string, tag string, colours map[string]string) {
	t.Helper()
	byLength := append([]string(nil), names...)
	sort.SliceStable(byLength, func(a, b int) bool { return len(byLength[a]) > len(byLength[b]) })
	for _, c := range f.Curves {
		st := c.Style()
		if st.Color == "" {
			continue
		}
		for _, n := range byLength {
			rest, ok := strings.CutPrefix(c.Label, n+tag)
			if !ok || (rest != "" && rest[0] != ' ' && rest[0] != ':') {
				continue
			}
			if want, ok := colours[n]; ok {
				assert.Equal(t, want, st.Color, "%s: %q is not in variant %s's colour", f.Name, c.Label, n)
			} else {
				colours[n] = st.Color
			}
			break
		}
	}
}

// svgText is a text element of a figure's SVG: <text x y transform="scale(1, -1)"
// style="...font-size:Npx">, after a <g transform="rotate(90)"> when it is rotated.
var svgText = regexp.MustCompile(`(<g transform="rotate\(90\)">\s*)?<text x="([-0-9.e]+)" y="([-0-9.e]+)"[^>]*font-size:([0-9.]+)px">([^<]*)</text>`)

// box is a text's extent in the figure's frame (points, y up).
type box struct {
	x0, y0, x1, y1 float64
	text           string
}

// checkNoTextOverlaps: no two texts of svg overlap (textOverlaps).
func checkNoTextOverlaps(t *testing.T, file, svg string) {
	t.Helper()
	assert.Empty(t, textOverlaps(svg), "%s: texts overlap", file)
}

// textOverlaps are the pairs of texts of svg that overlap by more than a point both ways,
// each measured in its font (the figures' Liberation Serif) from its baseline: ascent 0.7
// and descent 0.2 of its size.
func textOverlaps(svg string) (pairs []string) {
	var boxes []box
	for _, m := range svgText.FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.ParseFloat(m[2], 64)
		y, _ := strconv.ParseFloat(m[3], 64)
		size, _ := strconv.ParseFloat(m[4], 64)
		s := unescapeXML(m[5])
		if strings.TrimSpace(s) == "" {
			continue
		}
		face := font.DefaultCache.Lookup(plot.DefaultFont, vg.Length(size))
		w := float64(face.Width(s))
		if m[1] != "" { // rotated a quarter turn: (x, y) reads (y, x), the text running up
			boxes = append(boxes, box{y - 0.7*size, x, y + 0.2*size, x + w, s})
			continue
		}
		boxes = append(boxes, box{x, -y - 0.2*size, x + w, -y + 0.7*size, s})
	}
	for i := range boxes {
		for j := i + 1; j < len(boxes); j++ {
			a, b := boxes[i], boxes[j]
			// Overlap by more than a hair (a point) both ways.
			ox := math.Min(a.x1, b.x1) - math.Max(a.x0, b.x0)
			oy := math.Min(a.y1, b.y1) - math.Max(a.y0, b.y0)
			if ox > 1 && oy > 1 {
				pairs = append(pairs, strconv.Quote(a.text)+" and "+strconv.Quote(b.text))
			}
		}
	}
	return pairs
}

// TestTextOverlapsFindsThem: two labels at one place overlap, a rotated axis label beside
// its ticks does not, and one that crosses them does.
func TestTextOverlapsFindsThem(t *testing.T) {
	text := func(x, y float64, s string) string {
		return `<text x="` + strconv.FormatFloat(x, 'f', 2, 64) + `" y="` + strconv.FormatFloat(y, 'f', 2, 64) +
			`" transform="scale(1, -1)"` + "\n\t" + `style="font-family:Liberation Serif;font-size:10px">` + s + `</text>`
	}
	require.Len(t, textOverlaps(text(100, -50, "agg1")+text(104, -52, "agg2")), 1, "agg1 and agg2 overprint")
	require.Empty(t, textOverlaps(text(100, -50, "agg1")+text(140, -50, "agg2")), "side by side")
	rotated := `<g transform="rotate(90)">` + "\n" + text(40, 15, "queue (KB)") + "</g>"
	require.Empty(t, textOverlaps(rotated+text(30, -50, "100")), "the y label left of its ticks")
	require.Len(t, textOverlaps(rotated+text(5, -45, "10000")), 1, "a tick label over the y label")
}

func unescapeXML(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "&quot;", `"`, "&#39;", "'").Replace(s)
}
