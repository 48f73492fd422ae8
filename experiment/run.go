package experiment

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
)

// Version is the program's version, as the results document reports it.
const Version = "fabricsim 0.1.0"

// Progress, when not nil, is told how far each variant has got: simulated time over stop.
type Progress func(variant int, done float64)

// Capture asks for packet captures: the links named in Links ("NODE:PORT" or "A-B") are
// written, each variant's to its own pcap file in Dir.
type Capture struct {
	Links []string
	Dir   string
	// Stem is the file-name stem of the variant's captures (CaptureFileNames); empty:
	// the variant's own results.Slug. RunFileWith sets it for every variant it runs, so
	// that variants whose names reduce to one slug get -2, -3 as their tables do.
	Stem string
}

// Limits end a run early: Interrupt (closed on a signal), a bound on the events each
// variant may execute, or a wall-clock deadline for the whole run. A variant stopped by one
// keeps what it simulated, and says why in its StopReason.
type Limits struct {
	Interrupt <-chan struct{}
	MaxEvents uint64    // per variant; 0: no bound
	Deadline  time.Time // zero: none
}

// Stop reasons of a variant that ended before its scenario's stop time or last flow.
const (
	StopSignal    = "signal"
	StopMaxEvents = "max-events"
	StopMaxWall   = "max-wall"
)

// Options are how RunFileWith runs the variants: at most Workers at a time (at least 1),
// reporting Progress, with captures and limits.
type Options struct {
	Workers  int
	Progress Progress
	Capture  Capture
	Limits   Limits
	// Series asks for each variant's time series (results.Series, for the files of -o):
	// without it no sampler runs.
	Series bool
	// Threads is the goroutines each variant's fabric runs on (sim.Group); 0 shares the
	// machine's CPUs among the variants running at once. Results do not depend on it.
	Threads int
	// Seeds, two or more, replicate every variant under each (the document then lists each
	// variant once per seed, and its Replication); nil takes the file's seeds (seeds: [..]);
	// otherwise each variant runs once, with its scenario's seed.
	Seeds []uint64
}

// RunFile runs the chosen variants of a loaded scenario file (all when only is empty), in
// parallel, at most workers at a time, and returns the results document with the variants in
// file order.
func RunFile(f *scenarios.File, only []string, workers int, progress Progress, capture Capture) (*results.Document, error) {
	return RunFileWith(f, only, Options{Workers: workers, Progress: progress, Capture: capture})
}

// RunFileWith is RunFile with limits. The document's Interrupted is set when any variant
// was stopped by one.
func RunFileWith(f *scenarios.File, only []string, opt Options) (*results.Document, error) {
	workers, progress, capture := opt.Workers, opt.Progress, opt.Capture
	infos := f.Variants()
	var chosen []int
	for i, v := range infos {
		if len(only) == 0 || contains(only, v.Name) {
			chosen = append(chosen, i)
		}
	}
	if err := CheckVariants(f, only); err != nil {
		return nil, err
	}
	if opt.Seeds == nil {
		opt.Seeds = f.Seeds() // the file's seeds: [..], if it has any
	}
	// The runs: each chosen variant, under each seed of a replication, variant by variant.
	type job struct {
		variant int
		sc      *scenarios.Scenario
	}
	var jobs []job
	for _, i := range chosen {
		if len(opt.Seeds) < 2 {
			jobs = append(jobs, job{i, f.Scenario(i)})
			continue
		}
		for _, s := range opt.Seeds {
			sc := *f.Scenario(i) // a shallow copy: only the seed differs, the rest is shared read-only
			sc.Seed = s
			jobs = append(jobs, job{i, &sc})
		}
	}
	doc := &results.Document{Scenario: f.Name(), Seed: f.Seed(), Version: Version, Variants: make([]results.Variant, len(jobs)),
		ResolvedScenario: f.Resolved(), Workloads: workloadsOf(f), Axis: paramAxisOf(f)}
	if workers < 1 {
		workers = 1
	}
	threads := opt.Threads
	if threads < 1 {
		threads = max(1, runtime.GOMAXPROCS(0)/max(1, min(workers, len(jobs))))
	}
	var names []string
	for _, i := range chosen {
		names = append(names, infos[i].Name)
	}
	stems := make(map[string]string, len(names))
	for k, stem := range results.VariantSlugs(names) {
		stems[names[k]] = stem
	}
	errs := make([]error, len(jobs))
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for k, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			var report func(float64)
			if progress != nil {
				report = func(d float64) { progress(k, d) }
			}
			c := capture
			c.Stem = stems[j.sc.Variant]
			v, err := runRecovered(j.sc, report, c, opt.Limits, opt.Series, threads)
			if err != nil {
				errs[k] = fmt.Errorf("variant %q (seed %d): %w", infos[j.variant].Name, j.sc.Seed, err)
				return
			}
			doc.Variants[k] = *v
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	for _, v := range doc.Variants {
		doc.Interrupted = doc.Interrupted || v.StopReason != ""
	}
	if len(opt.Seeds) >= 2 {
		results.Replicate(doc)
	}
	return doc, nil
}

