package results

import (
	"fmt"
	"image/color"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// fabricNode is a node of the fabric drawing: its tier (0 for hosts, then the hops from
// the nearest host: leaves or edges 1, spines or aggregation 2, cores 3) and its place in it.
type fabricNode struct {
	name  string
	tier  int
	x     float64
	storm bool // the source of a PFC pause storm (Variant.Storms)
	// server, rail, domain and plane are an AI cluster's groups the node is in (NodeGroup),
	// 0 where none.
	server, rail, domain, plane int
}

// fabricEdge is a link of the drawing: its two ends, the busier direction's utilisation,
// how long each end's sending was paused by the other (pfc_ports' paused_us), and the
// packets lost at each end (the variant's DropPlaces at that node's port to the other, every
// reason).
type fabricEdge struct {
	a, b             int
	util             float64
	peak             float64 // the busier direction's busiest sample interval (with a series)
	pausedA, pausedB float64 // us
	dropsA, dropsB   int64
	reasonA, reasonB string // the reason that lost the most packets at each end
	deadlock         bool   // on a deadlock's cycle
	storm            bool   // a PFC storm's source's link
}

// fabricDrawing is the plotter of a fabric figure.
type fabricDrawing struct {
	nodes   []fabricNode
	edges   []fabricEdge
	simUS   float64
	hasPeak bool          // links coloured by their peak utilisation (a time series gave it)
	groups  *fabricGroups // an AI cluster's servers, rails and planes, nil for none
}

// utilColour is a link's colour by utilisation: light grey when idle, through blue to red
// when busy all the time.
func utilColour(u float64) color.Color {
	u = math.Max(0, math.Min(1, u))
	switch {
	case u < 0.01:
		return color.Gray{Y: 200}
	case u < 0.5:
		return color.RGBA{0, 114, 178, 255}
	case u < 0.9:
		return color.RGBA{230, 159, 0, 255}
	}
	return color.RGBA{213, 94, 0, 255}
}

// utilClasses name utilColour's colours in the legend.
var utilClasses = []struct {
	label string
	u     float64
}{{"link idle (< 1%)", 0}, {"link busy 1-50%", 0.2}, {"link busy 50-90%", 0.7}, {"link busy >= 90%", 0.95}}

// Plot implements plot.Plotter: links under nodes, paused and lossy ends on the links.
func (d *fabricDrawing) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	at := func(i int) vg.Point { return vg.Point{X: trX(d.nodes[i].x), Y: trY(float64(d.nodes[i].tier))} }
	var placed labelSpace
	if d.groups != nil {
		d.drawGroups(&c, plt, &placed)
	}
	for _, e := range d.edges {
		pa, pb := at(e.a), at(e.b)
		if e.deadlock {
			c.StrokeLine2(deadlockStyle, pa.X, pa.Y, pb.X, pb.Y)
		}
		if e.storm {
			c.StrokeLine2(stormStyle, pa.X, pa.Y, pb.X, pb.Y)
		}
		colour := utilColour(e.util)
		if d.hasPeak {
			colour = utilColour(e.peak)
		}
		c.StrokeLine2(draw.LineStyle{Color: colour, Width: vg.Points(0.8 + 2.5*e.util)}, pa.X, pa.Y, pb.X, pb.Y)
		// At each end: a red dot a fifth of the way along when its sending was paused,
		// larger the longer; a cross two fifths along when it lost packets, larger the
		// more, with the count beside it.
		for _, end := range []struct {
			from, to vg.Point
			us       float64
			drops    int64
			reason   string
		}{{pa, pb, e.pausedA, e.dropsA, e.reasonA}, {pb, pa, e.pausedB, e.dropsB, e.reasonB}} {
			along := func(f vg.Length) vg.Point {
				return vg.Point{X: end.from.X + f*(end.to.X-end.from.X), Y: end.from.Y + f*(end.to.Y-end.from.Y)}
			}
			if end.us > 0 {
				share := math.Min(1, end.us/math.Max(d.simUS, 1e-9))
				c.DrawGlyph(draw.GlyphStyle{Color: pausedColour, Radius: vg.Points(2 + 4*share), Shape: draw.CircleGlyph{}}, along(0.2))
			}
			if end.drops > 0 {
				p := along(0.4)
				r := vg.Points(3 + math.Min(4, math.Log10(float64(end.drops))))
				drawDropMark(&c, p, r, end.reason)
				ts := plt.X.Tick.Label
				ts.Color = dropColour
				ts.XAlign, ts.YAlign = draw.XLeft, draw.YCenter
				placed.fill(&c, ts, vg.Point{X: p.X + r + vg.Points(1.5), Y: p.Y}, strconv.FormatInt(end.drops, 10))
			}
		}
	}
	for i, n := range d.nodes {
		c.DrawGlyph(nodeStyle(n), at(i))
		if n.storm {
			c.DrawGlyph(stormGlyph, at(i))
		}
	}
	// Names where they have room: the switch tiers first, each from its ends inwards, so that
	// a crowded tier keeps its first and last names and every other one that fits.
	for _, i := range labelOrder(d.nodes) {
		n, p := d.nodes[i], at(i)
		ts := plt.X.Tick.Label
		ts.XAlign, ts.YAlign = draw.XCenter, draw.YTop
		if n.tier > 0 {
			ts.YAlign = draw.YBottom
			p.Y += vg.Points(5)
		} else {
			p.Y -= vg.Points(5)
		}
		placed.fill(&c, ts, p, n.name)
	}
}

