package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/fabricsim/fabricsim/experiment"
	"github.com/fabricsim/fabricsim/internal/hugepages"
	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/scenarios"
)

// Exit statuses beyond 0, 1 and 2: a bound (--max-events, --max-wall) ended the run, or a
// signal did; either way the results of the simulated time reached are written.
const (
	exitBound       = 3
	exitInterrupted = 130
)

// exitError ends a run that wrote its results with a status other than 0.
type exitError struct {
	status int
	msg    string
}

func (e *exitError) Error() string { return e.msg }

// runSettings are the run command's settings, from flags or FABRICSIM_* variables, checked.
type runSettings struct {
	format    string
	seed      *uint64
	workers   int
	threads   int
	quiet     bool
	force     bool
	json, out string
	sizeEdges []int64
	sizeQuant int     // --size-bins quantiles:N: 0 unless given
	warmup    float64 // --warmup, in us: 0 unless given
	seeds     int     // --seeds: 0 unless given
	maxEvents uint64
	maxWall   time.Duration

	// jsonSrc and outSrc say where json and out come from: their flag, or FABRICSIM_JSON
	// and FABRICSIM_OUT.
	jsonSrc, outSrc string
}

// readSettings reads and checks every run setting. A value from the environment is as
// strict as a flag: a bad one is an error naming the variable.
func readSettings(cmd *cobra.Command, v *viper.Viper) (runSettings, error) {
	var s runSettings
	var errs []string
	raw := func(name string) (value, source string, set bool) { return setting(cmd, v, name) }
	bad := func(source, format string, args ...any) {
		errs = append(errs, source+": "+fmt.Sprintf(format, args...))
	}
	if val, src, _ := raw("format"); true {
		switch val {
		case "table", "markdown", "csv", "json":
			s.format = val
		default:
			bad(src, "%q: allowed: table, markdown, csv, json", val)
		}
	}
	if val, src, set := raw("seed"); set {
		n, err := strconv.ParseUint(val, 10, 64)
		if err != nil {
			bad(src, "%q: a seed is a whole number from 0 to %d", val, uint64(1<<64-1))
		}
		s.seed = &n
	}
	if val, src, _ := raw("workers"); true {
		n, err := workersOf(val, "variants")
		if err != nil {
			bad(src, "%v", err)
		}
		s.workers = n
	}
	if val, src, _ := raw("threads"); true {
		n, err := threadsOf(val, "variant")
		if err != nil {
			bad(src, "%v", err)
		}
		s.threads = n
	}
	for _, b := range []struct {
		name string
		to   *bool
	}{{"quiet", &s.quiet}, {"force", &s.force}} {
		val, src, _ := raw(b.name)
		t, err := strconv.ParseBool(val)
		if err != nil {
			bad(src, "%q: want true or false", val)
		}
		*b.to = t
	}
	var jsonSet, outSet bool
	s.json, s.jsonSrc, jsonSet = raw("json")
	s.out, s.outSrc, outSet = raw("out")
	// An empty path (an unset shell variable, -o "$DIR") would write nothing, silently.
	if jsonSet && s.json == "" {
		bad(s.jsonSrc, "an empty path: give the file to write the results document to, or /dev/stdout (or leave it out)")
	}
	if outSet && s.out == "" {
		bad(s.outSrc, "an empty path: give the directory to write the results into (or leave it out)")
	}
	if val, src, set := raw("size-bins"); set {
		edges, n, err := parseSizeBins(val)
		if err != nil {
			bad(src, "%v", err)
		}
		s.sizeEdges, s.sizeQuant = edges, n
	}
	if val, src, set := raw("warmup"); set {
		d, err := scenarios.ParseDuration(val)
		if err != nil || d < 0 {
			bad(src, "%q: flows that start before this time are left out of the FCT and slowdown statistics; a time with a unit, e.g. 1ms (or 0)", val)
		}
		s.warmup = d.Microseconds()
	}
	if val, src, set := raw("seeds"); set {
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 || n > scenarios.MaxSeeds {
			bad(src, "%q: the number of seeds to run each variant under, 1 to %d", val, scenarios.MaxSeeds)
		}
		s.seeds = n
	}
	if val, src, set := raw("max-events"); set {
		n, err := strconv.ParseUint(val, 10, 64)
		if err != nil || n == 0 {
			bad(src, "%q: the most events each variant may execute, a whole number above 0", val)
		}
		s.maxEvents = n
	}
	if val, src, set := raw("max-wall"); set {
		d, err := time.ParseDuration(val)
		if err != nil || d <= 0 {
			bad(src, "%q: the longest the run may take on the wall clock, e.g. 30s or 5m", val)
		}
		s.maxWall = d
	}
	if len(errs) > 0 {
		return s, usagef("%s", strings.Join(errs, "\n"))
	}
	return s, nil
}

