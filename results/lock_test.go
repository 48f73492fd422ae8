package results

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestLockDirNeverWritesThroughWhatItDidNotMake (issue 34, item 1): a lock file that is a
// symbolic link to a file, a hard link, a dangling link, a fifo or a directory is refused
// (*BadLockError naming what it is), at once, and whatever it leads to is left byte for
// byte, with its modification time, and nothing is created.
func TestLockDirNeverWritesThroughWhatItDidNotMake(t *testing.T) {
	victim := filepath.Join(t.TempDir(), "passwd")
	content := []byte("root:x:0:0:root:/root:/bin/bash\n")
	require.NoError(t, os.WriteFile(victim, content, 0o644))
	past := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	require.NoError(t, os.Chtimes(victim, past, past))
	for _, tc := range []struct {
		name  string
		make  func(t *testing.T, lock string)
		what  string
		after func(t *testing.T, lock string)
	}{
		{"symlink", func(t *testing.T, lock string) { require.NoError(t, os.Symlink(victim, lock)) },
			"is a symbolic link to " + victim, nil},
		{"hard-link", func(t *testing.T, lock string) { require.NoError(t, os.Link(victim, lock)) },
			"is a regular file with 2 links (a hard link to another file)", nil},
		{"dangling-symlink", func(t *testing.T, lock string) {
			require.NoError(t, os.Symlink(filepath.Join(filepath.Dir(victim), "created"), lock))
		}, "is a symbolic link to ", func(t *testing.T, lock string) {
			require.NoFileExists(t, filepath.Join(filepath.Dir(victim), "created"), "the link's target is not created")
		}},
		{"fifo", func(t *testing.T, lock string) { require.NoError(t, syscall.Mkfifo(lock, 0o644)) },
			"is a named pipe (fifo)", nil},
		{"directory", func(t *testing.T, lock string) { require.NoError(t, os.Mkdir(lock, 0o755)) },
			"is a directory", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			lock := filepath.Join(dir, FileLock)
			tc.make(t, lock)
			before, err := os.Lstat(lock)
			require.NoError(t, err)
			done := make(chan error, 1)
			go func() {
				unlock, err := LockDir(dir)
				if err == nil {
					unlock()
				}
				done <- err
			}()
			select {
			case err = <-done:
			case <-time.After(2 * time.Second):
				t.Fatal("LockDir blocked")
			}
			var be *BadLockError
			require.ErrorAs(t, err, &be)
			require.Contains(t, err.Error(), lock+": "+tc.what)
			reason, ok := LockRefusal(err)
			require.True(t, ok)
			require.Contains(t, reason, FileLock+" "+tc.what)
			after, err := os.Lstat(lock)
			require.NoError(t, err, "the lock file's name is left as it was")
			require.Equal(t, before.Mode(), after.Mode())
			data, err := os.ReadFile(victim)
			require.NoError(t, err)
			require.Equal(t, content, data, "the target is untouched")
			fi, err := os.Stat(victim)
			require.NoError(t, err)
			require.True(t, fi.ModTime().Equal(past), "the target's mtime is untouched: %v", fi.ModTime())
			if tc.after != nil {
				tc.after(t, lock)
			}
		})
	}
}

// TestLockDirCreatesItsFileExclusively: the lock file is one LockDir created (one link, mode
// 0644 or tighter, holding the pid), and unlock removes only that file: one put in its place
// meanwhile stays.
func TestLockDirCreatesItsFileExclusively(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, FileLock)
	unlock, err := LockDir(dir)
	require.NoError(t, err)
	fi, err := os.Lstat(lock)
	require.NoError(t, err)
	require.True(t, fi.Mode().IsRegular())
	require.Zero(t, fi.Mode().Perm()&^0o644, "mode %v", fi.Mode().Perm())
	require.EqualValues(t, 1, fi.Sys().(*syscall.Stat_t).Nlink)
	require.NoError(t, os.Remove(lock))
	require.NoError(t, os.WriteFile(lock, []byte("someone else's\n"), 0o600))
	unlock()
	data, err := os.ReadFile(lock)
	require.NoError(t, err, "unlock leaves a file it did not create")
	require.Equal(t, "someone else's\n", string(data))
}

// TestLockDirStaleTakeoverHasOneWinner: a stale lock file (its process is dead, no flock on
// it) found by eight LockDir calls at once is taken over by exactly one; the others are
// refused naming the winner, this process.
func TestLockDirStaleTakeoverHasOneWinner(t *testing.T) {
	for round := range 20 {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, FileLock), []byte("4194305\n"), 0o644)) // above Linux's pid_max: dead
		const n = 8
		var wg sync.WaitGroup
		errs := make([]error, n)
		unlocks := make([]func(), n)
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				unlocks[i], errs[i] = LockDir(dir)
			}()
		}
		close(start)
		wg.Wait()
		won := 0
		for i, err := range errs {
			var le *LockedError
			switch {
			case err == nil:
				won++
			case errors.As(err, &le):
				require.Contains(t, []int{0, os.Getpid()}, le.PID, "round %d", round)
			default:
				t.Fatalf("round %d, call %d: %v", round, i, err)
			}
		}
		require.Equal(t, 1, won, "round %d: exactly one takes the stale lock over", round)
		data, err := os.ReadFile(filepath.Join(dir, FileLock))
		require.NoError(t, err)
		require.Equal(t, strconv.Itoa(os.Getpid())+"\n", string(data))
		for _, u := range unlocks {
			if u != nil {
				u()
			}
		}
		require.NoFileExists(t, filepath.Join(dir, FileLock))
	}
}

// TestLockDirHeldUnderAnotherPidIsRefused: a lock held (flock) by a process whose pid names
// no process here (a run in another pid namespace on a shared volume) is refused naming that
// pid, after a few short tries: it is no stale lock.
func TestLockDirHeldUnderAnotherPidIsRefused(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, FileLock)
	require.NoError(t, os.WriteFile(lock, []byte("4194305\n"), 0o644)) // above Linux's pid_max
	f, err := os.Open(lock)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))
	_, err = LockDir(dir)
	var le *LockedError
	require.ErrorAs(t, err, &le)
	require.Equal(t, 4194305, le.PID)
	data, err := os.ReadFile(lock)
	require.NoError(t, err)
	require.Equal(t, "4194305\n", string(data), "left as it was")
}
