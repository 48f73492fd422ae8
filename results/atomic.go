package results

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/fabricsim/fabricsim/internal/infile"
)

// WriteFileAtomic fills path with write, buffered, by way of a temporary file in the same
// directory that is renamed over path only once it is complete: a reader, or a run stopped
// half way, never sees a partial file.
func WriteFileAtomic(path string, write func(io.Writer) error) (err error) {
	f, err := CreateAtomic(path)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Abort()
		}
	}()
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		return fmt.Errorf("writing %s: %w", path, bare(err))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", path, bare(err))
	}
	return f.Commit()
}

// WritePath fills path with write as an output the user named (--json FILE): a new or
// regular file by way of WriteFileAtomic; through a symbolic link, the regular file it leads
// to (the link stays); an existing file that is not a regular one (a device such as
// /dev/null, a fifo, a socket, a pipe as /dev/fd/N) is opened and written through, never
// replaced, and an error writing it (ENOSPC on /dev/full) is returned naming path. A
// directory, and a link to nothing, are errors.
func WritePath(path string, write func(io.Writer) error) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if _, lerr := os.Lstat(path); lerr == nil {
			return fmt.Errorf("writing %s: a symbolic link to a file that does not exist", path)
		}
		return WriteFileAtomic(path, write)
	case err != nil:
		return fmt.Errorf("writing %s: %w", path, bare(err))
	case fi.IsDir():
		return fmt.Errorf("writing %s: is a directory", path)
	case fi.Mode().IsRegular():
		if target, err := filepath.EvalSymlinks(path); err == nil {
			return WriteFileAtomic(target, write)
		}
		// A link the kernel follows but no path names (/proc/self/fd/N): write through.
	}
	flag := os.O_WRONLY
	if fi.Mode().IsRegular() {
		flag |= os.O_TRUNC
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, bare(err))
	}
	bw := bufio.NewWriter(f)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, bare(err))
	}
	return nil
}

// bare is err without the file name an *fs.PathError adds (the caller names the file,
// not its temporary name): "file too large" rather than "write out/.flows.csv.1234.tmp: file
// too large".
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// AtomicFile is a file being written under a temporary name, to appear under its own name
// only when Commit is called.
type AtomicFile struct {
	*os.File
	path string
}

// CreateAtomic starts writing path: a temporary file beside it, ".NAME.<digits>.tmp", created
// new by this process (os.CreateTemp: O_CREATE|O_EXCL, mode 0600, so a name that exists, a
// symbolic link among them, is never opened or followed: open(2)), to Commit or Abort.
func CreateAtomic(path string) (*AtomicFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	addTemporary(f.Name())
	return &AtomicFile{File: f, path: path}, nil
}

// Commit gives the temporary file its mode (on the open file: fchmod, which follows no
// name), closes it and renames it to its path, which it replaces (a link there included:
// rename(2) replaces the name, never what a link leads to).
func (f *AtomicFile) Commit() error {
	defer dropTemporary(f.Name())
	if err := f.Chmod(0o644); err != nil {
		f.Abort()
		return fmt.Errorf("results: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("results: %w", err)
	}
	if err := os.Rename(f.Name(), f.path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

// Abort closes and removes the temporary file.
func (f *AtomicFile) Abort() {
	defer dropTemporary(f.Name())
	f.Close()
	os.Remove(f.Name())
}

// MkdirIn creates the directory name inside dir (an output directory's points/ or plots/),
// or takes the one there if it is a directory itself (CheckSubdir).
func MkdirIn(dir, name string) error {
	err := os.Mkdir(filepath.Join(dir, name), 0o755)
	if err == nil || !errors.Is(err, os.ErrExist) {
		return err
	}
	return CheckSubdir(dir, name)
}

// CheckSubdir refuses what is at dir/name, a directory fabricsim writes into, unless it is
// a directory itself or nothing: a symbolic link there (to /etc, say) is refused, as is any
// other file, so that nothing is written, listed or removed through a link this process did
// not make.
func CheckSubdir(dir, name string) error {
	path := filepath.Join(dir, name)
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	case fi.Mode()&os.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		return fmt.Errorf("%s is a symbolic link (to %s): fabricsim writes into a directory of its own there, never through a link; remove the link, or give another directory", path, target)
	case !fi.IsDir():
		return fmt.Errorf("%s is %s, not a directory: remove it, or give another directory", path, infile.Kind(fi.Mode()))
	}
	return nil
}
