package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fabricsim runs the command line in-process and returns its exit status and output.
func fabricsim(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	status := run(args, &out, &errOut)
	return status, out.String(), errOut.String()
}

// slow skips t under -short (./test.sh): it runs in the full suite (./test.sh --full), which
// CI runs. why says what makes it slow.
func slow(t *testing.T, why string) {
	t.Helper()
	if testing.Short() {
		t.Skip("slow (" + why + "): in the full suite, ./test.sh --full")
	}
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

const malformed = `version: 1
name: broken
stop: 1ms
topology:
  nodes:
    - {name: h1, type: host, subnet: 10.0.1.0/24}
    - {name: h2, type: host, subnet: 10.0.1.0/24}
    - {name: sw, type: switch, layer: 2}
  links:
    - {between: [h1, sw], rate: 100Gbps, delay: 1us}
    - {between: [h2, sw], rate: 100Gbps, delay: 1us, colour: red}
    - {between: [sw, sw], rate: 100Gbps}
traffic:
  - flow: {src: h1, dst: h9, size: -5MB, transport: rocev2, start: 10}
`

func TestMalformedScenarioExitsTwoWithOneMessagePerProblem(t *testing.T) {
	path := writeFile(t, "broken.yaml", malformed)
	for _, cmd := range [][]string{{"validate", path}, {"run", path, "-q"}} {
		status, stdout, stderr := fabricsim(t, cmd...)
		require.Equal(t, 2, status, cmd)
		require.Empty(t, stdout)
		require.NotContains(t, stderr, "panic")
		want := []struct {
			line     int
			at, what string
		}{
			{11, "colour", `unknown field "colour"`}, // unknown field
			{12, "[sw, sw]", "a link to itself"},     // link to itself
			{14, "h9", `unknown host "h9"`},          // unknown node
			{14, "-5MB", "negative"},                 // negative size
			{14, "10}", `"10" has no unit`},          // missing unit
		}
		lines := strings.Split(malformed, "\n")
		for _, w := range want {
			col := strings.Index(lines[w.line-1], w.at) + 1 // the offending value's column
			re := regexp.MustCompile(regexp.QuoteMeta(fmt.Sprintf("%s:%d:%d: ", path, w.line, col)) + ".*" + regexp.QuoteMeta(w.what))
			require.Regexp(t, re, stderr)
		}
		positioned := regexp.MustCompile(regexp.QuoteMeta(path)+`:\d+:\d+: `).FindAllString(stderr, -1)
		require.Len(t, positioned, len(want), "one message per problem:\n%s", stderr)
	}
}

const small = `version: 1
name: small
seed: 3
stop: 5ms
topology:
  preset: star
  params: {hosts: 3, link: {rate: 100Gbps, delay: 1us, loss: 0.001}}
traffic:
  - flow: {src: h1, dst: h3, size: 1MB, transport: rocev2}
  - flow: {src: h2, dst: h3, size: 1MB, transport: rocev2}
variants:
  - {name: a}
  - {name: b, set: {switch.buffer: 200KB}}
`

// resultsWithoutWallTime reads a results document and blanks the wall time, the one field
// that may differ between identical runs.
func resultsWithoutWallTime(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return regexp.MustCompile(`"wall_seconds": [0-9.e+-]+`).ReplaceAll(data, []byte(`"wall_seconds": 0`))
}

func TestRunsAreByteIdenticalAndSeedMatters(t *testing.T) {
	path := writeFile(t, "small.yaml", small)
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), filepath.Join(dir, "c.json")
	for _, out := range []string{a, b} {
		status, _, stderr := fabricsim(t, "run", path, "--json", out, "-q")
		require.Equal(t, 0, status, stderr)
	}
	require.Equal(t, resultsWithoutWallTime(t, a), resultsWithoutWallTime(t, b))
	status, _, stderr := fabricsim(t, "run", path, "--json", c, "-q", "--seed", "4")
	require.Equal(t, 0, status, stderr)
	require.NotEqual(t, resultsWithoutWallTime(t, a), resultsWithoutWallTime(t, c), "random loss depends on the seed")
	var doc struct {
		Seed     uint64 `json:"seed"`
		Variants []struct {
			Name  string `json:"name"`
			Drops struct {
				ByReason struct {
					RandomLoss int64 `json:"random_loss"`
				} `json:"by_reason"`
			} `json:"drops"`
		} `json:"variants"`
	}
	data, _ := os.ReadFile(c)
	require.NoError(t, json.Unmarshal(data, &doc))
	require.EqualValues(t, 4, doc.Seed)
	require.Len(t, doc.Variants, 2)
	require.Positive(t, doc.Variants[0].Drops.ByReason.RandomLoss)
}

