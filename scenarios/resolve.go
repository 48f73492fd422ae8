package scenarios

import (
	"fmt"
	"regexp"
	"slices"

	"go.yaml.in/yaml/v4"

	"github.com/fabricsim/fabricsim/sim"
)

// The defaults and limits of the top level and of traffic; the settings blocks declare theirs
// on their fields (settings.go).
const (
	defaultSeed = 1
	// MaxSeeds bounds a replication (seeds: or --seeds).
	MaxSeeds    = 100
	defaultStop = 100 * sim.Millisecond
	maxFlowSize = 1_000_000_000_000 // 1TB: under 2^32 packets even at the smallest path MTU, 256
	maxSamples  = 100_000           // time-series samples per run: bounds memory
)

// The allowed values of the enumerated fields that are not settings, in the order messages
// list them.
var (
	transportNames = []string{"rocev2", "rocev1", "iwarp", "uet"}
	routingNames   = []string{"l3", "l2"}
	stateNames     = []string{"down", "up"}
	nodeTypes      = []string{"host", "switch"}

	nameRE     = regexp.MustCompile(`^[a-z0-9-]+$`)
	nodeNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.]*$`)
)

// resolver turns one variant's raw file into a Scenario, reporting every problem.
type resolver struct {
	l       *loader
	ix      *index
	failed  map[string]bool
	variant variantSpec
	sc      *Scenario
	topo    *topoInfo // nil when the topology is unusable: names are then not checked
}

// resolve decodes and validates the tree of one variant.
func (l *loader) resolve(tree *yaml.Node, v variantSpec) *Scenario {
	ix := buildIndex(tree)
	var raw rawFile
	failed := l.decode(tree, ix, &raw)
	r := &resolver{l: l, ix: ix, failed: failed, variant: v}
	return r.scenario(&raw)
}

// suppressed reports whether path, or a field it lies in, failed to decode.
func (r *resolver) suppressed(path string) bool {
	for q := path; ; q = parentPath(q) {
		if r.failed[q] {
			return true
		}
		if q == "" {
			return false
		}
	}
}

// errf reports a problem at the value of path (or its nearest ancestor in the file).
func (r *resolver) errf(path, format string, args ...any) {
	if r.suppressed(path) {
		return
	}
	r.l.errs = append(r.l.errs, r.l.problem(r.ix.at(path), path, fmt.Sprintf(format, args...)))
}

// warnf reports a warning at the value of path.
func (r *resolver) warnf(path, format string, args ...any) {
	if r.suppressed(path) {
		return
	}
	r.l.warns = append(r.l.warns, r.l.problem(r.ix.at(path), path, fmt.Sprintf(format, args...)))
}

// oneOf checks that v is one of allowed and reports it otherwise.
func (r *resolver) oneOf(path, what, v string, allowed []string) bool {
	if slices.Contains(allowed, v) {
		return true
	}
	if v == "" {
		r.errf(path, "%s is required (one of %s)", what, listOf(allowed))
	} else {
		r.errf(path, "unknown %s %q%s (allowed: %s)", what, v, didYouMean(v, allowed), listOf(allowed))
	}
	return false
}

func (r *resolver) scenario(raw *rawFile) *Scenario {
	sc := &Scenario{
		File: r.l.file, Version: 1, Seed: defaultSeed, Stop: defaultStop,
		Variant: r.variant.name, Transport: r.variant.transport,
		Description: raw.Description,
	}
	r.sc = sc
	if c, bad := unprintable(raw.Description, true); bad {
		r.errf("description", "description holds the character %U, which a terminal, summary.md or report.html would not show as itself (a control character or a bidirectional override): write it as plain text", c)
		sc.Description = ""
	}
	switch {
	case raw.Version == nil:
		r.errf("version", "version is required; write version: 1")
	case *raw.Version != 1:
		r.errf("version", "version %d is not supported; this fabricsim reads version 1", *raw.Version)
	}
	switch {
	case raw.Name == nil || *raw.Name == "":
		r.errf("name", "name is required: lower-case letters, digits and '-', e.g. name: incast-pfc")
	case !nameRE.MatchString(*raw.Name):
		r.errf("name", "name %q may hold only lower-case letters, digits and '-', e.g. incast-pfc", *raw.Name)
	default:
		sc.Name = *raw.Name
	}
	if raw.Seed != nil {
		sc.Seed = *raw.Seed
	}
	if raw.Seeds != nil {
		seen := map[uint64]int{}
		switch {
		case len(raw.Seeds) < 2 || len(raw.Seeds) > MaxSeeds:
			r.errf("seeds", "seeds replicate the run: a list of 2 to %d seeds, e.g. seeds: [1, 2, 3]; for one run use seed", MaxSeeds)
		default:
			for i, s := range raw.Seeds {
				if j, dup := seen[s]; dup {
					r.errf(fmt.Sprintf("seeds.%d", i), "seed %d is listed twice (also seeds.%d)", s, j)
				}
				seen[s] = i
			}
			sc.Seeds = raw.Seeds
			if raw.Seed == nil {
				sc.Seed = raw.Seeds[0]
			}
		}
	}
	sc.Sweep = r.sweepAxes(&raw.Sweep)
	if raw.Stop != nil {
		sc.Stop = sim.Time(*raw.Stop)
		if sc.Stop <= 0 {
			r.errf("stop", "stop must be > 0, e.g. stop: 10ms")
		}
	}
	sc.SeriesSamples = MaxAutoSamples - 1
	if raw.Sample != nil { // otherwise 0: the sampler follows the run's active period
		sc.SampleInterval = sim.Time(*raw.Sample)
		switch {
		case sc.SampleInterval <= 0:
			r.errf("sample_interval", "sample_interval must be > 0, e.g. sample_interval: 10us")
		case sc.Stop/sc.SampleInterval > maxSamples:
			r.errf("sample_interval", "sample_interval %v takes more than %d samples over stop %v; use at least %v",
				sc.SampleInterval, maxSamples, sc.Stop, sc.Stop/maxSamples)
		}
	}
	sc.Switch = settings(r, &raw.Switch, "switch", defaultsOf[SwitchConfig]())
	sc.Hosts = settings(r, &raw.Hosts, "hosts", defaultsOf[HostConfig]())
	sc.Transports = settings(r, &raw.Transports, "transports", defaultsOf[Transports]())
	r.topology(raw.Topology)
	if v := r.variant; v.index >= 0 && v.transport != "" {
		r.transport(fmt.Sprintf("variants.%d.transport", v.index), v.transport)
	}
	r.traffic(raw.Traffic)
	r.trimBelowAFrame()
	r.pfcQuanta()
	r.faults(raw.Faults)
	if r.topo != nil && sc.Stop > 0 {
		r.checkSize(raw.Sample != nil)
	}
	return sc
}

func (r *resolver) probability(path, what string, p float64) {
	if !(p >= 0 && p <= 1) {
		r.errf(path, "%s is a probability: a number in [0,1], got %v", what, p)
	}
}

func (r *resolver) priority(path string, p int) {
	if p < 0 || p > 7 {
		r.errf(path, "priority is 0..7, got %d", p)
	}
}

// transport checks a transport name written at path.
func (r *resolver) transport(path, t string) {
	r.oneOf(path, "transport", t, transportNames)
}
