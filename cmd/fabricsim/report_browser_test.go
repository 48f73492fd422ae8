package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/scenarios"
)

// browser starts headless Chromium (Debian's, which ./test.sh installs) driven by chromedp,
// with a window width px wide. The test fails, never skips, without the browser.
func browser(t *testing.T, width int) context.Context {
	t.Helper()
	bin, err := exec.LookPath(chromium)
	require.NoError(t, err, "headless Chromium is needed to check report.html: apt-get install chromium (./test.sh does)")
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(width, 900))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelTab := chromedp.NewContext(ctx)
	t.Cleanup(cancelTab)
	require.NoError(t, chromedp.Do(ctx), "start chromium")
	return ctx
}

// js is expr's value in the page, failing the test on an error.
func js[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	require.NoError(t, err, "evaluate %s", expr)
	return v
}

// do runs steps in the page, failing the test on an error.
func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, steps...))
}

// checkReportInBrowser opens dir's report.html in ctx's browser (800 px wide) and works it
// as a reader would: every link of the contents leads to an element of the page, and
// following one scrolls to it; the page does not scroll sideways; a click on a header of
// a table of two rows or more sorts it by that column, a second click the other way; and
// the pointer on a point of a figure's line shows that point's values (its x and y as
// the figure's data gives them) in the tooltip, and the zoom button shows the figure alone.
// It reports whether the page had a table to sort, a figure to hover and a figure of
// panels to hover.
func checkReportInBrowser(t *testing.T, ctx context.Context, dir string) (sorted, hovered, hoveredPanels bool) {
	t.Helper()
	page := "file://" + filepath.Join(dir, "report.html")
	do(t, ctx, chromedp.Navigate(page))

	width := js[struct {
		Inner  int `json:"inner"`
		Scroll int `json:"scroll"`
	}](t, ctx, `({inner: window.innerWidth, scroll: document.documentElement.scrollWidth})`)
	require.Equal(t, 800, width.Inner)
	require.LessOrEqual(t, width.Scroll, width.Inner, "%s: the page scrolls sideways at 800 px", dir)

	// Contents.
	links := js[[]string](t, ctx, `[...document.querySelectorAll("nav#contents a")].map(a => a.getAttribute("href"))`)
	require.GreaterOrEqual(t, len(links), 6, "a contents list")
	broken := js[[]string](t, ctx, `[...document.querySelectorAll("nav#contents a")].map(a => a.getAttribute("href")).
		filter(h => !h.startsWith("#") || !document.getElementById(decodeURIComponent(h.slice(1))))`)
	require.Empty(t, broken, "contents links that lead nowhere")
	target := links[len(links)-1] // the scenario as run, at the page's end
	require.Zero(t, js[float64](t, ctx, `window.scrollY`))
	do(t, ctx, chromedp.Click(chromedp.CSS(`nav#contents a[href="`+target+`"]`)))
	// The last section may end the page before it reaches the window's top: it is in view.
	view := js[struct {
		Top    float64 `json:"top"`
		Height float64 `json:"height"`
		Hash   string  `json:"hash"`
	}](t, ctx, `({top: document.getElementById(`+strconv.Quote(target[1:])+`).getBoundingClientRect().top,
		height: window.innerHeight, hash: location.hash})`)
	require.Equal(t, target, view.Hash)
	require.GreaterOrEqual(t, view.Top, -1.0, "following %s scrolls to it", target)
	require.Less(t, view.Top, view.Height, "following %s scrolls to it", target)

	// Sorting: the first table with two rows or more, on a column of differing values.
	sortable := js[struct {
		Table  int  `json:"table"`
		Column int  `json:"column"`
		Found  bool `json:"found"`
	}](t, ctx, `(() => { const ts = [...document.querySelectorAll("table")];
		for (let i = 0; i < ts.length; i++) { const rows = [...ts[i].tBodies[0].rows]; if (rows.length < 2) continue;
		  for (let c = rows[0].cells.length - 1; c >= 0; c--) {
		    const vs = new Set(rows.map(r => r.cells[c].textContent.trim()));
		    if (vs.size > 1 && rows.every(r => /^[-+]?[0-9.]/.test(r.cells[c].textContent.trim()))) return {table: i, column: c, found: true}; } }
		return {found: false}; })()`)
	if sortable.Found {
		js[bool](t, ctx, `(() => { const t = document.querySelectorAll("table")[`+strconv.Itoa(sortable.Table)+`]; t.setAttribute("data-test", "sort"); return true; })()`)
		sel := `table[data-test="sort"] thead th:nth-child(` + strconv.Itoa(sortable.Column+1) + `)`
		column := `[...document.querySelector('table[data-test="sort"]').tBodies[0].rows].map(r => parseFloat(r.cells[` + strconv.Itoa(sortable.Column) + `].textContent))`
		for _, dir := range []float64{1, -1} {
			do(t, ctx, chromedp.ScrollIntoView(chromedp.CSS(sel)), chromedp.Click(chromedp.CSS(sel)))
			vs := js[[]float64](t, ctx, column)
			for k := 1; k < len(vs); k++ {
				require.GreaterOrEqual(t, dir*(vs[k]-vs[k-1]), 0.0, "%s: after a click on its header, column %d is in order (%+.0f: ascending, then descending): %v", page, sortable.Column, dir, vs)
			}
		}
	}

	// Hover: a point in the middle of the first figure's first line with points, and of
	// the first figure of panels' (each panel's points placed by its own axes).
	id, _ := checkHover(t, ctx, "figure.plot[data-points]")
	if id == "" {
		return sortable.Found, false, false
	}
	panelID, label := checkHover(t, ctx, "figure.plot[data-panels][data-points]")
	if panelID != "" {
		panels := js[int](t, ctx, `+document.getElementById("`+panelID+`").getAttribute("data-panels")`)
		require.GreaterOrEqual(t, panels, 2, "%s: a figure of panels", panelID)
		d, err := results.ReadJSONFile(filepath.Join(dir, "results.json"))
		require.NoError(t, err)
		named := false
		for _, v := range d.Variants {
			named = named || label == v.Name || strings.HasPrefix(label, v.Name+": ")
		}
		require.True(t, named, "%s: a panel's line %q is named by its panel's variant", panelID, label)
	}

	// Zoom: the figure alone, as wide as the window.
	do(t, ctx, chromedp.Click(chromedp.CSS("#"+id+" button.zoom")))
	zoomed := js[struct {
		Class string  `json:"class"`
		Width float64 `json:"width"`
	}](t, ctx, `({class: document.getElementById("`+id+`").className,
		width: document.querySelector("#`+id+` svg").getBoundingClientRect().width})`)
	require.Contains(t, zoomed.Class, "zoomed")
	require.Greater(t, zoomed.Width, 700.0, "the zoomed figure is as wide as the window")
	do(t, ctx, chromedp.Click(chromedp.CSS("#"+id+" button.zoom")))
	require.NotContains(t, js[string](t, ctx, `document.getElementById("`+id+`").className`), "zoomed", "the button closes it")
	return sortable.Found, true, panelID != ""
}

