package scenarios

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/topology"
)

// presetFile is a scenario of one preset topology and one flow.
func presetFile(params string) []byte {
	return fmt.Appendf(nil, `version: 1
name: big
stop: 1ms
topology: %s
traffic:
  - flow: {src: h1, dst: h2, size: 1MB, transport: rocev2}
`, params)
}

// TestHugeStarRefusedAtOnce: a 100,000-host star (allowed by the node count, but its routes
// are a search from each of 100,000 hosts) is refused before anything is built, with the
// estimate and the largest star that fits. The wall bound is generous; the speed itself is
// BenchmarkLoadHugeStar's.
func TestHugeStarRefusedAtOnce(t *testing.T) {
	data := presetFile("{preset: star, params: {hosts: 100000, link: {rate: 100Gbps, delay: 1us}}}")
	start := time.Now()
	f, errs, _ := Load("big.yaml", data, nil)
	require.Less(t, time.Since(start), time.Second)
	require.Nil(t, f)
	require.Len(t, errs, 1)
	p := errs[0]
	require.Equal(t, "topology.params.hosts", p.Path)
	require.Equal(t, 4, p.Line)
	for _, want := range []string{
		"the run is too large: 50,000,100,000 routing steps (hosts x (nodes + 4 x links)), more than 1,000,000,000",
		"Estimate: 100,001 nodes (1 switch, 100,000 hosts), 100,000 links, 100,001 route-table entries",
		"1 flow,", "of memory",
		"To shrink it: fewer hosts: a star of at most 14,142 hosts fits",
	} {
		require.Contains(t, p.Msg, want)
	}
}

func BenchmarkLoadHugeStar(b *testing.B) {
	data := presetFile("{preset: star, params: {hosts: 100000, link: {rate: 100Gbps, delay: 1us}}}")
	for b.Loop() {
		Load("big.yaml", data, nil)
	}
}

// TestLimitsAgree: the largest sizes the messages and the package documentation name are
// the ones that load, one size more is refused, and the node bound is the one messages give.
func TestLimitsAgree(t *testing.T) {
	require.Equal(t, int64(topology.MaxTableEntries), int64(MaxRouteEntries))
	for _, c := range []struct {
		fits, over string
	}{
		{"{preset: star, params: {hosts: 14142, link: {rate: 100Gbps}}}", "{preset: star, params: {hosts: 14143, link: {rate: 100Gbps}}}"},
		{"{preset: fattree, params: {k: 32, link: {rate: 100Gbps}}}", "{preset: fattree, params: {k: 34, link: {rate: 100Gbps}}}"},
	} {
		_, errs, _ := Load("fits.yaml", presetFile(c.fits), nil)
		require.Empty(t, errs, c.fits)
		_, errs, _ = Load("over.yaml", presetFile(c.over), nil)
		require.Len(t, errs, 1, c.over)
		require.Contains(t, errs[0].Msg, "the run is too large")
	}
	_, errs, _ := Load("over.yaml", presetFile("{preset: fattree, params: {k: 34, link: {rate: 100Gbps}}}"), nil)
	require.Contains(t, errs[0].Msg, "at most k = 32 fits")
}

// TestEstimateShapeIsTheBuilders: the estimate counts the nodes and links each preset defines.
func TestEstimateShapeIsTheBuilders(t *testing.T) {
	for _, params := range []string{
		"{preset: star, params: {hosts: 7, link: {rate: 100Gbps}}}",
		"{preset: dumbbell, params: {left: 3, right: 2, host_link: {rate: 100Gbps}, bottleneck: {rate: 10Gbps}}}",
		"{preset: leafspine, params: {leaves: 3, spines: 2, hosts_per_leaf: 4, host_link: {rate: 100Gbps}, fabric_link: {rate: 100Gbps}}}",
		"{preset: fattree, params: {k: 6, link: {rate: 100Gbps}}}",
	} {
		data := strings.Replace(string(presetFile(params)), "flow: {src: h1, dst: h2,", "permutation: {", 1)
		f, errs, _ := Load("s.yaml", []byte(data), nil)
		require.Empty(t, errs, params)
		sc := f.Scenario(0)
		e := f.Estimate(0)
		require.Equal(t, int64(len(NodeNames(sc.Topology))), e.Nodes, params)
		require.Equal(t, int64(len(HostNames(sc.Topology))), e.Hosts, params)
		require.Equal(t, int64(len(TopologyLinks(sc.Topology))), e.Links, params)
		require.Equal(t, e.Switches*e.Nodes, e.RouteEntries)
		require.Equal(t, e.Hosts, e.Flows)
	}
}

