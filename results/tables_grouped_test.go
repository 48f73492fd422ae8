package results

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestComparisonTablesSplitEveryColumnOnce: the column groups hold each comparison column
// once, each led by the variant, with the cells of the one wide table.
func TestComparisonTablesSplitEveryColumnOnce(t *testing.T) {
	d := sampleDoc()
	tables := ComparisonTables(d)
	seen := map[string]int{}
	for _, tb := range tables[:4] {
		require.Equal(t, "variant", tb.Header[0])
		for _, h := range tb.Header[1:] {
			seen[h]++
		}
		require.Len(t, tb.Rows, len(d.Variants))
	}
	for _, h := range summaryHeader[1:] {
		require.Equal(t, 1, seen[h], h)
	}
	// Flow control's table: the variant, then the columns declared in its group, in the
	// comparison's order, with the wide table's cells.
	wide := summaryRow(&d.Variants[1])
	header, row := []string{"variant"}, []string{wide[0]}
	for i, m := range comparisonColumns {
		if m.Group == "flow-control" {
			header, row = append(header, m.ColumnName()), append(row, wide[i])
		}
	}
	require.Subset(t, header, []string{"pause_frames", "paused_us", "deadlocks"})
	flowControl := tables[2]
	require.Equal(t, header, flowControl.Header)
	require.Equal(t, row, flowControl.Rows[1])
	// Drops by reason: the lossy variant's 17 buffer drops; flows by group: the lossy
	// variant's two groups (the lossless one has one).
	require.Equal(t, "table-drops", tables[4].ID)
	require.Equal(t, []string{"RoCEv2 lossy", "0", "0", "0", "17", "0", "0", "0", "17"}, tables[4].Rows[1])
	require.Equal(t, "table-groups", tables[5].ID)
	require.Len(t, tables[5].Rows, 2)
	require.Equal(t, []string{"RoCEv2 lossy", "incast 0", "2", "1", "500.00", "500.00", "36.00"}, tables[5].Rows[0],
		"rates 64 and 8 Gb/s: mean 36")

	// A replicated run: the means and intervals, in the same groups.
	d.Variants[1].Name = d.Variants[0].Name
	d.Variants[1].Seed = 2
	Replicate(d)
	tables = ComparisonTables(d)
	header = []string{"variant", "transport", "seeds"} // seeds is in no group: completion's
	for _, m := range TableMetrics() {
		if m.Group == "completion" {
			header = append(header, m.Name)
		}
	}
	require.Subset(t, header, []string{"completed", "fct_p50_us", "fct_p99_us", "fct_max_us", "goodput_gbps", "flow_gbps"})
	require.Equal(t, header, tables[0].Header)
	require.Contains(t, tables[0].Rows[0][3], " ±")
}

func TestDescriptionListsStayLists(t *testing.T) {
	blocks := describeBlocks("One paragraph\nover two lines.\n\nWhat to look for:\n- first\n  continued\n- second\n\n* third")
	require.Equal(t, []descriptionBlock{
		{Text: "One paragraph over two lines."},
		{Text: "What to look for:", Items: []string{"first continued", "second"}},
		{Items: []string{"third"}},
	}, blocks)
}

// TestSummaryHasTheTakeawaysAndGroups: summary.md carries the comparison in column
// groups, the takeaway lines the CLI prints, and the description's list as a list.
func TestSummaryHasTheTakeawaysAndGroups(t *testing.T) {
	d := sampleDoc()
	d.ResolvedScenario = "description: |\n  Look for:\n  - the pauses\n  - the drops\n"
	var b bytes.Buffer
	require.NoError(t, writeSummary(&b, d, nil, nil))
	out := b.String()
	for _, want := range []string{"### Completion\n", "### Loss\n", "### Flow control (PFC)\n", "### Congestion control (ECN)\n",
		"### Drops by reason\n", "### Flows by group\n", "Look for:\n\n- the pauses\n- the drops\n"} {
		require.Contains(t, out, want)
	}
	reading := Reading(d, "")
	require.NotEmpty(t, reading)
	for _, l := range reading {
		require.Contains(t, out, "- "+MarkdownText(l)+"\n")
	}
	var h bytes.Buffer
	require.NoError(t, WriteReport(&h, d, nil, nil, nil))
	page := h.String()
	require.Contains(t, page, `<ul id="takeaways">`)
	list := page[strings.Index(page, `<ul id="takeaways">`):]
	require.Equal(t, len(reading), strings.Count(list[:strings.Index(list, "</ul>")], "<li>"))
	for _, id := range []string{"table-completion", "table-loss", "table-flow-control", "table-congestion-control", "table-drops", "table-groups"} {
		require.Contains(t, page, `id="`+id+`"`)
	}
}