func TestFormatsVariantsAndOutDir(t *testing.T) {
	path := writeFile(t, "small.yaml", small)
	for _, format := range []string{"table", "markdown", "csv", "json"} {
		status, stdout, stderr := fabricsim(t, "run", path, "-q", "--format", format)
		require.Equal(t, 0, status, stderr)
		require.Contains(t, stdout, "a")
	}
	status, stdout, _ := fabricsim(t, "run", path, "-q", "--format", "csv", "--variant", "b")
	require.Equal(t, 0, status)
	require.Len(t, strings.Split(strings.TrimSpace(stdout), "\n"), 2, "header and one variant:\n%s", stdout)

	dir := filepath.Join(t.TempDir(), "out")
	status, _, stderr := fabricsim(t, "run", path, "-q", "-o", dir)
	require.Equal(t, 0, status, stderr)
	for _, name := range []string{"results.json", "flows.csv", "summary.md", "table-a.txt", "table-b.txt"} {
		require.FileExists(t, filepath.Join(dir, name))
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	path := writeFile(t, "small.yaml", small)
	for _, args := range [][]string{
		{"run", path, "--variant", "nope"},
		{"run", path, "--set", "switch.bufer=1MB"},
		{"run", path, "--set", "novalue"},
		{"run", path, "--format", "xml"},
		{"run", path, "--bogus"},
		{"run", "no-such-scenario"},
		{"show", "no-such-scenario"},
		{"validate"},
	} {
		status, _, stderr := fabricsim(t, args...)
		require.Equal(t, 2, status, "%v: %s", args, stderr)
		require.NotEmpty(t, stderr, args)
	}
}

func TestBundledScenarios(t *testing.T) {
	status, stdout, _ := fabricsim(t, "list")
	require.Equal(t, 0, status)
	require.Contains(t, stdout, "tradeoff")
	status, stdout, _ = fabricsim(t, "show", "tradeoff")
	require.Equal(t, 0, status)
	require.Contains(t, stdout, "version: 1")
	status, stdout, _ = fabricsim(t, "validate", "tradeoff")
	require.Equal(t, 0, status)
	require.Equal(t, "ok\n", stdout)
	status, stdout, _ = fabricsim(t, "explain", "tradeoff")
	require.Equal(t, 0, status)
	require.Contains(t, stdout, "What to look for")
	require.Contains(t, stdout, "IRN recovery (selective repeat; at most the path's round trip of packets in flight; RTO_low 100us below 3 packets in flight, else RTO_high 320us)")
	// With no arguments, fabricsim runs tradeoff: its results are the golden ones
	// (experiment/testdata/golden, wall time aside), and its table has a row per variant.
	status, stdout, stderr := fabricsim(t, "-q", "--format", "json")
	require.Equal(t, 0, status, stderr)
	var got, want map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	golden, err := os.ReadFile(filepath.Join("..", "..", "experiment", "testdata", "golden", "tradeoff.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(golden, &want))
	for _, v := range got["variants"].([]any) {
		v.(map[string]any)["wall_seconds"] = 0.0
	}
	require.True(t, reflect.DeepEqual(want, got),
		"the default run differs from experiment/testdata/golden/tradeoff.json (go test ./experiment -run TestGoldenResults shows how)")
	status, stdout, stderr = fabricsim(t, "-q")
	require.Equal(t, 0, status, stderr)
	for _, v := range want["variants"].([]any) {
		require.Contains(t, stdout, "| "+v.(map[string]any)["name"].(string)+" ", "a row per variant")
	}
}

func TestPcapWritesEveryFrameOfTheLink(t *testing.T) {
	path := writeFile(t, "small.yaml", small)
	dir := t.TempDir()
	status, _, stderr := fabricsim(t, "run", path, "-q", "-o", dir, "--variant", "a", "--pcap", "h1-sw", "--pcap", "sw:3")
	require.Equal(t, 0, status, stderr)
	want := linkPackets(t, filepath.Join(dir, "results.json"))[0]
	for file, links := range map[string][]string{"a-h1-sw.pcap": {"h1-sw", "sw-h1"}, "a-sw-port3.pcap": {"h3-sw", "sw-h3"}} {
		records := pcapRecords(t, filepath.Join(dir, file))
		require.Equal(t, want[links[0]]+want[links[1]], records, "%s holds every frame of both directions", file)
	}
	for _, args := range [][]string{
		{"run", path, "-q", "--pcap", "h1-sw"},                // no -o
		{"run", path, "-q", "-o", dir, "--pcap", "h1-h2"},     // not a link
		{"run", path, "-q", "-o", dir, "--pcap", "sw:9"},      // no such port
		{"run", path, "-q", "-o", dir, "--pcap", "nowhere:1"}, // no such node
	} {
		status, _, stderr := fabricsim(t, args...)
		require.Equal(t, 2, status, "%v: %s", args, stderr)
	}
}

// pcapRecords counts the records of the pcap file at path (a 24-byte file header, then
// records of a 16-byte header and the captured length its bytes 8-11 give, little-endian).
func pcapRecords(t *testing.T, path string) int64 {
	t.Helper()
	pcap, err := os.ReadFile(path)
	require.NoError(t, err, path)
	records := int64(0)
	for off := 24; off < len(pcap); records++ {
		n := int(pcap[off+8]) | int(pcap[off+9])<<8 | int(pcap[off+10])<<16 | int(pcap[off+11])<<24
		off += 16 + n
	}
	return records
}

// linkPackets reads the frames each direction of each link carried, "from-to", from the
// variants of the results document at path, variant by variant.
func linkPackets(t *testing.T, path string) []map[string]int64 {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc struct {
		Variants []struct {
			Links []struct {
				From, To string
				Packets  int64
			} `json:"links"`
		} `json:"variants"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	out := make([]map[string]int64, len(doc.Variants))
	for i, v := range doc.Variants {
		out[i] = map[string]int64{}
		for _, l := range v.Links {
			out[i][l.From+"-"+l.To] = l.Packets
		}
	}
	return out
}

// TestPcapOfVariantsWithOneSlug: variants whose names reduce to one file-name stem ("x y",
// "x-y", "X_Y") get their captures under the stems their tables and plots have (x-y, x-y-2,
// x-y-3), each holding its own variant's frames; before, the three wrote one file and two
// variants' packets were lost.
func TestPcapOfVariantsWithOneSlug(t *testing.T) {
	path := writeFile(t, "slugs.yaml", strings.Replace(small, `variants:
  - {name: a}
  - {name: b, set: {switch.buffer: 200KB}}`, `variants:
  - {name: x y}
  - {name: x-y, set: {stop: 20us}}
  - {name: X_Y, set: {stop: 40us}}`, 1))
	dir := t.TempDir()
	status, _, stderr := fabricsim(t, "run", path, "-q", "-o", dir, "--pcap", "h1-sw")
	require.Equal(t, 0, status, stderr)
	links := linkPackets(t, filepath.Join(dir, "results.json"))
	require.Len(t, links, 3)
	seen := map[int64]bool{}
	for i, stem := range []string{"x-y", "x-y-2", "x-y-3"} {
		records := pcapRecords(t, filepath.Join(dir, stem+"-h1-sw.pcap"))
		require.Equal(t, links[i]["h1-sw"]+links[i]["sw-h1"], records, "%s-h1-sw.pcap holds variant %d's frames", stem, i+1)
		seen[records] = true
	}
	require.Len(t, seen, 3, "the three variants stop at different times, so their captures differ")
}

// TestPcapOfOneLinkTwiceIsRefused: two --pcap flags that name one link (by its ends and by a
// port) are refused with exit 2 naming both; before, every capture but the last was empty.
func TestPcapOfOneLinkTwiceIsRefused(t *testing.T) {
	path := writeFile(t, "small.yaml", small)
	dir := t.TempDir()
	status, _, stderr := fabricsim(t, "run", path, "-q", "-o", dir, "--pcap", "h1-sw", "--pcap", "h1:1")
	require.Equal(t, 2, status, stderr)
	require.Contains(t, stderr, "--pcap h1-sw and --pcap h1:1 name the same link (h1:1-sw:1)")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries, "nothing is written before the refusal")
}

func TestSizeBinsFlag(t *testing.T) {
	path := writeFile(t, "small.yaml", small)
	j := filepath.Join(t.TempDir(), "r.json")
	status, _, stderr := fabricsim(t, "run", path, "-q", "--variant", "a", "--size-bins", "1KB, 1MB", "--json", j)
	require.Equal(t, 0, status, stderr)
	data, err := os.ReadFile(j)
	require.NoError(t, err)
	var doc struct {
		Variants []struct {
			Bins []struct {
				Lo int64  `json:"lo_bytes"`
				Hi *int64 `json:"hi_bytes"`
			} `json:"slowdown_by_size"`
		}
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	bins := doc.Variants[0].Bins
	require.Len(t, bins, 3*3, "all flows' 3 bins, then those of each flow item (2 groups)")
	require.EqualValues(t, 1000, bins[1].Lo)
	require.EqualValues(t, 1_000_000, *bins[1].Hi)
	require.Nil(t, bins[2].Hi)
	for _, bad := range []string{"1MB,1KB", "10", "0B", "1KB,,2KB", "quantiles:1", "quantiles:x", "quantiles:101"} {
		status, _, stderr = fabricsim(t, "run", path, "-q", "--size-bins", bad)
		require.Equal(t, 2, status, bad)
		require.Contains(t, stderr, "--size-bins", bad)
	}
}

// TestQuantileBinsAndWarmup: --size-bins quantiles:N makes equal-population bins of the
// flows' sizes, and --warmup T leaves the flows starting before T out of fct_us and the bins.
func TestQuantileBinsAndWarmup(t *testing.T) {
	// Four flows of 1, 2, 3 and 4 KB from h1, h2, h1, h2 to h3, starting 0, 0, 100 and 100 us.
	file := `version: 1
name: quant
stop: 5ms
topology: {preset: star, params: {hosts: 3, link: {rate: 100Gbps, delay: 1us}}}
traffic:
  - flow: {src: h1, dst: h3, size: 1KB, transport: rocev2}
  - flow: {src: h2, dst: h3, size: 2KB, transport: rocev2}
  - flow: {src: h1, dst: h3, size: 3KB, start: 100us, transport: rocev2}
  - flow: {src: h2, dst: h3, size: 4KB, start: 100us, transport: rocev2}
`
	path := writeFile(t, "quant.yaml", file)
	type bin struct {
		Lo    int64  `json:"lo_bytes"`
		Flows int64  `json:"flows"`
		Group string `json:"group"`
	}
	read := func(args ...string) (bins []bin, completed int64, fcts []float64) {
		j := filepath.Join(t.TempDir(), "r.json")
		status, _, stderr := fabricsim(t, append([]string{"run", path, "-q", "--json", j}, args...)...)
		require.Equal(t, 0, status, stderr)
		data, err := os.ReadFile(j)
		require.NoError(t, err)
		var doc struct {
			Variants []struct {
				Bins  []bin `json:"slowdown_by_size"`
				Flows struct {
					Completed int64 `json:"completed"`
				} `json:"flows"`
				FCT struct {
					Mean float64 `json:"mean"`
				} `json:"fct_us"`
				PerFlow []struct {
					FCT float64 `json:"fct_us"`
				} `json:"per_flow"`
			}
		}
		require.NoError(t, json.Unmarshal(data, &doc))
		v := doc.Variants[0]
		for _, f := range v.PerFlow {
			fcts = append(fcts, f.FCT)
		}
		fcts = append(fcts, v.FCT.Mean)
		return v.Bins, v.Flows.Completed, fcts
	}
	// Quartiles of 1..4 KB: edges 2, 3 and 4 KB, one flow a bin; four items, four groups.
	bins, _, _ := read("--size-bins", "quantiles:4")
	require.Len(t, bins, 4+4*4)
	for i, lo := range []int64{0, 2000, 3000, 4000} {
		require.Equal(t, lo, bins[i].Lo)
		require.EqualValues(t, 1, bins[i].Flows)
	}
	require.Equal(t, "flow 0", bins[4].Group)
	bins, completed, fcts := read("--warmup", "50us", "--size-bins", "quantiles:2")
	require.EqualValues(t, 4, completed, "the counts keep every flow")
	// The FCT mean is of the two later flows only.
	require.InDelta(t, (fcts[2]+fcts[3])/2, fcts[4], 1e-9)
	var measured int64
	for _, b := range bins {
		if b.Group == "" {
			measured += b.Flows
		}
	}
	require.EqualValues(t, 2, measured)
	for _, bad := range []string{"-1ms", "10", "soon"} {
		status, _, stderr := fabricsim(t, "run", path, "-q", "--warmup", bad)
		require.Equal(t, 2, status, bad)
		require.Contains(t, stderr, "--warmup", bad)
	}
}

// TestScenarioFromStandardInput (issue 34, point 7): "-" reads the scenario from the standard
// input, whole and bounded as a file is; its problems are placed at stdin:LINE:COL.
func TestScenarioFromStandardInput(t *testing.T) {
	defer func(r io.Reader) { stdin = r }(stdin)
	stdin = strings.NewReader(small)
	status, stdout, stderr := fabricsim(t, "run", "-", "-q", "--variant", "a")
	require.Equal(t, 0, status, stderr)
	require.True(t, strings.HasPrefix(stdout, "small\n"), stdout)

	stdin = strings.NewReader(strings.Replace(small, "dst: h3", "dst: h9", 1))
	status, _, stderr = fabricsim(t, "validate", "-")
	require.Equal(t, 2, status)
	require.Contains(t, stderr, "stdin:9:")
	require.Contains(t, stderr, `unknown host "h9"`)

	stdin = strings.NewReader(strings.Repeat("#", 9<<20))
	status, _, stderr = fabricsim(t, "validate", "-")
	require.Equal(t, 2, status)
	require.Contains(t, stderr, "stdin: more than 8388608 bytes on the standard input")
}

// TestEmptyOutputPathsAreRefused (issue 34, point 7): -o and --json with an empty path (an unset shell
// variable in quotes) ran and wrote nothing, silently; they are refused, exit 2, naming
// the flag or the variable.
func TestEmptyOutputPathsAreRefused(t *testing.T) {
	path := writeFile(t, "small.yaml", small)
	for _, c := range []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"-o", ""}, "", "--out: an empty path"},
		{[]string{"--json", ""}, "", "--json: an empty path"},
		{nil, "FABRICSIM_OUT", "FABRICSIM_OUT: an empty path"},
	} {
		if c.env != "" {
			t.Setenv(c.env, "")
		}
		status, _, stderr := fabricsim(t, append([]string{"run", path, "-q"}, c.args...)...)
		require.Equal(t, 2, status, "%v: %s", c.args, stderr)
		require.Contains(t, stderr, c.want)
	}
}

// TestWarmupBeyondStopWarns (issue 34, point 7): a --warmup at or beyond the end of the run
// leaves every flow out of the statistics: said before the run, and under the table.
func TestWarmupBeyondStopWarns(t *testing.T) {
	path := writeFile(t, "small.yaml", small)
	status, stdout, stderr := fabricsim(t, "run", path, "--variant", "a", "--warmup", "6ms")
	require.Equal(t, 0, status, stderr)
	require.Contains(t, stderr, "warning: --warmup 6000 us is at or beyond stop (5000 us)")
	require.Contains(t, stdout, "a: --warmup 6000 us is at or beyond the end of the run")
	status, stdout, stderr = fabricsim(t, "run", path, "--variant", "a", "--warmup", "1us")
	require.Equal(t, 0, status, stderr)
	require.NotContains(t, stderr+stdout, "beyond")
}
