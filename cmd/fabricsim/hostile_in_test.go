package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/chakra/chakratest"
)

// hostileStar is a small valid scenario the hostile cases start from: one 100 KB flow on a
// 4-host star.
const hostileStar = `version: 1
name: hostile
stop: 10ms
topology:
  preset: star
  params: {hosts: 4, link: {rate: 100Gbps, delay: 1us}}
traffic:
  - flow: {src: h1, dst: h2, size: 100KB, transport: rocev2}
`

// hostileMany is 120,000 flows on a 4-host star: 17 samples of each (the automatic sampler's
// least) are more than the 2,000,000 time-series rows -o may keep.
var hostileMany = strings.Replace(hostileStar, "- flow: {src: h1, dst: h2, size: 100KB, transport: rocev2}",
	"- incast: {senders: [h1, h2, h3], receiver: h4, size: 1KB, transport: rocev2, repeat: {every: 1us, count: 40000}}", 1)

// hostileRouted is two routers in a line, h1's router routing h2's subnet via h1.
const hostileRouted = `version: 1
name: routed
topology:
  nodes:
    - {name: h1, type: host, subnet: 10.0.1.0/24}
    - {name: h2, type: host, subnet: 10.0.2.0/24}
    - {name: r1, type: switch, layer: 3}
    - {name: r2, type: switch, layer: 3}
  links:
    - {between: [h1, r1], rate: 100Gbps}
    - {between: [r1, r2], rate: 100Gbps}
    - {between: [h2, r2], rate: 100Gbps}
  routes: [{at: r1, dst: 10.0.2.0/24, via: h1}]
traffic:
  - flow: {src: h1, dst: h2, size: 1MB, transport: rocev2}
`

// hostileShadow is a password file's form, with a secret in it.
const hostileShadow = "root:$6$secrethash:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n"

// hostileCase is one hostile input: the files it needs in a fresh directory (name to text;
// the text "fifo" makes a named pipe), the environment, the command line ({dir} is the
// directory), the exit status and a fragment the output (standard output and error) must
// hold, and fragments it must not (a secret from a file, a raw tag).
type hostileCase struct {
	name   string
	files  map[string]string
	env    map[string]string
	args   []string
	status int
	want   string
	absent []string
}

