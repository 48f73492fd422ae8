package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/fabricsim/fabricsim/internal/hugepages"
	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sweep"
)

func newSweepCommand(stdout, stderr io.Writer) *cobra.Command {
	var grids, sets []string
	var shardArg, out string
	var force bool
	cmd := &cobra.Command{
		Use:   "sweep SCENARIO -o DIR",
		Short: "Run a scenario over a grid of parameter values, on all cores or as one shard of a cluster job",
		Long: `sweep runs the cartesian product of the scenario's sweep: block and the --grid flags,
each point the scenario with --set PATH=VALUE per swept path, every variant of each, points
in parallel (--workers, default one per CPU). It writes into DIR:

  points/NAME.json  each point's results document (NAME: its index and values)
  sweep.csv         a row per point and variant: the parameters, variant, transport, seed, metrics
  sweep.json        the plan, the same rows, and per variant and parameters the seeds' mean and 95% interval
  plots/, report.html  each metric against each parameter, one curve per variant

A rerun into DIR skips the points whose results are there (same resolved scenario and
version). DIR must be new, empty or this sweep's: a run's directory, one holding other
files, and (without --force) one holding another sweep are refused. --shard I/N runs only the points whose index is I modulo N (I from 0), for cluster
array jobs; 'fabricsim merge' then combines the shards' directories. Values: a list
(50KB,100KB), an integer range (1..10), logspace(1KB,1MB,4) or linspace(0.1,0.9,5);
a --grid PATH replaces the sweep: block's values of PATH, and one PATH in two --grid flags
is refused (give its values in one).`,
		Example: `  fabricsim sweep incast-pfc --grid 'switch.ecn.kmax=50KB,100KB,200KB' --grid 'seed=1..10' -o out/
  fabricsim sweep my.yaml --grid 'switch.buffer=logspace(1MB,32MB,6)' --shard 0/4 -o shard0/`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("fabricsim sweep: give the output directory with -o DIR")
			}
			axes, err := parseEach(grids, scenarios.ParseGrid)
			if err != nil {
				return err
			}
			ovs, err := parseEach(sets, scenarios.ParseOverride)
			if err != nil {
				return err
			}
			shard, shards := 0, 1
			if shardArg != "" {
				if shard, shards, err = sweep.ParseShard(shardArg); err != nil {
					return usagef("%v", err)
				}
			}
			val, src, _ := setting(cmd, nil, "workers")
			workers, err := workersOf(val, "points")
			if err != nil {
				return usagef("%s: %v", src, err)
			}
			val, src, _ = setting(cmd, nil, "threads")
			threads, err := threadsOf(val, "point")
			if err != nil {
				return usagef("%s: %v", src, err)
			}
			val, src, _ = setting(cmd, nil, "quiet")
			quiet, err := strconv.ParseBool(val)
			if err != nil {
				return usagef("%s: %q: want true or false", src, val)
			}
			name, data, err := readScenario(args[0])
			if err != nil {
				return err
			}
			done := slowNotice(stderr, "reading and checking the points of "+args[0], quiet)
			plan, err := sweep.NewPlan(name, data, ovs, axes)
			done()
			if err != nil {
				return sweepError(err)
			}
			mine := len(plan.Shard(shard, shards))
			if !quiet {
				what := fmt.Sprintf("%d points", len(plan.Points))
				if shards > 1 {
					what = fmt.Sprintf("shard %d/%d: %d of %d points", shard, shards, mine, len(plan.Points))
				}
				fmt.Fprintf(stderr, "fabricsim sweep: %s of %s into %s, %d at a time\n", what, plan.Scenario, out, workers)
			}
			sigs := watchSignals(stderr, "fabricsim sweep")
			defer sigs.Close()
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			opt := sweep.Options{Dir: out, Shard: shard, Shards: shards, Workers: workers, Threads: threads, Interrupt: sigs.Stop(), Force: force}
			if !quiet {
				opt.Progress = func(done, total int, pt sweep.Point, skipped bool, took time.Duration) {
					how := fmt.Sprintf("%.1f s", took.Seconds())
					if skipped {
						how = "results there, skipped"
					}
					fmt.Fprintf(stderr, "fabricsim sweep: [%d/%d] %s (%s)\n", done, total, pt.Name, how)
				}
			}
			go hugepages.Keep(ctx, hugePageCheck)
			err = sweep.Run(plan, opt)
			stop()
			if errors.Is(err, sweep.ErrInterrupted) {
				return &exitError{exitInterrupted, fmt.Sprintf("fabricsim sweep: interrupted: the points that finished are in %s/points; run the same command again to run the rest", out)}
			}
			if err != nil {
				return sweepError(err)
			}
			if sigs.Signalled() { // after the last point, while the files were written
				return &exitError{exitInterrupted, fmt.Sprintf("fabricsim sweep: interrupted while writing %s: every file is whole (every point had finished)", out)}
			}
			fmt.Fprintf(stdout, "%s: %d points in %s/points, %s, %s", out, mine, out, sweep.FileCSV, sweep.FileJSON)
			if shards > 1 {
				fmt.Fprintf(stdout, " (shard %d/%d: merge the shards with fabricsim merge)\n", shard, shards)
			} else {
				fmt.Fprintf(stdout, ", %s/, %s\n", sweep.DirPlots, sweep.FileHTML)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&grids, "grid", nil, "sweep a field: `PATH=VALUES`, e.g. switch.ecn.kmax=50KB,100KB or seed=1..10 (repeatable)")
	fl.StringArrayVar(&sets, "set", nil, "override one scenario field in every point, `PATH=VALUE` (repeatable)")
	fl.StringVar(&shardArg, "shard", "", "run only shard `I/N` of the points (I from 0 to N-1)")
	fl.StringVarP(&out, "out", "o", "", "write the points, sweep.csv, sweep.json, plots and report.html into `DIR`")
	fl.BoolVar(&force, "force", false, "replace another sweep in DIR: remove files in DIR/points that are no point of this sweep")
	fl.Int("workers", 0, "points run at once (default: the number of CPUs)")
	fl.String("threads", "0", "threads each point's fabric runs on; results are the same for every `N` (default 0: the CPUs shared among the points run at once)")
	fl.BoolP("quiet", "q", false, "no progress lines")
	return cmd
}

