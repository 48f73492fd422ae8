package sweep

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/fabricsim/fabricsim/results"
)

// sweepEntries are the names a sweep writes at the top of its directory.
var sweepEntries = []string{DirPoints, FileCSV, FileJSON, DirPlots, FileHTML}

// checkDir refuses an output directory that is not a new or empty one or a sweep's: a run's
// (its manifest.json), one holding anything else ("/", a home directory, /etc through a
// link: "is not empty"), and, unless force, one holding another sweep than id (its
// sweep.json says which: the sweep's points and sweep.csv would be replaced).
func checkDir(dir, id string, force bool) error {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return inputf("-o %s: is a file, not a directory", dir)
	} else if errors.Is(err, syscall.ENOTDIR) {
		return inputf("-o %s: a file is in the way: not a directory", dir)
	}
	names, exists, err := results.DirEntries(dir)
	if err != nil {
		return inputf("-o %s: %v", dir, err)
	}
	if !exists || len(names) == 0 {
		return nil
	}
	if slices.Contains(names, results.FileManifest) {
		return inputf("-o %s: holds a fabricsim run's results (%s): a sweep writes a directory of its own; give another directory",
			dir, results.FileManifest)
	}
	var foreign []string
	for _, n := range names {
		if !slices.Contains(sweepEntries, n) && !isTemp(n, sweepEntries) {
			foreign = append(foreign, fmt.Sprintf("%q", n))
		}
	}
	if len(foreign) > 0 {
		if len(foreign) > 3 {
			foreign = append(foreign[:3:3], fmt.Sprintf("and %d more", len(foreign)-3))
		}
		return inputf("-o %s: is not empty (it holds %s) and is not a fabricsim sweep's directory: give a new or empty directory",
			dir, strings.Join(foreign, ", "))
	}
	if !slices.Contains(names, FileJSON) {
		return nil // an interrupted sweep's points: checkForeign and hasResults judge them
	}
	m, err := ReadManifest(dir)
	if err != nil {
		return err
	}
	if m.Sweep != id && !force {
		return inputf("-o %s: holds another sweep (%s; %s): its points and %s would be replaced; give another directory, or --force to replace them",
			dir, m.describe(), m.Version, FileCSV)
	}
	return nil
}

// isTemp reports whether name is the temporary file of one of names (".NAME.*.tmp").
func isTemp(name string, names []string) bool {
	for _, n := range names {
		if strings.HasPrefix(name, "."+n+".") && strings.HasSuffix(name, ".tmp") {
			return true
		}
	}
	return false
}

// lockDir checks dir (checkDir), creates it, takes its lock (results.LockDir), for one
// sweep or merge to write there at a time, checks it again and creates its points/.
func lockDir(dir, id string, force bool) (unlock func(), err error) {
	if err := checkDir(dir, id, force); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, inputf("-o %s: %v", dir, err)
	}
	unlock, err = results.LockDir(dir)
	if reason, ok := results.LockRefusal(err); ok {
		return nil, inputf("-o %s: %s", dir, reason)
	}
	if err != nil {
		return nil, err
	}
	if err := checkDir(dir, id, force); err != nil {
		unlock()
		return nil, err
	}
	if err := results.CheckSubdir(dir, DirPlots); err != nil {
		unlock()
		return nil, inputf("-o %s: %v", dir, err)
	}
	if err := results.MkdirIn(dir, DirPoints); err != nil {
		unlock()
		return nil, inputf("-o %s: %v", dir, err)
	}
	return unlock, nil
}
