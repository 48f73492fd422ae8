package main

import (
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

// signalChild is the variable that makes TestSignalWhileWriting's child process (this test
// binary run again) send itself its value's number of SIGTERMs as it starts writing its
// outputs, then run fabricsim with the arguments after "--".
const signalChild = "SIGNAL_WHILE_WRITING_CHILD"

// TestSignalWhileWriting (issue 34, point 5): SIGTERM (as Slurm, Kubernetes and timeout
// send) while the results are written no longer kills the process half way: one signal lets
// every file be written whole, says so, and exits 130; a second aborts at once, exit 130,
// and leaves no temporary file and no lock behind.
func TestSignalWhileWriting(t *testing.T) {
	if n := os.Getenv(signalChild); n != "" {
		count, err := strconv.Atoi(n)
		require.NoError(t, err)
		testHookWriting = func() {
			for range count {
				require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGTERM))
				time.Sleep(300 * time.Millisecond) // the handler takes it before the next
			}
		}
		args := os.Args[slices.Index(os.Args, "--")+1:]
		os.Exit(run(args, os.Stdout, os.Stderr))
	}
	scenario := writeFile(t, "small.yaml", small)
	child := func(t *testing.T, signals int, dir string) (int, string) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSignalWhileWriting$", "--", "run", scenario, "-q", "-o", dir)
		cmd.Env = append(os.Environ(), signalChild+"="+strconv.Itoa(signals))
		var errOut strings.Builder
		cmd.Stderr = &errOut
		err := cmd.Run()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "the child exits non-zero: %s", errOut.String())
		return ee.ExitCode(), errOut.String()
	}
	temporaries := func(t *testing.T, dir string) []string {
		names, err := filepath.Glob(filepath.Join(dir, ".*.tmp"))
		require.NoError(t, err)
		return names
	}

	t.Run("one", func(t *testing.T) {
		whole := filepath.Join(t.TempDir(), "whole")
		status, _, stderr := fabricsim(t, "run", scenario, "-q", "-o", whole)
		require.Equal(t, 0, status, stderr)
		dir := filepath.Join(t.TempDir(), "out")
		status, stderr = child(t, 1, dir)
		require.Equal(t, 130, status, stderr)
		require.Contains(t, stderr, "SIGTERM while writing the results: finishing them whole")
		require.Contains(t, stderr, "interrupted while writing the results: every file is whole")
		require.Equal(t, ls(t, whole), ls(t, dir), "every file is written")
		require.Empty(t, temporaries(t, dir))
		require.NoFileExists(t, filepath.Join(dir, results.FileLock))
		f, err := os.Open(filepath.Join(dir, results.FileJSON))
		require.NoError(t, err)
		defer f.Close()
		_, err = results.ReadJSON(f)
		require.NoError(t, err, "results.json is whole")
		report, err := os.ReadFile(filepath.Join(dir, results.FileReport))
		require.NoError(t, err)
		require.Contains(t, string(report), "</html>", "report.html is whole")
	})
	t.Run("two", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "out")
		status, stderr := child(t, 2, dir)
		require.Equal(t, 130, status, stderr)
		require.Contains(t, stderr, "SIGTERM again: aborted")
		require.Empty(t, temporaries(t, dir), "no temporary file is left")
		require.NoFileExists(t, filepath.Join(dir, results.FileLock), "the lock is released")
	})
}
