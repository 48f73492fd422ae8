package results

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// victimFile is a file outside the output directory, mode 0600, with its content: what a
// link in the output directory leads to, which must stay as it is.
func victimFile(t *testing.T) (path string, content []byte) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "shadow")
	content = []byte("root:$6$secret:19000::::::\n")
	require.NoError(t, os.WriteFile(path, content, 0o600))
	return path, content
}

// requireUntouched checks that path still holds content with mode 0600.
func requireUntouched(t *testing.T, path string, content []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, content, data, "%s is untouched", path)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "%s keeps its mode", path)
}

// TestWriteFileAtomicReplacesALinkNotItsTarget: an output file that is a symbolic link (or a
// hard link) to a file elsewhere is replaced by the new file; what it led to is untouched.
func TestWriteFileAtomicReplacesALinkNotItsTarget(t *testing.T) {
	victim, content := victimFile(t)
	dir := t.TempDir()
	require.NoError(t, os.Symlink(victim, filepath.Join(dir, "results.json")))
	require.NoError(t, os.Link(victim, filepath.Join(dir, "flows.csv")))
	for _, name := range []string{"results.json", "flows.csv"} {
		require.NoError(t, WriteFileAtomic(filepath.Join(dir, name), func(w io.Writer) error {
			_, err := io.WriteString(w, "new\n")
			return err
		}))
		fi, err := os.Lstat(filepath.Join(dir, name))
		require.NoError(t, err)
		require.True(t, fi.Mode().IsRegular(), "%s is a file of its own now", name)
		require.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
	}
	requireUntouched(t, victim, content)
}

// TestCommitSetsTheModeOnItsOwnFile: Commit gives the temporary file its mode through the
// open file (fchmod), so a link put at the temporary file's name does not carry the chmod to
// the file it leads to (chmod(2) on a name follows links).
func TestCommitSetsTheModeOnItsOwnFile(t *testing.T) {
	victim, content := victimFile(t)
	dir := t.TempDir()
	f, err := CreateAtomic(filepath.Join(dir, "summary.md"))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(filepath.Base(f.Name()), ".summary.md.") && strings.HasSuffix(f.Name(), ".tmp"), f.Name())
	fi, err := os.Lstat(f.Name())
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "private while it is written")
	require.NoError(t, os.Remove(f.Name()))
	require.NoError(t, os.Symlink(victim, f.Name()))
	require.NoError(t, f.Commit())
	requireUntouched(t, victim, content)
}

// TestCheckSubdirRefusesALink: points/ or plots/ that is a symbolic link to a directory
// elsewhere, or a file, is refused naming it; MkdirIn neither creates nor lists anything
// through it; a real directory and nothing at all are taken.
func TestCheckSubdirRefusesALink(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	require.NoError(t, os.Symlink(elsewhere, filepath.Join(dir, "points")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "plots"), 0o644))
	err := MkdirIn(dir, "points")
	require.ErrorContains(t, err, filepath.Join(dir, "points")+" is a symbolic link (to "+elsewhere+")")
	require.ErrorContains(t, MkdirIn(dir, "plots"), filepath.Join(dir, "plots")+" is a named pipe (fifo), not a directory")
	require.ErrorContains(t, CheckSubdir(dir, "plots"), "is a named pipe (fifo), not a directory")
	entries, err := os.ReadDir(elsewhere)
	require.NoError(t, err)
	require.Empty(t, entries)
	require.NoError(t, CheckSubdir(dir, "new"))
	require.NoError(t, MkdirIn(dir, "new"))
	require.NoError(t, MkdirIn(dir, "new"), "an existing directory is taken")
	require.DirExists(t, filepath.Join(dir, "new"))
}