// setting is the raw value of the setting name and where it comes from: its flag when given
// on the command line, else its FABRICSIM_* environment variable, else the flag's default
// (v's value, when v is not nil).
func setting(cmd *cobra.Command, v *viper.Viper, name string) (value, source string, set bool) {
	f := cmd.Flags().Lookup(name)
	if f != nil && f.Changed {
		return f.Value.String(), "--" + name, true
	}
	env := envName(name)
	if val, ok := os.LookupEnv(env); ok {
		return val, env, true
	}
	switch {
	case v != nil:
		return v.GetString(name), "--" + name, false
	case f != nil:
		return f.Value.String(), "--" + name, false
	}
	return "", "--" + name, false
}

// workersOf reads a --workers value: how many of what run at once; 0 is one per CPU.
func workersOf(val, what string) (int, error) {
	n, err := strconv.Atoi(val)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q: the number of %s run at once, at least 1 (0: one per CPU)", val, what)
	}
	if n == 0 {
		n = runtime.GOMAXPROCS(0)
	}
	return n, nil
}

// threadsOf reads a --threads value: the goroutines the fabric of one what (a variant, a
// point) runs on; 0 shares the CPUs among those that run at once.
func threadsOf(val, what string) (int, error) {
	n, err := strconv.Atoi(val)
	if err != nil || n < 0 || n > maxThreads {
		return 0, fmt.Errorf("%q: the threads one %s runs on, 1 to %d (0: the CPUs shared among the %ss run at once)", val, what, maxThreads, what)
	}
	return n, nil
}

// maxThreads bounds --threads: more goroutines than that only wait on each other.
const maxThreads = 1024

// maxQuantileBins bounds --size-bins quantiles:N: a bin of fewer than 1% of the flows has
// no p99 of its own.
const maxQuantileBins = 100

// parseSizeBins reads --size-bins: sizes with units, comma-separated, each above the one
// before, or quantiles:N (N equal-population bins, 2 to maxQuantileBins, returned as n);
// "" means the default edges (nil).
func parseSizeBins(s string) (edges []int64, n int, err error) {
	if strings.TrimSpace(s) == "" {
		return nil, 0, nil
	}
	if q, ok := strings.CutPrefix(strings.TrimSpace(s), "quantiles:"); ok {
		n, err := strconv.Atoi(q)
		if err != nil || n < 2 || n > maxQuantileBins {
			return nil, 0, fmt.Errorf("%q: quantiles:N takes N from 2 to %d, the number of bins of equal flow count, e.g. quantiles:20", s, maxQuantileBins)
		}
		return nil, n, nil
	}
	for _, part := range strings.Split(s, ",") {
		n, err := scenarios.ParseSize(strings.TrimSpace(part))
		if err != nil {
			return nil, 0, fmt.Errorf("%q: %v (want sizes with units, e.g. 10KB,100KB,1MB, or quantiles:20)", part, err)
		}
		if n <= 0 || (len(edges) > 0 && n <= edges[len(edges)-1]) {
			return nil, 0, fmt.Errorf("%q: edges are positive and each above the one before", part)
		}
		edges = append(edges, n)
	}
	return edges, 0, nil
}

