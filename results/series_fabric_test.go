package results

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/png"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// fabricVariant is a two-leaf fabric, h1 -> leaf1 -> spine1 -> leaf2 -> h2 and back, at
// 100 Gb/s, sampled at 0, 1 and 2 us: 100 Gb/s for 1 us is 12,500 bytes, so a link that
// put 6,250 wire bytes on in an interval was half busy.
func fabricVariant() *Variant {
	path := []string{"h1", "leaf1", "spine1", "leaf2", "h2"}
	s := &Series{IntervalUS: 1, TimesUS: []float64{0, 1, 2}}
	var links []Link
	for i := 0; i+1 < len(path); i++ {
		for _, d := range [][2]string{{path[i], path[i+1]}, {path[i+1], path[i]}} {
			// Forward: half busy then full; back: 1/10 then idle.
			wb := []int64{0, 6250, 6250 + 12500}
			if d[0] == path[i+1] {
				wb = []int64{0, 1250, 1250}
			}
			s.Links = append(s.Links, LinkSeries{From: d[0], To: d[1], FromPort: 1, ToPort: 2, RateGbps: 100, WireBytes: wb})
			links = append(links, Link{From: d[0], To: d[1], Utilization: 0.5, Packets: 1})
		}
	}
	return &Variant{Name: "v", SimTimeUS: 2, Links: links, PerFlow: []Flow{{ID: 1, Src: "h1", Dst: "h2"}}, Series: s}
}

// TestLinksCSV: a row per link and sample with its tiers and tier pair, the wire bytes of
// the interval, and the utilisation they make, from the arithmetic above.
func TestLinksCSV(t *testing.T) {
	v := fabricVariant()
	var b bytes.Buffer
	require.NoError(t, writeLinksCSV(&b, &Document{Variants: []Variant{*v}}))
	rows, err := csv.NewReader(&b).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"variant", "seed", "time_us", "from", "from_port", "to", "to_port", "from_tier", "to_tier",
		"tier_pair", "rate_gbps", "wire_bytes", "total_wire_bytes", "utilization_fraction"}, rows[0])
	require.Len(t, rows, 1+3*8)
	want := map[string]string{"h1->leaf1": "hosts->leaf", "leaf1->spine1": "leaf->spine", "spine1->leaf2": "spine->leaf",
		"leaf2->h2": "leaf->hosts", "leaf1->h1": "leaf->hosts", "h2->leaf2": "hosts->leaf"}
	seen := 0
	for _, r := range rows[1:] {
		if p, ok := want[r[3]+"->"+r[5]]; ok {
			require.Equal(t, p, r[9], "%v", r)
			seen++
		}
		forward := r[3] == "h1" || r[3] == "leaf1" && r[5] == "spine1" || r[3] == "spine1" && r[5] == "leaf2" || r[3] == "leaf2" && r[5] == "h2"
		switch r[2] {
		case "0":
			require.Equal(t, []string{"", "0", ""}, r[11:], "no interval before the first sample")
		case "1":
			if forward {
				require.Equal(t, []string{"6250", "6250", "0.5"}, r[11:])
			} else {
				require.Equal(t, []string{"1250", "1250", "0.1"}, r[11:])
			}
		case "2":
			if forward {
				require.Equal(t, []string{"12500", "18750", "1"}, r[11:])
			} else {
				require.Equal(t, []string{"0", "1250", "0"}, r[11:])
			}
		}
	}
	require.Equal(t, 3*len(want), seen)
}

// TestLinksCSVGroupColumns: a document with an AI cluster's link groups adds the plane, rail
// and scaleup_domain columns, a link's groups or empty where it is in none; one without any
// keeps the columns above (TestLinksCSV).
func TestLinksCSVGroupColumns(t *testing.T) {
	v := fabricVariant()
	v.Series.Links[0].Rail, v.Series.Links[0].Plane = 3, 2 // h1->leaf1
	v.Series.Links[2].ScaleUp = 1
	v.LinkGroups = []LinkGroup{{Kind: "rail", Index: 3, Links: 1}}
	var b bytes.Buffer
	require.NoError(t, writeLinksCSV(&b, &Document{Variants: []Variant{*v}}))
	rows, err := csv.NewReader(&b).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"plane", "rail", "scaleup_domain"}, rows[0][14:])
	for _, r := range rows[1:] {
		switch r[3] + "->" + r[5] {
		case "h1->leaf1":
			require.Equal(t, []string{"2", "3", ""}, r[14:])
		case "leaf1->spine1":
			require.Equal(t, []string{"", "", "1"}, r[14:])
		default:
			require.Equal(t, []string{"", "", ""}, r[14:], "%v", r)
		}
	}
	var html bytes.Buffer
	require.NoError(t, WriteReport(&html, &Document{Variants: []Variant{*v}}, nil, nil, nil))
	require.Contains(t, html.String(), `<table id="table-link-groups">`)
	require.Contains(t, html.String(), "<td>rail 3</td>")
}

