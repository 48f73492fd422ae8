package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
		require.Contains(t, dom, "<th>"+col+"</th>")
	}
	pngs, err := filepath.Glob(filepath.Join(dir, "*.png"))
	require.NoError(t, err)
	require.NotEmpty(t, pngs)
	for _, png := range pngs {
		name := strings.TrimSuffix(filepath.Base(png), ".png")
		fig := regexp.MustCompile(`(?s)<figure id="fig-` + regexp.QuoteMeta(name) + `" class="plot">\s*<svg .*?</svg>\s*<figcaption>`)
		require.True(t, fig.MatchString(dom), "%s is in the report as an inline SVG with a caption", name)
		require.FileExists(t, filepath.Join(dir, name+".svg"))
	}
	require.Equal(t, len(pngs), strings.Count(dom, `class="plot"`), "every figure in the report is a plot written")
	// Self-contained: no script, style sheet, image or frame to fetch.
	fetch := regexp.MustCompile(`<(script|link|img|iframe|object|embed|image|use)\b|\b(src|href)="(https?:|//)|url\(`)
	require.False(t, fetch.MatchString(dom), "the report fetches %q", fetch.FindString(dom))

	shot := filepath.Join(dir, "report.png")
	browse(t, page, "--screenshot="+shot, "--window-size=1280,4000", "--hide-scrollbars")
	data, err := os.ReadFile(shot)
	require.NoError(t, err)
	require.Greater(t, len(data), 10_000, "a screenshot with something on it")
	require.Equal(t, "\x89PNG", string(data[:4]))
}
