package results

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// fabricGroups are an AI cluster's groups as the fabric drawing draws them (its input, the
// variant's NodeGroups): a box per server round its GPUs (and its scale-up switch when the
// domain is the server's alone), rails by colour (a GPU's dot and its rail leaf's square in
// the rail's colour), planes side by side (each plane's switches together, apart by a
// dashed line, named at the top).
type fabricGroups struct {
	servers int // how many servers have a box
	rails   int // the most rails
	planes  int // the most planes
}

// nodeGroupsOf indexes groups by node name.
func nodeGroupsOf(groups []NodeGroup) map[string]NodeGroup {
	m := make(map[string]NodeGroup, len(groups))
	for _, g := range groups {
		m[g.Node] = g
	}
	return m
}

// placeGroups gives d's nodes their groups and orders each tier by plane, then by server
// and rail, then as it was (by name): planes side by side, a server's GPUs together, a
// stripe's rail leaves in rail order. It returns what the drawing shows of them (nil for a
// fabric of no groups).
func placeGroups(d *fabricDrawing, groups []NodeGroup) *fabricGroups {
	if len(groups) == 0 {
		return nil
	}
	of := nodeGroupsOf(groups)
	g := &fabricGroups{}
	servers := map[int]bool{}
	byTier := map[int][]int{}
	for i := range d.nodes {
		n := &d.nodes[i]
		ng := of[n.name]
		n.server, n.rail, n.domain, n.plane = ng.Server, ng.Rail, ng.Domain, ng.Plane
		if n.tier == 0 && n.server > 0 {
			servers[n.server] = true
		}
		g.rails, g.planes = max(g.rails, n.rail), max(g.planes, n.plane)
		byTier[n.tier] = append(byTier[n.tier], i)
	}
	g.servers = len(servers)
	for _, members := range byTier {
		sort.SliceStable(members, func(a, b int) bool {
			p, q := d.nodes[members[a]], d.nodes[members[b]]
			if p.plane != q.plane {
				return p.plane < q.plane
			}
			if p.server != q.server {
				return p.server < q.server
			}
			return p.x < q.x
		})
		for k, i := range members {
			d.nodes[i].x = (float64(k) + 0.5) / float64(len(members))
		}
	}
	d.groups = g
	return g
}

// serverColour fills a server's box; planeLine parts the planes.
var (
	serverFill   = color.Gray{Y: 243}
	serverEdge   = draw.LineStyle{Color: color.Gray{Y: 150}, Width: vg.Points(0.8)}
	planeDivider = draw.LineStyle{Color: color.Gray{Y: 120}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(5), vg.Points(4)}}
)

// drawGroups draws, under the links, a box per server (round its GPUs, and its scale-up
// switch when every GPU of the switch's domain is the server's) named "server S" in its
// lower left corner where there is room, and the dashed lines between the planes with each
// plane named at the top.
func (d *fabricDrawing) drawGroups(c *draw.Canvas, plt *plot.Plot, placed *labelSpace) {
	g := d.groups
	trX, trY := plt.Transforms(c)
	hosts := 0
	domainServer := map[int]int{} // a domain's server, -1 when it spans several
	for _, n := range d.nodes {
		if n.tier != 0 {
			continue
		}
		hosts++
		if n.domain > 0 {
			if s, ok := domainServer[n.domain]; ok && s != n.server {
				domainServer[n.domain] = -1
			} else if !ok {
				domainServer[n.domain] = n.server
			}
		}
	}
	pad := 0.45 / float64(max(hosts, 1))
	type box struct{ x0, x1, y0, y1 float64 }
	boxes := map[int]*box{}
	var order []int
	for _, n := range d.nodes {
		s := n.server
		if n.tier < 0 && n.domain > 0 && domainServer[n.domain] > 0 {
			s = domainServer[n.domain] // the server's own scale-up switch
		} else if n.tier != 0 {
			continue
		}
		if s <= 0 {
			continue
		}
		b := boxes[s]
		if b == nil {
			b = &box{math.Inf(1), math.Inf(-1), -0.45, 0.3}
			boxes[s] = b
			order = append(order, s)
		}
		b.x0, b.x1 = math.Min(b.x0, n.x-pad), math.Max(b.x1, n.x+pad)
		b.y0 = math.Min(b.y0, float64(n.tier)-0.45)
	}
	sort.Ints(order)
	ts := plt.X.Tick.Label
	ts.XAlign, ts.YAlign = draw.XLeft, draw.YBottom
	ts.Color = color.Gray{Y: 90}
	for _, s := range order {
		b := boxes[s]
		pts := []vg.Point{{X: trX(b.x0), Y: trY(b.y0)}, {X: trX(b.x1), Y: trY(b.y0)}, {X: trX(b.x1), Y: trY(b.y1)}, {X: trX(b.x0), Y: trY(b.y1)}}
		c.FillPolygon(serverFill, pts)
		c.StrokeLines(serverEdge, append(pts, pts[0]))
		placed.fill(c, ts, vg.Point{X: pts[0].X + vg.Points(3), Y: pts[0].Y + vg.Points(2)}, fmt.Sprintf("server %d", s))
	}
	if g.planes < 2 {
		return
	}
	lo, hi := map[int]float64{}, map[int]float64{}
	top := 0
	for _, n := range d.nodes {
		if n.tier < 1 || n.plane == 0 {
			continue
		}
		top = max(top, n.tier)
		if _, ok := lo[n.plane]; !ok {
			lo[n.plane], hi[n.plane] = n.x, n.x
		}
		lo[n.plane], hi[n.plane] = math.Min(lo[n.plane], n.x), math.Max(hi[n.plane], n.x)
	}
	ts.XAlign = draw.XCenter
	for p := 1; p <= g.planes; p++ {
		if _, ok := lo[p]; !ok {
			continue
		}
		placed.fill(c, ts, vg.Point{X: trX((lo[p] + hi[p]) / 2), Y: trY(float64(top) + 0.35)}, fmt.Sprintf("plane %d", p))
		if _, next := lo[p+1]; next {
			x := trX((hi[p] + lo[p+1]) / 2)
			c.StrokeLine2(planeDivider, x, trY(0.55), x, trY(float64(top)+0.5))
		}
	}
}

