package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/fabricsim/fabricsim/experiment"
	"github.com/fabricsim/fabricsim/internal/hugepages"
	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/scenarios"
)

// benchScenario is what `fabricsim bench` with no scenario measures.
const benchScenario = "perf-leafspine"

// hugePageCheck is how often a run looks for heap the kernel should back with huge pages
// (internal/hugepages): each look reads /proc/self/maps, tens of microseconds.
const hugePageCheck = 100 * time.Millisecond

// benchFigures are the speed figures of one bench run, over all the variants it ran.
type benchFigures struct {
	wall, cpu      time.Duration
	events, hops   int64
	allocs         uint64
	peakRSS        int64 // bytes
	variants       int
	simTimeSeconds float64
}

func newBenchCommand(stdout, stderr io.Writer) *cobra.Command {
	var sets, variants []string
	var stop string
	var calib float64
	var workers int
	var threadsArg string
	var profile, memProfile string
	cmd := &cobra.Command{
		Use:   "bench [SCENARIO]",
		Short: "Run a scenario and print the simulator's speed: events/s, packet hops/s, events and allocations per hop, peak RSS",
		Long: `bench runs a scenario (by default the bundled perf-leafspine, or one of bench's own presets,
` + "`" + `ai-allreduce-1024` + "`" + ` among them: a 1,024-rank training job's allreduce) without writing results and
prints how fast the simulator went: events and packet hops (frames put on links) per second
of wall time and per second of CPU time, events per hop, heap allocations per hop (building
the fabric included) and the process's peak resident memory. On a shared machine, run a
fixed calibration workload just before and give its figure in millions of operations per
second with --calib: bench then prints hops/s divided by it, a figure that stays comparable
across machines and loads.`,
		Example: `  fabricsim bench
  fabricsim bench perf-leafspine --stop 20ms --calib 16.4
  fabricsim bench ai-allreduce-1024 --threads 2
  fabricsim bench my.yaml --set topology.params.leaves=32 --workers 2`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			scenario := benchScenario
			if len(args) == 1 {
				scenario = args[0]
			}
			if stop != "" {
				sets = append(sets, "stop="+stop)
			}
			if cmd.Flags().Changed("calib") && !(calib > 0 && !math.IsInf(calib, 0)) {
				return usagef("--calib %v: the calibration figure in M ops/s, a finite number above 0", calib)
			}
			if workers < 1 {
				workers = runtime.GOMAXPROCS(0)
			}
			threads, err := threadsOf(threadsArg, "variant")
			if err != nil {
				return usagef("--threads %v", err)
			}
			f, err := loadFrom(scenario, readBenchScenario, sets, stderr, true, scenarios.LoadOptions{})
			if err != nil {
				return err
			}
			if err := experiment.CheckVariants(f, variants); err != nil {
				return usagef("%v", err)
			}
			if profile != "" {
				out, err := os.Create(profile)
				if err != nil {
					return usagef("--cpuprofile %s: %v", profile, err)
				}
				defer out.Close()
				if err := pprof.StartCPUProfile(out); err != nil {
					return err
				}
				defer pprof.StopCPUProfile()
			}
			ctx, stop := context.WithCancel(cmd.Context())
			defer stop()
			go hugepages.Keep(ctx, hugePageCheck)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			cpu0 := cpuTime()
			start := time.Now()
			doc, err := experiment.RunFileWith(f, variants, experiment.Options{Workers: workers, Threads: threads})
			if err != nil {
				return err
			}
			b := benchFigures{wall: time.Since(start), cpu: cpuTime() - cpu0, peakRSS: peakRSS()}
			if memProfile != "" {
				if err := writeHeapProfile(memProfile); err != nil {
					return err
				}
			}
			runtime.ReadMemStats(&after)
			b.allocs = after.Mallocs - before.Mallocs
			for _, v := range doc.Variants {
				b.events += v.Events
				b.hops += v.PacketHops
				b.simTimeSeconds += v.SimTimeUS * 1e-6
				b.variants++
			}
			b.print(stdout, scenario, workers, calib)
			return b.printParallel(stdout, doc, func() (time.Duration, error) {
				start := time.Now()
				_, err := experiment.RunFileWith(f, variants, experiment.Options{Workers: workers, Threads: 1})
				return time.Since(start), err
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&stop, "stop", "", "simulate this long instead of the scenario's stop, e.g. `20ms`")
	fl.StringArrayVar(&sets, "set", nil, "override one scenario field, `PATH=VALUE` (repeatable)")
	fl.StringArrayVar(&variants, "variant", nil, "run only the variant `NAME` (repeatable)")
	fl.IntVar(&workers, "workers", 1, "variants run at once (0: one per CPU)")
	fl.StringVar(&threadsArg, "threads", "0", "threads each variant's fabric runs on (0: the CPUs shared among the variants run at once); with more than one, bench runs again on one thread and prints the speedup")
	fl.StringVar(&profile, "cpuprofile", "", "write a CPU profile of the run to `FILE` (go tool pprof)")
	fl.StringVar(&memProfile, "memprofile", "", "write a heap profile (allocations, go tool pprof -sample_index=alloc_space) to `FILE`")
	fl.Float64Var(&calib, "calib", 0, "the calibration workload's figure in `M` ops/s: print hops/s / (M x 1e6)")
	return cmd
}

// print writes the figures, one per line, as "name: value unit".
func (b *benchFigures) print(w io.Writer, scenario string, workers int, calib float64) {
	hops := float64(max(b.hops, 1))
	hopsPerSec := float64(b.hops) / b.wall.Seconds()
	fmt.Fprintf(w, "scenario:        %s (%d variant(s), %.3g s simulated, workers %d)\n", scenario, b.variants, b.simTimeSeconds, workers)
	fmt.Fprintf(w, "wall:            %.3f s (cpu %.3f s)\n", b.wall.Seconds(), b.cpu.Seconds())
	fmt.Fprintf(w, "events:          %d (%.3f M/s)\n", b.events, float64(b.events)/b.wall.Seconds()/1e6)
	fmt.Fprintf(w, "packet hops:     %d (%.3f M/s, %.3f M per cpu-second)\n", b.hops, hopsPerSec/1e6, float64(b.hops)/b.cpu.Seconds()/1e6)
	fmt.Fprintf(w, "events/hop:      %.3f\n", float64(b.events)/hops)
	fmt.Fprintf(w, "allocs/hop:      %.4f (%d allocations, building included)\n", float64(b.allocs)/hops, b.allocs)
	fmt.Fprintf(w, "peak RSS:        %.1f MiB\n", float64(b.peakRSS)/(1<<20))
	if calib > 0 {
		fmt.Fprintf(w, "hops/s / calib:  %.4f (per cpu-second: %.4f; calib %.3f M ops/s)\n",
			hopsPerSec/(calib*1e6), float64(b.hops)/b.cpu.Seconds()/(calib*1e6), calib)
	}
}

// printParallel writes how each variant was cut (threads, partitions, window, each
// partition's share of the events) and, when a variant ran on more than one thread, the
// speedup over a run on one thread, which alone runs again (its figures are not above).
func (b *benchFigures) printParallel(w io.Writer, doc *results.Document, alone func() (time.Duration, error)) error {
	parallel := false
	for _, v := range doc.Variants {
		p := v.Parallel
		var total uint64
		for _, n := range p.Events {
			total += n
		}
		shares := make([]string, len(p.Events))
		for i, n := range p.Events {
			shares[i] = fmt.Sprintf("%.1f%%", 100*float64(n)/float64(max(total, 1)))
		}
		fmt.Fprintf(w, "threads:         %d, %d partition(s), window %g us, %d windows (%s); events by partition: %s\n",
			p.Threads, p.Partitions, p.WindowUS, p.Windows, v.Name, strings.Join(shares, " "))
		if p.Reason != "" {
			fmt.Fprintf(w, "                 fewer partitions than threads: %s\n", p.Reason)
		}
		parallel = parallel || p.Threads > 1
	}
	if !parallel {
		return nil
	}
	one, err := alone()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "speedup:         %.2fx (wall %.3f s on one thread, %.3f s here)\n", one.Seconds()/b.wall.Seconds(), one.Seconds(), b.wall.Seconds())
	return nil
}

// writeHeapProfile writes the heap profile, as of the last garbage collection, to path.
func writeHeapProfile(path string) error {
	out, err := os.Create(path)
	if err != nil {
		return usagef("--memprofile %s: %v", path, err)
	}
	if err := pprof.Lookup("allocs").WriteTo(out, 0); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// cpuTime is the CPU time (user and system) the process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS is the process's peak resident set size in bytes (Linux reports it in KiB).
func peakRSS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Maxrss * 1024
}
