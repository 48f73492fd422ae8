package experiment

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/transports"
	"github.com/fabricsim/fabricsim/workload"
)

// poissonStar is a star of 64 hosts at 100 Gb/s with one poisson item; built, not run.
const poissonStar = `
version: 1
name: poisson
seed: %d
stop: %s
topology:
  preset: star
  params: {hosts: 64, link: {rate: 100Gbps, delay: 1us}}
traffic:
  - poisson: {hosts: all, load: %g, workload: %s, start: 1ms, transport: rocev2}
`

func flowsOf(t *testing.T, text string) []*transports.Flow {
	t.Helper()
	return build0(t, text).reg.Flows
}

// TestPoissonOffersItsLoad: over the arrival window every sender offers load x its link
// rate, within 5%. Sizes are heavy-tailed: the offered load of a compound Poisson process
// over n flows has a relative standard deviation of sqrt(E[X^2] / (n E[X]^2)), so the window
// is made long enough for 5% to be three standard deviations (23,000 flows for websearch,
// 110,000 for hadoop), each load with its own seed.
func TestPoissonOffersItsLoad(t *testing.T) {
	slow(t, "long Poisson runs")
	for _, name := range []string{"websearch", "hadoop"} {
		cdf, err := workload.Bundled(name)
		require.NoError(t, err)
		for _, load := range []float64{0.3, 0.5, 0.7} {
			n := 9 * secondMoment(cdf) / (cdf.Mean() * cdf.Mean()) / (0.05 * 0.05)
			window := sim.Time(n * cdf.Mean() * 8 / (64 * load * 100e9) * float64(sim.Second))
			stop := sim.Millisecond + window
			flows := flowsOf(t, fmt.Sprintf(poissonStar, int(10*load), fmt.Sprintf("%dps", int64(stop)), load, name))
			var bytes float64
			last := sim.Time(0)
			for _, fl := range flows {
				require.GreaterOrEqual(t, fl.Start, sim.Millisecond, "no flow before start")
				require.Less(t, fl.Start, stop, "no flow at or after stop")
				require.GreaterOrEqual(t, fl.Start, last, "flows in the order they start")
				require.NotEqual(t, fl.Src, fl.Dst)
				last = fl.Start
				bytes += float64(fl.Size)
			}
			offered := bytes * 8 / (64 * 100e9 * window.Seconds())
			t.Logf("%s at load %.1f: %d flows offer %.4f", name, load, len(flows), offered)
			require.InEpsilon(t, load, offered, 0.05, "%s at load %.1f", name, load)
		}
	}
}

func TestPoissonIsDeterministicAndSeeded(t *testing.T) {
	text := func(seed int) string { return fmt.Sprintf(poissonStar, seed, "3ms", 0.5, "hadoop") }
	a, b, c := flowsOf(t, text(1)), flowsOf(t, text(1)), flowsOf(t, text(2))
	require.Equal(t, len(a), len(b))
	for i := range a {
		require.Equal(t, *a[i], *b[i], "flow %d", i)
	}
	same := len(a) == len(c)
	for i := 0; same && i < len(a); i++ {
		same = a[i].Start == c[i].Start && a[i].Size == c[i].Size
	}
	require.False(t, same, "another seed, other flows")
}

func TestPoissonCountDstAllToAllAndRepeatedIncast(t *testing.T) {
	const text = `
version: 1
name: generators
stop: 10ms
topology:
  preset: star
  params: {hosts: 6, link: {rate: 100Gbps, delay: 1us}}
traffic:
  - poisson: {hosts: [h1, h2, h3], dst: [h3, h4], load: 0.5, workload: googlerpc, count: 500, transport: rocev2}
  - all_to_all: {hosts: [h1, h2, h5], size: 10KB, start: 7us, transport: rocev2}
  - incast: {senders: [h1, h2], receiver: h6, size: 1MB, transport: rocev2, repeat: {every: 250us, count: 4}}
`
	f := build0(t, text)
	flows := f.reg.Flows
	name := func(id int) string { return f.nw.Nodes[id].Name }
	require.Len(t, flows, 500+6+8)
	for _, fl := range flows[:500] {
		src, dst := name(int(fl.Src)), name(int(fl.Dst))
		require.Contains(t, []string{"h1", "h2", "h3"}, src)
		require.Contains(t, []string{"h3", "h4"}, dst, "only the dst list")
		require.NotEqual(t, src, dst)
	}
	pairs := map[string]bool{}
	for _, fl := range flows[500:506] {
		pairs[name(int(fl.Src))+">"+name(int(fl.Dst))] = true
		require.Equal(t, 7*sim.Microsecond, fl.Start)
		require.EqualValues(t, 10_000, fl.Size)
	}
	require.Len(t, pairs, 6, "every ordered pair of 3 hosts once")
	for k, fl := range flows[506:] {
		require.Equal(t, sim.Time(k/2)*250*sim.Microsecond, fl.Start, "burst %d", k/2)
		require.Equal(t, "h6", name(int(fl.Dst)))
	}
}

