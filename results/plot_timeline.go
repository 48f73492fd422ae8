package results

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The per-rank step timeline's colours: a step's bar in one of two blues, odd steps darker
// so that neighbouring steps read apart (Okabe and Ito's sky blue and blue, as the palette);
// the slowest message's rank of each step vermillion; a step not done by the end grey.
var (
	stepColours    = [2]color.Color{color.RGBA{86, 180, 233, 255}, color.RGBA{0, 114, 178, 255}}
	slowStepColour = color.RGBA{213, 94, 0, 255}
	openStepColour = color.Gray{Y: 170}
)

// rankBars is a per-rank step timeline's data: a bar per rank and step, in the figure's
// time unit (us), and per step the rank its slowest message went to; worst is the bar of the
// iteration's slowest message (-1: none).
type rankBars struct {
	bars    []RankStep
	ranks   int
	slowest map[int]int // step: the rank of its slowest message
	worst   int         // index in bars
}

// Plot implements plot.Plotter: each bar from its first release to its last arrival, the
// iteration's slowest outlined in black with a star at its end.
func (r *rankBars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	box := func(b RankStep, half float64) []vg.Point {
		x0, x1 := trX(b.StartUS), trX(b.EndUS)
		if x1-x0 < vg.Points(0.6) { // a step of no time still shows
			x1 = x0 + vg.Points(0.6)
		}
		y0, y1 := trY(float64(b.Rank)-half), trY(float64(b.Rank)+half)
		return []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
	}
	// The steps first, then each step's slowest on top, narrower: with several channels a
	// step's bar may reach over the next steps' (one channel behind the other), which then
	// still show above and below it.
	for _, b := range r.bars {
		colour := stepColours[b.Step%2]
		if !b.Arrived {
			colour = openStepColour
		}
		c.FillPolygon(colour, c.ClipPolygonXY(box(b, 0.38)))
	}
	for _, b := range r.bars {
		if b.Arrived && r.slowest[b.Step] == b.Rank {
			c.FillPolygon(slowStepColour, c.ClipPolygonXY(box(b, 0.2)))
		}
	}
	if r.worst >= 0 {
		b := r.bars[r.worst]
		pts := box(b, 0.2)
		c.StrokeLines(draw.LineStyle{Color: color.Black, Width: vg.Points(1)}, c.ClipLinesXY(append(pts, pts[0]))...)
		c.DrawGlyph(draw.GlyphStyle{Color: color.Black, Radius: vg.Points(4), Shape: draw.PlusGlyph{}},
			vg.Point{X: pts[1].X + vg.Points(5), Y: (pts[1].Y + pts[2].Y) / 2})
	}
}

// DataRange implements plot.DataRanger: from the iteration's start to the last bar's end.
func (r *rankBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	for _, b := range r.bars {
		xmax = math.Max(xmax, b.EndUS)
	}
	return 0, xmax, -0.5, float64(r.ranks) - 0.5
}

// maxRankTicks is the most ranks named on a timeline's axis: every k-th beyond it, so that
// the names keep a row of room each.
const maxRankTicks = 16

