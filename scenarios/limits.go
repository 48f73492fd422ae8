package scenarios

import (
	"fmt"
	"strings"

	"github.com/fabricsim/fabricsim/pfc"
	"github.com/fabricsim/fabricsim/sim"
)

// MinLinkRate is the slowest link a scenario may have, 30 b/s: the least rate at which the
// longest PAUSE, 65535 quanta of 512 bit times (IEEE 802.1Qbb; 33,553,920 bit times, 29.1 b/s
// x sim.MaxDuration), still lasts at most sim.MaxDuration, so that a pause, like every
// duration of a run, keeps the arithmetic of its times within sim.Time's int64 picoseconds.
// A frame's serialization is shorter still: a 9,216-byte jumbo frame at 30 b/s takes 41 min.
// It is the bit times over the duration, rounded up, with 512 cancelled to stay in int64.
const MinLinkRate = sim.Rate((pfc.MaxQuanta*int64(sim.Second) + maxPerQuantumBit - 1) / maxPerQuantumBit)

// maxPerQuantumBit is sim.MaxDuration over pfc.QuantumBits (2^60 / 2^9, exact).
const maxPerQuantumBit = int64(sim.MaxDuration) / pfc.QuantumBits

// FileTooLarge is the problem of a scenario file of size bytes, more than MaxFileBytes.
func FileTooLarge(size int64) string {
	return fmt.Sprintf("the file is %s; a scenario file is at most %s: describe large traffic with a generator (permutation, all_to_all, poisson, incast with repeat) instead of flow by flow",
		bytesOf(size), bytesOf(MaxFileBytes))
}

// exceeded lists, in words, the limits an estimate is over.
func exceeded(e Estimate) []string {
	var over []string
	if e.Nodes > MaxNodes {
		over = append(over, fmt.Sprintf("%s nodes, more than %s", count(e.Nodes), count(MaxNodes)))
	}
	if e.RouteEntries > MaxRouteEntries {
		over = append(over, fmt.Sprintf("%s route-table entries (switches x nodes), more than %s", count(e.RouteEntries), count(MaxRouteEntries)))
	}
	if e.RouteWork > MaxRouteWork {
		over = append(over, fmt.Sprintf("%s routing steps (hosts x (nodes + 4 x links)), more than %s", count(e.RouteWork), count(MaxRouteWork)))
	}
	if e.Flows > MaxFlows {
		over = append(over, fmt.Sprintf("%s flows, more than %s", count(e.Flows), count(MaxFlows)))
	}
	if e.SeriesRows > MaxSeriesRows {
		over = append(over, fmt.Sprintf("%s time-series rows, more than %s", count(e.SeriesRows), count(MaxSeriesRows)))
	}
	if e.MemoryBytes > MaxMemory {
		over = append(over, fmt.Sprintf("about %s of memory, more than %s", bytesOf(e.MemoryBytes), bytesOf(MaxMemory)))
	}
	return over
}

// checkSize estimates the run of the resolved, error-free scenario and refuses it when it
// is over a limit, with the estimate and how to shrink it. Only a run that keeps the time
// series (LoadOptions.Series) has its series bounded: without a sample_interval the sampler
// keeps at most SeriesSamples+1 samples, lowered (to 16 at least) so that the series fits.
func (r *resolver) checkSize(sampleGiven bool) {
	sc := r.sc
	series := r.l.series
	e := estimate(sc, series)
	if perSample := e.SeriesRows / int64(sc.SeriesSamples+1); !sampleGiven && e.SeriesRows > MaxSeriesRows && perSample > 0 {
		// Fewer samples, down to 16, so that the series fits.
		sc.SeriesSamples = max(int(MaxSeriesRows/perSample-1)&^1, 16)
		e = estimate(sc, series)
	}
	over := exceeded(e)
	if len(over) == 0 {
		return
	}
	path, how := r.shrink(e, sampleGiven)
	r.errf(path, "the run is too large: %s. Estimate: %s. To shrink it: %s", strings.Join(over, "; "), e, how)
}