// writable checks that files can be created in dir, or in the directory that will hold it
// when it does not exist yet (the nearest existing parent), by creating and removing one.
func writable(dir string) error {
	for {
		fi, err := os.Stat(dir)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("%s is not a directory", dir)
			}
			break
		}
		if !os.IsNotExist(err) && !errors.Is(err, syscall.ENOTDIR) {
			return err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return err
		}
		dir = parent
	}
	f, err := os.CreateTemp(dir, ".fabricsim-probe-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %v", dir, errors.Unwrap(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

func newRunCommand(settings *viper.Viper, stdout, stderr io.Writer) *cobra.Command {
	var sets, variants, pcaps []string
	cmd := &cobra.Command{
		Use:   "run [SCENARIO]",
		Short: "Run a scenario (a YAML file, - for the standard input, or a bundled name) and print its comparison table",
		Example: `  fabricsim run tradeoff
  fabricsim run my.yaml --set switch.buffer=4MB --variant "RoCEv2 lossy" -o out/
  generate-scenario | fabricsim run - -o out/`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			scenario := defaultScenario
			if len(args) == 1 {
				scenario = args[0]
			}
			s, err := readSettings(cmd, settings)
			if err != nil {
				return err
			}
			if s.seed != nil {
				sets = append([]string{fmt.Sprintf("seed=%d", *s.seed)}, sets...)
			}
			f, err := loadScenarioWith(scenario, sets, stderr, s.quiet, scenarios.LoadOptions{Series: s.out != ""})
			if err != nil {
				return err
			}
			if axes := f.Sweep(); len(axes) > 0 {
				fmt.Fprintf(stderr, "warning: %s has a sweep: block (%d parameter(s)); run simulates the file's own values once; fabricsim sweep %s -o DIR runs the grid\n",
					scenario, len(axes), scenario)
			}
			// A fabric that cannot be built (too large to route, say) is the scenario's
			// problem, not a failed run.
			done := slowNotice(stderr, "building "+scenario, s.quiet)
			_, err = experiment.Check(f)
			done()
			if err != nil {
				return checkError(scenario, err)
			}
			if s.warmup > 0 {
				for i := range f.Variants() {
					if stop := f.Scenario(i).Stop.Microseconds(); s.warmup >= stop {
						fmt.Fprintf(stderr, "warning: --warmup %v us is at or beyond stop (%v us): every flow starts before it, so no flow will count in the FCT and slowdown statistics\n", s.warmup, stop)
						break
					}
				}
			}
			capture := experiment.Capture{Links: pcaps, Dir: s.out}
			if len(pcaps) > 0 {
				if capture.Dir == "" {
					return usagef("--pcap writes its files into the --out directory: give -o DIR too")
				}
				if err := experiment.CheckCaptures(f, pcaps); err != nil {
					return usagef("%v", err)
				}
			}
			if err := experiment.CheckVariants(f, variants); err != nil {
				return usagef("%v", err)
			}
			// A replication: --seeds N runs the seed and the N-1 after it, else the file's seeds.
			seeds := f.Seeds()
			if s.seeds > 0 {
				seeds = nil
				for k := range s.seeds {
					seeds = append(seeds, f.Seed()+uint64(k))
				}
			}
			if len(seeds) > 1 && len(pcaps) > 0 {
				return usagef("--pcap captures one run: give it without --seeds (or seeds: in the file)")
			}
			outs, err := newOutputs(s, scenario, f, variants, pcaps)
			if err != nil {
				return err
			}
			if err := outs.prepare(experiment.Version, f.Name()); err != nil {
				outs.release()
				return err
			}
			defer outs.release()

			sigs := watchSignals(stderr, "fabricsim")
			defer sigs.Close()
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			limits := experiment.Limits{Interrupt: sigs.Stop(), MaxEvents: s.maxEvents}
			if s.maxWall > 0 {
				limits.Deadline = time.Now().Add(s.maxWall)
			}
			shown := len(f.Variants())
			if len(variants) > 0 {
				shown = len(variants)
			}
			bar := newProgress(stderr, shown*max(len(seeds), 1), s.quiet)
			go hugepages.Keep(ctx, hugePageCheck)
			doc, err := experiment.RunFileWith(f, variants, experiment.Options{Workers: s.workers, Threads: s.threads,
				Progress: bar.report, Capture: capture, Limits: limits, Seeds: seeds, Series: s.out != ""})
			bar.finish()
			stop()
			if err != nil {
				var ve *experiment.VariantError
				if errors.As(err, &ve) {
					return usagef("%v", err)
				}
				return err
			}
			doc.Overrides = sets
			if s.sizeEdges != nil || s.sizeQuant > 0 || s.warmup > 0 {
				for i := range doc.Variants {
					v := &doc.Variants[i]
					if s.warmup > 0 && s.warmup >= v.SimTimeUS {
						w := fmt.Sprintf("--warmup %v us is at or beyond the end of the run (%v us): every flow starts before it, so no flow counts in the FCT and slowdown statistics", s.warmup, v.SimTimeUS)
						v.Warnings = append(v.Warnings, w)
					}
					v.SizeEdges, v.SizeQuantiles, v.WarmupUS = s.sizeEdges, s.sizeQuant, s.warmup
					results.Summarize(v)
				}
				if len(doc.Replication) > 0 {
					results.Replicate(doc) // its FCT and slowdown means change with the warm-up
				}
			}
			// The table first: a results file that cannot be written does not lose it.
			switch s.format {
			case "json":
				err = results.WriteJSON(stdout, doc)
			case "csv":
				err = results.WriteTable(stdout, doc, s.format)
			default:
				err = writeReadable(stdout, f, scenario, doc, s.format)
			}
			if err != nil {
				return err
			}
			sigs.Writing(outs.where())
			if err := outs.write(doc, stdout, stderr); err != nil {
				return err
			}
			if err := stoppedEarly(doc, s); err != nil {
				return err
			}
			if sigs.Signalled() { // the signal came after the simulation, while writing
				return &exitError{exitInterrupted, "fabricsim: interrupted while writing the results: every file is whole (the simulation had finished)"}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.String("json", "", "write the results document to `FILE`")
	fl.StringP("out", "o", "", "write results.json, flows.csv, sizes.csv, tables and plots into `DIR`")
	fl.Bool("force", false, "with -o: remove the files an earlier run's manifest.json in DIR lists first")
	fl.String("format", "table", "standard output: table, markdown, csv or json")
	fl.Uint64("seed", 1, "override the scenario's seed")
	fl.StringArrayVar(&sets, "set", nil, "override one scenario field, `PATH=VALUE` (repeatable), e.g. switch.buffer=4MB")
	fl.StringArrayVar(&variants, "variant", nil, "run only the variant `NAME` (repeatable)")
	fl.StringArrayVar(&pcaps, "pcap", nil, "write the packets crossing a link (`NODE:PORT`, ports from 1, or A-B) to a pcap file in the --out directory (repeatable)")
	fl.Int("seeds", 0, "run each variant under `N` seeds (the scenario's seed and the N-1 after it) and report means with 95% intervals")
	fl.String("size-bins", "", "flow-size bin edges of slowdown_by_size, e.g. `10KB,100KB,1MB,10MB` (the default), or quantiles:N for N bins of equal flow count")
	fl.String("warmup", "", "leave the flows that start before this `time` (e.g. 1ms) out of the FCT and slowdown statistics")
	fl.Uint64("max-events", 0, "stop each variant after `N` events if it needs more (exit 3, results so far written; the variant runs on one thread)")
	fl.Duration("max-wall", 0, "stop the run after this wall-clock `time`, e.g. 5m (exit 3, results so far written)")
	fl.BoolP("quiet", "q", false, "no progress display")
	fl.Int("workers", 0, "variants run at once (default: the number of CPUs)")
	fl.String("threads", "0", "threads each variant's fabric runs on; results are the same for every `N` (default 0: the CPUs shared among the variants run at once)")
	// Run settings come from the flags, or from FABRICSIM_* environment variables.
	fl.VisitAll(func(f *pflag.Flag) {
		if envSetting(f.Name) {
			_ = settings.BindPFlag(f.Name, f)
		}
	})
	return cmd
}

// stoppedEarly is the error (and exit status) of a run some variant of which was stopped
// before its end, or nil.
func stoppedEarly(doc *results.Document, s runSettings) error {
	if !doc.Interrupted {
		return nil
	}
	reason, at := "", 0.0
	for _, v := range doc.Variants {
		if v.StopReason != "" && (reason == "" || v.StopReason == experiment.StopSignal) {
			reason, at = v.StopReason, v.SimTimeUS
		}
	}
	what := "the results are those of the simulated time reached"
	switch reason {
	case experiment.StopSignal:
		return &exitError{exitInterrupted, fmt.Sprintf("fabricsim: interrupted at %.2f us of simulated time: %s (\"interrupted\": true)", at, what)}
	case experiment.StopMaxEvents:
		return &exitError{exitBound, fmt.Sprintf("fabricsim: stopped by --max-events %d at %.2f us of simulated time: %s", s.maxEvents, at, what)}
	default:
		return &exitError{exitBound, fmt.Sprintf("fabricsim: stopped by --max-wall %v at %.2f us of simulated time: %s", s.maxWall, at, what)}
	}
}

// writeReadable writes a table for people: the scenario's title above the comparison, and
// under it what the comparison shows (results.Reading) and where to read why (scenario is
// the file or bundled name the run was given).
func writeReadable(w io.Writer, f *scenarios.File, scenario string, doc *results.Document, format string) error {
	title := f.Name()
	if line, _, _ := strings.Cut(strings.TrimSpace(f.Description()), "\n"); line != "" {
		title += ": " + line
	}
	if _, err := fmt.Fprintf(w, "%s\n\n", title); err != nil {
		return err
	}
	if err := results.WriteTable(w, doc, format); err != nil {
		return err
	}
	reading := results.Reading(doc, scenario)
	if len(reading) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("\n")
	for _, l := range reading {
		if format == "markdown" {
			l = "- " + results.MarkdownText(l) // the lines name variants: the user's text
		}
		b.WriteString(l + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
