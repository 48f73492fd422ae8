package results

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Keys of docs/results.md, in the spec's order.
var (
	specDocumentKeys = []string{"scenario", "seed", "version", "variants"}
	specVariantKeys  = []string{"name", "transport", "sim_time_us", "wall_seconds", "events",
		"packet_hops", "flows", "fct_us", "slowdown", "goodput_gbps", "drops", "pfc", "ecn",
		"retransmitted_packets", "deadlocks", "queues", "links", "per_flow"}
	specNestedKeys = map[string][]string{
		"flows":     {"total", "completed", "incomplete", "unroutable", "failed"},
		"fct_us":    {"mean", "p50", "p95", "p99", "max"},
		"slowdown":  {"p50", "p95", "p99"},
		"drops":     {"total", "by_reason"},
		"pfc":       {"pause_frames", "resume_frames", "paused_time_us"},
		"ecn":       {"marked_packets", "cnps"},
		"deadlocks": {"at_us", "cycle"},
		"queues":    {"node", "port", "peer", "priority", "mean_bytes", "p99_bytes", "max_bytes"},
		"links":     {"from", "to", "utilization", "packets"},
		"per_flow": {"id", "src", "dst", "transport", "priority", "size_bytes", "start_us",
			"finish_us", "fct_us", "slowdown", "status", "retransmitted_packets",
			"delivered_bytes", "reason"},
	}
	specByReasonKeys = []string{"buffer", "headroom", "random_loss", "link_down", "unroutable",
		"ttl", "watchdog"}
)

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// objectKeys returns the keys of the JSON object in b, in the order written.
func objectKeys(t *testing.T, b []byte) []string {
	t.Helper()
	var raw map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &raw))
	dec := json.NewDecoder(bytes.NewReader(b))
	var out []string
	_, err := dec.Token() // {
	require.NoError(t, err)
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		out = append(out, k.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return out
}

func TestWriteJSONHasEverySpecKey(t *testing.T) {
	d := sampleDoc()
	var b bytes.Buffer
	require.NoError(t, WriteJSON(&b, d))
	require.True(t, strings.HasSuffix(b.String(), "}\n"))
	require.True(t, strings.HasPrefix(b.String(), "{\n  \"scenario\""), "indented by two spaces")

	require.Equal(t, append(append([]string(nil), specDocumentKeys...), "interrupted", "resolved_scenario", "overrides", "workloads"), objectKeys(t, b.Bytes()), "the spec's keys, then the additions")
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b.Bytes(), &doc))
	variants := doc["variants"].([]any)
	require.Len(t, variants, 2)

	var rawDoc struct{ Variants []json.RawMessage }
	require.NoError(t, json.Unmarshal(b.Bytes(), &rawDoc))
	for i, rv := range rawDoc.Variants {
		got := objectKeys(t, rv)
		// The spec's keys in its order, then the additions (fields may be added, never removed).
		want := append(append([]string(nil), specVariantKeys...), "pfc_ports", "timeouts", "naks", "trimmed_packets", "flow_gbps", "slowdown_by_size", "seed")
		if len(d.Variants[i].Warnings) > 0 {
			want = append(want, "warnings")
		}
		require.Equal(t, want, got, "variant %d keys in spec order", i)
	}

	pfc := variants[0].(map[string]any) // has one of every list item
	// docs/results.md's additions to the nested objects.
	additions := map[string][]string{"per_flow": {"timeouts", "naks", "cnps", "rate_gbps", "group"}}
	for key, spec := range specNestedKeys {
		want := append(append([]string(nil), spec...), additions[key]...)
		switch val := pfc[key].(type) {
		case map[string]any:
			require.ElementsMatch(t, want, keys(val), key)
		case []any:
			require.NotEmpty(t, val, key)
			require.ElementsMatch(t, want, keys(val[0].(map[string]any)), key)
		default:
			t.Fatalf("%s: unexpected %T", key, val)
		}
	}
	byReason := pfc["drops"].(map[string]any)["by_reason"].(map[string]any)
	require.ElementsMatch(t, specByReasonKeys, keys(byReason))
	require.Equal(t, []any{"sw1:2", "sw2:1"}, pfc["deadlocks"].([]any)[0].(map[string]any)["cycle"])
	_, hasWarnings := pfc["warnings"]
	require.False(t, hasWarnings, "no warnings key when there are none")

	lossy := variants[1].(map[string]any)
	for _, key := range []string{"deadlocks", "queues", "links"} {
		require.NotNil(t, lossy[key], "%s is [] not null", key)
		require.Empty(t, lossy[key], key)
	}
	require.Equal(t, []any{"2 headroom drops on lossless class 3"}, lossy["warnings"])
	flows := lossy["per_flow"].([]any)
	require.Len(t, flows, 3)
	for i, f := range flows {
		f := f.(map[string]any)
		require.ElementsMatch(t, append(append([]string(nil), specNestedKeys["per_flow"]...), additions["per_flow"]...), keys(f), "flow %d", i)
		for _, k := range []string{"finish_us", "fct_us", "slowdown"} {
			if f["status"] == StatusCompleted {
				require.IsType(t, float64(0), f[k], "flow %d %s", i, k)
			} else {
				require.Contains(t, f, k)
				require.Nil(t, f[k], "flow %d %s is null until it finishes", i, k)
			}
		}
	}
	// Integers are written as integers.
	require.Contains(t, b.String(), `"events": 1234567,`)
	require.Contains(t, b.String(), `"size_bytes": 4000000,`)
}