// checkHover moves the pointer onto the middle point of the first line with points of the
// first figure selector matches, and checks that the tooltip shows that point (or one
// within 1.5 px of it) with its values and its line's name. It returns the figure's id and
// the line's name, "" when no figure has a point.
func checkHover(t *testing.T, ctx context.Context, selector string) (id, label string) {
	t.Helper()
	hover := js[struct {
		ID    string  `json:"id"`
		Label string  `json:"label"`
		X     float64 `json:"x"`
		Y     float64 `json:"y"`
		SX    float64 `json:"sx"`
		SY    float64 `json:"sy"`
		Found bool    `json:"found"`
	}](t, ctx, `(() => { for (const f of document.querySelectorAll("`+selector+`")) {
		const d = JSON.parse(f.getAttribute("data-points"));
		for (const s of d.s) { if (!s.p.length) continue; const p = s.p[Math.floor(s.p.length / 2)];
		  return {id: f.id, label: s.l, x: p[2], y: p[3], sx: p[0], sy: p[1], found: true}; } }
		return {found: false}; })()`)
	if !hover.Found {
		return "", ""
	}
	do(t, ctx, chromedp.ScrollIntoView(chromedp.CSS("#"+hover.ID+" svg")))
	at := js[struct {
		X float64 `json:"x"`
		Y float64 `json:"y"`
	}](t, ctx, `(() => { const svg = document.querySelector("#`+hover.ID+` svg");
		const p = new DOMPoint(`+strconv.FormatFloat(hover.SX, 'f', -1, 64)+`, `+strconv.FormatFloat(hover.SY, 'f', -1, 64)+`).matrixTransform(svg.getScreenCTM());
		return {x: p.x, y: p.y}; })()`)
	// The pointer at a whole pixel, as a mouse event places it: at most 0.71 px from the
	// point aimed at.
	at.X, at.Y = math.Round(at.X), math.Round(at.Y)
	do(t, ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at.X, at.Y))
	tip := js[struct {
		Hidden bool   `json:"hidden"`
		Text   string `json:"text"`
		Hover  string `json:"hover"`
	}](t, ctx, `({hidden: document.getElementById("hover-tip").hidden, text: document.getElementById("hover-tip").innerText,
		hover: document.getElementById("`+hover.ID+`").getAttribute("data-hover") || ""})`)
	require.False(t, tip.Hidden, "%s: the pointer on a point shows a tooltip", hover.ID)
	// The tooltip shows the point of the figure's data nearest the pointer: the one aimed
	// at, or one at most as far from the pointer (a CDF's steps, a panel's dense points lie
	// closer than a pixel), with its values.
	var shown struct {
		L string     `json:"l"`
		P [4]float64 `json:"p"`
	}
	require.NoError(t, json.Unmarshal([]byte(tip.Hover), &shown), tip.Hover)
	fromPointer := func(sx, sy float64) float64 { // px on the screen
		return js[float64](t, ctx, `(() => { const svg = document.querySelector("#`+hover.ID+` svg");
		const p = new DOMPoint(`+strconv.FormatFloat(sx, 'f', -1, 64)+`, `+strconv.FormatFloat(sy, 'f', -1, 64)+`).matrixTransform(svg.getScreenCTM());
		return Math.hypot(p.x - `+strconv.FormatFloat(at.X, 'f', -1, 64)+`, p.y - `+strconv.FormatFloat(at.Y, 'f', -1, 64)+`); })()`)
	}
	aimed, off := fromPointer(hover.SX, hover.SY), fromPointer(shown.P[0], shown.P[1])
	require.LessOrEqual(t, aimed, 0.75, "%s: the pointer is on the point aimed at", hover.ID)
	require.LessOrEqual(t, off, aimed+0.01, "%s: the point shown is the nearest the pointer", hover.ID)
	if shown.P[0] == hover.SX && shown.P[1] == hover.SY {
		require.Equal(t, []float64{hover.X, hover.Y}, []float64{shown.P[2], shown.P[3]})
	}
	require.Contains(t, tip.Text, ": "+strconv.FormatFloat(roundTo6(shown.P[2]), 'g', -1, 64), "%s: the tooltip shows x", hover.ID)
	require.Contains(t, tip.Text, ": "+strconv.FormatFloat(roundTo6(shown.P[3]), 'g', -1, 64), "%s: the tooltip shows y", hover.ID)
	if shown.L != "" {
		require.Contains(t, tip.Text, shown.L, "%s: the tooltip names the line", hover.ID)
	}

	return hover.ID, shown.L
}