// hostileInputCases are the input side of issue 23 (points 7 to 11, 13 and 14), one row per
// case.
var hostileInputCases = []hostileCase{
	{name: "7 grid path twice", files: map[string]string{"s.yaml": hostileStar},
		args:   []string{"sweep", "{dir}/s.yaml", "--grid", "switch.buffer=1MB", "--grid", "switch.buffer=2MB", "-o", "{dir}/out", "-q"},
		status: 2, want: "--grid switch.buffer is given twice (1MB, then 2MB)"},

	// 8: the time-series limit only with -o; frames in flight bounded by the traffic.
	{name: "8 many flows without -o", files: map[string]string{"s.yaml": hostileMany},
		args: []string{"run", "{dir}/s.yaml", "-q", "--format", "csv"}, status: 0, want: "default,rocev2,"},
	{name: "8 many flows validate", files: map[string]string{"s.yaml": hostileMany},
		args: []string{"validate", "{dir}/s.yaml"}, status: 0, want: "warning: run -o DIR, which keeps the time series, would refuse it"},
	{name: "8 many flows with -o", files: map[string]string{"s.yaml": hostileMany},
		args: []string{"run", "{dir}/s.yaml", "-q", "-o", "{dir}/out"}, status: 2,
		want: "To shrink it: the time series that -o writes would hold 2,040,289 rows even at 17 samples (every flow in each): run without -o", absent: []string{"a smaller topology"}},
	{name: "8 one flow over a 1 s link", files: map[string]string{"s.yaml": strings.ReplaceAll(strings.Replace(hostileStar, "delay: 1us", "delay: 1s", 1), "stop: 10ms", "stop: 3s")},
		args: []string{"validate", "{dir}/s.yaml"}, status: 0, want: "ok"},

	// 11: what the user wrote shows as text in Markdown (and HTML: report.html's template
	// escapes; results' tests check summary.md).
	{name: "11 script variant name in markdown", files: map[string]string{"s.yaml": hostileStar +
		"variants:\n  - {name: \"<script>alert(1)</script>\", transport: rocev2}\n  - {name: \"*em* [l](javascript:x)\", transport: rocev2}\n"},
		args: []string{"run", "{dir}/s.yaml", "-q", "--format", "markdown"}, status: 0, want: "| &lt;script>alert(1)&lt;/script> ",
		absent: []string{"<script>", "*em*", "[l]("}},

	// 9: a file that does not parse as what was expected is named, never quoted.
	{name: "9 workload password file", files: map[string]string{"s.yaml": poissonOf("pw"), "pw": hostileShadow},
		args: []string{"validate", "{dir}/s.yaml"}, status: 2, want: "{dir}/pw:1: want two numbers, a size in bytes and a cumulative percent (e.g. 10000 35), found 1 fields",
		absent: []string{"secrethash", "root"}},
	{name: "9 workload /proc/self/environ", files: map[string]string{"s.yaml": poissonOf("/proc/self/environ")},
		args: []string{"validate", "{dir}/s.yaml"}, status: 2, want: "/proc/self/environ:1: want two numbers", absent: []string{"PATH="}},
	{name: "9 scenario password file", files: map[string]string{"pw": hostileShadow},
		args: []string{"validate", "{dir}/pw"}, status: 2, want: "{dir}/pw:1:1: not a scenario file: none of its 2 top-level keys is a scenario field",
		absent: []string{"secrethash", "root"}},
	{name: "9 scenario text", files: map[string]string{"t": "secret words\n"},
		args: []string{"run", "{dir}/t", "-q"}, status: 2, want: "not a single value or a text", absent: []string{"secret"}},
	{name: "9 scenario /proc/self/environ", args: []string{"validate", "/proc/self/environ"}, status: 2,
		want: "control character 0x00: a scenario file is text", absent: []string{"PATH="}},

	// 13: numbers, environment, sweep blocks and the builder's problems.
	{name: "13 calib NaN", args: []string{"bench", "--calib", "NaN"}, status: 2, want: "--calib NaN: the calibration figure in M ops/s, a finite number above 0"},
	{name: "13 calib Inf", args: []string{"bench", "--calib", "Inf"}, status: 2, want: "--calib +Inf: the calibration figure in M ops/s, a finite number above 0"},
	{name: "13 calib negative", args: []string{"bench", "--calib=-1"}, status: 2, want: "--calib -1: the calibration figure"},
	{name: "13 flow rate 0", files: map[string]string{"s.yaml": strings.Replace(hostileStar, "transport: rocev2}", "transport: rocev2, rate: 0}", 1)},
		args: []string{"validate", "{dir}/s.yaml"}, status: 2, want: "traffic.0.flow.rate: rate must be > 0: omit rate for line rate"},
	{name: "13 misspelt environment variable", files: map[string]string{"s.yaml": hostileStar}, env: map[string]string{"FABRICSIM_OTU": "x"},
		args: []string{"validate", "{dir}/s.yaml"}, status: 0,
		want: "warning: FABRICSIM_OTU is set but is no fabricsim setting, and is ignored; the known ones: FABRICSIM_FORCE, FABRICSIM_FORMAT, FABRICSIM_JSON, FABRICSIM_MAX_EVENTS, FABRICSIM_MAX_WALL, FABRICSIM_OUT, FABRICSIM_QUIET, FABRICSIM_SEED, FABRICSIM_SEEDS, FABRICSIM_SIZE_BINS, FABRICSIM_THREADS, FABRICSIM_WARMUP, FABRICSIM_WORKERS"},
	{name: "13 bad unit in a sweep block", files: map[string]string{"s.yaml": hostileStar + "sweep:\n  switch.buffer: [1MB, 2XB]\n"},
		args: []string{"validate", "{dir}/s.yaml"}, status: 2, want: `{dir}/s.yaml: sweep.switch.buffer: value 2XB: switch.buffer: size "2XB": unknown unit "XB"`},
	{name: "13 a route via a host has file:line:col", files: map[string]string{"s.yaml": hostileRouted},
		args: []string{"validate", "{dir}/s.yaml"}, status: 2, want: `{dir}/s.yaml:13:44: topology.routes.0.via: "h1" is a host, and hosts do not forward`},

	// 14: a pause on a class of a fabric without PFC says that PFC is off.
	{name: "14 pause with PFC off", files: map[string]string{"s.yaml": hostileStar + "switch: {pfc: {enabled: false}}\nfaults:\n  - {at: 0, pause: {node: sw, port: 1, priority: 3, quanta: 100}}\n"},
		args: []string{"validate", "{dir}/s.yaml"}, status: 0, want: "class 3 is not lossless: PFC is off (switch.pfc.enabled: false)", absent: []string{"priorities [3]"}},

	// 10: what is no regular file is refused at once (a fifo blocked validate forever).
	{name: "10 scenario fifo validate", files: map[string]string{"f.yaml": "fifo"},
		args: []string{"validate", "{dir}/f.yaml"}, status: 2, want: "{dir}/f.yaml: a named pipe (fifo), not a regular file"},
	{name: "10 scenario fifo run", files: map[string]string{"f.yaml": "fifo"},
		args: []string{"run", "{dir}/f.yaml", "-q"}, status: 2, want: "{dir}/f.yaml: a named pipe (fifo), not a regular file"},
	{name: "10 scenario fifo sweep", files: map[string]string{"f.yaml": "fifo"},
		args: []string{"sweep", "{dir}/f.yaml", "--grid", "seed=1,2", "-o", "{dir}/out", "-q"}, status: 2, want: "{dir}/f.yaml: a named pipe (fifo), not a regular file"},
	{name: "10 scenario device", args: []string{"validate", "/dev/null"}, status: 2, want: "/dev/null: a device, not a regular file"},
	{name: "10 workload fifo", files: map[string]string{"s.yaml": poissonOf("cdf"), "cdf": "fifo"},
		args: []string{"validate", "{dir}/s.yaml"}, status: 2, want: "{dir}/cdf is a named pipe (fifo), not a regular file"},
	{name: "10 workload directory", files: map[string]string{"s.yaml": poissonOf("sub"), "sub/x": ""},
		args: []string{"validate", "{dir}/s.yaml"}, status: 2, want: "{dir}/sub is a directory, not a regular file"},
}

