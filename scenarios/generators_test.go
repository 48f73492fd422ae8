package scenarios

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
)

func TestTrafficGeneratorsResolve(t *testing.T) {
	f, errs, _ := loadYAML(t, starScenario,
		"traffic=[{poisson: {hosts: [h1, h2, h3], load: 0.5, workload: hadoop, stop: 800us, dst: [h3, h4], transport: rocev2}},"+
			"{all_to_all: {size: 10KB, start: 5us, transport: rocev2}},"+
			"{incast: {senders: [h1, h2], receiver: h3, size: 1MB, transport: rocev2, repeat: {every: 100us, count: 5}}}]")
	require.Empty(t, errs)
	sc := f.Scenario(0)
	p := sc.Traffic[0].Poisson
	require.Equal(t, []string{"h1", "h2", "h3"}, p.Hosts)
	require.Equal(t, []string{"h3", "h4"}, p.Dst)
	require.Equal(t, 0.5, p.Load)
	require.InDelta(t, 120_420.8, p.Workload.Mean(), 0.1, "hadoop")
	require.Equal(t, 800*sim.Microsecond, p.Stop)
	require.Zero(t, p.Count)
	a := sc.Traffic[1].AllToAll
	require.Nil(t, a.Hosts, "all hosts")
	require.EqualValues(t, 10_000, a.Size)
	in := sc.Traffic[2].Incast
	require.Equal(t, 100*sim.Microsecond, in.Every)
	require.Equal(t, 5, in.Count)

	// A poisson item without stop or count runs to the scenario's stop.
	f, errs, _ = loadYAML(t, starScenario, "traffic=[{poisson: {load: 0.3, workload: websearch, transport: rocev2}}]")
	require.Empty(t, errs)
	require.Equal(t, f.Scenario(0).Stop, f.Scenario(0).Traffic[0].Poisson.Stop)
}

func TestWorkloadFileIsCheckedLineByLine(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "mine.txt")
	require.NoError(t, os.WriteFile(good, []byte("0 0\n1000 50\n5000 100\n"), 0o644))
	bad := filepath.Join(dir, "bad.txt")
	require.NoError(t, os.WriteFile(bad, []byte("0 0\n1000 50\n500 100\n"), 0o644))
	scenario := filepath.Join(dir, "s.yaml")
	// A relative workload path is relative to the scenario file's directory.
	f, errs, _ := Load(scenario, []byte(starScenario), mustOverrides(t, "traffic=[{poisson: {load: 0.5, workload: mine.txt, count: 100, transport: rocev2}}]"))
	require.Empty(t, errs)
	p := f.Scenario(0).Traffic[0].Poisson
	require.Equal(t, good, p.WorkloadFile)
	require.InDelta(t, 0.5*500+0.5*3000, p.Workload.Mean(), 1e-9)
	_, errs, _ = Load(scenario, []byte(starScenario), mustOverrides(t, "traffic=[{poisson: {load: 0.5, workload: bad.txt, count: 100, transport: rocev2}}]"))
	requireProblem(t, errs, "traffic.0.poisson.workload", bad+":3: size 500 is below the previous line's 1000")
}

func mustOverrides(t *testing.T, sets ...string) []Override {
	t.Helper()
	var ovs []Override
	for _, s := range sets {
		o, err := ParseOverride(s)
		require.NoError(t, err)
		ovs = append(ovs, o)
	}
	return ovs
}

func TestTrafficGeneratorProblems(t *testing.T) {
	const p = "traffic=[{poisson: {load: 0.5, workload: websearch, transport: rocev2"
	for _, tc := range []struct{ set, path, msg string }{
		{"traffic=[{poisson: {workload: websearch, transport: rocev2}}]", "traffic.0.poisson.load", "load is required"},
		{"traffic=[{poisson: {load: 1.5, workload: websearch, transport: rocev2}}]", "traffic.0.poisson.load", "in (0, 1]; got 1.5"},
		{"traffic=[{poisson: {load: 0.5, transport: rocev2}}]", "traffic.0.poisson.workload", "workload is required: one of websearch, hadoop, alistorage, googlerpc"},
		{"traffic=[{poisson: {load: 0.5, workload: websarch, transport: rocev2}}]", "traffic.0.poisson.workload", `workload "websarch" is not bundled`},
		{p + ", count: 10, stop: 1ms}}]", "traffic.0.poisson.stop", "give stop or count, not both"},
		{p + ", count: 0}}]", "traffic.0.poisson.count", "count is the number of flows in all, 1 to 1000000; got 0"},
		{p + ", start: 500us, stop: 100us}}]", "traffic.0.poisson.stop", "stop 100us must be after start (500us)"},
		{p + ", hosts: [h1]}}]", "traffic.0.poisson.hosts", "poisson traffic needs at least 2 hosts"},
		{p + ", dst: [h1, h9]}}]", "traffic.0.poisson.dst.1", `unknown host "h9"`},
		{p + ", size: 1MB}}]", "traffic.0.poisson.size", `unknown field "size"`},
		{"traffic=[{all_to_all: {transport: rocev2}}]", "traffic.0.all_to_all.size", "size is required"},
		{"traffic=[{all_to_all: {hosts: [h1, h1], size: 1KB, transport: rocev2}}]", "traffic.0.all_to_all.hosts.1", `host "h1" is listed twice`},
		{"traffic=[{incast: {senders: [h1], receiver: h2, size: 1MB, transport: rocev2, repeat: {count: 3}}}]", "traffic.0.incast.repeat.every", "repeat.every is required"},
		{"traffic=[{incast: {senders: [h1], receiver: h2, size: 1MB, transport: rocev2, repeat: {every: 1us, count: 0}}}]", "traffic.0.incast.repeat.count", "repeat.count is the number of bursts in all, 1 to 100000"},
	} {
		_, errs, _ := loadYAML(t, starScenario, tc.set)
		requireProblem(t, errs, tc.path, tc.msg)
	}
}

func TestSeedsList(t *testing.T) {
	f, errs, _ := loadYAML(t, starScenario, "seeds=[4, 5, 9]")
	require.Empty(t, errs)
	require.Equal(t, []uint64{4, 5, 9}, f.Seeds())
	require.EqualValues(t, 4, f.Seed(), "without seed, the first of seeds")
	f, errs, _ = loadYAML(t, starScenario)
	require.Empty(t, errs)
	require.Nil(t, f.Seeds())
	for _, tc := range []struct{ set, path, msg string }{
		{"seeds=[4]", "seeds", "a list of 2 to 100 seeds"},
		{"seeds=[4, 5, 4]", "seeds.2", "seed 4 is listed twice (also seeds.0)"},
		{"seeds=four", "seeds", ""},
	} {
		_, errs, _ := loadYAML(t, starScenario, tc.set)
		require.NotEmpty(t, errs, tc.set)
		if tc.msg != "" {
			requireProblem(t, errs, tc.path, tc.msg)
		}
	}
}
