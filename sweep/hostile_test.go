package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMergeRefusesPointFilesOutsidePoints (issue 34, item 1): a sweep.json whose point names
// a file outside points/ ("../../x") or a name with a '/' is refused, and merge neither reads
// nor writes there.
func TestMergeRefusesPointFilesOutsidePoints(t *testing.T) {
	p := plan(t, tiny, nil, "seed=1,2")
	root := t.TempDir()
	src := filepath.Join(root, "src")
	require.NoError(t, Run(p, Options{Dir: src}))
	data, err := os.ReadFile(filepath.Join(src, FileJSON))
	require.NoError(t, err)
	name := p.Points[0].Name
	for _, tc := range []struct{ from, to string }{
		{`"file": "points/` + name + `.json"`, `"file": "../../escaped.json"`},
		{`"name": "` + name + `"`, `"name": "../` + name + `"`},
	} {
		require.Contains(t, string(data), tc.from)
		require.NoError(t, os.WriteFile(filepath.Join(src, FileJSON), []byte(strings.Replace(string(data), tc.from, tc.to, 1)), 0o644))
		err := Merge([]string{src}, filepath.Join(root, "out"), false)
		var ie *InputError
		require.ErrorAs(t, err, &ie)
		require.ErrorContains(t, err, "sweep.json: points.0 is named")
		require.ErrorContains(t, err, "a point's file is points/NAME.json")
		require.NoFileExists(t, filepath.Join(root, "escaped.json"))
		require.NoDirExists(t, filepath.Join(root, "out"))
	}
}

// TestSweepRefusesPointsThroughALink (issue 34, item 1): an output directory whose points/
// is a symbolic link to another directory is refused, --force or not: nothing there is
// listed as foreign, removed or written.
func TestSweepRefusesPointsThroughALink(t *testing.T) {
	p := plan(t, tiny, nil, "seed=1,2")
	dir, elsewhere := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(elsewhere, "passwd"), []byte("root\n"), 0o644))
	require.NoError(t, os.Symlink(elsewhere, filepath.Join(dir, DirPoints)))
	for _, force := range []bool{false, true} {
		err := Run(p, Options{Dir: dir, Force: force})
		var ie *InputError
		require.ErrorAs(t, err, &ie)
		require.ErrorContains(t, err, filepath.Join(dir, DirPoints)+" is a symbolic link (to "+elsewhere+")")
		entries, err := os.ReadDir(elsewhere)
		require.NoError(t, err)
		require.Len(t, entries, 1, "force %v: only the file that was there", force)
	}
	require.NoError(t, os.Remove(filepath.Join(dir, DirPoints)))
	require.NoError(t, os.Symlink(elsewhere, filepath.Join(dir, DirPlots)))
	err := Run(p, Options{Dir: dir})
	require.ErrorContains(t, err, filepath.Join(dir, DirPlots)+" is a symbolic link")
	require.NoDirExists(t, filepath.Join(dir, DirPoints), "refused before anything is run")
}
