package main

import (
	"fmt"
	"io"
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

	"github.com/fabricsim/fabricsim/results"
)

// The hostile-input table of the output side (issue 23, points 1-6 and 12): each row is a
// command line, the exit status and a fragment of the message it must give, and what must
// hold of the files afterwards. In args, $D is the row's own temporary directory (set up
// by setup) and $S the small two-variant scenario.

// mknodOr makes a character device (major, minor) at path, like mknod(1) in the issue's
// reproduction, or, where this process may not (no CAP_MKNOD), gives the system's own device
// (fallback, e.g. /dev/full): written through, it is left as it is.
func mknodOr(t *testing.T, path string, major, minor uint32, fallback string) string {
	t.Helper()
	dev := int(major<<8 | minor) // Linux's old_encode_dev, enough for majors and minors below 256
	if err := syscall.Mknod(path, syscall.S_IFCHR|0o666, dev); err == nil {
		return path
	}
	return fallback
}

// isCharDevice reports whether path is still a character device.
func isCharDevice(t *testing.T, path string) bool {
	t.Helper()
	fi, err := os.Lstat(path)
	require.NoError(t, err)
	return fi.Mode()&os.ModeCharDevice != 0
}

// deadPID is the id of a process that has ended (a child that ran and was reaped).
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	require.NoError(t, cmd.Run())
	return cmd.Process.Pid
}

// ls lists dir's entries.
func ls(t *testing.T, dir string) []string {
	t.Helper()
	names, _, err := results.DirEntries(dir)
	require.NoError(t, err)
	return names
}

// fill creates each file (a name ending in / is a directory) with its name as content.
func fill(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		p := filepath.Join(dir, n)
		if strings.HasSuffix(n, "/") {
			require.NoError(t, os.MkdirAll(p, 0o755))
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(n), 0o644))
	}
}

// longVariant is a scenario whose one variant's name is 5,000 characters: its table and
// plots would have file names far over 255 bytes.
var longVariant = strings.Replace(small, "  - {name: a}\n  - {name: b, set: {switch.buffer: 200KB}}\n",
	"  - {name: "+strings.Repeat("v", 5000)+"}\n", 1)

// longNode is a scenario with a host named with 300 characters, for --pcap.
var longNode = `version: 1
name: long-node
stop: 1ms
topology:
  nodes:
    - {name: ` + strings.Repeat("n", 300) + `, type: host, subnet: 10.0.1.0/24}
    - {name: h2, type: host, subnet: 10.0.1.0/24}
    - {name: sw, type: switch, layer: 2}
  links:
    - {between: [` + strings.Repeat("n", 300) + `, sw], rate: 100Gbps, delay: 1us}
    - {between: [h2, sw], rate: 100Gbps, delay: 1us}
traffic:
  - flow: {src: h2, dst: ` + strings.Repeat("n", 300) + `, size: 10KB, transport: rocev2}
`

