package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricsim/fabricsim/experiment"
	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/scenarios"
)

// InputError is a problem with what the user gave: the scenario, the grid, the shard, the
// directories. The command exits with status 2 on it.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputf(format string, args ...any) error { return &InputError{fmt.Sprintf(format, args...)} }

// pointExtra is what every point adds after its axes: the file's replication and sweep
// emptied.
func pointExtra(base *scenarios.File) []scenarios.Override {
	var extra []scenarios.Override
	if base.Seeds() != nil {
		extra = append(extra, scenarios.Override{Path: "seeds", Value: "null"})
	}
	if base.Sweep() != nil {
		extra = append(extra, scenarios.Override{Path: "sweep", Value: "null"})
	}
	return extra
}

// checkValues loads the scenario with each value of each axis on its own, so that a value
// the field does not take is reported naming the path, the value and what is allowed.
// label names a value in the problems: "--grid PATH=VALUE" for NewPlan.
func checkValues(file string, data []byte, sets []scenarios.Override, axes []scenarios.Axis, extra []scenarios.Override,
	label func(path, value string) string) error {
	for _, a := range axes {
		for _, v := range a.Values {
			ovs := append(slices.Clone(sets), scenarios.Override{Path: a.Path, Value: v})
			if _, problems, _ := scenarios.Load(file, data, append(ovs, extra...)); len(problems) > 0 {
				return &InputError{gridProblems(label(a.Path, v), problems)}
			}
		}
	}
	return nil
}

func gridLabel(path, value string) string { return fmt.Sprintf("--grid %s=%s", path, value) }

// CheckBlock checks each value of the sweep: block of base (the file loaded from data with
// sets) on its own, as NewPlan does before it makes the points: validate reports a value the
// field does not take (a bad unit, say) as sweep would, though run ignores the block.
func CheckBlock(file string, data []byte, sets []scenarios.Override, base *scenarios.File) error {
	return checkValues(file, data, sets, base.Sweep(), pointExtra(base), func(path, value string) string {
		return fmt.Sprintf("%s: sweep.%s: value %s", file, path, value)
	})
}

// Plan is a sweep ready to run: its base scenario, its axes and its points in order (the
// cartesian product of the axes, the last axis varying fastest).
type Plan struct {
	Scenario string           // the scenario's name
	Version  string           // the simulator's version (experiment.Version)
	ID       string           // identifies the sweep: see NewPlan
	Sets     []string         // the --set flags applied to every point, PATH=VALUE
	Axes     []scenarios.Axis // in order: the file's sweep block, then --grid's new paths
	Points   []Point
}

// Point is one combination of the axes' values.
type Point struct {
	Index  int      // in the plan, from 0
	Name   string   // its file name in points/, without .json: index and values
	Values []string // one per axis
	// Overrides are what the point runs with: the sets, then PATH=VALUE per axis (and
	// seeds= and sweep= emptied when the file has them), as a run's --set flags.
	Overrides []string
	// Hash is the SHA-256 of the point's resolved scenario (results.Document.ResolvedScenario).
	Hash string
	file *scenarios.File
}