// roundTo6 is x to 6 significant figures, as the tooltip writes it (toPrecision(6)).
func roundTo6(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 6, 64), 64)
	return v
}

// TestReportWorksInChromiumForEveryBundledScenario runs every bundled scenario with -o
// and works its report.html in headless Chromium at 800 px (checkReportInBrowser); a
// scenario with collectives shows them in report.html and summary.md.
func TestReportWorksInChromiumForEveryBundledScenario(t *testing.T) {
	slow(t, "every bundled scenario with -o, and headless Chromium")
	for _, s := range scenarios.Bundled() {
		t.Run(s.Name, func(t *testing.T) {
			dir := t.TempDir()
			status, _, errOut := fabricsim(t, "run", s.Name, "-q", "-o", dir, "--format", "csv")
			require.Contains(t, []int{0, 3}, status, errOut)
			// A browser per report: its time bound counts the page's checks, not the run.
			sorted, hovered, panels := checkReportInBrowser(t, browser(t, 800), dir)
			if s.Name == "tradeoff" {
				require.True(t, sorted && hovered && panels, "tradeoff's report has tables to sort, lines to hover, panels among them")
			}
			d, err := results.ReadJSONFile(filepath.Join(dir, "results.json"))
			require.NoError(t, err)
			for _, v := range d.Variants {
				for _, j := range v.Jobs {
					for _, name := range []string{"report.html", "summary.md"} {
						data, err := os.ReadFile(filepath.Join(dir, name))
						require.NoError(t, err)
						require.Contains(t, string(data), "Collectives", name)
						require.Contains(t, string(data), j.Label, "%s shows job %s", name, j.Label)
						require.Contains(t, string(data), strconv.FormatInt(j.SizeBytes, 10), "%s shows job %s's size", name, j.Label)
					}
				}
			}
		})
	}
}

