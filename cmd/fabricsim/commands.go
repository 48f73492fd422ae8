package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/fabricsim/fabricsim/experiment"
	"github.com/fabricsim/fabricsim/internal/infile"
	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sweep"
)

// defaultScenario is what `fabricsim` with no arguments runs.
const defaultScenario = "tradeoff"

// flagError marks errors from flag parsing, which cobra returns as plain errors.
type flagError struct{ error }

// usageArgs makes a wrong number of arguments a usage error (exit status 2).
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		err := check(cmd, args)
		switch {
		case err == nil:
			return nil
		case !cmd.HasParent() && len(args) > 0:
			return unknownCommand(cmd, args[0])
		case !cmd.HasParent():
			return usagef("fabricsim: %v (usage: %s)", err, cmd.UseLine())
		}
		return usagef("fabricsim %s: %v (usage: %s)", cmd.Name(), err, cmd.UseLine())
	}
}

func isFlagError(err error) bool {
	var fe *flagError
	return errors.As(err, &fe)
}

func newRootCommand(stdout, stderr io.Writer) *cobra.Command {
	settings := viper.New()
	settings.SetEnvPrefix("FABRICSIM")
	settings.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	settings.AutomaticEnv()

	runCmd := newRunCommand(settings, stdout, stderr)
	root := &cobra.Command{
		Use:   "fabricsim",
		Short: "Packet-level simulator of lossless Ethernet datacenter fabrics (RoCE, PFC, ECN)",
		Long: `fabricsim simulates datacenter fabrics packet by packet: switches with priority queues
and a shared buffer, RoCE v2 hosts, and the faults you give it. Write a YAML scenario
(start from 'fabricsim show tradeoff'), run it, and compare its variants side by side.

With no arguments it runs the bundled scenario "tradeoff".`,
		Args:          usageArgs(cobra.NoArgs),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCmd.RunE(runCmd, nil)
		},
	}
	// A FABRICSIM_* variable that is no setting (a misspelling) would be ignored unseen.
	root.PersistentPreRun = func(*cobra.Command, []string) { warnUnknownEnv(stderr, os.Environ(), knownEnv(runCmd)) }
	// `fabricsim [flags]` is `fabricsim run tradeoff [flags]`.
	root.Flags().AddFlagSet(runCmd.Flags())
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &flagError{err} })
	root.AddCommand(runCmd, newListCommand(stdout), newShowCommand(stdout), newValidateCommand(stdout, stderr),
		newExplainCommand(stdout, stderr), newBenchCommand(stdout, stderr),
		newSweepCommand(stdout, stderr), newMergeCommand(stdout), newCompareCommand(stdout))
	return root
}

// knownEnv are the FABRICSIM_* variables fabricsim reads, sorted: one per run setting (each
// flag of run that has one, see envSetting; sweep's workers and quiet among them).
func knownEnv(runCmd *cobra.Command) []string {
	var names []string
	runCmd.Flags().VisitAll(func(f *pflag.Flag) {
		if envSetting(f.Name) {
			names = append(names, envName(f.Name))
		}
	})
	slices.Sort(names)
	return names
}

// envName is the environment variable of the setting name: FABRICSIM_ and the name in
// upper case, '-' as '_'.
func envName(name string) string {
	return "FABRICSIM_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// envSetting reports whether run's flag name may also come from the environment (not the
// repeatable --set, --variant and --pcap).
func envSetting(name string) bool { return name != "set" && name != "variant" && name != "pcap" }

// warnUnknownEnv warns of each FABRICSIM_* variable of environ that is not one of known,
// naming the known ones.
func warnUnknownEnv(w io.Writer, environ, known []string) {
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "FABRICSIM_") && !slices.Contains(known, name) {
			fmt.Fprintf(w, "warning: %s is set but is no fabricsim setting, and is ignored; the known ones: %s\n", name, strings.Join(known, ", "))
		}
	}
}

// readScenario finds SCENARIO as a file path, or else as the name of a bundled scenario; "-"
// is the standard input (readStdin). A path that is there but no regular file is refused at
// once (a fifo would block the read), except a directory that shadows a bundled name.
func readScenario(arg string) (name string, data []byte, err error) {
	if arg == "-" {
		data, err := readStdin()
		return stdinName, data, err
	}
	data, err = readFile(arg)
	var nr *infile.NotRegularError
	switch {
	case err == nil:
		return arg, data, nil
	case isUsage(err):
		return "", nil, err
	case errors.As(err, &nr) && nr.Kind == "a directory":
		// A directory is no scenario: a bundled name it shadows (an -o directory called
		// irn, say) still runs; otherwise say what the path is.
		if data, ok := scenarios.BundledYAML(arg); ok {
			return arg + ".yaml", data, nil
		}
		return "", nil, unknownScenario(arg, "a directory, not a scenario file, and no bundled scenario of that name")
	case nr != nil:
		return "", nil, usagef("%s: %s, not a regular file: a scenario is a YAML file, or the name of a bundled scenario", arg, nr.Kind)
	case !errors.Is(err, os.ErrNotExist):
		return "", nil, usagef("%s: %v", arg, err)
	}
	if data, ok := scenarios.BundledYAML(arg); ok {
		return arg + ".yaml", data, nil
	}
	return "", nil, unknownScenario(arg, "no such file, and no bundled scenario of that name")
}

