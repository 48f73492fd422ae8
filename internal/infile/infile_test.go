package infile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestReadRefusesWhatIsNoRegularFileAtOnce: a fifo with no writer, a device and a directory
// are each refused, within a second (a blocking open of the fifo would wait forever), naming
// what the path is; a regular file is read up to the limit and refused past it.
func TestReadRefusesWhatIsNoRegularFileAtOnce(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "f")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	for path, kind := range map[string]string{fifo: "a named pipe (fifo)", "/dev/null": "a device", dir: "a directory"} {
		done := make(chan error, 1)
		go func() { _, err := Read(path, 100); done <- err }()
		select {
		case err := <-done:
			var nr *NotRegularError
			require.True(t, errors.As(err, &nr), "%s: %v", path, err)
			require.Equal(t, kind, nr.Kind)
			require.EqualError(t, err, path+" is "+kind+", not a regular file")
		case <-time.After(time.Second):
			t.Fatalf("Read(%s) blocked", path)
		}
	}
	file := filepath.Join(dir, "r")
	require.NoError(t, os.WriteFile(file, []byte("0123456789"), 0o644))
	data, err := Read(file, 10)
	require.NoError(t, err)
	require.Equal(t, "0123456789", string(data))
	_, err = Read(file, 9)
	var big *TooLargeError
	require.ErrorAs(t, err, &big)
	require.Equal(t, int64(10), big.Size)
	_, err = Read(filepath.Join(dir, "none"), 10)
	require.ErrorIs(t, err, fs.ErrNotExist)
}

// TestOpenStopsAtTheLimit: a file that grows after it is opened (within the limit then) gives
// its first limit bytes and then a *TooLargeError naming it, never the rest.
func TestOpenStopsAtTheLimit(t *testing.T) {
	file := filepath.Join(t.TempDir(), "grows")
	require.NoError(t, os.WriteFile(file, []byte("0123456789"), 0o644))
	f, err := Open(file, 12)
	require.NoError(t, err)
	defer f.Close()
	w, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = w.WriteString("abcdef") // 16 bytes now, 4 past the limit
	require.NoError(t, err)
	require.NoError(t, w.Close())
	data, err := io.ReadAll(f)
	var big *TooLargeError
	require.ErrorAs(t, err, &big)
	require.Equal(t, "0123456789ab", string(data), "the limit's bytes and not one more")
	require.EqualError(t, err, file+" is 13 bytes, more than 12")
}
