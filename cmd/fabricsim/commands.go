package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/fabricsim/fabricsim/experiment"
	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/scenarios"
)

// defaultScenario is what `fabricsim` with no arguments runs.
const defaultScenario = "tradeoff"

// flagError marks errors from flag parsing, which cobra returns as plain errors.
type flagError struct{ error }

// usageArgs makes a wrong number of arguments a usage error (exit status 2).
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usagef("fabricsim %s: %v (usage: %s)", cmd.Name(), err, cmd.UseLine())
		}
		return nil
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
	// `fabricsim [flags]` is `fabricsim run tradeoff [flags]`.
	root.Flags().AddFlagSet(runCmd.Flags())
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &flagError{err} })
	root.AddCommand(runCmd, newListCommand(stdout), newShowCommand(stdout), newValidateCommand(stdout, stderr),
		newExplainCommand(stdout, stderr))
	return root
}

// readScenario finds SCENARIO as a file path, or else as the name of a bundled scenario.
func readScenario(arg string) (name string, data []byte, err error) {
	if data, err := os.ReadFile(arg); err == nil {
		return arg, data, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", nil, usagef("%s: %v", arg, err)
	}
	if data, ok := scenarios.BundledYAML(arg); ok {
		return arg + ".yaml", data, nil
	}
	return "", nil, unknownScenario(arg, "no such file, and no bundled scenario of that name")
}

func unknownScenario(name, what string) error {
	var names []string
	for _, b := range scenarios.Bundled() {
		names = append(names, b.Name)
	}
	return usagef("%s: %s (bundled: %s)", name, what, strings.Join(names, ", "))
}

// loadScenario reads and checks a scenario, printing warnings; problems are a usage error
// listing every one.
func loadScenario(arg string, sets []string, stderr io.Writer) (*scenarios.File, error) {
	var ovs []scenarios.Override
	for _, s := range sets {
		o, err := scenarios.ParseOverride(s)
		if err != nil {
			return nil, usagef("--set %s: %v", s, err)
		}
		ovs = append(ovs, o)
	}
	name, data, err := readScenario(arg)
	if err != nil {
		return nil, err
	}
	f, problems, warnings := scenarios.Load(name, data, ovs)
	for _, w := range warnings {
		fmt.Fprintf(stderr, "warning: %v\n", w)
	}
	if len(problems) > 0 {
		var b strings.Builder
		for _, p := range problems {
			fmt.Fprintln(&b, p.Error())
		}
		fmt.Fprintf(&b, "%s: %d problem(s)", name, len(problems))
		return nil, &usageError{b.String()}
	}
	return f, nil
}

