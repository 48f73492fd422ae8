package main

// The README's set-up and the figures it states, held to the code and to CI (issue 23,
// points 15 and 16).

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/scenarios"
)

func readRepoFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile("../../" + name)
	require.NoError(t, err)
	return string(data)
}

// TestREADMESetUpIsWhatCIRuns: the README's set-up block has two commands, the default run
// and ./test.sh; .ci/run runs ./test.sh --full; test.sh installs the tools the capture,
// report and figure tests need when they are missing, and ends by running go test on ./...,
// -short unless --full, with an explicit timeout either way.
func TestREADMESetUpIsWhatCIRuns(t *testing.T) {
	readme := readRepoFile(t, "README.md")
	i := strings.Index(readme, "## Set-up")
	require.GreaterOrEqual(t, i, 0, "README has a Set-up section")
	block := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(readme[i:])
	require.NotNil(t, block, "the Set-up section opens with a sh block")
	var cmds []string
	for _, line := range strings.Split(strings.TrimSpace(block[1]), "\n") {
		cmds = append(cmds, strings.TrimSpace(strings.SplitN(line, "#", 2)[0]))
	}
	require.Equal(t, []string{"go run ./cmd/fabricsim", "./test.sh"}, cmds)

	ci := readRepoFile(t, ".ci/run")
	require.Regexp(t, `(?m)^\./test\.sh --full$`, ci, ".ci/run runs the README's test command itself, the full suite")
	require.NotRegexp(t, `(?m)^go test \./\.\.\.`, ci, "and not a test command of its own")

	script := readRepoFile(t, "test.sh")
	for _, tool := range []string{"tshark", "chromium", "poppler-utils"} {
		require.Contains(t, script, "missing+=("+tool+")", "test.sh installs %s when missing", tool)
	}
	require.Regexp(t, `(?m)^go test "\$\{mode\[@\]\}" \./\.\.\. "\$@"\n*$`, script, "test.sh ends by running the tests")
	require.Contains(t, script, `mode=(-short -timeout 30m)`, "./test.sh: the quick suite, with a timeout for a busy machine")
	require.Contains(t, script, `mode=(-timeout 60m)`, "./test.sh --full: the whole suite, with a timeout")
	info, err := os.Stat("../../test.sh")
	require.NoError(t, err)
	require.NotZero(t, info.Mode()&0o111, "test.sh is executable")
}

// TestREADMEStatesTheLimitsAndFlags: the figures the README gives for the limits are the
// constants, and what it says of --pcap and merge is what the command says.
func TestREADMEStatesTheLimitsAndFlags(t *testing.T) {
	readme := strings.Join(strings.Fields(readRepoFile(t, "README.md")), " ")
	require.Contains(t, readme, "a file of at most "+mib(scenarios.MaxFileBytes)+" MB, "+thousands(scenarios.MaxFlows)+" flows, "+
		thousands(scenarios.MaxSeriesRows)+" time-series rows when `-o` keeps the series")
	require.Contains(t, readme, "ports count from 1")
	require.Contains(t, readme, "byte for byte but for each point's `wall_seconds`")
	_, out, _ := fabricsim(t, "run", "--help")
	require.Contains(t, out, "ports from 1", "--pcap's help says how ports are counted")
}

func mib(n int) string { return strconv.Itoa(n >> 20) }

// thousands writes n with commas between groups of three digits, as the README does.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