// TestSeriesCapped: without a sample_interval the automatic sampler keeps fewer samples so
// that the time series stays under MaxSeriesRows; a sample_interval given that would go over
// is refused with the least that fits.
func TestSeriesCapped(t *testing.T) {
	const base = `version: 1
name: many
stop: 10ms
topology: {preset: star, params: {hosts: 16, link: {rate: 100Gbps}}}
traffic:
  - poisson: {hosts: all, load: 0.5, workload: websearch, count: 100000, transport: rocev2}
`
	series := LoadOptions{Series: true}
	f, errs, _ := LoadWith("many.yaml", []byte(base), nil, series)
	require.Empty(t, errs)
	sc := f.Scenario(0)
	require.Zero(t, sc.SampleInterval, "automatic")
	require.LessOrEqual(t, f.Estimate(0).SeriesRows, int64(MaxSeriesRows))
	// 19 samples fit (2,000,000 / (100,000 flows + 2 x 16 queues + 2 x 16 link directions
	// + 1 buffer)): the sampler keeps at most 18 (an even number), plus the one at the end.
	require.Equal(t, 18, sc.SeriesSamples)

	_, errs, _ = LoadWith("many.yaml", []byte(base+"sample_interval: 100us\n"), nil, series)
	require.Len(t, errs, 1)
	require.Equal(t, "sample_interval", errs[0].Path)
	// 10 ms / 100 us = 100 samples of 100,065 rows.
	require.Contains(t, errs[0].Msg, "10,006,500 time-series rows, more than 2,000,000")
	require.Contains(t, errs[0].Msg, "To shrink it: a sample_interval of at least 527us (or none: the automatic sampler keeps fewer samples to fit), or run without -o")
	// A run that keeps no time series (no -o) is not refused for it.
	f, errs, _ = Load("many.yaml", []byte(base+"sample_interval: 100us\n"), nil)
	require.Empty(t, errs)
	require.Zero(t, f.Estimate(0).SeriesRows)

	// Small runs keep the automatic sampler's full 1,024.
	f, errs, _ = LoadWith("s.yaml", presetFile("{preset: star, params: {hosts: 4, link: {rate: 100Gbps}}}"), nil, series)
	require.Empty(t, errs)
	require.Equal(t, MaxAutoSamples-1, f.Scenario(0).SeriesSamples)
}

// TestTooManyFlowsRefused: the flows are counted without being made.
func TestTooManyFlowsRefused(t *testing.T) {
	data := []byte(`version: 1
name: many
topology: {preset: star, params: {hosts: 2000, link: {rate: 100Gbps}}}
traffic:
  - all_to_all: {hosts: all, size: 1KB, transport: rocev2}
  - all_to_all: {hosts: all, size: 1KB, transport: rocev2}
`)
	_, errs, _ := Load("many.yaml", data, nil)
	var msgs []string
	for _, p := range errs {
		msgs = append(msgs, p.Error())
	}
	all := strings.Join(msgs, "\n")
	require.Contains(t, all, "traffic: the run is too large: 7,996,000 flows, more than 1,000,000")
	require.Contains(t, all, "To shrink it: fewer flows")
}