// poissonOf is hostileStar with its traffic a Poisson item of that workload.
func poissonOf(workload string) string {
	return strings.Replace(hostileStar, "- flow: {src: h1, dst: h2, size: 100KB, transport: rocev2}",
		"- poisson: {hosts: all, load: 0.5, workload: "+workload+", count: 10, transport: rocev2}", 1)
}

// fabricsimWithin runs fabricsim with args, its standard output and error together, and
// fails the test when it has not ended within limit (a blocking open, say).
func fabricsimWithin(t *testing.T, limit time.Duration, args ...string) (status int, out string) {
	t.Helper()
	type outcome struct {
		status int
		out    string
	}
	done := make(chan outcome, 1)
	go func() {
		var out bytes.Buffer
		status := run(args, &out, &out)
		done <- outcome{status, out.String()}
	}()
	select {
	case o := <-done:
		return o.status, o.out
	case <-time.After(limit):
		t.Fatalf("fabricsim %s: still running after %v (blocked?)", strings.Join(args, " "), limit)
	}
	return 0, ""
}

func TestHostileInput(t *testing.T) {
	for _, c := range hostileInputCases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range c.files {
				path := filepath.Join(dir, name)
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				if text == "fifo" {
					require.NoError(t, syscall.Mkfifo(path, 0o644))
					continue
				}
				require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
			}
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.ReplaceAll(a, "{dir}", dir)
			}
			status, out := fabricsimWithin(t, 30*time.Second, args...)
			require.Equal(t, c.status, status, out)
			require.Contains(t, out, strings.ReplaceAll(c.want, "{dir}", dir))
			for _, a := range c.absent {
				require.NotContains(t, out, a)
			}
		})
	}
}

