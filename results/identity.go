package results

import (
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// identity is how one variant is drawn in every figure of a run and of a comparison: its
// colour and marker, from its place among the run's variant names (palette and markers in
// turn: 24 variants before a pair repeats), and its dashes (solid, but for run b of a
// comparison, dashed).
type identity struct {
	color  color.RGBA
	marker draw.GlyphDrawer
	dashes []vg.Length
	place  int // the variant's place among the names, from 0
}

// compareTags end a variant's name in a comparison's document (ComparisonFigures): the
// run it is from.
var compareTags = [2]string{" [a]", " [b]"}

// runBDashes is how run b of a comparison draws its variants' lines.
var runBDashes = []vg.Length{vg.Points(5), vg.Points(3)}

// identities gives each variant name of d its identity, by the order of first appearance of
// the names; in a comparison, "NAME [a]" and "NAME [b]" are NAME's colour and marker, run
// b's dashed.
func identities(d *Document) func(name string) identity {
	place := map[string]int{}
	for i := range d.Variants {
		base, _ := compareBase(d, d.Variants[i].Name)
		if _, ok := place[base]; !ok {
			place[base] = len(place)
		}
	}
	return func(name string) identity {
		base, side := compareBase(d, name)
		k := place[base]
		id := identity{color: palette[k%len(palette)], marker: markers[k%len(markers)], place: k}
		if side == 1 {
			id.dashes = runBDashes
		}
		return id
	}
}

// compareBase is a variant's name without its comparison tag, and its run (0 for a, or a
// document that is no comparison; 1 for b).
func compareBase(d *Document, name string) (string, int) {
	if !d.compared {
		return name, 0
	}
	for side, tag := range compareTags {
		if base, ok := strings.CutSuffix(name, tag); ok {
			return base, side
		}
	}
	return name, 0
}

// variantMarkers is how many markers a variant's line carries when it has more points than
// that: enough to tell lines apart where they cross or lie on each other, few enough not to
// hide the curve.
const variantMarkers = 7

// addVariantLine draws pts as the line of a variant with identity id, in the legend under
// label: the variant's colour and dashes, its marker at variantMarkers points spread along
// the line (offset by the variant's place, so that two lines that lie on each other still
// show both), or at every point when it has no more.
func (f *Figure) addVariantLine(id identity, label string, pts plotter.XYs) (*plotter.Line, error) {
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil, err
	}
	l.Color, l.Dashes, l.Width = id.color, id.dashes, vg.Points(1.5)
	marks := pts
	if len(pts) > variantMarkers {
		marks = make(plotter.XYs, 0, variantMarkers)
		for j := range variantMarkers {
			at := (float64(j) + 0.5 + 0.13*float64(id.place%7)) / variantMarkers
			marks = append(marks, pts[min(len(pts)-1, int(at*float64(len(pts))))])
		}
	}
	sc, err := plotter.NewScatter(marks)
	if err != nil {
		return nil, err
	}
	sc.Color, sc.Shape, sc.Radius = id.color, id.marker, vg.Points(3)
	f.plot.Add(l, sc)
	if label != "" {
		f.legend = append(f.legend, legendEntry{label, thumbs{l, sc}})
	}
	f.Curves = append(f.Curves, Curve{Label: label, Points: len(pts), MaxY: maxYOf(pts), line: l, marker: id.marker})
	f.lines = append(f.lines, l)
	return l, nil
}

// thumbs draws several legend thumbnails on one another: a line and its marker.
type thumbs []plot.Thumbnailer

// Thumbnail draws each.
func (t thumbs) Thumbnail(c *draw.Canvas) {
	for _, th := range t {
		th.Thumbnail(c)
	}
}

// markAlike gives each labelled line drawn like an earlier one of the figure (two flows
// whose ids are 84 apart share a colour and dash) a marker of its own, at variantMarkers
// points along it, so that no two lines of the figure read alike.
func (f *Figure) markAlike() error {
	seen := map[Style]int{}
	for k := range f.Curves {
		c := &f.Curves[k]
		if c.Label == "" || c.line == nil || c.marker != nil {
			continue
		}
		st := c.Style()
		n := seen[st]
		seen[st]++
		if n == 0 {
			continue
		}
		pts := c.line.XYs
		marks := pts
		if len(pts) > variantMarkers {
			marks = make(plotter.XYs, 0, variantMarkers)
			for j := range variantMarkers {
				marks = append(marks, pts[min(len(pts)-1, (2*j+1)*len(pts)/(2*variantMarkers))])
			}
		}
		sc, err := plotter.NewScatter(marks)
		if err != nil {
			return err
		}
		sc.Color, sc.Shape, sc.Radius = c.line.Color, markers[(n-1)%len(markers)], vg.Points(3)
		f.plot.Add(sc)
		c.marker = sc.Shape
		for i := range f.legend {
			if f.legend[i].label == c.Label && f.legend[i].thumb == plot.Thumbnailer(c.line) {
				f.legend[i].thumb = thumbs{c.line, sc}
			}
		}
	}
	return nil
}