// checkSweepBlock checks each value of f's sweep: block on its own (sweep.CheckBlock).
func checkSweepBlock(arg string, sets []string, f *scenarios.File) error {
	ovs, err := parseEach(sets, scenarios.ParseOverride)
	if err != nil {
		return err
	}
	name, data, err := readScenario(arg)
	if err != nil {
		return err
	}
	return sweepError(sweep.CheckBlock(name, data, ovs, f))
}

// checkError is the usage error of a fabric that cannot be built: at its file:line:col when
// the builder placed it (experiment.BuildError), else after the scenario's name.
func checkError(scenario string, err error) error {
	var be *experiment.BuildError
	if errors.As(err, &be) {
		return usagef("%v", be)
	}
	return usagef("%s: %v", scenario, err)
}

func unknownScenario(name, what string) error {
	var names []string
	for _, b := range scenarios.Bundled() {
		names = append(names, b.Name)
	}
	return usagef("%s: %s (bundled: %s)", name, what, strings.Join(names, ", "))
}

// loadScenario reads and checks a scenario for a run that keeps no time series, printing
// warnings; problems are a usage error listing every one.
func loadScenario(arg string, sets []string, stderr io.Writer, quiet bool) (*scenarios.File, error) {
	return loadScenarioWith(arg, sets, stderr, quiet, scenarios.LoadOptions{})
}

// loadScenarioWith is loadScenario for a run that does what opt says (-o: the time series).
func loadScenarioWith(arg string, sets []string, stderr io.Writer, quiet bool, opt scenarios.LoadOptions) (*scenarios.File, error) {
	return loadFrom(arg, readScenario, sets, stderr, quiet, opt)
}

// loadFrom is loadScenarioWith reading the scenario with read.
func loadFrom(arg string, read func(string) (string, []byte, error), sets []string, stderr io.Writer, quiet bool, opt scenarios.LoadOptions) (*scenarios.File, error) {
	var ovs []scenarios.Override
	for _, s := range sets {
		o, err := scenarios.ParseOverride(s)
		if err != nil {
			return nil, usagef("--set %s: %v", s, err)
		}
		ovs = append(ovs, o)
	}
	done := slowNotice(stderr, "reading and checking "+arg, quiet)
	name, data, err := read(arg)
	if err != nil {
		done()
		return nil, err
	}
	f, problems, warnings := scenarios.LoadWith(name, data, ovs, opt)
	done()
	for _, w := range warnings {
		fmt.Fprintf(stderr, "warning: %v\n", w)
	}
	if len(problems) > 0 {
		return nil, &usageError{problemList(name, problems)}
	}
	return f, nil
}

func newListCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the bundled scenarios",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			width := 0
			for _, b := range scenarios.Bundled() {
				width = max(width, len(b.Name))
			}
			for _, b := range scenarios.Bundled() {
				fmt.Fprintf(stdout, "%-*s  %s\n", width, b.Name, b.Summary)
			}
			return nil
		},
	}
}

func newShowCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "show NAME",
		Short: "Print a bundled scenario's YAML, to copy and edit",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, ok := scenarios.BundledYAML(args[0])
			if !ok {
				return unknownScenario(args[0], "no bundled scenario of that name")
			}
			_, err := stdout.Write(data)
			return err
		},
	}
}

func newValidateCommand(stdout, stderr io.Writer) *cobra.Command {
	var sets []string
	cmd := &cobra.Command{
		Use:   "validate SCENARIO",
		Short: "Check a scenario and print every problem found, or ok",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := loadScenario(args[0], sets, stderr, false)
			if err != nil {
				return err
			}
			// The sweep: block's values, which run ignores, checked as sweep checks them.
			if f.Sweep() != nil {
				if err := checkSweepBlock(args[0], sets, f); err != nil {
					return err
				}
			}
			// Checked as run checks it without -o; what -o's time series would add, a warning.
			if _, err := loadScenarioWith(args[0], sets, io.Discard, true, scenarios.LoadOptions{Series: true}); err != nil {
				fmt.Fprintf(stderr, "warning: run -o DIR, which keeps the time series, would refuse it:\n%v\n", err)
			}
			done := slowNotice(stderr, "building "+args[0], false)
			warnings, err := experiment.Check(f)
			done()
			if err != nil {
				return checkError(args[0], err)
			}
			for _, w := range warnings {
				fmt.Fprintf(stderr, "warning: %s\n", w)
			}
			fmt.Fprintln(stdout, "ok")
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&sets, "set", nil, "override one scenario field, `PATH=VALUE` (repeatable)")
	return cmd
}

func newExplainCommand(stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "explain SCENARIO",
		Short: "Say in plain words what will be simulated and what to look for",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := loadScenario(args[0], nil, stderr, false)
			if err != nil {
				return err
			}
			text, err := experiment.Explain(f)
			if err != nil {
				return err
			}
			_, err = io.WriteString(stdout, text)
			return err
		},
	}
}