func TestHostileOutputs(t *testing.T) {
	scenario := writeFile(t, "small.yaml", small)
	var earlierRun string // an earlier run's directory, copied by the rows that need one
	{
		earlierRun = filepath.Join(t.TempDir(), "earlier")
		status, _, stderr := fabricsim(t, "run", scenario, "-q", "-o", earlierRun)
		require.Equal(t, 0, status, stderr)
	}
	copyDir := func(t *testing.T, from, to string) {
		require.NoError(t, os.CopyFS(to, os.DirFS(from)))
	}
	sweepInto := func(t *testing.T, dir string, flags ...string) {
		status, _, stderr := fabricsim(t, append([]string{"sweep", scenario, "-q", "-o", dir}, flags...)...)
		require.Equal(t, 0, status, stderr)
	}
	for _, tc := range []struct {
		name   string
		setup  func(t *testing.T, d string)
		env    []string // NAME=VALUE, set for the row
		args   []string
		status int
		want   string
		after  func(t *testing.T, d, stdout string)
	}{
		// 1. A path that is not a regular file is written through, never replaced.
		{name: "json-device-null", setup: func(t *testing.T, d string) {
			require.NoError(t, os.Symlink(mknodOr(t, d+"/null-dev", 1, 3, "/dev/null"), d+"/null"))
		}, args: []string{"run", "$S", "-q", "--json", "$D/null"}, status: 0, after: func(t *testing.T, d, _ string) {
			target, err := filepath.EvalSymlinks(d + "/null")
			require.NoError(t, err)
			require.True(t, isCharDevice(t, target), "%s is still a device, not a results file", target)
		}},
		{name: "json-device-full", setup: func(t *testing.T, d string) {
			require.NoError(t, os.Symlink(mknodOr(t, d+"/full-dev", 1, 7, "/dev/full"), d+"/full"))
		}, args: []string{"run", "$S", "-q", "--json", "$D/full"}, status: 1, want: "writing $D/full: no space left on device",
			after: func(t *testing.T, d, stdout string) {
				target, err := filepath.EvalSymlinks(d + "/full")
				require.NoError(t, err)
				require.True(t, isCharDevice(t, target), "%s is still a device", target)
				require.Contains(t, stdout, "small", "the table is printed before the failed write")
			}},
		{name: "json-fifo", setup: func(t *testing.T, d string) {
			require.NoError(t, syscall.Mkfifo(d+"/fifo", 0o644))
			go func() { // a reader, as `--json >(jq .)` has
				f, err := os.Open(d + "/fifo")
				if err == nil {
					data, _ := io.ReadAll(f)
					os.WriteFile(d+"/read", data, 0o644)
					f.Close()
				}
			}()
		}, args: []string{"run", "$S", "-q", "--json", "$D/fifo"}, status: 0, after: func(t *testing.T, d, _ string) {
			fi, err := os.Lstat(d + "/fifo")
			require.NoError(t, err)
			require.NotZero(t, fi.Mode()&os.ModeNamedPipe, "the fifo is still a fifo")
			require.Eventually(t, func() bool {
				data, err := os.ReadFile(d + "/read")
				return err == nil && strings.Contains(string(data), `"scenario": "small"`)
			}, 5*time.Second, 10*time.Millisecond, "the reader got the document")
		}},
		{name: "json-stdout", args: []string{"run", "$S", "-q", "--format", "csv", "--json", "/dev/stdout"}, status: 0,
			after: func(t *testing.T, _, stdout string) {
				table, doc, ok := strings.Cut(stdout, "{\n")
				require.True(t, ok, "the document follows the table on standard output")
				require.True(t, strings.HasPrefix(table, "variant,transport,"), "the table first")
				require.Contains(t, doc, `"scenario": "small"`)
			}},
		{name: "json-link-to-stdout", setup: func(t *testing.T, d string) {
			require.NoError(t, os.Symlink("/dev/stdout", d+"/doc.json"))
		}, args: []string{"run", "$S", "-q", "--format", "csv", "--json", "$D/doc.json"}, status: 0,
			after: func(t *testing.T, d, stdout string) {
				require.Contains(t, stdout, `"scenario": "small"`, "written to standard output")
				target, err := os.Readlink(d + "/doc.json")
				require.NoError(t, err)
				require.Equal(t, "/dev/stdout", target, "the link stays")
			}},
		{name: "json-pipe", setup: func(t *testing.T, d string) {
			r, w, err := os.Pipe() // what `--json >(jq .)` gives: /dev/fd/N, a pipe
			require.NoError(t, err)
			t.Cleanup(func() { r.Close() })
			require.NoError(t, os.WriteFile(d+"/fd", []byte(fmt.Sprintf("/dev/fd/%d", w.Fd())), 0o644))
			go func() { // the write end stays open (it is the test's): read what comes
				var data []byte
				buf := make([]byte, 4096)
				for !strings.HasSuffix(string(data), "}\n") {
					n, err := r.Read(buf)
					if err != nil {
						return
					}
					data = append(data, buf[:n]...)
				}
				os.WriteFile(d+"/read", data, 0o644)
			}()
			t.Cleanup(func() { w.Close() })
		}, args: []string{"run", "$S", "-q", "--json", "$FD"}, status: 0, after: func(t *testing.T, d, _ string) {
			require.Eventually(t, func() bool {
				data, err := os.ReadFile(d + "/read")
				return err == nil && strings.Contains(string(data), `"scenario": "small"`)
			}, 5*time.Second, 10*time.Millisecond, "the pipe's reader got the document")
		}},
		// 2. A directory that is not empty and not a run's is refused, whatever the way it
		// is given; --force removes only what the earlier run's manifest lists.
		{name: "out-root", args: []string{"run", "$S", "-q", "-o", "/"}, status: 2,
			want: "-o /: is not empty (it holds "},
		{name: "out-system-dir", setup: func(t *testing.T, d string) { fill(t, d+"/etc", "passwd", "hosts", "ssh/") },
			args: []string{"run", "$S", "-q", "-o", "$D/etc"}, status: 2,
			want:  `-o $D/etc: is not empty (it holds "hosts", "passwd", "ssh") and is not a fabricsim run's output directory (it has no manifest.json)`,
			after: func(t *testing.T, d, _ string) { require.Equal(t, []string{"hosts", "passwd", "ssh"}, ls(t, d+"/etc")) }},
		{name: "out-symlink", setup: func(t *testing.T, d string) {
			fill(t, d+"/etc", "passwd", "hosts")
			require.NoError(t, os.Symlink(d+"/etc", d+"/link"))
		}, args: []string{"run", "$S", "-q", "-o", "$D/link"}, status: 2, want: `-o $D/link: is not empty (it holds "hosts", "passwd")`,
			after: func(t *testing.T, d, _ string) { require.Equal(t, []string{"hosts", "passwd"}, ls(t, d+"/etc")) }},
		{name: "out-env", setup: func(t *testing.T, d string) { fill(t, d+"/etc", "passwd") },
			env: []string{"FABRICSIM_OUT=$D/etc"}, args: []string{"run", "$S", "-q"}, status: 2,
			want:  `FABRICSIM_OUT=$D/etc: is not empty (it holds "passwd")`,
			after: func(t *testing.T, d, _ string) { require.Equal(t, []string{"passwd"}, ls(t, d+"/etc")) }},
		{name: "force-needs-a-manifest", setup: func(t *testing.T, d string) {
			fill(t, d+"/mine", "table-notes.txt", "capture.pcap", "results.json")
		}, args: []string{"run", "$S", "-q", "-o", "$D/mine", "--force"}, status: 2,
			want: "--force removes only the files a run's manifest.json lists",
			after: func(t *testing.T, d, _ string) {
				require.Equal(t, []string{"capture.pcap", "results.json", "table-notes.txt"}, ls(t, d+"/mine"))
			}},
		{name: "force-keeps-the-users-files", setup: func(t *testing.T, d string) {
			copyDir(t, earlierRun, d+"/out")
			fill(t, d+"/out", "table-notes.txt", "capture.pcap", "throughput-x.png")
		}, args: []string{"run", "$S", "-q", "-o", "$D/out", "--force", "--variant", "a"}, status: 0,
			after: func(t *testing.T, d, _ string) {
				names := ls(t, d+"/out")
				for _, mine := range []string{"table-notes.txt", "capture.pcap", "throughput-x.png"} {
					require.Contains(t, names, mine, "not in the earlier run's manifest: kept")
				}
				require.NotContains(t, names, "table-b.txt", "the earlier run's, which this one does not write: removed")
				m, err := results.ReadManifest(d + "/out")
				require.NoError(t, err)
				require.Contains(t, m.Files, "table-a.txt")
				require.NotContains(t, m.Files, "table-notes.txt")
			}},
		// Issue 34, item 1: an earlier run's files replaced by links to files elsewhere are
		// removed or replaced as names; what they lead to is untouched.
		{name: "force-replaces-links-not-targets", setup: func(t *testing.T, d string) {
			copyDir(t, earlierRun, d+"/out")
			require.NoError(t, os.WriteFile(d+"/passwd", []byte("root:x:0:0\n"), 0o600))
			require.NoError(t, os.Remove(d+"/out/table-b.txt"))
			require.NoError(t, os.Symlink(d+"/passwd", d+"/out/table-b.txt"))
			require.NoError(t, os.Remove(d+"/out/summary.md"))
			require.NoError(t, os.Link(d+"/passwd", d+"/out/summary.md"))
		}, args: []string{"run", "$S", "-q", "-o", "$D/out", "--force", "--variant", "a"}, status: 0,
			after: func(t *testing.T, d, _ string) {
				data, err := os.ReadFile(d + "/passwd")
				require.NoError(t, err)
				require.Equal(t, "root:x:0:0\n", string(data))
				fi, err := os.Stat(d + "/passwd")
				require.NoError(t, err)
				require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
				require.EqualValues(t, 1, fi.Sys().(*syscall.Stat_t).Nlink, "the hard link was replaced")
				require.NoFileExists(t, d+"/out/table-b.txt", "the link, listed by the earlier run, is removed")
				fi, err = os.Lstat(d + "/out/summary.md")
				require.NoError(t, err)
				require.True(t, fi.Mode().IsRegular())
			}},
		// 3. One run at a time in a directory: the lock names its holder; a dead one's is taken.
		{name: "locked", setup: func(t *testing.T, d string) {
			require.NoError(t, os.Mkdir(d+"/out", 0o755))
			unlock, err := results.LockDir(d + "/out")
			require.NoError(t, err)
			t.Cleanup(unlock)
		}, args: []string{"run", "$S", "-q", "-o", "$D/out"}, status: 2,
			want: fmt.Sprintf("-o $D/out: is being written by another fabricsim process (pid %d)", os.Getpid()),
			after: func(t *testing.T, d, _ string) {
				require.Empty(t, ls(t, d+"/out"), "the refused run wrote nothing")
			}},
		{name: "sweep-locked", setup: func(t *testing.T, d string) {
			require.NoError(t, os.Mkdir(d+"/sw", 0o755))
			unlock, err := results.LockDir(d + "/sw")
			require.NoError(t, err)
			t.Cleanup(unlock)
		}, args: []string{"sweep", "$S", "-q", "--grid", "seed=1,2", "-o", "$D/sw"}, status: 2,
			want: fmt.Sprintf("-o $D/sw: is being written by another fabricsim process (pid %d)", os.Getpid()),
			after: func(t *testing.T, d, _ string) {
				require.Empty(t, ls(t, d+"/sw"), "the refused sweep wrote nothing")
			}},
		{name: "stale-lock", setup: func(t *testing.T, d string) {
			require.NoError(t, os.Mkdir(d+"/out", 0o755))
			require.NoError(t, os.WriteFile(d+"/out/"+results.FileLock, []byte(strconv.Itoa(deadPID(t))+"\n"), 0o644))
		}, args: []string{"run", "$S", "-q", "-o", "$D/out"}, status: 0, after: func(t *testing.T, d, _ string) {
			require.FileExists(t, d+"/out/results.json")
			require.NoFileExists(t, d+"/out/"+results.FileLock, "released at the end")
		}},
		// 4. A sweep's directory and a run's are not each other's; merge keeps another sweep.
		{name: "merge-into-another-sweep", setup: func(t *testing.T, d string) {
			// The same grid, so the same point names, of another scenario (a --set).
			sweepInto(t, d+"/a", "--grid", "seed=1,2")
			sweepInto(t, d+"/b", "--grid", "seed=1,2", "--set", "stop=4ms")
		}, args: []string{"merge", "$D/a", "-o", "$D/b"}, status: 2,
			want: "-o $D/b: holds another sweep (scenario small, 2 points over seed (2), --set [stop=4ms]; fabricsim 0.1.0)",
			after: func(t *testing.T, d, _ string) {
				data, err := os.ReadFile(d + "/b/sweep.json")
				require.NoError(t, err)
				require.Contains(t, string(data), `"stop=4ms"`, "b's own sweep stays")
			}},
		{name: "sweep-into-a-run", setup: func(t *testing.T, d string) { copyDir(t, earlierRun, d+"/run") },
			args: []string{"sweep", "$S", "-q", "--grid", "seed=1,2", "-o", "$D/run"}, status: 2,
			want: "-o $D/run: holds a fabricsim run's results (manifest.json)",
			after: func(t *testing.T, d, _ string) {
				require.NoDirExists(t, d+"/run/points")
				a, _ := os.ReadFile(earlierRun + "/report.html")
				b, _ := os.ReadFile(d + "/run/report.html")
				require.Equal(t, a, b, "the run's report.html is not replaced")
			}},
		{name: "sweep-into-a-non-empty-dir", setup: func(t *testing.T, d string) { fill(t, d+"/home", "thesis.tex") },
			args: []string{"sweep", "$S", "-q", "--grid", "seed=1,2", "-o", "$D/home"}, status: 2,
			want: `-o $D/home: is not empty (it holds "thesis.tex") and is not a fabricsim sweep's directory`},
		{name: "run-into-a-sweep", setup: func(t *testing.T, d string) { sweepInto(t, d+"/sw", "--grid", "seed=1,2") },
			args: []string{"run", "$S", "-q", "-o", "$D/sw"}, status: 2,
			want: "-o $D/sw: holds a fabricsim sweep's output (sweep.json, points/)"},
		// 6. --json into a directory that does not exist: refused, nothing created.
		{name: "json-no-parent", args: []string{"run", "$S", "-q", "--json", "$D/nonexist/x.json"}, status: 2,
			want:  "--json $D/nonexist/x.json: the directory $D/nonexist does not exist: create it first",
			after: func(t *testing.T, d, _ string) { require.NoDirExists(t, d+"/nonexist") }},
		// 12. Every output's name is checked before the run.
		{name: "long-variant-name", setup: func(t *testing.T, d string) {
			require.NoError(t, os.WriteFile(d+"/long.yaml", []byte(longVariant), 0o644))
		}, args: []string{"run", "$D/long.yaml", "-q", "-o", "$D/out"}, status: 2,
			want:  fmt.Sprintf("variants.0.name %q... (5000 bytes) names output files (\"table-", strings.Repeat("v", 40)),
			after: func(t *testing.T, d, _ string) { require.NoDirExists(t, d+"/out") }},
		{name: "long-node-name-pcap", setup: func(t *testing.T, d string) {
			require.NoError(t, os.WriteFile(d+"/node.yaml", []byte(longNode), 0o644))
		}, args: []string{"run", "$D/node.yaml", "-q", "-o", "$D/out", "--pcap", strings.Repeat("n", 300) + ":1"}, status: 2,
			want: fmt.Sprintf("the file name would be %d bytes long; at most %d are allowed",
				len("default-")+300+len("-port1.pcap"), 255-16),
			after: func(t *testing.T, d, _ string) { require.NoDirExists(t, d+"/out") }},
		{name: "long-json-name", args: []string{"run", "$S", "-q", "--json", "$D/" + strings.Repeat("j", 250) + ".json"}, status: 2,
			want: fmt.Sprintf("the file name would be %d bytes long; at most %d are allowed", 255, 255-16)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			if tc.setup != nil {
				tc.setup(t, d)
			}
			fd, _ := os.ReadFile(d + "/fd")
			expand := strings.NewReplacer("$D", d, "$S", scenario, "$FD", string(fd)).Replace
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = expand(a)
			}
			for _, e := range tc.env {
				name, value, _ := strings.Cut(e, "=")
				t.Setenv(name, expand(value))
			}
			start := time.Now()
			status, stdout, stderr := fabricsim(t, args...)
			require.Equal(t, tc.status, status, "%v\nstderr: %s", args, stderr)
			require.Contains(t, stderr, expand(tc.want))
			if tc.status == 2 {
				require.Less(t, time.Since(start), 2*time.Second, "refused before simulating")
			}
			if tc.after != nil {
				tc.after(t, d, stdout)
			}
		})
	}
}