// TestLinksHeatmap: the rows come in tier-pair groups, up the fabric then down, named on
// the y axis with their link counts; the figure renders with ink and a legend of the colour
// scale, nothing at the image's edges.
func TestLinksHeatmap(t *testing.T) {
	f, why, err := linksHeatmapFigure(fabricVariant())
	require.NoError(t, err)
	require.Empty(t, why)
	var groups []string
	for _, c := range f.Curves {
		groups = append(groups, c.Label)
		require.Equal(t, 2, c.Points, "two intervals")
	}
	require.Equal(t, []string{"hosts->leaf", "leaf->spine", "spine->leaf", "leaf->hosts"}, groups)
	_, y, _, yNamed := f.TickLabels()
	require.True(t, yNamed)
	require.ElementsMatch(t, []string{"hosts->leaf (2)", "leaf->spine (2)", "spine->leaf (2)", "leaf->hosts (2)"}, y)
	require.Len(t, f.legend, 2, "the colour scale: idle, and a continuous bar from 1% to 100%")
	require.IsType(t, gradientThumb{}, f.legend[1].thumb)
	require.Equal(t, idleColour, heatColour(heatColours(), 0), "idle is not white on the white page")
	var b bytes.Buffer
	require.NoError(t, f.Render(&b, "png"))
	img, err := png.Decode(&b)
	require.NoError(t, err)
	bo := img.Bounds()
	inked := 0
	for yy := bo.Min.Y; yy < bo.Max.Y; yy++ {
		for x := bo.Min.X; x < bo.Max.X; x++ {
			r, g, bl, _ := img.At(x, yy).RGBA()
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				inked++
				require.False(t, x < 3 || x >= bo.Max.X-3 || yy >= bo.Max.Y-3, "drawn at the edge (%d, %d)", x, yy)
			}
		}
	}
	require.Greater(t, inked, bo.Dx()*bo.Dy()/20, "the busy cells are dark")
}

// TestHeatRowsCapped: 1,000 link directions in three groups make at most maxHeatRows rows,
// each of one group, every link in exactly one.
func TestHeatRowsCapped(t *testing.T) {
	groups := []linkGroup{{name: "a"}, {name: "b"}, {name: "c"}}
	for i := range 1000 {
		g := &groups[min(i/400, 2)]
		g.links = append(g.links, i)
	}
	rows, perRow := heatRows(groups, 1000)
	require.LessOrEqual(t, len(rows), maxHeatRows)
	require.Equal(t, 5, perRow, "ceil(1000 / (240 - 3))")
	seen := map[int]int{}
	for _, r := range rows {
		require.LessOrEqual(t, len(r.links), perRow)
		for _, l := range r.links {
			seen[l]++
			require.Equal(t, groups[r.group].name, groups[min(l/400, 2)].name, "link %d in its group's row", l)
		}
	}
	require.Len(t, seen, 1000)
	for l, n := range seen {
		require.Equal(t, 1, n, "link %d", l)
	}
	rows, perRow = heatRows([]linkGroup{{name: "a", links: []int{0, 1, 2, 3, 4, 5, 6}}}, 7)
	require.Equal(t, 1, perRow)
	require.Len(t, rows, 7, "a row per link when they fit")
}

// TestEventsCSVCountsSumToTotals: a row only where a count grew; the counts of a column sum
// to its last total, which is the count at the last sample.
func TestEventsCSVCountsSumToTotals(t *testing.T) {
	s := &Series{TimesUS: []float64{0, 1, 2, 3}, Events: []EventSeries{
		{Place: "sw", PlaceType: PlaceSwitch, Event: EventDrop, Reason: "buffer", Counts: []int64{0, 5, 5, 9}},
		{Place: "h3", PlaceType: PlaceHost, Event: EventCNP, Counts: []int64{2, 2, 3, 3}},
	}}
	var b bytes.Buffer
	require.NoError(t, writeEventsCSV(&b, &Document{Variants: []Variant{{Name: "v", Seed: 1, Series: s}}}))
	rows, err := csv.NewReader(&b).ReadAll()
	require.NoError(t, err)
	require.Equal(t, [][]string{
		{"variant", "seed", "time_us", "place", "place_type", "event", "reason", "count", "total"},
		{"v", "1", "0", "h3", "host", "cnp", "", "2", "2"},
		{"v", "1", "1", "sw", "switch", "drop", "buffer", "5", "5"},
		{"v", "1", "2", "h3", "host", "cnp", "", "1", "3"},
		{"v", "1", "3", "sw", "switch", "drop", "buffer", "4", "9"},
	}, rows)
	sums := map[string]int64{}
	for _, r := range rows[1:] {
		n, err := strconv.ParseInt(r[7], 10, 64)
		require.NoError(t, err)
		sums[r[3]] += n
	}
	for _, e := range s.Events {
		require.Equal(t, e.Counts[len(e.Counts)-1], sums[e.Place], fmt.Sprint(e.Place))
	}
}

// TestQueueCDFKeepsTheBusiest: of 12 queues, queue i at depth 1,000 x (i+1) bytes for
// (i+1) us of a 20 us run, the 10 with the largest time-weighted mean are drawn, the two
// least busy (sw:1 and sw:2) are named in the caption; each line ends at 1.
func TestQueueCDFKeepsTheBusiest(t *testing.T) {
	s := &Series{TimesUS: []float64{0, 20}}
	for i := range 12 {
		d := int64(1000 * (i + 1))
		s.QueueDepths = append(s.QueueDepths, QueueDepths{Node: "sw", Port: i + 1, Peer: fmt.Sprintf("h%d", i+1), Priority: 3, MaxBytes: d,
			Depths: []DepthRange{{0, 0, float64(19 - i)}, {d, d, float64(i + 1)}}})
	}
	f, why, err := queueCDFFigure(&Variant{Name: "v", Series: s})
	require.NoError(t, err)
	require.Empty(t, why)
	require.Len(t, f.Curves, maxPlotLines)
	require.Contains(t, f.Curves[0].Label, "sw:12->h12 prio 3")
	require.Contains(t, f.Caption, "Left out, 2 less busy queues: sw:2->h2 prio 3, sw:1->h1 prio 3; queue-cdf.csv has them all.")
	for _, l := range f.lines {
		xys := l.XYs
		require.Equal(t, 1.0, xys[len(xys)-1].Y)
	}
}