// TestHostileInputFiles (issue 34, item 3): a fifo, or a link to /dev/zero, in place of a
// file that merge, a resumed sweep, compare or run -o reads (sweep.json, points/*.json,
// results.json, manifest.json) is refused at once with exit 2 and a message naming the file
// and what it is: never a hang on the fifo, nor memory filled from /dev/zero.
func TestHostileInputFiles(t *testing.T) {
	scenario := writeFile(t, "small.yaml", small)
	base := t.TempDir()
	for _, args := range [][]string{
		{"sweep", scenario, "-q", "--grid", "seed=1,2", "-o", base + "/sweep"},
		{"run", scenario, "-q", "-o", base + "/run"},
	} {
		status, _, stderr := fabricsim(t, args...)
		require.Equal(t, 0, status, stderr)
	}
	entries, err := os.ReadDir(base + "/sweep/points")
	require.NoError(t, err)
	point := "points/" + entries[0].Name()
	for _, c := range []struct {
		name, copy, file string // copy base/copy to $D/in, then replace $D/in/file
		args             []string
	}{
		{"merge-sweep-json", "sweep", "sweep.json", []string{"merge", "$D/in", "-o", "$D/out"}},
		{"merge-point", "sweep", point, []string{"merge", "$D/in", "-o", "$D/out"}},
		{"sweep-resume-sweep-json", "sweep", "sweep.json", []string{"sweep", scenario, "-q", "--grid", "seed=1,2", "-o", "$D/in"}},
		{"sweep-resume-point", "sweep", point, []string{"sweep", scenario, "-q", "--grid", "seed=1,2", "-o", "$D/in"}},
		{"compare-dir", "run", "results.json", []string{"compare", "$D/in", base + "/run"}},
		{"compare-file", "run", "results.json", []string{"compare", base + "/run/results.json", "$D/in/results.json"}},
		{"run-manifest", "run", "manifest.json", []string{"run", scenario, "-q", "-o", "$D/in", "--force"}},
	} {
		for kind, what := range map[string]string{"fifo": "a named pipe (fifo)", "dev-zero": "a device"} {
			t.Run(c.name+"-"+kind, func(t *testing.T) {
				d := t.TempDir()
				require.NoError(t, os.CopyFS(d+"/in", os.DirFS(filepath.Join(base, c.copy))))
				file := filepath.Join(d, "in", c.file)
				require.NoError(t, os.Remove(file))
				if kind == "fifo" {
					require.NoError(t, syscall.Mkfifo(file, 0o644))
				} else {
					require.NoError(t, os.Symlink("/dev/zero", file))
				}
				args := make([]string, len(c.args))
				for i, a := range c.args {
					args[i] = strings.ReplaceAll(a, "$D", d)
				}
				start := time.Now()
				status, out := fabricsimWithin(t, 10*time.Second, args...)
				require.Equal(t, 2, status, out)
				require.Contains(t, out, file+" is "+what+", not a regular file")
				require.Less(t, time.Since(start), 2*time.Second, "refused at once")
			})
		}
	}
}

// bombChild is the variable that makes TestChakraBomb's child process (this test binary run
// again) run fabricsim with the arguments after "--", so that its memory and CPU time are
// its own (rusage).
const bombChild = "HOSTILE_IN_BOMB_CHILD"

