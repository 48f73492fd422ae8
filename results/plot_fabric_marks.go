package results

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// labelSpace is the text a drawing has placed so far: a text is drawn only where it
// overlaps none of it, so that crowded names and counts never overprint ("2569" never reads
// "25").
type labelSpace []vg.Rectangle

// fill draws s at p in style ts when its box, with a point of margin, overlaps no text
// placed before, and reports whether it did.
func (ls *labelSpace) fill(c *draw.Canvas, ts text.Style, p vg.Point, s string) bool {
	r := ts.Rectangle(s)
	box := vg.Rectangle{Min: vg.Point{X: p.X + r.Min.X - vg.Points(1), Y: p.Y + r.Min.Y - vg.Points(1)},
		Max: vg.Point{X: p.X + r.Max.X + vg.Points(1), Y: p.Y + r.Max.Y + vg.Points(1)}}
	for _, o := range *ls {
		if box.Min.X < o.Max.X && o.Min.X < box.Max.X && box.Min.Y < o.Max.Y && o.Min.Y < box.Max.Y {
			return false
		}
	}
	*ls = append(*ls, box)
	c.FillText(ts, p, s)
	return true
}

// labelOrder is the order nodes are named in: the highest tier first, and in each tier
// from its two ends inwards, so that a crowded tier keeps its first and last names.
func labelOrder(nodes []fabricNode) []int {
	byTier := map[int][]int{}
	var tiers []int
	for i, n := range nodes {
		if _, ok := byTier[n.tier]; !ok {
			tiers = append(tiers, n.tier)
		}
		byTier[n.tier] = append(byTier[n.tier], i)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(tiers)))
	var out []int
	for _, t := range tiers {
		m := byTier[t]
		sort.SliceStable(m, func(a, b int) bool { return nodes[m[a]].x < nodes[m[b]].x })
		for lo, hi := 0, len(m)-1; lo <= hi; lo, hi = lo+1, hi-1 {
			out = append(out, m[lo])
			if hi != lo {
				out = append(out, m[hi])
			}
		}
	}
	return out
}

// deadlockStyle is the broad band under a deadlock cycle's links.
var deadlockStyle = draw.LineStyle{Color: color.RGBA{170, 120, 200, 255}, Width: vg.Points(8)}

// dropGlyphs are the marks of a drop's reason (drops.by_reason's keys): a cross for what a
// full buffer or headroom lost, others for what no buffer explains.
var dropGlyphs = []struct {
	reason string
	glyph  draw.GlyphDrawer
	says   string
}{
	{"buffer", draw.CrossGlyph{}, "dropped: buffer full"},
	{"headroom", draw.PlusGlyph{}, "dropped: PFC headroom exceeded"},
	{"random_loss", draw.RingGlyph{}, "lost on the link (random loss)"},
	{"link_down", draw.SquareGlyph{}, "lost on the link (link down)"},
	{"unroutable", draw.PyramidGlyph{}, "dropped: no route"},
	{"ttl", draw.TriangleGlyph{}, "dropped: TTL expired (a loop)"},
	{"watchdog", draw.BoxGlyph{}, "dropped by the PFC watchdog"},
}

// dropGlyph is reason's mark (a cross for a reason not listed).
func dropGlyph(reason string) draw.GlyphDrawer {
	for _, g := range dropGlyphs {
		if g.reason == reason {
			return g.glyph
		}
	}
	return draw.CrossGlyph{}
}

// drawDropMark draws reason's mark of radius r on a white disc at p, to stand out on a link.
func drawDropMark(c *draw.Canvas, p vg.Point, r vg.Length, reason string) {
	c.DrawGlyph(draw.GlyphStyle{Color: color.White, Radius: r + vg.Points(1), Shape: draw.CircleGlyph{}}, p)
	c.DrawGlyph(draw.GlyphStyle{Color: dropColour, Radius: r * 0.8, Shape: dropGlyph(reason)}, p)
}

// dropThumb is the legend swatch of a drop reason.
type dropThumb struct{ reason string }

func (t dropThumb) Thumbnail(c *draw.Canvas) { drawDropMark(c, c.Center(), vg.Points(3.5), t.reason) }

// maxDropRows is how many drop places the fabric legend lists.
const maxDropRows = 8

// dropLegend is the fabric legend's drop part: a row per reason v lost packets to, with its
// mark, then the places that lost the most (a side table of the counts the drawing has no
// room for), the largest first.
func dropLegend(v *Variant) []legendEntry {
	var out []legendEntry
	for _, g := range dropGlyphs {
		for _, p := range v.DropPlaces {
			if p.Reason == g.reason {
				out = append(out, legendEntry{g.says, dropThumb{g.reason}})
				break
			}
		}
	}
	places := append([]DropPlace(nil), v.DropPlaces...)
	sort.SliceStable(places, func(a, b int) bool { return places[a].Packets > places[b].Packets })
	out = append(out, legendEntry{"packets lost, most first:", blankThumb{}})
	for _, p := range places[:min(len(places), maxDropRows)] {
		out = append(out, legendEntry{fmt.Sprintf("%s:%d->%s %s (%s)", p.Node, p.Port, p.Peer, integer(p.Packets), p.Reason), dropThumb{p.Reason}})
	}
	if len(places) > maxDropRows {
		out = append(out, legendEntry{fmt.Sprintf("and %d more places (drops.csv)", len(places)-maxDropRows), blankThumb{}})
	}
	return out
}