// DataRange implements plot.DataRanger: the unit width, the tiers with room round them.
func (d *fabricDrawing) DataRange() (xmin, xmax, ymin, ymax float64) {
	top, bottom := 0, 0
	for _, n := range d.nodes {
		top, bottom = max(top, n.tier), min(bottom, n.tier)
	}
	return 0, 1, float64(bottom) - 0.6, float64(top) + 0.6
}

// scaleUpName is a scale-up switch's name in the rail preset (SPEC: nv<D>).
var scaleUpName = regexp.MustCompile(`^nv[0-9]+$`)

// hasGroup reports whether v has a link group of kind ("plane", "rail", "scaleup").
func hasGroup(v *Variant, kind string) bool {
	for _, g := range v.LinkGroups {
		if g.Kind == kind {
			return true
		}
	}
	return false
}

// underGPUs places each node of nodes (the scale-up switches, one row under the hosts) at
// the mean position of the hosts it links, so that it sits under its own server's GPUs.
func underGPUs(d *fabricDrawing, nodes []int) {
	for _, i := range nodes {
		sum, n := 0.0, 0
		for _, e := range d.edges {
			for _, ends := range [][2]int{{e.a, e.b}, {e.b, e.a}} {
				if ends[0] == i && d.nodes[ends[1]].tier == 0 {
					sum += d.nodes[ends[1]].x
					n++
				}
			}
		}
		if n > 0 {
			d.nodes[i].x = sum / float64(n)
		}
	}
}