func TestWriteJSONEmptyListsAndDeterminism(t *testing.T) {
	d := &Document{Scenario: "empty", Variants: []Variant{{Name: "a<b>&c",
		Deadlocks: []Deadlock{{AtUS: 1}}}}}
	var a, b bytes.Buffer
	require.NoError(t, WriteJSON(&a, d))
	require.NoError(t, WriteJSON(&b, d))
	require.Equal(t, a.Bytes(), b.Bytes())
	require.Contains(t, a.String(), `"name": "a<b>&c"`, "no HTML escaping")

	var doc map[string]any
	require.NoError(t, json.Unmarshal(a.Bytes(), &doc))
	v := doc["variants"].([]any)[0].(map[string]any)
	for _, key := range []string{"queues", "links", "per_flow"} {
		require.Equal(t, []any{}, v[key], key)
	}
	require.Equal(t, []any{}, v["deadlocks"].([]any)[0].(map[string]any)["cycle"])

	var none bytes.Buffer
	require.NoError(t, WriteJSON(&none, &Document{}))
	require.Contains(t, none.String(), `"variants": []`)
}

func TestJSONRoundTrip(t *testing.T) {
	d := sampleDoc()
	var a bytes.Buffer
	require.NoError(t, WriteJSON(&a, d))
	back, err := ReadJSON(bytes.NewReader(a.Bytes()))
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, WriteJSON(&b, back))
	require.Equal(t, a.String(), b.String())
	require.Equal(t, *d.Variants[1].PerFlow[0].FCTUS, *back.Variants[1].PerFlow[0].FCTUS)
	require.Nil(t, back.Variants[1].PerFlow[1].FCTUS)
}

func TestWriteJSONRejectsNonFinite(t *testing.T) {
	tests := []struct {
		name  string
		spoil func(d *Document)
		path  string
	}{
		{"NaN slowdown", func(d *Document) { d.Variants[1].PerFlow[0].Slowdown = ptr(math.NaN()) },
			"variants[1].per_flow[0].slowdown"},
		{"infinite goodput", func(d *Document) { d.Variants[0].GoodputGbps = math.Inf(1) },
			"variants[0].goodput_gbps"},
		{"NaN queue mean", func(d *Document) { d.Variants[0].Queues[0].MeanBytes = math.NaN() },
			"variants[0].queues[0].mean_bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := sampleDoc()
			tc.spoil(d)
			var b bytes.Buffer
			err := WriteJSON(&b, d)
			require.ErrorContains(t, err, tc.path)
			require.Zero(t, b.Len(), "nothing written")
		})
	}
}