// NewPlan loads the scenario (file names it in problems, data is its YAML) with sets, and
// expands its sweep block, with grid's axes replacing the block's axis of the same path or
// added after them, into the points. When nothing sweeps seed and the file has seeds: [..],
// they become the axis seed (each point runs one seed, and the points of one combination
// make the replication). Each axis value, then each point, is loaded as the scenario with
// its overrides, so a value the field does not take is reported naming the path, the value
// and what is allowed. The plan's ID hashes the version, the resolved base scenario, the
// sets and the axes: two shards of one sweep have the same.
func NewPlan(file string, data []byte, sets []scenarios.Override, grid []scenarios.Axis) (*Plan, error) {
	for i, g := range grid {
		// A path given twice would keep its last values only: which the user meant is theirs to say.
		if j := slices.IndexFunc(grid[:i], func(a scenarios.Axis) bool { return a.Path == g.Path }); j >= 0 {
			return nil, inputf("--grid %s is given twice (%s, then %s): give all its values in one --grid, e.g. --grid %s=%s",
				g.Path, strings.Join(grid[j].Values, ","), strings.Join(g.Values, ","), g.Path,
				strings.Join(append(slices.Clone(grid[j].Values), g.Values...), ","))
		}
	}
	base, problems, _ := scenarios.Load(file, data, sets)
	if len(problems) > 0 {
		return nil, &InputError{problems.Error()}
	}
	axes := base.Sweep()
	for _, g := range grid {
		if i := slices.IndexFunc(axes, func(a scenarios.Axis) bool { return a.Path == g.Path }); i >= 0 {
			axes[i] = g
		} else {
			axes = append(axes, g)
		}
	}
	seeds := base.Seeds()
	if seeds != nil && !slices.ContainsFunc(axes, func(a scenarios.Axis) bool { return a.Path == "seed" }) {
		a := scenarios.Axis{Path: "seed"}
		for _, s := range seeds {
			a.Values = append(a.Values, strconv.FormatUint(s, 10))
		}
		axes = append(axes, a)
	}
	if len(axes) == 0 {
		return nil, inputf("%s: nothing to sweep: give --grid PATH=V1,V2,... (e.g. --grid seed=1..5) or a sweep: block in the file", file)
	}
	total := 1
	for _, a := range axes {
		total *= len(a.Values)
		if total > scenarios.MaxSweepPoints {
			return nil, inputf("the sweep has more than %d points; sweep fewer values", scenarios.MaxSweepPoints)
		}
	}
	extra := pointExtra(base)
	p := &Plan{Scenario: base.Name(), Version: experiment.Version, Axes: axes}
	for _, s := range sets {
		p.Sets = append(p.Sets, s.String())
	}
	// Each value on its own first: its problems are the value's, not the combination's.
	if err := checkValues(file, data, sets, axes, extra, gridLabel); err != nil {
		return nil, err
	}
	idx := make([]int, len(axes))
	for k := range total {
		pt := Point{Index: k}
		ovs := slices.Clone(sets)
		for i, a := range axes {
			pt.Values = append(pt.Values, a.Values[idx[i]])
			ovs = append(ovs, scenarios.Override{Path: a.Path, Value: a.Values[idx[i]]})
		}
		ovs = append(ovs, extra...)
		for _, o := range ovs {
			pt.Overrides = append(pt.Overrides, o.String())
		}
		pt.Name = pointName(k, total, axes, pt.Values)
		f, problems, _ := scenarios.Load(file, data, ovs)
		if len(problems) > 0 {
			return nil, &InputError{gridProblems("point "+pt.Name, problems)}
		}
		pt.file = f
		pt.Hash = hashOf(f.Resolved())
		p.Points = append(p.Points, pt)
		for i := len(idx) - 1; i >= 0; i-- { // the last axis varies fastest
			if idx[i]++; idx[i] < len(axes[i].Values) {
				break
			}
			idx[i] = 0
		}
	}
	id, err := json.Marshal(struct {
		Version, Base string
		Sets          []string
		Axes          []scenarios.Axis
	}{p.Version, base.Resolved(), p.Sets, p.Axes})
	if err != nil {
		return nil, err
	}
	p.ID = hashOf(string(id))
	return p, nil
}

// gridProblems says which grid value or point the problems come from, one per line.
func gridProblems(what string, problems scenarios.Problems) string {
	var b strings.Builder
	for i, p := range problems {
		if i == 20 {
			fmt.Fprintf(&b, "%s: ... and %d more problem(s)\n", what, len(problems)-20)
			break
		}
		msg := p.Error()
		if j := strings.Index(msg, " (from --set "); j >= 0 {
			msg = msg[:j]
		}
		msg = strings.TrimPrefix(msg, scenarios.OverrideFile+": ")
		fmt.Fprintf(&b, "%s: %s\n", what, msg)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// pointName is a point's file name: its index, zero-padded to the width of the last, then
// each axis's last path segment and value as file-name parts, e.g. "07_kmax-100kb_seed-3";
// at most about 120 characters (the index keeps names apart).
func pointName(k, total int, axes []scenarios.Axis, values []string) string {
	name := fmt.Sprintf("%0*d", len(strconv.Itoa(total-1)), k)
	for i, a := range axes {
		seg := a.Path[strings.LastIndexByte(a.Path, '.')+1:]
		part := "_" + results.Slug(seg) + "-" + results.Slug(values[i])
		if len(name)+len(part) > 120 {
			break
		}
		name += part
	}
	return name
}

// Shard is the slice of the points that shard i of n runs (0 <= i < n): those whose index
// is i modulo n, so that every shard gets points from across the grid.
func (p *Plan) Shard(i, n int) []Point {
	var out []Point
	for _, pt := range p.Points {
		if pt.Index%n == i {
			out = append(out, pt)
		}
	}
	return out
}

// ParseShard reads --shard I/N: 0 <= I < N, N at least 1.
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	i, errI := strconv.Atoi(strings.TrimSpace(a))
	n, errN := strconv.Atoi(strings.TrimSpace(b))
	if !ok || errI != nil || errN != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, inputf("--shard %q: want I/N with 0 <= I < N, e.g. 0/4 to 3/4 for four shards (I counts from 0, as SLURM_ARRAY_TASK_ID with --array=0-3 and JOB_COMPLETION_INDEX do)", s)
	}
	return i, n, nil
}