// writeBomb writes a Chakra trace of a GlobalMetadata, one valid node and then zeros zero
// bytes, gzip at its best compression, streamed a MiB at a time (never whole in memory), and
// returns the compressed size.
func writeBomb(t *testing.T, path string, zeros int64) int64 {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	w, err := gzip.NewWriterLevel(f, gzip.BestCompression)
	require.NoError(t, err)
	_, err = w.Write(chakratest.Trace("0.0.4", chakratest.Comp(1, 10)))
	require.NoError(t, err)
	chunk := make([]byte, 1<<20)
	for left := zeros; left > 0; left -= int64(len(chunk)) {
		_, err = w.Write(chunk[:min(left, int64(len(chunk)))])
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	fi, err := f.Stat()
	require.NoError(t, err)
	return fi.Size()
}

// TestChakraBomb (issue 34, item 2): a Chakra trace whose one valid node is followed by 10 MB,
// 100 MB or 1 GiB of zero bytes, gzip (about 9.8 KB, 97 KB and 1 MB), is refused by validate,
// run and explain with exit 2 naming the file, the byte and the node, within 2 s of CPU (the
// child process's rusage) and 200 MB of peak resident memory (its VmHWM). The 1 GiB trace
// takes some seconds to compress, so it is in the full suite only.
func TestChakraBomb(t *testing.T) {
	if hwm := os.Getenv(bombChild); hwm != "" {
		status := run(os.Args[slices.Index(os.Args, "--")+1:], os.Stdout, os.Stderr)
		// The peak resident memory of this process's own address space (VmHWM, proc(5)):
		// rusage's ru_maxrss would not do, as it keeps the parent's peak from before the exec
		// (Go's fork shares the parent's memory until then; exec_mmap keeps the old peak).
		status_, err := os.ReadFile("/proc/self/status")
		if err == nil {
			err = os.WriteFile(hwm, status_, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(99)
		}
		os.Exit(status)
	}
	sizes := []int64{10_000_000, 100_000_000}
	if !testing.Short() {
		sizes = append(sizes, 1<<30)
	}
	valid := int64(len(chakratest.Trace("0.0.4", chakratest.Comp(1, 10))))
	for _, zeros := range sizes {
		t.Run(strconv.FormatInt(zeros, 10), func(t *testing.T) {
			dir := t.TempDir()
			trace := filepath.Join(dir, "bomb.0.et")
			size := writeBomb(t, trace, zeros)
			// Deflate's longest match is 258 bytes in about 2 bits at best: zeros/1000 or so.
			require.Less(t, size, zeros/900+1000, "the trace is a bomb: %d bytes inflate to %d", size, zeros)
			for r := 1; r < 4; r++ {
				require.NoError(t, os.Symlink(trace, filepath.Join(dir, fmt.Sprintf("bomb.%d.et", r))))
			}
			scenario := filepath.Join(dir, "s.yaml")
			require.NoError(t, os.WriteFile(scenario, []byte(`version: 1
name: bomb
stop: 1ms
topology: {preset: star, params: {hosts: 4, link: {rate: 100Gbps}}}
traffic:
  - chakra: {traces: bomb}
`), 0o644))
			for _, cmd := range []string{"validate", "run", "explain"} {
				child := exec.Command(os.Args[0], "-test.run=^TestChakraBomb$", "--", cmd, scenario)
				hwm := filepath.Join(dir, cmd+".status")
				child.Env = append(os.Environ(), bombChild+"="+hwm)
				var out bytes.Buffer
				child.Stdout, child.Stderr = &out, &out
				require.NoError(t, child.Start())
				done := make(chan error, 1)
				go func() { done <- child.Wait() }()
				select {
				case <-done:
				case <-time.After(60 * time.Second):
					child.Process.Kill()
					t.Fatalf("%s: still running after 60 s", cmd)
				}
				require.Equal(t, 2, child.ProcessState.ExitCode(), "%s: %s", cmd, out.String())
				require.Contains(t, out.String(), fmt.Sprintf("%s: decompressed byte %d: node 1 (from 0) is an empty message", trace, valid), cmd)
				ru := child.ProcessState.SysUsage().(*syscall.Rusage)
				cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
				status, err := os.ReadFile(hwm)
				require.NoError(t, err)
				var rss int64
				for _, line := range strings.Split(string(status), "\n") {
					if kb, ok := strings.CutPrefix(line, "VmHWM:"); ok {
						n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(kb, "kB")), 10, 64)
						require.NoError(t, err, line)
						rss = n << 10
					}
				}
				require.NotZero(t, rss, "VmHWM in %s", status)
				t.Logf("%s of %d zeros (%d bytes gzip): %v of CPU, %d MB peak RSS", cmd, zeros, size, cpu, rss>>20)
				require.Less(t, cpu, 2*time.Second, "%s: CPU time", cmd)
				require.Less(t, rss, int64(200<<20), "%s: peak resident memory", cmd)
			}
		})
	}
}