func newRunCommand(settings *viper.Viper, stdout, stderr io.Writer) *cobra.Command {
	var sets, variants, pcaps []string
	cmd := &cobra.Command{
		Use:   "run [SCENARIO]",
		Short: "Run a scenario (a YAML file or a bundled name) and print its comparison table",
		Example: `  fabricsim run tradeoff
  fabricsim run my.yaml --set switch.buffer=4MB --variant "RoCEv2 lossy" -o out/`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			scenario := defaultScenario
			if len(args) == 1 {
				scenario = args[0]
			}
			format := settings.GetString("format")
			switch format {
			case "table", "markdown", "csv", "json":
			default:
				return usagef("--format %q: allowed: table, markdown, csv, json", format)
			}
			edges, err := parseSizeBins(settings.GetString("size-bins"))
			if err != nil {
				return usagef("--size-bins: %v", err)
			}

			if settings.IsSet("seed") {
				sets = append([]string{fmt.Sprintf("seed=%d", settings.GetUint64("seed"))}, sets...)
			}
			f, err := loadScenario(scenario, sets, stderr)
			if err != nil {
				return err
			}
			// A fabric that cannot be built (too large to route, say) is the scenario's
			// problem, not a failed run.
			if _, err := experiment.Check(f); err != nil {
				return usagef("%s: %v", scenario, err)
			}
			capture := experiment.Capture{Links: pcaps, Dir: settings.GetString("out")}
			if len(pcaps) > 0 {
				if capture.Dir == "" {
					return usagef("--pcap writes its files into the --out directory: give -o DIR too")
				}
				if err := experiment.CheckCaptures(f, pcaps); err != nil {
					return usagef("%v", err)
				}
			}
			workers := settings.GetInt("workers")
			if workers < 1 {
				workers = runtime.GOMAXPROCS(0)
			}
			shown := len(f.Variants())
			if len(variants) > 0 {
				shown = len(variants)
			}
			bar := newProgress(stderr, shown, settings.GetBool("quiet"))
			doc, err := experiment.RunFile(f, variants, workers, bar.report, capture)
			bar.finish()
			if err != nil {
				var ve *experiment.VariantError
				if errors.As(err, &ve) {
					return usagef("%v", err)
				}
				return err
			}
			if edges != nil {
				for i := range doc.Variants {
					doc.Variants[i].SizeEdges = edges
					results.Summarize(&doc.Variants[i])
				}
			}
			if path := settings.GetString("json"); path != "" {
				if err := writeJSONFile(path, doc); err != nil {
					return err
				}
			}
			if dir := settings.GetString("out"); dir != "" {
				if err := results.WriteDir(dir, doc); err != nil {
					return err
				}
			}
			if format == "json" {
				return results.WriteJSON(stdout, doc)
			}
			return results.WriteTable(stdout, doc, format)
		},
	}
	fl := cmd.Flags()
	fl.String("json", "", "write the results document to `FILE`")
	fl.StringP("out", "o", "", "write results.json, flows.csv, a table per variant and summary.md into `DIR`")
	fl.String("format", "table", "standard output: table, markdown, csv or json")
	fl.Uint64("seed", 1, "override the scenario's seed")
	fl.StringArrayVar(&sets, "set", nil, "override one scenario field, `PATH=VALUE` (repeatable), e.g. switch.buffer=4MB")
	fl.StringArrayVar(&variants, "variant", nil, "run only the variant `NAME` (repeatable)")
	fl.StringArrayVar(&pcaps, "pcap", nil, "write the packets crossing a link (`NODE:PORT` or A-B) to a pcap file in the --out directory (repeatable)")
	fl.String("size-bins", "", "flow-size bin edges of slowdown_by_size, e.g. `10KB,100KB,1MB,10MB` (the default)")
	fl.BoolP("quiet", "q", false, "no progress bar")
	fl.Int("workers", 0, "variants run at once (default: the number of CPUs)")
	// Run settings come from the flags, or from FABRICSIM_* environment variables.
	fl.VisitAll(func(f *pflag.Flag) {
		if f.Name != "set" && f.Name != "variant" && f.Name != "pcap" {
			_ = settings.BindPFlag(f.Name, f)
		}
	})
	return cmd
}

func writeJSONFile(path string, doc *results.Document) (err error) {
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}()
	return results.WriteJSON(out, doc)
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
			f, err := loadScenario(args[0], sets, stderr)
			if err != nil {
				return err
			}
			warnings, err := experiment.Check(f)
			if err != nil {
				return usagef("%s: %v", args[0], err)
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
			f, err := loadScenario(args[0], nil, stderr)
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

// parseSizeBins reads --size-bins: sizes with units, comma-separated, each above the one
// before; "" means the default edges (nil).
func parseSizeBins(s string) ([]int64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var edges []int64
	for _, part := range strings.Split(s, ",") {
		n, err := scenarios.ParseSize(strings.TrimSpace(part))
		if err != nil {
			return nil, fmt.Errorf("%q: %v (want sizes with units, e.g. 10KB,100KB,1MB)", part, err)
		}
		if n <= 0 || (len(edges) > 0 && n <= edges[len(edges)-1]) {
			return nil, fmt.Errorf("%q: edges are positive and each above the one before", part)
		}
		edges = append(edges, n)
	}
	return edges, nil
}
