package scenarios

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseGrid(t *testing.T) {
	for _, c := range []struct {
		arg  string
		path string
		want []string
	}{
		{"switch.ecn.kmax=50KB,100KB,200KB", "switch.ecn.kmax", []string{"50KB", "100KB", "200KB"}},
		{"seed=1..4", "seed", []string{"1", "2", "3", "4"}},
		{"seed=1..2,7", "seed", []string{"1", "2", "7"}},
		{"switch.buffer=logspace(1KB,1MB,4)", "switch.buffer", []string{"1KB", "10KB", "100KB", "1MB"}},
		{"switch.buffer=logspace(1KB, 1MB, 5)", "switch.buffer", []string{"1KB", "5.62KB", "31.6KB", "178KB", "1MB"}},
		{"switch.buffer=logspace(1KiB,1MiB,3)", "switch.buffer", []string{"1KiB", "32KiB", "1MiB"}},
		{"transports.rocev2.retransmit_timeout=logspace(100us,10ms,3)", "transports.rocev2.retransmit_timeout", []string{"100us", "1ms", "10ms"}},
		{"switch.ecn.pmax=logspace(0.001,1,4)", "switch.ecn.pmax", []string{"0.001", "0.01", "0.1", "1"}},
		{"traffic.0.poisson.load=linspace(0.1,0.9,5)", "traffic.0.poisson.load", []string{"0.1", "0.3", "0.5", "0.7", "0.9"}},
		{"topology.params.link=linspace(10Gbps,40Gbps,4)", "topology.params.link", []string{"10Gbps", "20Gbps", "30Gbps", "40Gbps"}},
		{"switch.pfc.priorities=[3],[3,4]", "switch.pfc.priorities", []string{"[3]", "[3,4]"}},
		{"switch.pfc.enabled=true,false", "switch.pfc.enabled", []string{"true", "false"}},
	} {
		a, err := ParseGrid(c.arg)
		require.NoError(t, err, c.arg)
		require.Equal(t, c.path, a.Path, c.arg)
		require.Equal(t, c.want, a.Values, c.arg)
	}
}

func TestParseGridErrors(t *testing.T) {
	for _, c := range []struct{ arg, msg string }{
		{"switch.ecn.kmax", "want PATH=V1,V2"},
		{"=1,2", "empty path"},
		{"seed=5..1", "goes down"},
		{"seed=1..100000", "at most 10000 points"},
		{"seed=1,1", "listed twice"},
		{"seeds=1..3", "sweep seed instead"},
		{"name=a,b", "belongs to the whole file"},
		{"switch.buffer=1KB..1MB", "a range is two whole numbers"},
		{"switch.buffer=logspace(1KB,1MB)", "want logspace(a,b,n)"},
		{"switch.buffer=logspace(1KB,1Gbps,3)", "both sizes, rates or durations"},
		{"switch.buffer=logspace(0,1MB,3)", "above 0"},
		{"switch.buffer=logspace(1KB,1MB,1)", "n is the number of values"},
		{"switch.buffer=1KB,,2KB", "empty value"},
		{"switch.buffer=[1", "not valid YAML"},
	} {
		_, err := ParseGrid(c.arg)
		require.ErrorContains(t, err, c.msg, c.arg)
	}
}

func TestSweepBlock(t *testing.T) {
	const base = `version: 1
name: s
topology: {preset: star, params: {hosts: 2, link: {rate: 100Gbps, delay: 1us}}}
traffic:
  - flow: {src: h1, dst: h2, size: 10KB, transport: rocev2}
`
	f, errs, _ := Load("s.yaml", []byte(base+"sweep:\n  switch.ecn.kmax: [50KB, 100KB]\n  seed: 1..3\n  switch.buffer: logspace(1MB,100MB,3)\n  switch.pfc.priorities: [[3], [3, 4]]\n"), nil)
	require.Empty(t, errs)
	require.Equal(t, []Axis{{"switch.ecn.kmax", []string{"50KB", "100KB"}}, {"seed", []string{"1", "2", "3"}},
		{"switch.buffer", []string{"1MB", "10MB", "100MB"}}, {"switch.pfc.priorities", []string{"[3]", "[3, 4]"}}}, f.Sweep())

	_, errs, _ = Load("s.yaml", []byte(base+"sweep:\n  seed: 3..1\n  seeds: [1, 2]\n  x: {a: 1}\n"), nil)
	require.Len(t, errs, 3)
	require.Equal(t, "s.yaml:7:9: sweep.seed: range \"3..1\" goes down; write the smaller end first, e.g. 1..3", errs[0].Error())
	require.Contains(t, errs[1].Error(), "sweep.seeds: seeds cannot be swept")
	require.Contains(t, errs[2].Error(), "sweep.x: want a list of values")

	_, errs, _ = Load("s.yaml", []byte(base+"sweep: [1]\n"), nil)
	require.ErrorContains(t, errs.Err(), "sweep is a mapping of field paths")
	_, errs, _ = Load("s.yaml", []byte(base+"variants:\n  - {name: a, set: {sweep: {seed: [1]}}}\n"), nil)
	require.ErrorContains(t, errs.Err(), "a variant cannot set sweep")
}

func TestSweepNullIsNoSweep(t *testing.T) {
	const base = `version: 1
name: s
topology: {preset: star, params: {hosts: 2, link: {rate: 100Gbps, delay: 1us}}}
traffic:
  - flow: {src: h1, dst: h2, size: 10KB, transport: rocev2}
`
	f, errs, _ := Load("s.yaml", []byte(base+"sweep: {seed: [1, 2]}\n"), []Override{{"sweep", "null"}})
	require.Empty(t, errs)
	require.Nil(t, f.Sweep())
	f, errs, _ = Load("s.yaml", []byte(base+"sweep:\n"), nil)
	require.Empty(t, errs)
	require.Nil(t, f.Sweep())
}