// TestSeriesLimitOnlyWithSeries: 120,000 flows on a 4-host star make 17 x 120,000 = 2,040,000
// flow rows (2,040,289 with the queues, links and buffer) even at the automatic sampler's least 17 samples, more than MaxSeriesRows: a
// run with the time series (-o) is refused, and told that the series is the cause and that
// without -o it runs; a run without it loads.
func TestSeriesLimitOnlyWithSeries(t *testing.T) {
	data := []byte(`version: 1
name: many
stop: 10ms
topology: {preset: star, params: {hosts: 4, link: {rate: 100Gbps, delay: 1us}}}
traffic:
  - incast: {senders: [h1, h2, h3], receiver: h4, size: 1KB, transport: rocev2, repeat: {every: 1us, count: 40000}}
`)
	f, errs, _ := Load("many.yaml", data, nil)
	require.Empty(t, errs)
	require.Equal(t, int64(120_000), f.Estimate(0).Flows)
	require.Contains(t, f.Estimate(0).String(), "no time series kept (run -o keeps one)")
	_, errs, _ = LoadWith("many.yaml", data, nil, LoadOptions{Series: true})
	require.Len(t, errs, 1)
	require.Equal(t, "traffic", errs[0].Path)
	// 17 samples of the flows, 2 queues per switch port, both directions of the 4 links, the
	// switch's buffer.
	require.Contains(t, errs[0].Msg, fmt.Sprintf("%s time-series rows, more than 2,000,000", count(17*(120_000+2*4+2*4+1))))
	require.Contains(t, errs[0].Msg, "To shrink it: the time series that -o writes would hold")
	require.Contains(t, errs[0].Msg, "run without -o")
	require.NotContains(t, errs[0].Msg, "a smaller topology")
}

// TestFramesInFlightBoundByTheTraffic: one 100 KB RoCE flow over 1 s links cannot have the
// links' 100 Gb/s x 1 s = 12.5 GB in flight: at most its 100,000 / 256 + 1 frames, each in
// at most 8 copies (the original and retry_limit 7), so it loads (it was refused as "about
// 12.0 GB"); the same links under traffic that could fill them are refused naming the links'
// frames in flight as the cause, not the flows.
func TestFramesInFlightBoundByTheTraffic(t *testing.T) {
	const slow = `version: 1
name: slow
stop: 3s
topology: {preset: star, params: {hosts: 4, link: {rate: 100Gbps, delay: 1s}}}
traffic:
  - %s
`
	f, errs, _ := Load("slow.yaml", fmt.Appendf(nil, slow, "flow: {src: h1, dst: h2, size: 100KB, transport: rocev2}"), nil)
	require.Empty(t, errs)
	e := f.Estimate(0)
	wire := int64(4 * (100e9*1/8/wireFrameBytes + 1))
	traffic := int64((100_000.0/256 + 1) * 8)
	require.Less(t, traffic, wire)
	require.Equal(t, traffic, e.FramesInFlight)
	require.Equal(t, 1+4*4+2*traffic, e.EventsInFlight)
	require.Less(t, e.MemoryBytes, int64(MaxMemory/100))

	// 100 flows of 1 GB (each 3.9 M frames) could fill the wires' 50 M frames: refused for them.
	_, errs, _ = Load("slow.yaml", fmt.Appendf(nil, slow, "incast: {senders: [h1, h2, h3], receiver: h4, size: 1GB, transport: rocev2, repeat: {every: 1ms, count: 33}}"), nil)
	require.Len(t, errs, 1)
	require.Equal(t, "topology", errs[0].Path)
	// 4 x (12.5 GB / 1000 B + 1) = 50,000,004 frames, less float64's rounding of 1e23 ps-bits.
	require.Contains(t, errs[0].Msg, "To shrink it: the links hold about 50,000,00")
	require.Contains(t, errs[0].Msg, "frames in flight (rate x delay, or the traffic's own frames when fewer): shorter link delays, slower links or less traffic")
}
