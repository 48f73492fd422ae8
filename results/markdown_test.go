package results

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSummaryEscapesWhatTheUserWrote: variant names, the description, notes, figure titles
// and reasons go into summary.md as literal text: no raw HTML tag (a <script> name), no
// emphasis, link or heading made of a name or description.
func TestSummaryEscapesWhatTheUserWrote(t *testing.T) {
	d := sampleDoc()
	d.Variants[0].Name = "<script>alert(1)</script>"
	d.Variants[1].Name = "*em* `code` [l](javascript:x) | _u_ ~~s~~ ![i](x)"
	d.ResolvedScenario = "description: |\n  # not a heading\n\n  <img src=x onerror=alert(2)> and 1. not a list\n"
	figs := []*Figure{{Name: "queues-x", Title: d.Variants[0].Name + ": egress queue depth"}}
	omitted := []Omitted{{Name: "rate-x", Reason: d.Variants[1].Name + ": no flow runs a rate-based congestion control"}}
	var b bytes.Buffer
	require.NoError(t, writeSummary(&b, d, figs, omitted))
	out := b.String()
	for _, raw := range []string{"<script", "<img", "*em*", "[l](", "`code`", "_u_", "~~s~~", "![i]", "\n# not"} {
		require.NotContains(t, out, raw)
	}
	for _, want := range []string{
		"| &lt;script>alert(1)&lt;/script> ",                                                                   // table row
		"- &lt;script>alert(1)&lt;/script>: deadlock at",                                                       // a note
		"- [&lt;script>alert(1)&lt;/script>: egress queue depth](queues-x.png)",                                // a figure's link
		"`rate-x`: \\*em\\* \\`code\\` \\[l\\](javascript:x) \\| \\_u\\_ \\~\\~s\\~\\~ \\!\\[i\\](x): no flow", // a reason
		"\n\\# not a heading\n", "\n&lt;img src=x onerror=alert(2)> and 1. not a list\n",
	} {
		require.Contains(t, out, want)
	}
	// Each table keeps its columns: every escaped pipe is inside a cell.
	var cols int
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "|") {
			cols = 0 // the next table
		}
		if strings.HasPrefix(l, "|") {
			n := strings.Count(l, "|") - strings.Count(l, `\|`)
			if cols == 0 {
				cols = n
			}
			require.Equal(t, cols, n, l)
		}
	}
	require.Equal(t, `\1. one`, markdownLine("1. one"))
	require.Equal(t, `\> quoted`, markdownLine("> quoted"))
	require.Equal(t, "h1->h2", MarkdownText("h1->h2"))
}
