// Package infile reads the files a user names as input (scenario, workload and trace files,
// the results documents and manifests that merge, a resumed sweep and compare read): only
// regular files, refused at once otherwise, never with an open that blocks. A named pipe
// opened for reading blocks until a writer comes (open(2), fifo(7)), and a device or
// /proc file may never end, so the path is stat'ed first, then opened with O_NONBLOCK
// (which makes open of a fifo return at once and has no effect on a regular file) and the
// open file stat'ed again, so that a path swapped between the two is refused too.
package infile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// NotRegularError is the error of a path that is no regular file: Kind says what it is.
type NotRegularError struct {
	Path string
	Kind string // "a directory", "a named pipe (fifo)", "a device", "a socket", "a symbolic link", "not a regular file"
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.Path, e.Kind)
}

// TooLargeError is the error of a regular file of more than the limit's bytes.
type TooLargeError struct {
	Path  string
	Size  int64 // the bytes found: the file's size, or limit+1 when it grew while read
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is %d bytes, more than %d", e.Path, e.Size, e.Limit)
}

// Kind says in words what a file of mode m is.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (fifo)"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

// Read returns the contents of the regular file at path, of at most limit bytes. A path that
// is not a regular file is a *NotRegularError, one larger than limit a *TooLargeError, both
// found before anything is read; other errors are the os package's (fs.ErrNotExist, say).
func Read(path string, limit int64) ([]byte, error) {
	f, err := Open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// File is an input file opened by Open: reading it gives at most its limit's bytes, and a
// *TooLargeError rather than more (a file that grew after it was opened).
type File struct {
	f     *os.File
	path  string
	limit int64
	n     int64 // bytes read so far
}

// Open opens the regular file at path for reading, as Read does (refusing at once what is no
// regular file or is larger than limit) but without reading it: for a file read as a stream
// (a JSON decoder, a copy). Close it.
func Open(path string, limit int64) (*File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := check(path, fi, limit); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	ofi, err := f.Stat()
	if err == nil {
		err = check(path, ofi, limit)
	}
	if err == nil && !os.SameFile(fi, ofi) {
		err = fmt.Errorf("%s changed while it was opened", path)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &File{f: f, path: path, limit: limit}, nil
}

// Read reads from the file; past the limit it returns a *TooLargeError.
func (f *File) Read(p []byte) (int, error) {
	if f.n > f.limit {
		return 0, &TooLargeError{Path: f.path, Size: f.limit + 1, Limit: f.limit}
	}
	if rest := f.limit + 1 - f.n; int64(len(p)) > rest {
		p = p[:rest] // one byte past the limit tells a file that grew
	}
	n, err := f.f.Read(p)
	f.n += int64(n)
	if f.n > f.limit {
		return n - int(f.n-f.limit), &TooLargeError{Path: f.path, Size: f.limit + 1, Limit: f.limit}
	}
	return n, err
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

func check(path string, fi fs.FileInfo, limit int64) error {
	if !fi.Mode().IsRegular() {
		return &NotRegularError{Path: path, Kind: Kind(fi.Mode())}
	}
	if fi.Size() > limit {
		return &TooLargeError{Path: path, Size: fi.Size(), Limit: limit}
	}
	return nil
}

// IsNotRegular reports whether err is a *NotRegularError.
func IsNotRegular(err error) bool {
	var nr *NotRegularError
	return errors.As(err, &nr)
}

// IsRefused reports whether err is a refusal of this package's own (*NotRegularError,
// *TooLargeError): what the user gave is no input, as opposed to a failure to read it.
func IsRefused(err error) bool {
	var big *TooLargeError
	return IsNotRegular(err) || errors.As(err, &big)
}