// TestSeedsOutputHasTheCollectives runs a scenario with a collective under three seeds:
// the table on standard output, results.json's replication, summary.md and report.html
// all give the job's busbw as the seeds' mean ±95% interval, the mean of the three
// seeds' own busbw in results.json's variants; and the report works in Chromium.
func TestSeedsOutputHasTheCollectives(t *testing.T) {
	slow(t, "headless Chromium")
	dir := t.TempDir()
	path := "../../sweep/testdata/tiny-collective.yaml" // a ring allreduce over four hosts, twice
	status, out, errOut := fabricsim(t, "run", path, "-q", "--seeds", "3", "-o", filepath.Join(dir, "out"))
	require.Zero(t, status, errOut)
	d, err := results.ReadJSONFile(filepath.Join(dir, "out", "results.json"))
	require.NoError(t, err)
	require.Len(t, d.Variants, 3)
	var sum float64
	for _, v := range d.Variants {
		require.NotNil(t, v.Jobs[0].BusbwGbps)
		sum += *v.Jobs[0].BusbwGbps
	}
	require.Len(t, d.Replication, 1)
	e, ok := d.Replication[0].Metrics[results.JobMetricKey("grads", "busbw_gbps")]
	require.True(t, ok, "the job's busbw in the replication")
	require.InDelta(t, sum/3, e.Mean, 1e-9)
	cell := strconv.FormatFloat(e.Mean, 'f', 2, 64) + " ±" + strconv.FormatFloat(e.CI95, 'f', 2, 64)
	require.Contains(t, out, cell, "the CLI's table")
	for _, name := range []string{"summary.md", "report.html"} {
		data, err := os.ReadFile(filepath.Join(dir, "out", name))
		require.NoError(t, err)
		require.Contains(t, string(data), cell, name)
		require.Contains(t, string(data), "grads", name)
	}
	_, hovered, _ := checkReportInBrowser(t, browser(t, 800), filepath.Join(dir, "out"))
	require.True(t, hovered, "the iterations' figure has points to hover")
}
