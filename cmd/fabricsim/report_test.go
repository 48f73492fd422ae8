package main

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// chromium is Debian's headless browser, which ./test.sh (the README's test command) installs.
const chromium = "/usr/bin/chromium"

// browse runs headless Chromium on page with args and returns its standard output. The
// test fails, never skips, without the browser: the report is only known to render once a
// real browser has rendered it.
func browse(t *testing.T, page string, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath(chromium)
	require.NoError(t, err, "headless Chromium is needed to check report.html: apt-get install chromium (./test.sh does)")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--headless", "--no-sandbox", "--disable-gpu",
		"--no-first-run", "--user-data-dir=" + t.TempDir()}, append(args, "file://"+page)...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	require.NoError(t, cmd.Run(), "chromium: %s", errOut.String())
	return out.String()
}

// TestReportRendersInChromium runs the tradeoff scenario with -o and opens its report.html
// in headless Chromium: the DOM the browser built holds both tables, the column
// definitions and, for every plot written, its figure with an inline SVG; the page loads
// nothing from elsewhere; and a screenshot comes out.
func TestReportRendersInChromium(t *testing.T) {
	slow(t, "headless Chromium")
	dir := t.TempDir()
	status, _, errOut := fabricsim(t, "run", "tradeoff", "-q", "-o", dir, "--format", "csv")
	require.Zero(t, status, errOut)
	page := filepath.Join(dir, "report.html")

	dom := browse(t, page, "--dump-dom")
	for _, id := range []string{"table-main", "definitions-main", "definitions-sizes", "deadlocks", "description", "scenario-yaml"} {
		require.Contains(t, dom, `id="`+id+`"`, "the report has #%s", id)
	}
	require.True(t, strings.Contains(dom, `id="table-sizes"`) || strings.Contains(dom, `id="table-sizes-none"`),
		"the size table, or why there is none")
	for _, col := range []string{"goodput_gbps", "paused_us", "retx_pkts", "fct_p99_us"} {
		require.Regexp(t, `<th[^>]*>`+col+`</th>`, dom)
	}
	pngs, err := filepath.Glob(filepath.Join(dir, "*.png"))
	require.NoError(t, err)
	require.NotEmpty(t, pngs)
	for _, png := range pngs {
		name := strings.TrimSuffix(filepath.Base(png), ".png")
		fig := regexp.MustCompile(`(?s)<figure id="fig-` + regexp.QuoteMeta(name) + `" class="plot"( data-[a-z]+="[^"]*")*>\s*<svg .*?</svg>\s*<figcaption>`)
		require.True(t, fig.MatchString(dom), "%s is in the report as an inline SVG with a caption", name)
		require.FileExists(t, filepath.Join(dir, name+".svg"))
	}
	require.Equal(t, len(pngs), strings.Count(dom, `class="plot"`), "every figure in the report is a plot written")
	// Self-contained: no script, style sheet, image or frame to fetch. Its one script is
	// inline (report.js: sorting, hover, zoom). An SVG <image> (the link heat map's cells,
	// drawn as a raster inside the vector figure) carries its bytes in a data: URI, which
	// fetches nothing; any other is refused.
	require.Equal(t, 1, strings.Count(dom, "<script"), "one script, inline")
	fetch := regexp.MustCompile(`<(link|img|iframe|object|embed|use)\b|<script\b[^>]*\bsrc=|\b(src|href)="(https?:|//)|url\(|\bfetch\(|XMLHttpRequest|import\(`)
	require.False(t, fetch.MatchString(dom), "the report fetches %q", fetch.FindString(dom))
	images := regexp.MustCompile(`<image\b[^>]*>`).FindAllString(dom, -1)
	for _, img := range images {
		require.Regexp(t, `^<image\b[^>]* xlink:href="data:image/[a-z]+;base64,`, img, "an image the report would fetch")
	}

	shot := filepath.Join(dir, "report.png")
	browse(t, page, "--screenshot="+shot, "--window-size=1280,4000", "--hide-scrollbars")
	data, err := os.ReadFile(shot)
	require.NoError(t, err)
	require.Greater(t, len(data), 10_000, "a screenshot with something on it")
	require.Equal(t, "\x89PNG", string(data[:4]))
}

// TestReportComparisonFitsA1400pxWindow opens tradeoff's and a replicated lossy-link's
// (two of its variants, five seeds each) report.html in headless Chromium with a 1,400 px window and
// measures the rendered comparison: every table of it ends inside the window, and the page
// does not scroll sideways, so no column (the PFC ones were past the edge) is hidden. The
// measurement is a copy of the page with a script that writes the sizes into the DOM.
func TestReportComparisonFitsA1400pxWindow(t *testing.T) {
	slow(t, "headless Chromium")
	const viewport = 1400
	for _, args := range [][]string{{"tradeoff"}, {"lossy-link", "--variant", "RoCEv2 loss 1%", "--variant", "iWARP loss 1%"}} {
		dir := t.TempDir()
		status, _, errOut := fabricsim(t, append(append([]string{"run"}, args...), "-q", "-o", dir, "--format", "csv")...)
		require.Zero(t, status, errOut)
		page, err := os.ReadFile(filepath.Join(dir, "report.html"))
		require.NoError(t, err)
		probe := `<script>
const c = document.getElementById("comparison");
const rights = [...c.querySelectorAll("table")].map(t => Math.ceil(t.getBoundingClientRect().right));
document.body.setAttribute("data-fit", JSON.stringify({inner: window.innerWidth,
  scroll: document.documentElement.scrollWidth, tables: rights,
  headers: [...c.querySelectorAll("th")].map(h => h.textContent)}));
</script></body>`
		measured := filepath.Join(dir, "measured.html")
		require.NoError(t, os.WriteFile(measured, bytes.Replace(page, []byte("</body>"), []byte(probe), 1), 0o644))
		dom := browse(t, measured, "--dump-dom", "--window-size="+strconv.Itoa(viewport)+",1000")
		m := regexp.MustCompile(`data-fit="([^"]*)"`).FindStringSubmatch(dom)
		require.NotNil(t, m, "the probe ran")
		var fit struct {
			Inner, Scroll int
			Tables        []int
			Headers       []string
		}
		require.NoError(t, json.Unmarshal([]byte(html.UnescapeString(m[1])), &fit))
		require.Equal(t, viewport, fit.Inner)
		require.LessOrEqual(t, fit.Scroll, viewport, "%v: the page scrolls sideways", args)
		require.NotEmpty(t, fit.Tables)
		for i, right := range fit.Tables {
			require.LessOrEqual(t, right, viewport, "%v: comparison table %d ends at %d px", args, i, right)
		}
		for _, col := range []string{"pause_frames", "paused_us", "ecn_marks", "cnps", "deadlocks"} {
			require.Contains(t, fit.Headers, col, "%v: the comparison shows %s", args, col)
		}
	}
}