func TestWriteTableFormats(t *testing.T) {
	tests := []struct {
		format string
		doc    *Document
		rows   int // data rows expected
	}{
		{FormatTable, sampleDoc(), 2},
		{FormatMarkdown, sampleDoc(), 2},
		{FormatCSV, sampleDoc(), 2},
		{FormatTable, &Document{Variants: sampleDoc().Variants[:1]}, 1},
		{FormatCSV, &Document{}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.format, func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, WriteTable(&b, tc.doc, tc.format))
			out := b.String()
			header := summaryHeader
			if tc.format == FormatCSV {
				header = csvHeader
			}
			for _, h := range header {
				require.Contains(t, out, h, "header not auto-formatted")
			}
			lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
			switch tc.format {
			case FormatCSV:
				recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
				require.NoError(t, err)
				require.Len(t, recs, 1+tc.rows)
				require.Equal(t, csvHeader, recs[0])
				for _, r := range recs[1:] {
					require.Len(t, r, len(csvHeader))
				}
				if tc.rows > 0 {
					want := map[string]string{"variant": "RoCEv2 lossy", "transport": "rocev2", "flows_completed": "1",
						"flows_total": "3", "fct_p50_us": "500", "fct_p99_us": "500", "fct_max_us": "500", "goodput_gbps": "40",
						"flow_gbps": "36", "drops": "17", "retransmitted_packets": "5", "timeouts": "2", "pause_frames": "0",
						"paused_us": "0", "ecn_marks": "0", "cnps": "0", "deadlocks": "0"}
					for i, h := range recs[0] {
						if w, ok := want[h]; ok {
							require.Equal(t, w, recs[2][i], h)
						}
					}
				}
			case FormatTable:
				var rows int
				for _, l := range lines {
					if strings.HasPrefix(l, "|") {
						rows++
					}
				}
				require.Equal(t, 1+tc.rows, rows, "header and data rows:\n%s", out)
				require.Contains(t, out, "|   2/2 |", "numbers right-aligned")
			case FormatMarkdown:
				var rows int
				for _, l := range lines {
					if strings.HasPrefix(l, "|") {
						rows++
					}
				}
				require.Equal(t, 2+tc.rows, rows, "header, separator and data rows:\n%s", out)
				require.Contains(t, out, "---:|", "numbers right-aligned")
			}
			if tc.format != FormatCSV && len(tc.doc.Variants) == 2 {
				require.Contains(t, out, "RoCEv2 + PFC: deadlock at 12.30us: sw1:2 -> sw2:1 -> sw1:2")
				require.Contains(t, out, "RoCEv2 lossy: 1 flow incomplete at stop")
				require.Contains(t, out, "RoCEv2 lossy: 1 flow unroutable, e.g. flow 3 h1->h9: RoCE v1 cannot cross router r1")
				require.Contains(t, out, "RoCEv2 lossy: 2 headroom drops on lossless class 3")
			}
		})
	}

	t.Run("unknown format", func(t *testing.T) {
		err := WriteTable(&bytes.Buffer{}, sampleDoc(), "yaml")
		require.ErrorContains(t, err, `"yaml"`)
		require.ErrorContains(t, err, "markdown")
	})
}

func TestWriteTableMarkdownEscapesPipes(t *testing.T) {
	d := sampleDoc()
	d.Variants[0].Name = "h3->h9 | pipe"
	d.Variants[1].Warnings = nil
	var b bytes.Buffer
	require.NoError(t, WriteTable(&b, d, FormatMarkdown))
	out := b.String()
	require.Contains(t, out, `h3->h9 \| pipe`)
	cells := func(line string) int {
		return strings.Count(line, "|") - strings.Count(line, `\|`)
	}
	var want int
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "|") {
			continue
		}
		if want == 0 {
			want = cells(l)
		}
		require.Equal(t, want, cells(l), "every row has the header's columns: %q", l)
	}
	require.Equal(t, len(summaryHeader)+1, want)
}

func TestNotesClosesDeadlockCycle(t *testing.T) {
	tests := []struct {
		cycle []string
		want  string
	}{
		{[]string{"sw1:2", "sw2:1"}, "v: deadlock at 1.50us: sw1:2 -> sw2:1 -> sw1:2"},
		{[]string{"sw1:2", "sw2:1", "sw1:2"}, "v: deadlock at 1.50us: sw1:2 -> sw2:1 -> sw1:2"},
		{[]string{"sw1:2"}, "v: deadlock at 1.50us: sw1:2"},
	}
	for _, tc := range tests {
		v := &Variant{Name: "v", Deadlocks: []Deadlock{{AtUS: 1.5, Cycle: tc.cycle}}}
		n := len(tc.cycle)
		require.Equal(t, []string{tc.want}, Notes(v))
		require.Len(t, v.Deadlocks[0].Cycle, n, "cycle not modified")
	}
}

func TestWriteFlowsCSV(t *testing.T) {
	d := sampleDoc()
	var b bytes.Buffer
	require.NoError(t, WriteFlowsCSV(&b, &d.Variants[1]))
	recs, err := csv.NewReader(&b).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 1+3)
	require.Equal(t, append(append([]string(nil), specNestedKeys["per_flow"]...), "timeouts", "naks", "cnps", "rate_gbps", "group"), recs[0],
		"columns are the per_flow keys, then the additions")
	// rate_gbps: 4 MB in 500 us is 64 Gbit/s; 1 MB delivered by the end of the run at
	// 1000 us is 8; the unroutable flow never ran.
	require.Equal(t, []string{"1", "h1", "h2", "rocev2", "3", "4000000", "0", "500", "500", "1.6",
		"completed", "5", "4000000", "", "2", "3", "4", "64", "incast 0"}, recs[1])
	require.Equal(t, []string{"2", "h3", "h4", "rocev2", "3", "4000000", "0", "", "", "",
		"incomplete", "0", "1000000", "not done at stop", "0", "0", "0", "8", "incast 0"}, recs[2])
	require.Equal(t, []string{"", "flow 1"}, recs[3][len(recs[3])-2:], "no rate, and its group")
}

