package results

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// LockedError is LockDir's refusal: another process holds the directory's lock.
type LockedError struct {
	Dir string
	PID int // the holder's process id, as its lock file says (0: unreadable)
}

func (e *LockedError) Error() string { return e.Dir + ": " + e.Reason() }

// Reason is the refusal without the directory's name: who holds the lock, and what to do.
func (e *LockedError) Reason() string {
	holder := "another fabricsim process"
	if e.PID > 0 {
		holder = fmt.Sprintf("another fabricsim process (pid %d)", e.PID)
	}
	return fmt.Sprintf("is being written by %s: wait for it to end, or give another directory", holder)
}

// LockDir takes dir's lock, for one process to write there at a time: an exclusive flock(2)
// on dir/.fabricsim.lock, created if needed, which then holds this process's id. A lock file
// whose process has died holds no flock (the kernel releases it with the process) and is
// taken over. When another process holds the lock, the error is a *LockedError naming its
// pid. unlock removes the file and releases the lock.
func LockDir(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, FileLock)
	for range 5 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("locking %s: %w", dir, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			data, _ := os.ReadFile(path)
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
				return nil, &LockedError{Dir: dir, PID: pid}
			}
			return nil, fmt.Errorf("locking %s: %w", dir, err)
		}
		// The holder before us may have removed the file after we opened it: then our flock
		// is on a file no one else will see, and we try again on the one at path.
		held, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 != nil || err2 != nil || !os.SameFile(held, now) {
			f.Close()
			continue
		}
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", dir, err)
		}
		if _, err := f.WriteString(strconv.Itoa(os.Getpid()) + "\n"); err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", dir, err)
		}
		return holdLock(func() {
			os.Remove(path)
			f.Close()
		}), nil
	}
	return nil, fmt.Errorf("locking %s: the lock file keeps being replaced", dir)
}
