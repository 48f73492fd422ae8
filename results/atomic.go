package results

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
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
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Commit()
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
	return &AtomicFile{File: f, path: path}, nil
}

// Commit closes the temporary file and renames it to its path, which it replaces.
func (f *AtomicFile) Commit() error {
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
	f.Close()
	os.Remove(f.Name())
}

// outputFile matches the names of the files a run writes into an output directory (and the
// temporary files it writes them through).
var outputFile = regexp.MustCompile(`^\.?(results\.json|flows\.csv|sizes\.csv|summary\.md|report\.html|rates\.csv|queues\.csv|ingress\.csv|pauses\.csv|table-.+\.txt|(fct-cdf|slowdown-by-size|(throughput|rate|cwnd|queues|ingress|pfc|rates)-.+)\.(png|svg)|.+\.pcap)(\..*\.tmp)?$`)

// OutputFiles lists the files in dir that a fabricsim run writes (none when dir does not
// exist): an earlier run's results, which a new run must not mix with its own.
func OutputFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && outputFile.MatchString(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out, nil
}