// secondMoment is E[X^2] of the piecewise-linear CDF: on each segment the size is uniform
// between its ends a and b, so it adds (a^2 + ab + b^2)/3 times the segment's probability.
func secondMoment(c *workload.CDF) float64 {
	p := c.Points
	m := p[0].Size * p[0].Size * p[0].Cum
	for i := 1; i < len(p); i++ {
		a, b := p[i-1].Size, p[i].Size
		m += (a*a + a*b + b*b) / 3 * (p[i].Cum - p[i-1].Cum)
	}
	return m
}

// TestResultsDoNotDependOnWorkers: the same file run one variant at a time and all at once
// gives byte-identical results (wall time aside), random traffic included.
func TestResultsDoNotDependOnWorkers(t *testing.T) {
	const text = `
version: 1
name: workers
stop: 5ms
topology:
  preset: star
  params: {hosts: 8, link: {rate: 100Gbps, delay: 1us}}
switch: {buffer: 1MB}
traffic:
  - poisson: {hosts: all, load: 0.6, workload: hadoop, count: 300}
variants:
  - {name: a, transport: rocev2}
  - {name: b, transport: rocev2, set: {switch.pfc.enabled: true}}
  - {name: c, transport: iwarp}
`
	f := load(t, text)
	render := func(workers int) string {
		doc, err := RunFile(f, nil, workers, nil, Capture{})
		require.NoError(t, err)
		for i := range doc.Variants {
			doc.Variants[i].WallSeconds = 0
		}
		var b strings.Builder
		require.NoError(t, results.WriteJSON(&b, doc))
		return b.String()
	}
	one := render(1)
	require.Equal(t, one, render(3))
	require.Equal(t, one, render(1), "and across runs")
}

// TestFlowsCarryTheirItemsLabel: per_flow's group is the traffic item's label, else its kind
// and index, for every flow an item makes; with two groups slowdown_by_size has each group's
// bins after all flows'.
func TestFlowsCarryTheirItemsLabel(t *testing.T) {
	v := runOne(t, `version: 1
name: groups
stop: 5ms
topology: {preset: star, params: {hosts: 4, link: {rate: 100Gbps, delay: 1us}}}
traffic:
  - flow: {src: h1, dst: h4, size: 100KB, transport: rocev2, label: victim}
  - incast: {senders: [h1, h2, h3], receiver: h4, size: 50KB, transport: rocev2, repeat: {every: 100us, count: 2}}
`, 0)
	require.Len(t, v.PerFlow, 1+3*2)
	require.Equal(t, "victim", v.PerFlow[0].Group)
	for _, f := range v.PerFlow[1:] {
		require.Equal(t, "incast 1", f.Group, "flow %d", f.ID)
	}
	bins := len(results.DefaultSizeEdges) + 1
	require.Len(t, v.SlowdownBySize, 3*bins)
	var victim, incast int64
	for _, b := range v.SlowdownBySize[bins:] {
		switch b.Group {
		case "victim":
			victim += b.Flows
		case "incast 1":
			incast += b.Flows
		}
	}
	require.Equal(t, []int64{1, 6}, []int64{victim, incast})
}

// TestTransportColumnSaysWhatRan (issue 34, point 7): a traffic item's own transport: takes
// effect, and the variant's transport in the table says so: the transports its flows used,
// not only the variant's.
func TestTransportColumnSaysWhatRan(t *testing.T) {
	const file = `
version: 1
name: mixed
stop: 1ms
topology: {preset: star, params: {hosts: 4, link: {rate: 100Gbps, delay: 1us}}}
traffic:
  - flow: {src: h1, dst: h2, size: 10KB}
  - flow: {src: h3, dst: h4, size: 10KB, transport: iwarp}
variants:
  - {name: mixed, transport: rocev2}
  - {name: one, transport: iwarp}
`
	mixed := runOne(t, file, 0)
	require.Equal(t, "iwarp+rocev2", mixed.Transport)
	require.Equal(t, "rocev2", mixed.PerFlow[0].Transport)
	require.Equal(t, "iwarp", mixed.PerFlow[1].Transport)
	require.Equal(t, "iwarp", runOne(t, file, 1).Transport, "every flow over the variant's transport")
}
