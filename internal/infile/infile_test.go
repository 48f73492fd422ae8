package infile

import (
	"errors"
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