// shrink says where the run is too large and how to make it fit, naming the cause: the
// flows, the time series (of -o), the frames the links hold, or the topology (for a preset,
// the largest size of the same shape that fits).
func (r *resolver) shrink(e Estimate, sampleGiven bool) (path, how string) {
	sc := r.sc
	fits := func(t Topology) bool {
		c := *sc
		c.Topology = t
		return len(exceeded(estimate(&c, e.Series))) == 0
	}
	topoOver := e.Nodes > MaxNodes || e.RouteEntries > MaxRouteEntries || e.RouteWork > MaxRouteWork
	// The memory's largest terms: what to shrink when memory alone is over.
	flowMem, seriesMem, eventMem := mulSat(flowBytes, e.Flows), mulSat(seriesRowBytes, e.SeriesRows), mulSat(eventBytes, e.EventsInFlight)
	switch {
	case e.Flows > MaxFlows:
		return "traffic", "fewer flows: lower a count, a load, a repeat.count or stop, or list fewer hosts"
	case sampleGiven && e.SeriesRows > MaxSeriesRows && !topoOver:
		samples := max(MaxSeriesRows/max(e.SeriesRows/max(int64(sc.Stop/sc.SampleInterval), 1), 1), 1)
		least := roundUp((sc.Stop + sim.Time(samples) - 1) / sim.Time(samples))
		return "sample_interval", fmt.Sprintf("a sample_interval of at least %v (or none: the automatic sampler keeps fewer samples to fit), or run without -o (no time series is kept then)", least)
	case e.SeriesRows > MaxSeriesRows && !topoOver:
		// Even 17 samples of every flow are too many rows.
		return "traffic", fmt.Sprintf("the time series that -o writes would hold %s rows even at 17 samples (every flow in each): run without -o (no time series is kept then), or with fewer flows (at most about %s)",
			count(e.SeriesRows), count(MaxSeriesRows/17))
	case !topoOver && e.MemoryBytes > MaxMemory && eventMem >= flowMem && eventMem >= seriesMem:
		return "topology", fmt.Sprintf("the links hold about %s frames in flight (rate x delay, or the traffic's own frames when fewer): shorter link delays, slower links or less traffic", count(e.FramesInFlight))
	case !topoOver && e.MemoryBytes > MaxMemory && seriesMem > flowMem:
		return "traffic", "a smaller time series: run without -o (no time series is kept then), or give a longer sample_interval"
	case !topoOver && e.MemoryBytes > MaxMemory:
		return "traffic", "fewer flows or a shorter stop"
	}
	t := sc.Topology
	p := &t.Params
	switch t.Preset {
	case "star":
		if n := largest(p.Hosts, func(n int) bool { p.Hosts = n; return fits(t) }); n > 0 {
			return "topology.params.hosts", fmt.Sprintf("fewer hosts: a star of at most %s hosts fits", count(int64(n)))
		}
	case "dumbbell":
		left, right := p.Left, p.Right
		scale := func(n int) bool {
			p.Left, p.Right = max(left*n/1000, 1), max(right*n/1000, 1)
			return fits(t)
		}
		if n := largest(1000, scale); n > 0 {
			return "topology.params", fmt.Sprintf("fewer hosts: left %d and right %d fit", max(left*n/1000, 1), max(right*n/1000, 1))
		}
	case "leafspine":
		if n := largest(p.HostsPerLeaf, func(n int) bool { p.HostsPerLeaf = n; return fits(t) }); n > 0 {
			return "topology.params.hosts_per_leaf", fmt.Sprintf("fewer hosts: at most %d hosts_per_leaf fit with %d leaves and %d spines", n, p.Leaves, p.Spines)
		}
		return "topology.params.leaves", "fewer leaves or spines"
	case "rail":
		if n := largest(p.ServersPerStripe, func(n int) bool { p.ServersPerStripe = n; return fits(t) }); n > 0 {
			return "topology.params.servers_per_stripe", fmt.Sprintf("fewer servers: at most %d servers_per_stripe fit", n)
		}
		return "topology.params.stripes", "fewer stripes, GPUs per server or planes"
	case "fattree":
		for k := p.K - 2; k >= 2; k -= 2 {
			if p.K = k; fits(t) {
				return "topology.params.k", fmt.Sprintf("a smaller k: at most k = %d fits", k)
			}
		}
	case "":
		return "topology.nodes", "fewer nodes and links"
	}
	return "topology", "a smaller topology or less traffic"
}

// roundUp rounds d up to a whole microsecond, or nanosecond below one microsecond.
func roundUp(d sim.Time) sim.Time {
	unit := sim.Microsecond
	if d < unit {
		unit = sim.Nanosecond
	}
	return (d + unit - 1) / unit * unit
}

// largest is the largest n in 1..limit for which ok holds, by bisection (ok holds for every
// n below one it holds for), or 0.
func largest(limit int, ok func(int) bool) int {
	lo, hi := 0, limit // ok(lo) holds (or lo = 0), ok(hi+1) does not
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if ok(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}