// fabricFigure draws v's fabric by tier, from the links that carried a frame: hosts at the
// bottom, each switch tier above by its hops from the nearest host, every link coloured by
// its busier direction's utilisation, and a red dot near each end whose sending a PFC pause
// held, larger the longer (pfc_ports).
func fabricFigure(v *Variant) (*Figure, string, error) {
	if len(v.Links) == 0 {
		return nil, "no link carried a frame", nil
	}
	index := map[string]int{}
	var names []string
	node := func(n string) int {
		i, ok := index[n]
		if !ok {
			i = len(names)
			index[n] = i
			names = append(names, n)
		}
		return i
	}
	type pair struct{ a, b int }
	edges := map[pair]*fabricEdge{}
	var order []pair
	for _, l := range v.Links {
		a, b := node(l.From), node(l.To)
		k := pair{min(a, b), max(a, b)}
		e := edges[k]
		if e == nil {
			e = &fabricEdge{a: k.a, b: k.b}
			edges[k] = e
			order = append(order, k)
		}
		e.util = math.Max(e.util, l.Utilization)
	}
	most := map[[2]int]int64{} // the packets of each end's leading reason so far
	for _, p := range v.DropPlaces {
		a, b := node(p.Node), node(p.Peer)
		k := pair{min(a, b), max(a, b)}
		e := edges[k]
		if e == nil { // a link that lost everything it was sent, or never got to send
			e = &fabricEdge{a: k.a, b: k.b}
			edges[k] = e
			order = append(order, k)
		}
		drops, reason := &e.dropsB, &e.reasonB
		if a == e.a {
			drops, reason = &e.dropsA, &e.reasonA
		}
		*drops += p.Packets
		if end := [2]int{a, b}; p.Packets > most[end] {
			most[end], *reason = p.Packets, p.Reason
		}
	}
	if s := v.Series; s != nil && s.Len() > 1 {
		for li := range s.Links {
			l := &s.Links[li]
			a, okA := index[l.From]
			b, okB := index[l.To]
			if e := edges[pair{min(a, b), max(a, b)}]; okA && okB && e != nil {
				for k := 1; k < s.Len(); k++ {
					e.peak = math.Max(e.peak, math.Min(1, LinkUtilization(s, l, k-1, k)))
				}
			}
		}
	}
	for _, dl := range v.Deadlocks { // a cycle of paused queues, "node:port" each
		nodeOf := func(q string) string { n, _, _ := strings.Cut(q, ":"); return n }
		for k, q := range dl.Cycle {
			a, okA := index[nodeOf(q)]
			b, okB := index[nodeOf(dl.Cycle[(k+1)%len(dl.Cycle)])]
			if e := edges[pair{min(a, b), max(a, b)}]; okA && okB && e != nil {
				e.deadlock = true
			}
		}
	}
	for _, p := range v.PFCPorts {
		a, okA := index[p.Node]
		b, okB := index[p.Peer]
		if !okA || !okB {
			continue
		}
		if e := edges[pair{min(a, b), max(a, b)}]; e != nil {
			if a == e.a {
				e.pausedA += p.PausedUS
			} else {
				e.pausedB += p.PausedUS
			}
		}
	}
	// Hosts are the flows' ends; tiers are the hops from the nearest host (nodeTiers).
	tiers := nodeTiers(v)
	for _, f := range v.PerFlow { // a host whose link carried nothing, only drops
		for _, h := range []string{f.Src, f.Dst} {
			if _, ok := tiers[h]; !ok {
				tiers[h] = 0
			}
		}
	}
	for _, n := range names { // a switch reached only through such a link
		if _, ok := tiers[n]; !ok {
			tiers[n] = 1
		}
	}
	// An AI cluster's scale-up switches (nv<D>, the rail preset's names) go one row under the
	// GPUs, each below its own domain's GPUs, so that a server's GPUs are seen joined.
	// With the cluster's groups (NodeGroups), a scale-up switch is a switch of a domain;
	// without (a document of an older run), a switch named so where the links say there are
	// scale-up domains.
	scaleUps := 0
	groupOf := nodeGroupsOf(v.NodeGroups)
	for _, n := range names {
		g, grouped := groupOf[n]
		if (grouped && g.Domain > 0 && tiers[n] != 0) || (len(groupOf) == 0 && hasGroup(v, "scaleup") && scaleUpName.MatchString(n)) {
			tiers[n] = -1
			scaleUps++
		}
	}
	d := &fabricDrawing{simUS: v.SimTimeUS, hasPeak: v.Series != nil && v.Series.Len() > 1}
	byTier := map[int][]int{}
	for i, n := range names {
		byTier[tiers[n]] = append(byTier[tiers[n]], i)
	}
	d.nodes = make([]fabricNode, len(names))
	hosts := len(byTier[0])
	for t, members := range byTier {
		sort.SliceStable(members, func(a, b int) bool { return naturalLess(names[members[a]], names[members[b]]) })
		for k, i := range members {
			d.nodes[i] = fabricNode{name: names[i], tier: t, x: (float64(k) + 0.5) / float64(len(members))}
		}
	}
	for _, k := range order {
		d.edges = append(d.edges, *edges[k])
	}
	markStorms(d, v.Storms)
	groups := placeGroups(d, v.NodeGroups)
	underGPUs(d, byTier[-1])
	collapsed := collapseHosts(d)
	f := newFigure("fabric-", v.Name, v.Name+": the fabric, its load and its pauses", "", "")
	f.Caption = "The fabric as the run used it: hosts at the bottom, each switch tier above by its hops from the nearest host (leaves, then spines, or a fat-tree's edges, aggregation and cores), every link that carried a frame coloured and thickened by its busier direction's utilisation (links' utilization), and a red dot near each end whose sending PFC paused, larger the longer (pfc_ports' paused_us over the run)."
	f.Caption += fmt.Sprintf(" Names and drop counts are drawn where they have room (of %d hosts and %d switches; the legend's list gives the largest drop counts, drops.csv every one).", hosts, len(names)-hosts)
	if collapsed > 0 {
		f.Caption += fmt.Sprintf(" With %d hosts, the hosts under each switch are drawn as one node named by their count (%d such nodes), their links as one: the busiest link's utilisation and peak, the longest pause at each end, every drop summed.", hosts, collapsed)
	}
	if d.hasPeak {
		f.Caption += " A link's colour is its peak: the busier direction's busiest sample interval; its width the mean over the run."
	}
	if scaleUps > 0 {
		f.Caption += " The scale-up switches (nvD) are drawn under their domains' GPUs, which their links join (NVLink)."
	}
	var groupEntries []legendEntry
	if groups != nil {
		var says string
		groupEntries, says = groupsLegend(groups)
		f.Caption += says
	}
	f.plot.Add(d)
	f.fabric = d
	f.plot.HideAxes()
	f.plot.X.Min, f.plot.X.Max = 0, 1
	top, bottom := 0, 0
	for t := range byTier {
		top, bottom = max(top, t), min(bottom, t)
	}
	f.plot.Y.Min, f.plot.Y.Max = float64(bottom)-0.6, float64(top)+0.6
	for _, u := range utilClasses {
		label := u.label
		if d.hasPeak {
			label += " at peak"
		}
		f.legend = append(f.legend, legendEntry{label, lineThumb{utilColour(u.u), vg.Points(0.8 + 2.5*u.u)}})
	}
	f.legend = append(f.legend, legendEntry{"sending paused by PFC", dotThumb{}})
	f.legend = append(f.legend, groupEntries...)
	if len(v.Deadlocks) > 0 {
		f.legend = append(f.legend, legendEntry{"on a PFC deadlock's cycle", lineThumb{deadlockStyle.Color, deadlockStyle.Width}})
		f.Caption += " The links of each PFC deadlock's cycle are drawn over a broad purple band."
	}
	if len(v.Storms) > 0 {
		f.legend = append(f.legend, stormLegend(v.Storms)...)
		f.Caption += " The source of each PFC pause storm (the scenario's faults: a NIC sending PAUSE on and on) is ringed, its link drawn over a broad orange band: the pauses spread from there."
	}
	if len(v.DropPlaces) > 0 {
		f.legend = append(f.legend, dropLegend(v)...)
		f.Caption += " A mark with a count, its shape the reason that lost the most packets there (the legend), marks each port where packets were lost, two fifths of the way along its link: a switch's buffer and watchdog drops at the egress port the frames were bound for, its headroom, unroutable and TTL drops at the port they came in on, a link's random and link-down losses at the sending end (drops.csv lists each place by reason)."
	}
	f.Curves = append(f.Curves, Curve{Label: "links", Points: len(d.edges)})
	return f, "", nil
}

// lineThumb is a legend swatch of a line of a colour and width.
type lineThumb struct {
	c color.Color
	w vg.Length
}

func (t lineThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(draw.LineStyle{Color: t.c, Width: t.w}, c.Min.X, y, c.Max.X, y)
}

// pausedColour marks a paused end.
var pausedColour = color.RGBA{200, 0, 0, 255}

// dotThumb is the legend swatch of a paused end.
type dotThumb struct{}

func (dotThumb) Thumbnail(c *draw.Canvas) {
	c.DrawGlyph(draw.GlyphStyle{Color: pausedColour, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}, c.Center())
}

// dropColour marks a port that lost packets.
var dropColour = color.Black

// naturalLess orders names with their numbers by value: h2 before h10.
func naturalLess(a, b string) bool {
	split := func(s string) (string, int) {
		i := len(s)
		for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
			i--
		}
		n := 0
		for _, c := range s[i:] {
			n = 10*n + int(c-'0')
		}
		return s[:i], n
	}
	pa, na := split(a)
	pb, nb := split(b)
	if pa != pb {
		return pa < pb
	}
	return na < nb
}