func newMergeCommand(stdout io.Writer) *cobra.Command {
	var out string
	var force bool
	cmd := &cobra.Command{
		Use:   "merge DIR... -o DIR",
		Short: "Combine the shard directories of a sweep into what the whole sweep writes",
		Long: `merge reads the output directories of one sweep's shards (fabricsim sweep --shard I/N),
checks that they are shards of one sweep and that together they hold every point, copies the
points' results documents as they are, and writes sweep.csv, sweep.json, the plots and
report.html: byte for byte what the sweep run whole in one directory writes.`,
		Example: `  fabricsim merge shard0/ shard1/ shard2/ shard3/ -o out/
  fabricsim merge results/shard-* -o results/all`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("fabricsim merge: give the output directory with -o DIR")
			}
			if err := sweep.Merge(args, out, force); err != nil {
				return sweepError(err)
			}
			m, err := sweep.ReadManifest(out)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s: %d points from %d directories, %s, %s, %s/, %s\n", out, len(m.Points), len(args),
				sweep.FileCSV, sweep.FileJSON, sweep.DirPlots, sweep.FileHTML)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "write the merged sweep into `DIR`")
	cmd.Flags().BoolVar(&force, "force", false, "replace another sweep in DIR: remove files in DIR/points that are no point of this sweep")
	return cmd
}

// parseEach parses every flag value with parse; the first that fails is a usage error.
func parseEach[T any](values []string, parse func(string) (T, error)) ([]T, error) {
	var out []T
	for _, v := range values {
		x, err := parse(v)
		if err != nil {
			return nil, usagef("%v", err)
		}
		out = append(out, x)
	}
	return out, nil
}

// sweepError makes the sweep package's input errors usage errors (exit status 2).
func sweepError(err error) error {
	var ie *sweep.InputError
	if errors.As(err, &ie) {
		return usagef("%v", err)
	}
	return err
}
