package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/fabricsim/fabricsim/experiment"
	"github.com/fabricsim/fabricsim/internal/infile"
	"github.com/fabricsim/fabricsim/results"
)

// File and directory names of a sweep's output directory.
const (
	DirPoints = "points"     // one results document per point: points/NAME.json
	FileCSV   = "sweep.csv"  // one row per point and variant
	FileJSON  = "sweep.json" // the plan, the rows and the seeds' summary
	DirPlots  = "plots"      // every metric against every swept parameter, PNG and SVG
	FileHTML  = "report.html"
)

// ErrInterrupted is returned by Run when Options.Interrupt closed before every point ran:
// the points that finished are written, the others are left for a rerun.
var ErrInterrupted = errors.New("sweep: interrupted")

// Options are how Run runs a plan.
type Options struct {
	Dir string // the output directory
	// Shard and Shards choose the slice of the points to run (Plan.Shard); Shards 0 or 1
	// runs them all and also writes the plots and report.html.
	Shard, Shards int
	Workers       int             // points run at once, at least 1
	Threads       int             // threads each point's fabric runs on; 0: the CPUs shared among the points run at once
	Interrupt     <-chan struct{} // closed on a signal
	// Force replaces another sweep in Dir (its sweep.json names another plan) and removes
	// files in Dir/points that are not points of this plan; without it both are InputErrors.
	Force bool
	// Progress, when set, is told of each point as it ends: done of total, and whether it
	// was skipped (its results were there) or how long it took.
	Progress func(done, total int, pt Point, skipped bool, took time.Duration)
}

// Run runs the points of opt's shard that have no results yet in opt.Dir/points (a point's
// results count when its document is there, complete, from the same version and with the
// point's resolved scenario hash), at most opt.Workers at a time, each variant of a point
// after the other, and writes each point's results document as soon as it ends. Then it
// writes sweep.csv and sweep.json over the shard's points, and for a whole sweep the plots
// and report.html (see Write). An interrupted point is not written.
func Run(p *Plan, opt Options) error {
	shard, shards := opt.Shard, max(opt.Shards, 1)
	pts := p.Shard(shard, shards)
	unlock, err := lockDir(opt.Dir, p.ID, opt.Force)
	if err != nil {
		return err
	}
	defer unlock()
	if err := checkForeign(p, opt.Dir, opt.Force); err != nil {
		return err
	}
	var todo []Point
	done := 0
	for _, pt := range pts {
		if ok, err := hasResults(opt.Dir, pt, p.Version); err != nil {
			return err
		} else if ok {
			done++
			if opt.Progress != nil {
				opt.Progress(done, len(pts), pt, true, 0)
			}
			continue
		}
		todo = append(todo, pt)
	}
	workers := max(opt.Workers, 1)
	threads := opt.Threads
	if threads < 1 { // the CPUs go to the points first
		threads = max(1, runtime.GOMAXPROCS(0)/max(1, min(workers, len(todo))))
	}
	jobs := make(chan Point)
	var mu sync.Mutex
	var errs []error
	interrupted := false
	var wg sync.WaitGroup
	for range min(workers, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for pt := range jobs {
				start := time.Now()
				ok, err := runPoint(opt.Dir, pt, opt.Interrupt, threads)
				mu.Lock()
				switch {
				case err != nil:
					errs = append(errs, fmt.Errorf("point %s: %w", pt.Name, err))
				case !ok:
					interrupted = true
				default:
					done++
					if opt.Progress != nil {
						opt.Progress(done, len(pts), pt, false, time.Since(start))
					}
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, pt := range todo {
		mu.Lock()
		stop := len(errs) > 0
		mu.Unlock()
		if stop {
			break
		}
		select {
		case jobs <- pt:
		case <-opt.Interrupt:
			interrupted = true
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if interrupted {
		return ErrInterrupted
	}
	var sh *ShardInfo
	if shards > 1 {
		sh = &ShardInfo{Index: shard, Count: shards}
	}
	return Write(opt.Dir, p.manifest(), sh)
}

// runPoint runs one point and writes its document; false (and nothing written) when the
// interrupt stopped it.
func runPoint(dir string, pt Point, interrupt <-chan struct{}, threads int) (bool, error) {
	doc, err := experiment.RunFileWith(pt.file, nil, experiment.Options{Workers: 1, Threads: threads,
		Limits: experiment.Limits{Interrupt: interrupt}})
	if err != nil {
		return false, err
	}
	if doc.Interrupted {
		return false, nil
	}
	doc.Overrides = pt.Overrides
	path := filepath.Join(dir, DirPoints, pt.Name+".json")
	return true, results.WriteFileAtomic(path, func(w io.Writer) error { return results.WriteJSON(w, doc) })
}

// hasResults reports whether dir holds the point's complete results: its document, from
// version, of the point's resolved scenario. A damaged document is none (the point runs
// again); a fifo, a device or a file over results.MaxDocumentBytes in its place is an
// InputError naming it (internal/infile), found without blocking or reading it whole.
func hasResults(dir string, pt Point, version string) (bool, error) {
	var head struct {
		Version     string `json:"version"`
		Interrupted bool   `json:"interrupted"`
		Resolved    string `json:"resolved_scenario"`
	}
	path := filepath.Join(dir, DirPoints, pt.Name+".json")
	refused := func(err error) error {
		// A fifo, a device or a file too large: no point's results, and nothing to replace.
		return inputf("%v: remove it, and the sweep runs the point again", err)
	}
	f, err := infile.Open(path, results.MaxDocumentBytes)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return false, nil
	case infile.IsRefused(err):
		return false, refused(err)
	case err != nil:
		return false, err
	}
	err = json.NewDecoder(f).Decode(&head)
	f.Close()
	if infile.IsRefused(err) {
		return false, refused(err)
	} else if err != nil {
		return false, nil // a damaged file is run again
	}
	return head.Version == version && !head.Interrupted && hashOf(head.Resolved) == pt.Hash, nil
}

// checkForeign refuses (or, with force, removes) files in dir/points that are no point of
// p: they belong to another sweep, and would be mixed into this one's directory.
func checkForeign(p *Plan, dir string, force bool) error {
	entries, err := os.ReadDir(filepath.Join(dir, DirPoints))
	if err != nil {
		return err
	}
	names := map[string]bool{}
	for _, pt := range p.Points {
		names[pt.Name+".json"] = true
	}
	var foreign []string
	for _, e := range entries {
		if !names[e.Name()] && !(strings.HasPrefix(e.Name(), ".") && strings.HasSuffix(e.Name(), ".tmp")) {
			foreign = append(foreign, e.Name())
		}
	}
	if len(foreign) == 0 {
		return nil
	}
	if !force {
		shown := foreign
		if len(shown) > 3 {
			shown = append(shown[:3:3], fmt.Sprintf("and %d more", len(foreign)-3))
		}
		return inputf("-o %s: %s holds files that are no point of this sweep (%s): another sweep's results; give another directory, or --force to remove them",
			dir, DirPoints, strings.Join(shown, ", "))
	}
	for _, name := range foreign {
		if err := os.RemoveAll(filepath.Join(dir, DirPoints, name)); err != nil {
			return err
		}
	}
	return nil
}