// maxDrawnHosts is the most hosts a fabric drawing draws one by one; beyond, the hosts under
// each switch are one node (collapseHosts).
const maxDrawnHosts = 48

// collapseHosts draws, when d has more than maxDrawnHosts hosts, the hosts that hang off one
// switch each as one node per switch, named by their count, their links as one: the busiest
// link's utilisation and peak, the longest pause at each end, every drop summed (the reason
// of the larger count). It returns how many nodes it made.
func collapseHosts(d *fabricDrawing) int {
	var hosts []int
	for i, n := range d.nodes {
		if n.tier == 0 {
			hosts = append(hosts, i)
		}
	}
	if len(hosts) <= maxDrawnHosts {
		return 0
	}
	degree := map[int]int{}
	peer := map[int]int{}
	for _, e := range d.edges {
		for _, ends := range [][2]int{{e.a, e.b}, {e.b, e.a}} {
			if d.nodes[ends[0]].tier == 0 {
				degree[ends[0]]++
				peer[ends[0]] = ends[1]
			}
		}
	}
	members := map[int][]int{} // switch -> its hosts of one link
	var switches []int
	for _, h := range hosts {
		if degree[h] == 1 && d.nodes[peer[h]].tier != 0 {
			s := peer[h]
			if _, ok := members[s]; !ok {
				switches = append(switches, s)
			}
			members[s] = append(members[s], h)
		}
	}
	newIndex := make([]int, len(d.nodes))
	var nodes []fabricNode
	for i, n := range d.nodes {
		if n.tier == 0 && degree[i] == 1 && len(members[peer[i]]) > 1 {
			continue // placed with its group below
		}
		newIndex[i] = len(nodes)
		nodes = append(nodes, n)
	}
	made := 0
	for _, s := range switches {
		m := members[s]
		if len(m) < 2 {
			continue
		}
		x := 0.0
		for _, h := range m {
			x += d.nodes[h].x / float64(len(m))
			newIndex[h] = len(nodes)
		}
		storm := false
		for _, h := range m {
			storm = storm || d.nodes[h].storm
		}
		nodes = append(nodes, fabricNode{name: fmt.Sprintf("%d hosts", len(m)), tier: 0, x: x, storm: storm})
		made++
	}
	type key struct{ a, b int }
	merged := map[key]int{}
	var edges []fabricEdge
	for _, e := range d.edges {
		e.a, e.b = newIndex[e.a], newIndex[e.b]
		if e.a > e.b {
			e.a, e.b = e.b, e.a
			e.pausedA, e.pausedB = e.pausedB, e.pausedA
			e.dropsA, e.dropsB = e.dropsB, e.dropsA
			e.reasonA, e.reasonB = e.reasonB, e.reasonA
		}
		k, ok := merged[key{e.a, e.b}]
		if !ok {
			merged[key{e.a, e.b}] = len(edges)
			edges = append(edges, e)
			continue
		}
		m := &edges[k]
		m.util, m.peak = math.Max(m.util, e.util), math.Max(m.peak, e.peak)
		m.pausedA, m.pausedB = math.Max(m.pausedA, e.pausedA), math.Max(m.pausedB, e.pausedB)
		if e.dropsA > m.dropsA {
			m.reasonA = e.reasonA
		}
		if e.dropsB > m.dropsB {
			m.reasonB = e.reasonB
		}
		m.dropsA, m.dropsB = m.dropsA+e.dropsA, m.dropsB+e.dropsB
		m.deadlock = m.deadlock || e.deadlock
		m.storm = m.storm || e.storm
	}
	// The host row evenly spaced again, in the order of the nodes' places.
	var row []int
	for i, n := range nodes {
		if n.tier == 0 {
			row = append(row, i)
		}
	}
	sort.SliceStable(row, func(a, b int) bool { return nodes[row[a]].x < nodes[row[b]].x })
	for k, i := range row {
		nodes[i].x = (float64(k) + 0.5) / float64(len(row))
	}
	d.nodes, d.edges = nodes, edges
	return made
}

// stormStyle is the broad band under a PFC storm's source's links; stormGlyph rings the
// source.
var (
	stormColour = color.RGBA{150, 80, 0, 255}
	stormStyle  = draw.LineStyle{Color: color.RGBA{240, 200, 110, 255}, Width: vg.Points(8)}
	stormGlyph  = draw.GlyphStyle{Color: stormColour, Radius: vg.Points(8), Shape: draw.RingGlyph{}}
)

// markStorms marks the nodes of d that storms come from, and their links.
func markStorms(d *fabricDrawing, storms []Storm) {
	src := map[string]bool{}
	for _, s := range storms {
		src[s.Node] = true
	}
	for i := range d.nodes {
		d.nodes[i].storm = src[d.nodes[i].name]
	}
	for k := range d.edges {
		e := &d.edges[k]
		e.storm = d.nodes[e.a].storm || d.nodes[e.b].storm
	}
}

// stormLegend names each storm: its source, class and time.
func stormLegend(storms []Storm) []legendEntry {
	var out []legendEntry
	for _, s := range storms {
		out = append(out, legendEntry{fmt.Sprintf("PFC storm from %s, prio %d, %s to %s us", s.Node, s.Priority, fixed(s.FromUS), fixed(s.UntilUS)), stormThumb{}})
	}
	return out
}

// stormThumb is the legend swatch of a storm's source: its ring on its band.
type stormThumb struct{}

func (stormThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(stormStyle, c.Min.X, y, c.Max.X, y)
	g := stormGlyph
	g.Radius = vg.Points(4)
	c.DrawGlyph(g, c.Center())
}