// fsizeChild is the variable that makes TestFileTooLargeKeepsTheTable's child process (this
// test binary run again) set RLIMIT_FSIZE to its value and run fabricsim with the arguments
// after "--".
const fsizeChild = "HOSTILE_OUT_FSIZE_CHILD"

// TestFileTooLargeKeepsTheTable (issue 23, point 5): under `ulimit -f`, a file too large to
// write stops the writing, but the table is printed first, the error names the file that
// failed, and the files written before it are kept whole.
func TestFileTooLargeKeepsTheTable(t *testing.T) {
	if limit := os.Getenv(fsizeChild); limit != "" {
		n, err := strconv.ParseUint(limit, 10, 64)
		require.NoError(t, err)
		require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}))
		args := os.Args[slices.Index(os.Args, "--")+1:]
		os.Exit(run(args, os.Stdout, os.Stderr))
	}
	scenario := writeFile(t, "small.yaml", small)
	full := filepath.Join(t.TempDir(), "full")
	status, _, stderr := fabricsim(t, "run", scenario, "-q", "-o", full)
	require.Equal(t, 0, status, stderr)
	size := func(name string) int64 {
		fi, err := os.Stat(filepath.Join(full, name))
		require.NoError(t, err)
		return fi.Size()
	}
	// The order WriteDirFiles writes in; the limit lets the first three through (and the
	// manifest, written before the run), and the first file after them larger than it fails.
	order := []string{results.FileJSON, results.FileFlows, results.FileSizes, results.FileRates, results.FileQueues,
		results.FileIngress, results.FilePauses, results.FileLinks, results.FileBuffers, results.FileQueueDepth,
		results.FileEvents, "table-a.txt", "table-b.txt"}
	limit := max(size(order[0]), size(order[1]), size(order[2]), size(results.FileManifest)) + 64 // wall_seconds may grow
	failing := ""
	for _, name := range order[3:] {
		if size(name) > limit {
			failing = name
			break
		}
	}
	require.NotEmpty(t, failing, "some file is larger than %d bytes", limit)

	dir := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(os.Args[0], "-test.run=^TestFileTooLargeKeepsTheTable$", "--", "run", scenario, "-q", "-o", dir)
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", fsizeChild, limit))
	var stdout, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "the child fails: %s", errOut.String())
	require.Equal(t, 1, ee.ExitCode(), errOut.String())
	require.True(t, strings.HasPrefix(stdout.String(), "small\n"), "the comparison table is printed before the files are written: %q", stdout.String())
	require.Contains(t, errOut.String(), fmt.Sprintf("writing %s: file too large", filepath.Join(dir, failing)))
	require.Contains(t, errOut.String(), "the files written before it are kept: results.json, flows.csv, sizes.csv")
	f, err := os.Open(filepath.Join(dir, results.FileJSON))
	require.NoError(t, err)
	defer f.Close()
	_, err = results.ReadJSON(f)
	require.NoError(t, err, "results.json is whole")
	require.NoFileExists(t, filepath.Join(dir, failing), "the failed file is not left half written")
	m, err := results.ReadManifest(dir)
	require.NoError(t, err)
	require.Contains(t, m.Files, failing, "the manifest lists what the run may have written: --force can clear it")
}

