package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/scenarios"
)

func TestUnknownCommandNamesTheCommands(t *testing.T) {
	status, stdout, stderr := fabricsim(t, "rnu")
	require.Equal(t, 2, status)
	require.Empty(t, stdout)
	require.Equal(t, `fabricsim: unknown command "rnu" (did you mean "run"?); the commands are bench, compare, completion, explain, list, merge, run, show, sweep, validate (a scenario file runs with: fabricsim run FILE)`+"\n", stderr)
	require.NotContains(t, stderr, "fabricsim fabricsim")
}

func TestHugeStarIsRefusedWithTheEstimate(t *testing.T) {
	path := writeFile(t, "big.yaml", `version: 1
name: big
topology: {preset: star, params: {hosts: 100000, link: {rate: 100Gbps, delay: 1us}}}
traffic:
  - flow: {src: h1, dst: h2, size: 1MB, transport: rocev2}
`)
	for _, cmd := range [][]string{{"validate", path}, {"run", path, "-q"}} {
		start := time.Now()
		status, stdout, stderr := fabricsim(t, cmd...)
		require.Less(t, time.Since(start), time.Second, cmd)
		require.Equal(t, 2, status, cmd)
		require.Empty(t, stdout)
		require.Contains(t, stderr, "big.yaml:3:42: topology.params.hosts: the run is too large: ")
		require.Contains(t, stderr, "Estimate: 100,001 nodes")
		require.Contains(t, stderr, "To shrink it: fewer hosts: a star of at most 14,142 hosts fits")
	}
}

func TestAFileTooLargeIsRefusedUnread(t *testing.T) {
	path := writeFile(t, "huge.yaml", "version: 1\n"+strings.Repeat("# a comment line\n", scenarios.MaxFileBytes/17+1))
	status, _, stderr := fabricsim(t, "validate", path)
	require.Equal(t, 2, status)
	require.Contains(t, stderr, "huge.yaml: the file is 9 MB; a scenario file is at most 8 MB: describe large traffic with a generator")
}

func TestAtMostAHundredProblemsArePrinted(t *testing.T) {
	var b strings.Builder
	b.WriteString("version: 1\nname: many\ntopology: {preset: star, params: {hosts: 4, link: {rate: 100Gbps}}}\ntraffic:\n")
	for i := range 250 {
		fmt.Fprintf(&b, "  - flow: {src: h1, dst: x%d, size: 1MB, transport: rocev2}\n", i)
	}
	status, _, stderr := fabricsim(t, "validate", writeFile(t, "many.yaml", b.String()))
	require.Equal(t, 2, status)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	require.Len(t, lines, 102)
	require.Equal(t, "... and 150 more problem(s) not shown", lines[100])
	require.True(t, strings.HasSuffix(lines[101], "many.yaml: 250 problem(s)"), lines[101])
}

func TestSlowStepsSayTheyAreRunning(t *testing.T) {
	defer func(d time.Duration) { slowEvery = d }(slowEvery)
	slowEvery = 20 * time.Millisecond
	var b lockedBuffer
	done := slowNotice(&b, "building x.yaml", false)
	// The notices come every slowEvery; on a loaded machine the ticker's goroutine may run
	// late, so wait for two of them (up to 10 s) rather than a fixed time.
	for deadline := time.Now().Add(10 * time.Second); b.count("fabricsim: building x.yaml: still running after ") < 2; {
		require.True(t, time.Now().Before(deadline), "fewer than 2 notices in 10 s: %q", b.String())
		time.Sleep(5 * time.Millisecond)
	}
	done()
	done()
	after := b.String()
	time.Sleep(50 * time.Millisecond)
	require.Equal(t, after, b.String(), "no line after done")

	var quiet lockedBuffer
	slowNotice(&quiet, "quiet", true)()
	require.Empty(t, quiet.String())
}

// lockedBuffer is a bytes.Buffer the notice's goroutine may write while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *lockedBuffer) count(s string) int { return strings.Count(l.String(), s) }

// TestADirectoryIsNoScenario: a directory that shadows a bundled name (an -o directory called
// irn) leaves the bundled scenario reachable; any other directory is refused as such.
func TestADirectoryIsNoScenario(t *testing.T) {
	t.Chdir(t.TempDir())
	require.NoError(t, os.Mkdir("irn", 0o755))
	require.NoError(t, os.Mkdir("results", 0o755))
	status, stdout, stderr := fabricsim(t, "validate", "irn")
	require.Equal(t, 0, status, stderr)
	require.Equal(t, "ok\n", stdout)
	status, _, stderr = fabricsim(t, "validate", "results")
	require.Equal(t, 2, status)
	require.Contains(t, stderr, "results: a directory, not a scenario file, and no bundled scenario of that name")
}
