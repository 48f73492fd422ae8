package results

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	gpalette "gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The heat map's bounds: at most maxHeatRows rows (beyond, a row is the busiest of a few
// links of one tier pair) and maxHeatColumns time bins (beyond, a bin joins a few sample
// intervals), so that a large fabric's figure stays readable and its files small; the
// image is heatPixelsWide pixels wide and about heatPixelsHigh high, each row and bin a
// block of whole pixels.
const (
	maxHeatRows    = 240
	maxHeatColumns = 240
	heatPixelsWide = 960
	heatPixelsHigh = 480
)

// heatColours is the heat map's colour scale over utilisation 0..1 (idle is idleColour):
// white at 0, through yellow and red to black when the line is busy all the time (Moreland's black
// body, reversed: its luminance falls evenly, so it reads in grey print too).
func heatColours() gpalette.ColorMap {
	m := gpalette.Reverse(moreland.BlackBody())
	m.SetMin(0)
	m.SetMax(1)
	return m
}

// idleShare is the utilisation under which a link reads as idle in the heat map.
const idleShare = 0.01

// idleColour is an idle link's colour in the heat map: a pale blue-grey, so that an idle
// row reads apart from the white page and from the time after a variant's run ended.
var idleColour = color.RGBA{222, 228, 238, 255}

// heatColour is u's colour on the scale, u cut to [0, 1]; idleColour under idleShare.
func heatColour(m gpalette.ColorMap, u float64) color.Color {
	if u < idleShare {
		return idleColour
	}
	c, err := m.At(math.Max(0, math.Min(1, u)))
	if err != nil {
		return color.Black
	}
	return c
}

// linkGroup is the link directions of one tier pair, in order.
type linkGroup struct {
	name  string
	links []int // indices in Series.Links
}

// linkGroups sorts s's links into tier pairs: up the fabric first (hosts->leaf, then
// leaf->spine...), then between switches of one tier, then down (from the top tier to the
// hosts); in a group by their ends' names.
func linkGroups(v *Variant) []linkGroup {
	s := v.Series
	tiers := nodeTiers(v)
	names := tierNames(tiers)
	type key struct{ from, to int }
	byKey := map[key][]int{}
	var keys []key
	for i, l := range s.Links {
		k := key{tiers[l.From], tiers[l.To]}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], i)
	}
	rank := func(k key) (int, int) {
		switch {
		case k.from < k.to:
			return 0, k.from
		case k.from == k.to:
			return 1, k.from
		}
		return 2, -k.from
	}
	sort.Slice(keys, func(a, b int) bool {
		ca, ta := rank(keys[a])
		cb, tb := rank(keys[b])
		if ca != cb {
			return ca < cb
		}
		return ta < tb
	})
	var out []linkGroup
	for _, k := range keys {
		idx := byKey[k]
		sort.SliceStable(idx, func(a, b int) bool {
			la, lb := &s.Links[idx[a]], &s.Links[idx[b]]
			if la.From != lb.From {
				return naturalLess(la.From, lb.From)
			}
			return naturalLess(la.To, lb.To)
		})
		out = append(out, linkGroup{name: tierPair(names, k.from, k.to), links: idx})
	}
	return out
}

// heatRow is one row of the heat map: the links it shows (the busiest of them in each bin)
// and its group.
type heatRow struct {
	links []int
	group int
}

// heatRows lays the groups' links out in rows, at most maxHeatRows: each group gets rows in
// proportion to its links (one at least), each row an equal run of them.
func heatRows(groups []linkGroup, links int) (rows []heatRow, perRow int) {
	perRow = 1
	if links > maxHeatRows {
		room := max(1, maxHeatRows-len(groups))
		perRow = (links + room - 1) / room
	}
	for g, grp := range groups {
		for i := 0; i < len(grp.links); i += perRow {
			rows = append(rows, heatRow{links: grp.links[i:min(i+perRow, len(grp.links))], group: g})
		}
	}
	return rows, perRow
}

// heatmapDrawing is the plotter of the heat map: the image, and a line between groups.
type heatmapDrawing struct {
	img        *plotter.Image
	boundaries []float64 // y between two groups
	x0, x1     float64
	rows       int
}

// Plot implements plot.Plotter.
func (h *heatmapDrawing) Plot(c draw.Canvas, plt *plot.Plot) {
	h.img.Plot(c, plt)
	trX, trY := plt.Transforms(&c)
	for _, y := range h.boundaries {
		c.StrokeLine2(draw.LineStyle{Color: color.Gray{Y: 90}, Width: vg.Points(0.8)}, trX(h.x0), trY(y), trX(h.x1), trY(y))
	}
}

// DataRange implements plot.DataRanger.
func (h *heatmapDrawing) DataRange() (xmin, xmax, ymin, ymax float64) {
	return h.x0, h.x1, -0.5, float64(h.rows) - 0.5
}

