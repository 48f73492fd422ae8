package main

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBenchPrintsSpeedFigures runs bench on a short stretch of perf-leafspine and checks
// that it prints every figure, the calibration ratio when --calib is given, and profiles.
func TestBenchPrintsSpeedFigures(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
	status, stdout, stderr := fabricsim(t, "bench", "--stop", "20us", "--calib", "16",
		"--cpuprofile", cpu, "--memprofile", mem)
	require.Equal(t, 0, status, stderr)
	for _, want := range []string{
		`scenario: +perf-leafspine \(1 variant\(s\), 2e-05 s simulated, workers 1\)`,
		`events: +[0-9]+ \([0-9.]+ M/s\)`,
		`packet hops: +[1-9][0-9]* \([0-9.]+ M/s, [0-9.]+ M per cpu-second\)`,
		`events/hop: +[0-9.]+`,
		`allocs/hop: +[0-9.]+`,
		`peak RSS: +[0-9.]+ MiB`,
		`hops/s / calib: +[0-9.]+ \(per cpu-second: [0-9.]+; calib 16.000 M ops/s\)`,
	} {
		require.Regexp(t, regexp.MustCompile(want), stdout)
	}
	require.FileExists(t, cpu)
	require.FileExists(t, mem)

	status, _, stderr = fabricsim(t, "bench", "no-such-scenario")
	require.Equal(t, 2, status)
	require.Contains(t, stderr, "perf-leafspine", "the error lists the bundled scenarios")
	status, _, _ = fabricsim(t, "bench", "--calib", "-1", "--stop", "1us")
	require.Equal(t, 2, status)
}
