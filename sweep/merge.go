package sweep

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fabricsim/fabricsim/internal/infile"
	"github.com/fabricsim/fabricsim/results"
)

// Merge combines the output directories of a sweep's shards (or of any runs of one sweep)
// into out, to hold exactly what the whole sweep run in one place writes: every point's
// document copied byte for byte from the first directory (in dirs' order) that holds it
// complete, then sweep.csv, sweep.json, the plots and report.html written from them.
// Directories of different sweeps are refused, and so is a merge with a point no
// directory holds, and an out that holds another sweep (unless force), a run's results or
// other files (checkDir); all are InputErrors naming what differs, is missing or is there.
func Merge(dirs []string, out string, force bool) error {
	if len(dirs) == 0 {
		return inputf("merge: give the sweep directories to merge")
	}
	var first *Manifest
	for _, d := range dirs {
		m, err := ReadManifest(d)
		if err != nil {
			return err
		}
		if first == nil {
			first = m
			continue
		}
		if m.Sweep != first.Sweep {
			return inputf("merge: %s and %s are different sweeps:\n  %s: %s (version %s)\n  %s: %s (version %s)\nmerge only the shards of one sweep (same scenario, --set, --grid and fabricsim version)",
				dirs[0], d, dirs[0], first.describe(), first.Version, d, m.describe(), m.Version)
		}
	}
	plan := &Plan{Version: first.Version}
	// Where each point is: the first directory holding its complete results.
	from := make([]string, len(first.Points))
	var missing []string
	var missingAt []int
	for k, pt := range first.Points {
		for _, d := range dirs {
			ok, err := hasResults(d, Point{Name: pt.Name, Hash: pt.ScenarioSHA256}, plan.Version)
			if err != nil {
				return err
			}
			if ok {
				from[k] = d
				break
			}
		}
		if from[k] == "" {
			missing = append(missing, pt.Name)
			missingAt = append(missingAt, k)
		}
	}
	if len(missing) > 0 {
		shown := missing
		if len(shown) > 5 {
			shown = append(shown[:5:5], fmt.Sprintf("... (%d in all)", len(missing)))
		}
		hint := "run the shards that hold them (or the sweep again, which resumes) before merging"
		if n := shardCount(dirs); n > 0 {
			var owners []string
			for _, k := range missingAt {
				if s := fmt.Sprintf("%d/%d", k%n, n); !slices.Contains(owners, s) {
					owners = append(owners, s)
				}
			}
			hint = fmt.Sprintf("they are points of shard %s: run it to its end (a rerun resumes) and give every shard's directory, 0/%d to %d/%d",
				strings.Join(owners, ", "), n, n-1, n)
		}
		return inputf("merge: %d of the sweep's %d points have no results in %s: %s; %s",
			len(missing), len(first.Points), strings.Join(dirs, ", "), strings.Join(shown, ", "), hint)
	}
	unlock, err := lockDir(out, first.Sweep, force)
	if err != nil {
		return err
	}
	defer unlock()
	names := make([]string, len(first.Points))
	for k, pt := range first.Points {
		names[k] = pt.Name
	}
	if err := checkForeign(&Plan{Points: pointsNamed(names)}, out, force); err != nil {
		return err
	}
	for k, pt := range first.Points {
		if err := copyFile(filepath.Join(from[k], pt.File), filepath.Join(out, pt.File)); err != nil {
			return err
		}
	}
	m := *first
	m.Shard, m.Rows, m.Summary = nil, nil, nil
	return Write(out, &m, nil)
}

// shardCount is the shard count the directories' manifests name, or 0 when none does.
func shardCount(dirs []string) int {
	for _, d := range dirs {
		if m, _ := ReadManifest(d); m != nil && m.Shard != nil {
			return m.Shard.Count
		}
	}
	return 0
}

func pointsNamed(names []string) []Point {
	pts := make([]Point, len(names))
	for i, n := range names {
		pts[i] = Point{Index: i, Name: n}
	}
	return pts
}

// copyFile copies src to dst atomically, unless they are the same file.
func copyFile(src, dst string) error {
	if a, err := os.Stat(src); err == nil {
		if b, err := os.Stat(dst); err == nil && os.SameFile(a, b) {
			return nil
		}
	}
	in, err := infile.Open(src, results.MaxDocumentBytes)
	if infile.IsRefused(err) {
		return inputf("%v", err)
	}
	if err != nil {
		return err
	}
	defer in.Close()
	return results.WriteFileAtomic(dst, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}
