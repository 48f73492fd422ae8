package results

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fabricsim/fabricsim/internal/infile"
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

// BadLockError is LockDir's refusal of a lock file that no fabricsim run made: a symbolic
// link (dangling or not), a hard link to another file, a directory, a fifo, a device or a
// socket at its name. LockDir neither writes through it nor removes it: the user does.
type BadLockError struct {
	Path string
	What string // what is there: "a symbolic link to /etc/passwd", "a regular file with 2 links", ...
}

func (e *BadLockError) Error() string { return e.Path + ": " + e.Reason() }

// Reason is the refusal without the path's name.
func (e *BadLockError) Reason() string {
	return fmt.Sprintf("is %s, not a fabricsim lock file (a regular file of one link): fabricsim neither writes through it nor removes it; remove it yourself, or give another directory", e.What)
}

// lockFlags open a new lock file: created here or not at all (O_EXCL), never through a
// symbolic link (O_NOFOLLOW; O_EXCL alone already fails on one, open(2)).
const lockFlags = os.O_RDWR | os.O_CREATE | os.O_EXCL | syscall.O_NOFOLLOW | syscall.O_CLOEXEC

// inspectFlags open an existing lock file to judge it without writing: read only, never
// through a link, and without blocking on a fifo (fifo(7)).
const inspectFlags = os.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_NONBLOCK | syscall.O_CLOEXEC

// maxLockBytes is the most LockDir reads of a lock file: a process id and a newline are at
// most 11 bytes (Linux's pid_max is at most 2^22, proc(5)); a larger file is not ours.
const maxLockBytes = 64

// lockTries is how many times LockDir tries before it says the lock file keeps being
// replaced: several runs that find one stale lock at once each remove and create it in turn
// (TestLockDirStaleTakeoverHasOneWinner: eight at once, on a loaded machine).
const lockTries = 30

// LockDir takes dir's lock, for one process to write there at a time: an exclusive flock(2)
// on dir/.fabricsim.lock, which holds this process's id. The file is created by this
// process (O_CREAT|O_EXCL|O_NOFOLLOW, mode 0644) and never written otherwise: an existing
// one is opened read-only without following a link (O_NOFOLLOW|O_NONBLOCK) and judged by
// fstat: anything but a regular file of one link is refused (*BadLockError) and left as it
// is. A regular one whose flock another process holds is a live run's (*LockedError naming
// its pid); one whose process has died holds no flock (the kernel releases it with the
// process) and is taken over: removed (while this process holds its flock, so that of two
// runs that find it stale only one removes it) and created again. unlock removes the file
// (if it is still the one this process created) and releases the lock.
func LockDir(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, FileLock)
	for try := range lockTries {
		if try > 0 {
			// Runs that found one stale lock together take turns: each round one of them
			// wins, and on a loaded machine a round may take a while.
			time.Sleep(time.Duration(try) * time.Millisecond)
		}
		f, err := os.OpenFile(path, lockFlags, 0o644)
		if errors.Is(err, os.ErrExist) {
			err := takeStale(dir, path)
			var le *LockedError
			if errors.As(err, &le) && try < lockTries-1 && le.PID > 0 && errors.Is(syscall.Kill(le.PID, 0), syscall.ESRCH) {
				// Held, but its pid names no process here: another run is taking a dead
				// one's lock over at this moment (or the holder runs in another pid
				// namespace, sharing the volume: then, after these tries, it is refused).
				time.Sleep(5 * time.Millisecond)
				continue
			}
			if err != nil {
				return nil, err
			}
			continue // removed: create it again (or find another run's, made meanwhile)
		}
		if err != nil {
			return nil, fmt.Errorf("locking %s: %w", dir, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			// Another run found the new, empty file stale between our create and flock, and
			// holds it: it removes it, and we try again.
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				continue
			}
			return nil, fmt.Errorf("locking %s: %w", dir, err)
		}
		// Another run may have removed the file after we created it and before our flock
		// (finding it stale): then our flock is on a file no one else will see, and we try
		// again on the one at path.
		if !samePath(f, path) {
			f.Close()
			continue
		}
		if _, err := f.WriteString(strconv.Itoa(os.Getpid()) + "\n"); err != nil {
			os.Remove(path)
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", dir, err)
		}
		return holdLock(func() {
			if samePath(f, path) {
				os.Remove(path)
			}
			f.Close()
		}), nil
	}
	return nil, fmt.Errorf("locking %s: the lock file keeps being replaced", dir)
}

// takeStale judges the existing lock file at path: an error when it is no lock file of ours
// (*BadLockError) or a live run holds it (*LockedError); else it removes the stale file
// (nil: the caller creates it again). Nothing is written to it.
func takeStale(dir, path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil // removed meanwhile: create it again
	}
	if err != nil {
		return fmt.Errorf("locking %s: %w", dir, err)
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		target, _ := os.Readlink(path)
		return &BadLockError{Path: path, What: "a symbolic link to " + target}
	}
	if !fi.Mode().IsRegular() {
		return &BadLockError{Path: path, What: infile.Kind(fi.Mode())}
	}
	f, err := os.OpenFile(path, inspectFlags, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if errors.Is(err, syscall.ELOOP) { // swapped for a link since the Lstat
		return &BadLockError{Path: path, What: "a symbolic link"}
	}
	if err != nil {
		return fmt.Errorf("locking %s: %w", dir, err)
	}
	defer f.Close()
	ofi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("locking %s: %w", dir, err)
	}
	if !ofi.Mode().IsRegular() {
		return &BadLockError{Path: path, What: infile.Kind(ofi.Mode())}
	}
	st, ok := ofi.Sys().(*syscall.Stat_t)
	if ok && st.Nlink == 0 {
		return nil // removed since it was opened (another run took it over): try again
	}
	if ok && st.Nlink != 1 {
		return &BadLockError{Path: path, What: fmt.Sprintf("a regular file with %d links (a hard link to another file)", st.Nlink)}
	}
	if ofi.Size() > maxLockBytes {
		return &BadLockError{Path: path, What: fmt.Sprintf("a regular file of %d bytes (a lock file holds a process id)", ofi.Size())}
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("locking %s: %w", dir, err)
		}
		if !samePath(f, path) {
			return nil // its holder released it meanwhile: try again
		}
		data, _ := io.ReadAll(io.LimitReader(f, maxLockBytes))
		pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
		return &LockedError{Dir: dir, PID: pid}
	}
	// Stale, and ours while we hold its flock: remove it if it is still the file at path
	// (another run may have taken it over already and made a new one).
	if samePath(f, path) {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("locking %s: taking over a stale lock: %w", dir, err)
		}
	}
	return nil
}

// LockRefusal is the reason, without the directory's name, when err is LockDir's refusal
// (*LockedError, *BadLockError): what a command says with exit status 2.
func LockRefusal(err error) (reason string, ok bool) {
	var le *LockedError
	var be *BadLockError
	switch {
	case errors.As(err, &le):
		return le.Reason(), true
	case errors.As(err, &be):
		return FileLock + " " + be.Reason(), true
	}
	return "", false
}

// samePath reports whether the open file f is still the file at path (not a link to it).
func samePath(f *os.File, path string) bool {
	held, err1 := f.Stat()
	now, err2 := os.Lstat(path)
	return err1 == nil && err2 == nil && os.SameFile(held, now)
}