// jobTimelineFigure is the per-rank step timeline of the first iteration of each variant's
// first job that recorded one (Job.RankSteps: at most MaxTimelineRanks ranks): the ranks
// on y, time from the iteration's start on x, a bar per rank and step from the first release
// of the messages the rank receives in that step to the last one's arrival, a panel per
// variant on one time axis; each step's slowest message's rank in vermillion and the
// iteration's slowest message outlined with a mark at its end.
func jobTimelineFigure(d *Document) (*Figure, string, error) {
	if !hasJobs(d) {
		return nil, "no collective in the scenario", nil
	}
	var panels []*Figure
	seen := map[string]bool{}
	label, open := "", false
	for i := range d.Variants {
		v := &d.Variants[i]
		if seen[v.Name] {
			continue // another seed's run: the first one's timeline
		}
		seen[v.Name] = true
		for _, j := range v.Jobs {
			if len(j.RankSteps) == 0 || len(j.PerIteration) == 0 {
				continue
			}
			if label == "" {
				label = j.Label
			}
			p, anyOpen := rankTimeline(v.Name, &j)
			open = open || anyOpen
			panels = append(panels, p)
			break
		}
	}
	if len(panels) == 0 {
		return nil, fmt.Sprintf("no job of at most %d ranks began an iteration (larger jobs keep no per-rank record)", MaxTimelineRanks), nil
	}
	caption := "The first iteration of each variant's first collective, rank by rank: a row per receiving rank, a bar per step from the release of the first message the rank receives in that step to the arrival of the last (every channel's), in two blues that alternate from step to step. Each step's slowest message (the longest from release to arrival) is drawn vermillion on its receiver's row, narrower, over the steps its bar reaches across (with several channels one may run behind another), and the iteration's slowest is outlined in black with a cross after it: a ring waits on it at every later step. Gaps in a row are the rank waiting for its inputs."
	if open {
		caption += " Grey bars had not all arrived by the end of the run (drawn to its end)."
	}
	var f *Figure
	if len(panels) == 1 {
		f = panels[0]
		f.Title = d.Scenario + ": " + f.panelTitle + ", per-rank step timeline of " + label
		f.plot.Title.Text = f.Title
	} else {
		f = panelFigure("jobs-timeline", d.Scenario+": per-rank step timeline of "+label+", first iteration, by variant", panels)
	}
	f.Name, f.Variant, f.Caption = "jobs-timeline", "", caption
	f.legend = []legendEntry{{"a step's messages into a rank (steps alternate shades)", boxThumb{stepColours[1]}},
		{"the step's slowest message, at its receiver", boxThumb{slowStepColour}},
		{"the iteration's slowest message (outlined, cross after it)", outlinedThumb{slowStepColour}}}
	if open {
		f.legend = append(f.legend, legendEntry{"not arrived by the end of the run", boxThumb{openStepColour}})
	}
	return f, "", nil
}

// rankTimeline is variant's panel of job j's timeline, and whether any bar had not arrived.
func rankTimeline(variant string, j *Job) (*Figure, bool) {
	it := &j.PerIteration[0]
	r := &rankBars{bars: j.RankSteps, ranks: j.Ranks, slowest: map[int]int{}, worst: -1}
	for s, rank := range it.StepSlowestRank {
		r.slowest[s] = rank
	}
	open := false
	for k, b := range r.bars {
		open = open || !b.Arrived
		if it.SlowestStepUS != nil && b.Step == it.SlowestStep && b.Rank == it.SlowestRank {
			r.worst = k
		}
	}
	f := newFigure("jobs-timeline", "", variant, "time since the iteration began (us)", "receiving rank (index, host)")
	f.panelTitle = variant
	f.plot.Add(r)
	f.timeline = r
	step := (j.Ranks + maxRankTicks - 1) / maxRankTicks
	var ticks []plot.Tick
	for k := 0; k < j.Ranks; k += step {
		name := strconv.Itoa(k)
		if k < len(j.RankHosts) {
			name += " " + j.RankHosts[k]
		}
		ticks = append(ticks, plot.Tick{Value: float64(k), Label: name})
	}
	f.plot.Y.Tick.Marker = plot.ConstantTicks(ticks)
	f.plot.Y.Min, f.plot.Y.Max = -0.5, float64(j.Ranks)-0.5
	f.plot.X.Min = 0
	f.natural = true
	f.Curves = append(f.Curves, Curve{Label: "rank steps", Points: len(r.bars)})
	return f, open
}

// outlinedThumb is the legend swatch of the iteration's slowest message: its colour outlined
// in black.
type outlinedThumb struct{ c color.Color }

func (t outlinedThumb) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}}
	c.FillPolygon(t.c, pts)
	c.StrokeLines(draw.LineStyle{Color: color.Black, Width: vg.Points(1)}, append(pts, c.Min))
}