// linksHeatmapFigure is each link direction's utilisation over time (links.csv): a row per
// link, grouped by tier pair (the fabric drawing's tiers), time on x, the colour the share
// of the line rate it carried in each interval.
func linksHeatmapFigure(v *Variant) (*Figure, string, error) {
	s := v.Series
	if len(s.Links) == 0 {
		return nil, "no link carried a frame at any sample", nil
	}
	if s.Len() < 2 {
		return nil, "fewer than two samples: no interval to measure", nil
	}
	groups := linkGroups(v)
	rows, perRow := heatRows(groups, len(s.Links))
	intervals := s.Len() - 1
	step := (intervals + maxHeatColumns - 1) / maxHeatColumns
	var edges []int // sample indices bounding the bins
	for k := 0; k < intervals; k += step {
		edges = append(edges, k)
	}
	edges = append(edges, intervals)
	bins := len(edges) - 1
	util := make([][]float64, len(rows))
	for r, row := range rows {
		util[r] = make([]float64, bins)
		for b := range bins {
			for _, li := range row.links {
				util[r][b] = math.Max(util[r][b], LinkUtilization(s, &s.Links[li], edges[b], edges[b+1]))
			}
		}
	}
	start, end := s.TimesUS[0], s.TimesUS[s.Len()-1]
	u, axisStart, axisEnd := timeAxisOf(v)
	rowPx := max(1, heatPixelsHigh/len(rows))
	img := image.NewRGBA(image.Rect(0, 0, heatPixelsWide, rowPx*len(rows)))
	cmap := heatColours()
	b := 0
	for x := range heatPixelsWide {
		t := start + (float64(x)+0.5)*(end-start)/heatPixelsWide
		for b < bins-1 && s.TimesUS[edges[b+1]] < t {
			b++
		}
		for r := range rows {
			c := heatColour(cmap, util[r][b])
			for y := r * rowPx; y < (r+1)*rowPx; y++ {
				img.Set(x, y, c)
			}
		}
	}
	d := &heatmapDrawing{img: plotter.NewImage(img, start/u.perUS, -0.5, end/u.perUS, float64(len(rows))-0.5),
		x0: start / u.perUS, x1: end / u.perUS, rows: len(rows)}
	f := newFigure("links-heatmap-", v.Name, v.Name+": link utilisation over time", "", "link direction, by tier pair")
	f.Caption = "Each direction of each link that carried a frame, one row each, grouped by tier pair (hosts at tier 0, each switch tier by its hops from the nearest host, as the fabric drawing has them; up the fabric first, then down), against time: the colour is the share of the line rate the link carried in each interval (its wire bytes, with preamble and inter-frame gap, over what the line could carry; a frame counts when its serialization starts, so a busy interval may read a little over 100%, drawn as 100%). links.csv has every value."
	if step > 1 {
		f.Caption += fmt.Sprintf(" Each column joins %d sample intervals.", step)
	}
	if perRow > 1 {
		f.Caption += fmt.Sprintf(" With %d link directions, each row shows up to %d links of one tier pair, the busiest of them in each interval.", len(s.Links), perRow)
	}
	var ticks []plot.Tick
	first := 0
	for g, grp := range groups {
		n := 0
		for _, row := range rows {
			if row.group == g {
				n++
			}
		}
		// Row r is drawn at y = rows-1-r: the first group on top.
		top, bottom := float64(len(rows)-1-first), float64(len(rows)-first-n)
		ticks = append(ticks, plot.Tick{Value: (top + bottom) / 2, Label: fmt.Sprintf("%s (%d)", grp.name, len(grp.links))})
		if first > 0 {
			d.boundaries = append(d.boundaries, top+0.5)
		}
		first += n
		f.Curves = append(f.Curves, Curve{Label: grp.name, Points: bins})
	}
	f.plot.Add(d)
	f.heat = d
	f.plot.Y.Tick.Marker = plot.ConstantTicks(ticks)
	f.plot.Y.Min, f.plot.Y.Max = -0.5, float64(len(rows))-0.5
	setTimeAxis(f.plot, u, axisStart, axisEnd)
	// The scale is continuous: a colour bar from 1% to 100% of the line rate, and the idle
	// colour on its own.
	f.legend = append(f.legend, legendEntry{"idle (under 1% of line rate)", boxThumb{idleColour}},
		legendEntry{"1% to 100% of line rate, left to right", gradientThumb{cmap}})
	return f, "", nil
}

// gradientThumb is a legend swatch of the heat map's whole scale, from idleShare at its left
// to 1 at its right: a continuous legend for a continuous scale.
type gradientThumb struct{ m gpalette.ColorMap }

func (t gradientThumb) Thumbnail(c *draw.Canvas) {
	const steps = 40
	w := (c.Max.X - c.Min.X) / steps
	for k := range steps {
		x0 := c.Min.X + vg.Length(k)*w
		u := idleShare + (1-idleShare)*(float64(k)+0.5)/steps
		c.FillPolygon(heatColour(t.m, u), []vg.Point{{X: x0, Y: c.Min.Y}, {X: x0 + w + vg.Points(0.2), Y: c.Min.Y}, {X: x0 + w + vg.Points(0.2), Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
	}
	pts := []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}}
	c.StrokeLines(draw.LineStyle{Color: color.Gray{Y: 90}, Width: vg.Points(0.5)}, append(pts, c.Min))
}

// boxThumb is a legend swatch of one colour, outlined so that white shows.
type boxThumb struct{ c color.Color }

func (t boxThumb) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}}
	c.FillPolygon(t.c, pts)
	c.StrokeLines(draw.LineStyle{Color: color.Gray{Y: 90}, Width: vg.Points(0.5)}, append(pts, c.Min))
}
