package results

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLockDirNamesItsHolderAndIsReleased(t *testing.T) {
	dir := t.TempDir()
	unlock, err := LockDir(dir)
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(dir, FileLock))
	require.NoError(t, err)
	require.Equal(t, strconv.Itoa(os.Getpid())+"\n", string(data))
	// flock(2) locks belong to the open file: a second open, even in this process, is refused.
	_, err = LockDir(dir)
	var le *LockedError
	require.ErrorAs(t, err, &le)
	require.Equal(t, os.Getpid(), le.PID)
	unlock()
	require.NoFileExists(t, filepath.Join(dir, FileLock))
	// A lock file no process holds (its writer died) is taken over.
	require.NoError(t, os.WriteFile(filepath.Join(dir, FileLock), []byte("4194305\n"), 0o644))
	unlock, err = LockDir(dir)
	require.NoError(t, err)
	unlock()
}

func TestCheckFileName(t *testing.T) {
	for name, want := range map[string]string{
		"results.json":                     "",
		"rocev2-lossy-sw-port3.pcap":       "",
		"h\u00e9te-port1.pcap":             "",
		strings.Repeat("x", MaxFileName):   "",
		strings.Repeat("x", MaxFileName+1): "the file name would be 240 bytes long; at most 239 are allowed",
		"a\nb.pcap":                        `holds '\n'; allowed are printable characters other than / and \`,
		"a/b.pcap":                         `holds '/'`,
		"..":                               "is no file name",
		"\xff.pcap":                        "is not valid UTF-8",
	} {
		err := CheckFileName(name)
		if want == "" {
			require.NoError(t, err, "%q", name)
			continue
		}
		require.ErrorContains(t, err, want, "%q", name)
	}
}

func TestReadManifestRefusesNamesOutsideTheDirectory(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, WriteManifest(dir, "v", "s", []string{"b.csv", "a.json", "a.json"}))
	m, err := ReadManifest(dir)
	require.NoError(t, err)
	require.Equal(t, []string{"a.json", "b.csv"}, m.Files, "sorted, once each")
	// A manifest that would have --force remove a file elsewhere is no run's.
	require.NoError(t, os.WriteFile(filepath.Join(dir, FileManifest),
		[]byte(`{"written_by": "fabricsim run", "files": ["../thesis.tex"]}`), 0o644))
	_, err = ReadManifest(dir)
	require.ErrorContains(t, err, `lists "../thesis.tex", which is no file a run writes`)
	require.NoError(t, os.WriteFile(filepath.Join(dir, FileManifest), []byte(`{"files": ["x"]}`), 0o644))
	_, err = ReadManifest(dir)
	require.ErrorContains(t, err, "is not a fabricsim run's manifest")
}
