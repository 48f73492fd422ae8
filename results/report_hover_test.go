package results

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotter"
)

// TestHoverPointsAreWhereTheLineIsDrawn: HoverJSON places each point of a line where the
// rendered SVG's path has its vertex (the path is drawn in gonum's y-up coordinates under a
// flip, so a vertex (x, y) is at (x, height - y) in the viewBox), with its data values and
// the line's legend label; points outside the axes are left out.
func TestHoverPointsAreWhereTheLineIsDrawn(t *testing.T) {
	f := newFigure("hover", "", "hover", "time (us)", "rate (Gbit/s)")
	pts := plotter.XYs{{X: 0, Y: 0}, {X: 10, Y: 5}, {X: 20, Y: 20}, {X: 25, Y: 2.5}}
	_, err := f.addLine(0, "flow 1", pts)
	require.NoError(t, err)
	f.plot.X.Max = 20 // the last point is off the axis
	require.Empty(t, f.HoverJSON(), "nothing before the figure is drawn")
	svg, h := renderHover(t, f)
	require.Equal(t, "time (us)", h.X)
	require.Equal(t, "rate (Gbit/s)", h.Y)
	require.Len(t, h.S, 1)
	require.Equal(t, "flow 1", h.S[0].L)
	require.Len(t, h.S[0].P, 3, "the point at x = 25 is past the axis")

	// The line's path: the one of #0072B2 (the first colour).
	requireOnPath(t, svg, "#0072B2", figHeight.Points(), pts, h.S[0].P)
	require.True(t, strings.HasPrefix(f.HoverJSON(), `{"x":"time (us)"`))
}

// hoverData is HoverJSON decoded.
type hoverData struct {
	X, Y string
	S    []struct {
		L string
		P [][4]float64
	}
}

// renderHover renders f as SVG and gives the SVG and f's HoverJSON decoded.
func renderHover(t *testing.T, f *Figure) (string, hoverData) {
	t.Helper()
	var svg bytes.Buffer
	require.NoError(t, f.Render(&svg, "svg"))
	var h hoverData
	require.NoError(t, json.Unmarshal([]byte(f.HoverJSON()), &h))
	return svg.String(), h
}

// requireOnPath: the hover points ps (of the data points pts, in order) are the vertices of
// svg's path of colour (the one with three vertices or more: a legend thumbnail has two),
// in a viewBox height points high.
func requireOnPath(t *testing.T, svg, colour string, height float64, pts plotter.XYs, ps [][4]float64) {
	t.Helper()
	var vertices [][2]float64
	for _, m := range regexp.MustCompile(`<path d="(M[^"]*)" style="fill:none;stroke:`+colour).FindAllStringSubmatch(svg, -1) {
		var vs [][2]float64
		for _, xy := range regexp.MustCompile(`[ML]([-0-9.]+),([-0-9.]+)`).FindAllStringSubmatch(m[1], -1) {
			x, _ := strconv.ParseFloat(xy[1], 64)
			y, _ := strconv.ParseFloat(xy[2], 64)
			vs = append(vs, [2]float64{x, height - y})
		}
		if len(vs) >= 3 {
			vertices = vs
		}
	}
	require.GreaterOrEqual(t, len(vertices), len(ps), "the %s line's path is in the SVG:\n%s", colour, svg)
	for k, p := range ps {
		require.InDelta(t, vertices[k][0], p[0], 0.01, "point %d x", k)
		require.InDelta(t, vertices[k][1], p[1], 0.01, "point %d y", k)
		require.Equal(t, pts[k].X, p[2])
		require.Equal(t, pts[k].Y, p[3])
	}
}

// TestHoverOnPanels: a figure of three panels (a kind, a panel per variant; two rows, so
// the figure is taller than one plot's) gives each panel's line, named by its panel, at the
// vertices its panel drew them at: the second panel is right of the first, the third under
// it, so the same data lie at larger x, or y from the top, in the viewBox.
func TestHoverOnPanels(t *testing.T) {
	pts := plotter.XYs{{X: 0, Y: 1}, {X: 10, Y: 4}, {X: 20, Y: 2}}
	var panels []*Figure
	for _, v := range []string{"A", "B", "C"} {
		p := newFigure("queues-"+v, v, v+": queue", "time (us)", "queue (KB)")
		_, err := p.addLine(0, "queue of "+v, pts)
		require.NoError(t, err)
		p.panelTitle = v
		panels = append(panels, p)
	}
	f := panelFigure("queues", "queues, by variant", panels)
	svg, h := renderHover(t, f)
	require.Equal(t, "time (us)", h.X)
	require.Equal(t, "queue (KB)", h.Y)
	require.Len(t, h.S, 3)
	require.Equal(t, "A: queue of A", h.S[0].L)
	require.Equal(t, "B: queue of B", h.S[1].L)
	require.Equal(t, "C: queue of C", h.S[2].L)
	_, height := f.size()
	require.Greater(t, height, figHeight)
	// One colour per label across the panels: A's line the first colour, B's the second...
	requireOnPath(t, svg, "#0072B2", height.Points(), pts, h.S[0].P)
	requireOnPath(t, svg, "#D55E00", height.Points(), pts, h.S[1].P)
	requireOnPath(t, svg, "#009E73", height.Points(), pts, h.S[2].P)
	require.Greater(t, h.S[1].P[0][0], h.S[0].P[len(pts)-1][0], "B's panel is right of A's")
	require.Greater(t, h.S[2].P[0][1], h.S[0].P[0][1], "C's panel is under A's")
}

// TestHoverThinsLongLines: a line of 10,000 points gives at most maxHoverPoints, its first
// and last among them.
func TestHoverThinsLongLines(t *testing.T) {
	f := newFigure("long", "", "long", "x", "y")
	pts := make(plotter.XYs, 10_000)
	for i := range pts {
		pts[i] = plotter.XY{X: float64(i), Y: float64(i % 7)}
	}
	_, err := f.addLine(0, "", pts)
	require.NoError(t, err)
	require.NoError(t, f.Render(&bytes.Buffer{}, "svg"))
	var h struct{ S []struct{ P [][4]float64 } }
	require.NoError(t, json.Unmarshal([]byte(f.HoverJSON()), &h))
	p := h.S[0].P
	require.LessOrEqual(t, len(p), maxHoverPoints+1)
	require.Greater(t, len(p), maxHoverPoints/2)
	require.Equal(t, 0.0, p[0][2])
	require.Equal(t, 9999.0, p[len(p)-1][2])
}