func TestWriteVariantTable(t *testing.T) {
	d := sampleDoc()
	var b bytes.Buffer
	require.NoError(t, WriteVariantTable(&b, &d.Variants[0]))
	out := b.String()
	require.True(t, strings.HasPrefix(out, "RoCEv2 + PFC (transport rocev2)\n"))
	for _, s := range []string{"flows (2)", "queues (1)", "links (1)", "| sw   |    3 | h5",
		"0.930", "deadlock at 12.30us"} {
		require.Contains(t, out, s)
	}
	b.Reset()
	require.NoError(t, WriteVariantTable(&b, &d.Variants[1]))
	require.NotContains(t, b.String(), "queues (")
	require.Contains(t, b.String(), "|      - |        - |", "unfinished flows show -")
}

func TestWriteDir(t *testing.T) {
	d := sampleDoc()
	d.Variants = append(d.Variants, d.Variants[1]) // same name: the slug must not collide
	dir := filepath.Join(t.TempDir(), "out", "nested")
	require.NoError(t, WriteDir(dir, d))

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	// No time series in this document: no series CSV, no time plot; the fabric drawing of
	// the one variant with links.
	written := []string{"results.json", "flows.csv", "sizes.csv", "summary.md", "report.html",
		"fct-cdf.png", "fct-cdf.svg", "fct-cdf.pdf", "fabric-rocev2-pfc.png", "fabric-rocev2-pfc.svg", "fabric-rocev2-pfc.pdf", "table-rocev2-pfc.txt", "table-rocev2-lossy.txt", "table-rocev2-lossy-2.txt"}
	require.ElementsMatch(t, append([]string{FileManifest}, written...), names)
	// The manifest lists exactly the files written, and each is among those RunFileNames
	// says a run of these variants may write.
	m, err := ReadManifest(dir)
	require.NoError(t, err)
	require.ElementsMatch(t, written, m.Files)
	require.Subset(t, RunFileNames([]string{d.Variants[0].Name, d.Variants[1].Name, d.Variants[2].Name}), written)
	for _, name := range names {
		if filepath.Ext(name) == ".png" {
			data, err := os.ReadFile(filepath.Join(dir, name))
			require.NoError(t, err)
			require.Equal(t, "\x89PNG", string(data[:4]), "%s is a PNG", name)
		}
	}

	f, err := os.Open(filepath.Join(dir, FileJSON))
	require.NoError(t, err)
	defer f.Close()
	back, err := ReadJSON(f)
	require.NoError(t, err)
	require.Len(t, back.Variants, 3)

	flows, err := os.ReadFile(filepath.Join(dir, FileFlows))
	require.NoError(t, err)
	recs, err := csv.NewReader(bytes.NewReader(flows)).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 1+2+3+3)
	require.Equal(t, "variant", recs[0][0])
	require.Equal(t, "RoCEv2 lossy", recs[len(recs)-1][0])

	summary, err := os.ReadFile(filepath.Join(dir, FileSummary))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(summary), "# incast-pfc\n"))
	require.Contains(t, string(summary), "|:---")

	// Writing again replaces the files.
	require.NoError(t, WriteDir(dir, d))
}

func TestWriteDirFailsOnAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	require.Error(t, WriteDir(file, sampleDoc()))
}

func TestSlug(t *testing.T) {
	tests := map[string]string{
		"RoCEv2 + PFC":      "rocev2-pfc",
		"RoCEv2 lossy":      "rocev2-lossy",
		"iWARP lossy":       "iwarp-lossy",
		"  --x__Y--  ":      "x-y",
		"default":           "default",
		"ECN Kmin=5µs/1MiB": "ecn-kmin-5-s-1mib",
		"+++":               "variant",
		"":                  "variant",
	}
	for in, want := range tests {
		require.Equal(t, want, Slug(in), "Slug(%q)", in)
	}
}

func ExampleWriteTable() {
	v := Variant{Name: "RoCEv2 + PFC", Transport: "rocev2", SimTimeUS: 100,
		PFC: PFC{PauseFrames: 3, PausedTimeUS: 2.5},
		PerFlow: []Flow{{ID: 1, Src: "h1", Dst: "h2", Transport: "rocev2", SizeBytes: 12500,
			DeliveredBytes: 12500}}}
	v.PerFlow[0].Finish(100, 80)
	Summarize(&v)
	_ = WriteTable(os.Stdout, &Document{Variants: []Variant{v}}, FormatCSV)
	// Output:
	// variant,transport,flows_completed,flows_total,fct_p50_us,fct_p99_us,fct_max_us,goodput_gbps,flow_gbps,drops,retransmitted_packets,timeouts,pause_frames,paused_us,ecn_marks,cnps,deadlocks
	// RoCEv2 + PFC,rocev2,1,1,100,100,100,1,1,0,0,0,3,2.5,0,0,0
}