// nodeStyle is how node n is drawn: a switch a black square, a host a grey dot, in its
// rail's colour when it has a rail (a GPU, a rail leaf).
func nodeStyle(n fabricNode) draw.GlyphStyle {
	style := draw.GlyphStyle{Color: color.Black, Radius: vg.Points(3.5), Shape: draw.BoxGlyph{}}
	if n.tier == 0 {
		style = draw.GlyphStyle{Color: color.Gray{Y: 60}, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
	}
	if n.rail > 0 {
		style.Color = railColour(n.rail)
		style.Radius += vg.Points(0.5)
	}
	return style
}

// groupsLegend names what the drawing shows of an AI cluster's groups: the server boxes,
// each rail's colour (up to the palette's colours, then one line for all), the planes.
func groupsLegend(g *fabricGroups) (entries []legendEntry, caption string) {
	if g.servers > 0 {
		entries = append(entries, legendEntry{"a server's GPUs (and its scale-up switch)", boxThumb{serverFill}})
		caption += " Each server's GPUs are boxed, with its scale-up switch when the domain is the server's alone."
	}
	if g.rails > 0 && g.rails <= len(railPalette) {
		for r := 1; r <= g.rails; r++ {
			entries = append(entries, legendEntry{fmt.Sprintf("rail %d (GPU %d of each server, its leaf)", r, r), dotColourThumb{railColour(r)}})
		}
	} else if g.rails > 0 {
		entries = append(entries, legendEntry{fmt.Sprintf("rails 1 to %d by colour, %d colours in turn", g.rails, len(railPalette)), dotColourThumb{railColour(1)}})
	}
	if g.rails > 0 {
		caption += " Rails are coloured: a GPU's dot and its rail leaf's square in the rail's colour."
	}
	if g.planes > 1 {
		entries = append(entries, legendEntry{"planes, side by side", planeThumb{}})
		caption += fmt.Sprintf(" The %d planes' switches are drawn side by side, apart by dashed lines, each named at the top.", g.planes)
	}
	return entries, caption
}

// dotColourThumb is the legend swatch of a rail: a dot in its colour.
type dotColourThumb struct{ c color.Color }

func (t dotColourThumb) Thumbnail(c *draw.Canvas) {
	c.DrawGlyph(draw.GlyphStyle{Color: t.c, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}, c.Center())
}

// railPalette is the palette without its black, which a switch's square already is.
var railPalette = append(append([]color.RGBA(nil), palette[:6]...), palette[7:]...)

// railColour is rail r's colour (from 1), the rail palette's in turn.
func railColour(r int) color.Color { return railPalette[(r-1)%len(railPalette)] }

// planeThumb is the legend swatch of the planes' divider: its dashed line.
type planeThumb struct{}

func (planeThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(planeDivider, c.Min.X, y, c.Max.X, y)
}