// TestHostileLockFile (issue 34, item 1): an output directory whose lock file is a symbolic
// link to a file, a hard link to one, a dangling link, a fifo or a directory: run -o, sweep
// -o and merge -o each exit 2 at once naming the lock file and what it is, write nothing
// into the directory, and leave what the lock leads to byte for byte, with its mtime (and a
// dangling link's target not created).
func TestHostileLockFile(t *testing.T) {
	scenario := writeFile(t, "small.yaml", small)
	shard := filepath.Join(t.TempDir(), "shard")
	status, _, stderr := fabricsim(t, "sweep", scenario, "-q", "--grid", "seed=1,2", "-o", shard)
	require.Equal(t, 0, status, stderr)
	kinds := []struct {
		name string
		make func(t *testing.T, lock, victim string)
		what string
	}{
		{"symlink", func(t *testing.T, lock, victim string) { require.NoError(t, os.Symlink(victim, lock)) },
			"is a symbolic link to $D/passwd, not a fabricsim lock file"},
		{"hard-link", func(t *testing.T, lock, victim string) { require.NoError(t, os.Link(victim, lock)) },
			"is a regular file with 2 links (a hard link to another file), not a fabricsim lock file"},
		{"dangling-symlink", func(t *testing.T, lock, _ string) {
			require.NoError(t, os.Symlink(filepath.Join(filepath.Dir(filepath.Dir(lock)), "created"), lock))
		}, "is a symbolic link to $D/created, not a fabricsim lock file"},
		{"fifo", func(t *testing.T, lock, _ string) { require.NoError(t, syscall.Mkfifo(lock, 0o644)) },
			"is a named pipe (fifo), not a fabricsim lock file"},
		{"directory", func(t *testing.T, lock, _ string) { require.NoError(t, os.Mkdir(lock, 0o755)) },
			"is a directory, not a fabricsim lock file"},
	}
	commands := map[string][]string{
		"run":   {"run", scenario, "-q", "-o", "$D/out"},
		"sweep": {"sweep", scenario, "-q", "--grid", "seed=1,2", "-o", "$D/out"},
		"merge": {"merge", shard, "-o", "$D/out"},
	}
	content := []byte("root:x:0:0:root:/root:/bin/bash\n")
	past := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, cmd := range []string{"run", "sweep", "merge"} {
		for _, k := range kinds {
			t.Run(cmd+"-"+k.name, func(t *testing.T) {
				d := t.TempDir()
				victim := filepath.Join(d, "passwd")
				require.NoError(t, os.WriteFile(victim, content, 0o644))
				require.NoError(t, os.Chtimes(victim, past, past))
				require.NoError(t, os.Mkdir(d+"/out", 0o755))
				k.make(t, filepath.Join(d, "out", results.FileLock), victim)
				args := slices.Clone(commands[cmd])
				for i := range args {
					args[i] = strings.ReplaceAll(args[i], "$D", d)
				}
				start := time.Now()
				status, out := fabricsimWithin(t, 10*time.Second, args...)
				require.Equal(t, 2, status, out)
				require.Contains(t, out, "-o "+d+"/out: "+results.FileLock+" "+strings.ReplaceAll(k.what, "$D", d))
				require.Less(t, time.Since(start), 2*time.Second, "refused before simulating")
				require.Equal(t, []string{}, append([]string{}, ls(t, d+"/out")...), "nothing written into the directory")
				data, err := os.ReadFile(victim)
				require.NoError(t, err)
				require.Equal(t, content, data, "the target is untouched")
				fi, err := os.Stat(victim)
				require.NoError(t, err)
				require.True(t, fi.ModTime().Equal(past), "the target's mtime is untouched")
				require.NoFileExists(t, filepath.Join(d, "created"), "a dangling link's target is not created")
				_, err = os.Lstat(filepath.Join(d, "out", results.FileLock))
				require.NoError(t, err, "the lock file's name is left for the user")
			})
		}
	}
}