// CheckVariants reports a *VariantError when a name in only is not a variant of f.
func CheckVariants(f *scenarios.File, only []string) error {
	infos := f.Variants()
	for _, name := range only {
		found := false
		for _, v := range infos {
			found = found || v.Name == name
		}
		if !found {
			var names []string
			for _, v := range infos {
				names = append(names, fmt.Sprintf("%q", v.Name))
			}
			return &VariantError{Name: name, Known: names}
		}
	}
	return nil
}

// VariantError is a --variant that names no variant of the file.
type VariantError struct {
	Name  string
	Known []string
}

func (e *VariantError) Error() string {
	return fmt.Sprintf("--variant %q: no such variant (the file has %s)", e.Name, strings.Join(e.Known, ", "))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// runRecovered is Run, with a panic (a simulator bug) turned into an error, so that one
// variant's failure is reported rather than crashing the process from its goroutine.
func runRecovered(sc *scenarios.Scenario, progress func(float64), capture Capture, limits Limits, series bool, threads int) (v *results.Variant, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("internal error (please report it with the scenario): %v", r)
		}
	}()
	return runLimited(sc, progress, capture, limits, series, threads)
}

// eventBudget is how many events a run handles between two looks at its limits and its
// progress: a few milliseconds of work.
const eventBudget = 1 << 15

// Run simulates one resolved scenario and returns its results.
func Run(sc *scenarios.Scenario, progress func(float64)) (*results.Variant, error) {
	return RunCapture(sc, progress, Capture{})
}

// RunCapture is Run with packet captures.
func RunCapture(sc *scenarios.Scenario, progress func(float64), capture Capture) (v *results.Variant, err error) {
	return runLimited(sc, progress, capture, Limits{}, false, 1)
}

// runLimited is RunCapture within limits, with the time series when series is set, on
// threads goroutines (one with captures: a capture file takes the frames of many links in
// their order).
func runLimited(sc *scenarios.Scenario, progress func(float64), capture Capture, limits Limits, series bool, threads int) (v *results.Variant, err error) {
	start := time.Now()
	asked := threads
	if len(capture.Links) > 0 || limits.MaxEvents > 0 {
		threads = 1
	}
	f, err := buildOn(sc, threads)
	if err != nil {
		return nil, err
	}
	if series {
		f.startSampler()
	}
	if len(capture.Links) > 0 {
		closeAll, err := f.capture(capture.Links, capture.Dir, capture.Stem)
		defer func() {
			if cerr := closeAll(); err == nil && cerr != nil {
				v, err = nil, cerr
			}
		}()
		if err != nil {
			return nil, err
		}
	}
	reason := f.runWithin(limits, progress)
	if progress != nil {
		progress(1)
	}
	if err := f.audit(); err != nil {
		return nil, fmt.Errorf("internal error: %w", err)
	}
	v = f.collect()
	v.StopReason = reason
	v.WallSeconds = time.Since(start).Seconds()
	v.Parallel = f.parallel(asked, len(capture.Links) > 0, limits.MaxEvents > 0)
	return v, nil
}

// runWithin runs the fabric to the scenario's stop time, or until every flow has ended (at
// the end of the window the last one ended in: sim.Group), and returns the reason when a
// limit ends the run early ("" otherwise). Between two windows it reports progress and looks
// at the limits; the windows do not depend on the threads, so neither does where a limit
// cuts the run, but for the wall-clock ones.
func (f *fabric) runWithin(limits Limits, progress func(float64)) string {
	flows := len(f.reg.Flows)
	reason := ""
	var looked uint64
	between := func() bool {
		if f.run.Executed()-looked < eventBudget {
			return true
		}
		looked = f.run.Executed()
		select {
		case <-limits.Interrupt:
			reason = StopSignal
			return false
		default:
		}
		if !limits.Deadline.IsZero() && time.Now().After(limits.Deadline) {
			reason = StopMaxWall
			return false
		}
		if progress != nil {
			// The larger of the flows ended and the simulated time gone: the first tracks
			// finite flows that end long before stop, the second endless ones.
			ended := float64(flows-f.reg.Open()) / float64(max(flows, 1))
			progress(max(ended, f.run.Now().Seconds()/f.sc.Stop.Seconds()))
		}
		return true
	}
	budget := ^uint64(0)
	if limits.MaxEvents > 0 {
		budget = limits.MaxEvents // on one partition (runLimited)
	}
	if f.reg.Open() > 0 {
		if _, exhausted := f.run.RunBudget(f.sc.Stop, budget, between); exhausted {
			reason = StopMaxEvents
		}
	}
	f.reg.Settle()
	return reason
}

// in the order they first appear.
func workloadsOf(f *scenarios.File) []results.Workload {
	var out []results.Workload
	seen := map[string]bool{}
	for i := range f.Variants() {
		for _, t := range f.Scenario(i).Traffic {
			p := t.Poisson
			if p == nil || p.Workload == nil || seen[p.Workload.Name] {
				continue
			}
			seen[p.Workload.Name] = true
			out = append(out, results.Workload{Name: p.Workload.Name, File: p.WorkloadFile, MeanBytes: p.Workload.Mean()})
		}
	}
	return out
}

// runUntil runs the fabric to until, or until Stop (every flow ended) and the end of its
// window; it reports whether Stop ended it.
func (f *fabric) runUntil(until sim.Time) bool {
	stopped := f.run.Run(until, nil)
	f.reg.Settle()
	return stopped
}
