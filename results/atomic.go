package results

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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

// CreateAtomic starts writing path: a temporary file beside it, to Commit or Abort.
func CreateAtomic(path string) (*AtomicFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	addTemporary(f.Name())
	return &AtomicFile{File: f, path: path}, nil
}

// Commit closes the temporary file and renames it to its path, which it replaces.
func (f *AtomicFile) Commit() error {
	defer dropTemporary(f.Name())
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("results: %w", err)
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
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
