package scenarios

import (
	"fmt"
	"math"
	"math/bits"
	"strings"

	"github.com/fabricsim/fabricsim/collective"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// The limits of one variant's run. Each is checked on the Estimate of the resolved scenario,
// before anything is built, so that a run too large for memory or for a sensible wait is
// refused at once with the estimate and how to shrink it, instead of after minutes of
// building or at the end of the machine's memory. They agree with the builder's own bounds
// (MaxRouteEntries is the topology package's table bound).
const (
	// MaxFileBytes bounds a scenario file: parsing and checking take about 250 times the
	// file's size in memory, and large traffic is better described by a generator.
	MaxFileBytes = 8 << 20
	// MaxNodes bounds the nodes of a topology (hosts and switches).
	MaxNodes = maxNodes
	// MaxRouteEntries bounds switches x nodes, the rows of the route tables.
	MaxRouteEntries = topology.MaxTableEntries
	// MaxRouteWork bounds hosts x (nodes + 4 x links), the steps of computing the routes if
	// every destination host took a search of its own: about 5 s on a 2020s core. Hosts of
	// one switch share a search (topology.ComputeRoutes), so it is an upper bound.
	MaxRouteWork = 1_000_000_000
	// MaxFlows bounds the flows the traffic makes, in all.
	MaxFlows = 1_000_000
	// MaxSeriesRows bounds the time series kept and written (the CSV files of -o): without a
	// sample_interval the sampler keeps at most MaxAutoSamples samples, and a run whose flows
	// and queues would still make more rows is refused, as is a sample_interval given that
	// makes more.
	MaxSeriesRows = 2_000_000
	// MaxAutoSamples is the most samples the automatic sampler keeps (when it holds one more
	// it drops every other one and doubles its interval).
	MaxAutoSamples = 1025
	// MaxMemory bounds the estimated memory of one variant's run.
	MaxMemory = 4 << 30
)

// The estimate's cost model, measured on the simulator's own structures: bytes per node,
// link, route-table entry (two rows of slice headers and the ports, for two tables), flow,
// time-series row and pending event, and the bytes in flight per frame on a wire.
const (
	baseBytes       = 32 << 20
	nodeBytes       = 4 << 10
	linkBytes       = 2 << 10
	routeEntryBytes = 200
	flowBytes       = 2 << 10
	seriesRowBytes  = 48
	eventBytes      = 128
	wireFrameBytes  = 1000
	// A collective's message: the runtime's state of one (jobs.Job: its phase, inputs and
	// channels outstanding, release and arrival times, a work-request slot per channel) and
	// one of a plan (collective.Message with its After and Next lists).
	messageBytes     = 64
	planMessageBytes = 160
	queuesPerPortEst = 2 // queue series per switch port: the classes that carry traffic
)

// The traffic's bound on the frames in flight: a wire holds rate x delay, but no more than
// the traffic has frames to put on it.
const (
	// minFramePayload is the least payload of a full data frame: 256 bytes, the smallest
	// InfiniBand path MTU a RoCE transport takes (transports.rocev2.mtu; iWARP's least MSS is
	// 576 - 40 = 536), so a message of n bytes is at most n/256 + 1 frames.
	minFramePayload = 256
	// roceCopies is the most copies of one RoCE data frame on the wires at once: the original
	// and at most retry_limit = 7 retransmissions (InfiniBand's 3-bit retry count).
	roceCopies = 1 + 7
)

// Estimate is the size of one variant's run, worked out from the resolved scenario alone:
// counts from the topology's shape and the traffic's items (a Poisson item without count
// by its offered load and the workload's mean size), never by building anything.
type Estimate struct {
	Nodes, Switches, Hosts, Links int64
	RouteEntries                  int64 // switches x nodes
	RouteWork                     int64 // hosts x (nodes + 4 x links)
	Flows                         int64
	// Messages counts the collectives' messages over the run, PlanMessages those of their
	// dependency graphs (one iteration's: iterations share it).
	Messages, PlanMessages int64
	EventsInFlight         int64 // pending events: flow starts, frames on the wires, timers
	// FramesInFlight bounds the frames on all wires at once, one direction: what the wires
	// hold (rate x delay), or, when less, every data frame of the traffic in its most copies.
	FramesInFlight int64
	SeriesRows     int64 // at most: every flow in every sample, plus the queues', links' and buffers'; 0 without Series
	MemoryBytes    int64
	Series         bool // the run keeps the time series (LoadOptions.Series)
}

// String is the estimate in one line, as the refusal prints it.
func (e Estimate) String() string {
	series := "no time series kept (run -o keeps one)"
	if e.Series {
		series = "at most " + counted(e.SeriesRows, "time-series row")
	}
	flows := counted(e.Flows, "flow")
	if e.Messages > 0 {
		flows += ", " + counted(e.Messages, "collective message")
	}
	return fmt.Sprintf("%s (%s, %s), %s, %s, %s, %s, about %s in flight, %s, about %s of memory",
		counted(e.Nodes, "node"), counted(e.Switches, "switch"), counted(e.Hosts, "host"), counted(e.Links, "link"),
		counted(e.RouteEntries, "route-table entry"), counted(e.RouteWork, "routing step"), flows,
		counted(e.EventsInFlight, "event"), series, bytesOf(e.MemoryBytes))
}

// Estimate returns the estimate of variant i's run (see Estimate), or the zero Estimate when
// i is out of range.
func (f *File) Estimate(i int) Estimate {
	sc := f.Scenario(i)
	if sc == nil {
		return Estimate{}
	}
	return estimate(sc, f.series)
}

// shape counts the nodes and links of a topology (saturating: a preset's counts are each at
// most MaxNodes, but their products need not fit).
func shape(t *Topology) (hosts, switches, links int64) {
	p := t.Params
	if planes := int64(p.Planes); planes > 1 && t.Preset != "rail" { // WithPlanes: every switch and link per plane
		one := *t
		one.Params.Planes = 1
		h, s, l := shape(&one)
		return h, mulSat(s, planes), mulSat(l, planes)
	}
	switch t.Preset {
	case "star":
		return int64(p.Hosts), 1, int64(p.Hosts)
	case "dumbbell":
		h := int64(p.Left) + int64(p.Right)
		return h, 2, h + 1
	case "leafspine":
		h := mulSat(int64(p.Leaves), int64(p.HostsPerLeaf))
		return h, int64(p.Leaves) + int64(p.Spines), addSat(h, mulSat(int64(p.Leaves), int64(p.Spines)))
	case "fattree":
		k := int64(p.K)
		return mulSat(k, k*k) / 4, 5 * k * k / 4, mulSat(3*k, k*k) / 4
	case "rail": // the resolver bounded its nodes by maxNodes
		rp := RailParams(*t)
		gpus := int64(p.Stripes) * int64(p.ServersPerStripe) * int64(p.GPUsPerServer)
		return gpus, int64(rp.Nodes()) - gpus, int64(rp.Links())
	}
	for _, n := range t.Nodes {
		if n.Type == "host" {
			hosts++
		} else {
			switches++
		}
	}
	return hosts, switches, int64(len(t.Links))
}

// mulSat is a*b for a, b >= 0, saturating at math.MaxInt64.
func mulSat(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// addSat is a+b for a, b >= 0, saturating at math.MaxInt64.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// estimate computes the Estimate of a resolved scenario, for a run that keeps the time
// series when series is set.
func estimate(sc *Scenario, series bool) Estimate {
	e := Estimate{Series: series}
	e.Hosts, e.Switches, e.Links = shape(&sc.Topology)
	e.Nodes = addSat(e.Hosts, e.Switches)
	e.RouteEntries = mulSat(e.Switches, e.Nodes)
	e.RouteWork = mulSat(e.Hosts, addSat(e.Nodes, mulSat(4, e.Links)))
	e.Flows = flowCount(sc, e.Hosts)
	e.Messages, e.PlanMessages = messageCount(sc, e.Hosts)
	e.FramesInFlight = min(wireFrames(&sc.Topology), trafficFrames(sc, e.Hosts))
	// Each frame in flight, and the acknowledgement or notification it may draw, is an event.
	e.EventsInFlight = addSat(addSat(e.Flows, mulSat(4, e.Links)), mulSat(2, e.FramesInFlight))
	if series {
		e.SeriesRows = seriesRows(sc, e, sc.SampleInterval)
	}
	e.MemoryBytes = baseBytes
	for _, term := range [][2]int64{{nodeBytes, e.Nodes}, {linkBytes, e.Links}, {routeEntryBytes, e.RouteEntries},
		{flowBytes, e.Flows}, {seriesRowBytes, e.SeriesRows}, {eventBytes, e.EventsInFlight},
		{messageBytes, e.Messages}, {planMessageBytes, e.PlanMessages}} {
		e.MemoryBytes = addSat(e.MemoryBytes, mulSat(term[0], term[1]))
	}
	return e
}

// seriesRows is the most rows the time series can hold at interval: every flow in every
// sample, the queues that carry traffic (queuesPerPortEst per switch port), both directions
// of every link (links.csv) and every switch's buffer (buffers.csv). The counts of
// events.csv are left out: it has a row only where a count grew, and the sampler a column
// per place and kind of event that happened (a few per switch, link or host).
func seriesRows(sc *Scenario, e Estimate, interval sim.Time) int64 {
	samples := int64(sc.SeriesSamples) + 1 // the automatic sampler's bound
	if interval > 0 {
		samples = int64(sc.Stop / interval)
	}
	switchPorts := max(mulSat(2, e.Links)-e.Hosts, 0)
	perSample := addSat(addSat(e.Flows, mulSat(queuesPerPortEst, switchPorts)), addSat(mulSat(2, e.Links), e.Switches))
	return mulSat(samples, perSample)
}

// wireFrames is the number of full frames on all wires at once, one direction: a wire holds
// rate x delay.
func wireFrames(t *Topology) int64 {
	frames := func(s LinkSpec) int64 { return int64(min(bytesIn(s.Rate, s.Delay)/wireFrameBytes, 1e15)) + 1 }
	p := t.Params
	hosts, _, links := shape(t)
	preset := t.Preset
	if p.Planes > 1 {
		preset = "rail" // read from the built links
	}
	switch preset {
	case "star", "fattree":
		return mulSat(links, frames(p.Link))
	case "dumbbell":
		return addSat(mulSat(hosts, frames(p.HostLink)), frames(p.Bottleneck))
	case "leafspine":
		return addSat(mulSat(hosts, frames(p.HostLink)), mulSat(links-hosts, frames(p.FabricLink)))
	case "rail":
		var n int64
		for _, l := range TopologyLinks(*t) {
			n = addSat(n, frames(LinkSpec{Rate: l.Rate, Delay: l.Delay}))
		}
		return n
	}
	var n int64
	for _, l := range t.Links {
		n = addSat(n, frames(LinkSpec{Rate: l.Rate, Delay: l.Delay}))
	}
	return n
}

// messageCount is the collectives' messages in all and in their plans (collectiveMessages).
func messageCount(sc *Scenario, hosts int64) (all, planned int64) {
	for _, t := range sc.Traffic {
		if c := t.Collective; c != nil {
			a, p := collectiveMessages(c, hostsNamed(c.Hosts, hosts))
			all, planned = addSat(all, a), addSat(planned, p)
		}
	}
	return all, planned
}

// trafficFrames bounds the data frames the traffic can have on the wires at once: every
// message at minFramePayload bytes a frame, each frame in its most copies (copies), in
// floating point, saturating.
func trafficFrames(sc *Scenario, hosts int64) int64 {
	var frames float64
	add := func(messages int64, size float64) {
		frames += float64(messages) * (size/minFramePayload + 1)
	}
	set := func(names []string) int64 { return hostsNamed(names, hosts) }
	for _, t := range sc.Traffic {
		switch {
		case t.Flow != nil:
			add(1, float64(t.Flow.Size))
		case t.Incast != nil:
			add(mulSat(int64(len(t.Incast.Senders)), int64(max(t.Incast.Count, 1))), float64(t.Incast.Size))
		case t.Permutation != nil:
			add(set(t.Permutation.Hosts), float64(t.Permutation.Size))
		case t.AllToAll != nil:
			h := set(t.AllToAll.Hosts)
			add(mulSat(h, max(h-1, 0)), float64(t.AllToAll.Size))
		case t.Collective != nil:
			// One iteration's messages at most are on the wires at once, each over its channels.
			c := t.Collective
			n := int(set(c.Hosts))
			steps := c.Steps
			if steps == nil {
				steps = []CollectiveStep{{Op: c.Op, Algorithm: c.Algorithm, Size: c.Size, Chunk: c.Chunk}}
			}
			var most int64 // the step with the most bytes in its messages
			var per float64
			for _, s := range steps {
				bytes := float64(s.Size) / float64(max(n, 1))
				if s.Algorithm == collective.Tree { // a message is a chunk of a half
					bytes = float64(min(s.Chunk, s.Size-s.Size/2))
				}
				if m := collective.Count(s.Op, s.Algorithm, n, s.Size, s.Chunk); float64(m)*bytes >= float64(most)*per {
					most, per = m, bytes
				}
			}
			add(mulSat(most, int64(c.Channels)), per)
		case t.Poisson != nil && t.Poisson.Workload != nil:
			// Every flow at the workload's largest size.
			p := t.Poisson.Workload.Points
			add(poissonCount(sc, t.Poisson, set(t.Poisson.Hosts)), p[len(p)-1].Size)
		}
	}
	return int64(min(frames*float64(copies(sc)), 1e18))
}

// copies bounds the copies of one data frame on the wires at once, the original and its
// retransmissions while it is still in flight (a timeout shorter than the path's delay): for
// RoCE roceCopies; for iWARP's TCP, whose RTO doubles from min_rto to max_rto (RFC 6298 5.5)
// and then repeats every max_rto, 1 + the doublings + stop / max_rto.
func copies(sc *Scenario) int64 {
	c := int64(roceCopies)
	if w := sc.Transports.IWARP; usesIWARP(sc) && w.MinRTO > 0 && w.MaxRTO >= w.MinRTO {
		doublings := int64(bits.Len64(uint64(w.MaxRTO / w.MinRTO)))
		c = max(c, 1+doublings+int64(sc.Stop/w.MaxRTO))
	}
	return c
}

// usesIWARP reports whether some traffic item, or the variant, sends over iWARP.
func usesIWARP(sc *Scenario) bool {
	if sc.Transport == "iwarp" {
		return true
	}
	for _, t := range sc.Traffic {
		switch {
		case t.Flow != nil && t.Flow.Transport == "iwarp",
			t.Incast != nil && t.Incast.Transport == "iwarp",
			t.Permutation != nil && t.Permutation.Transport == "iwarp",
			t.AllToAll != nil && t.AllToAll.Transport == "iwarp",
			t.Collective != nil && t.Collective.Transport == "iwarp",
			t.Poisson != nil && t.Poisson.Transport == "iwarp":
			return true
		}
	}
	return false
}

// flowCount counts the flows of the traffic without making them; a Poisson item without
// count by its expected number of arrivals.
func flowCount(sc *Scenario, hosts int64) int64 {
	var n int64
	set := func(names []string) int64 { return hostsNamed(names, hosts) }
	for _, t := range sc.Traffic {
		switch {
		case t.Flow != nil:
			n++
		case t.Incast != nil:
			n = addSat(n, mulSat(int64(len(t.Incast.Senders)), int64(max(t.Incast.Count, 1))))
		case t.Permutation != nil:
			n = addSat(n, set(t.Permutation.Hosts))
		case t.AllToAll != nil:
			h := set(t.AllToAll.Hosts)
			n = addSat(n, mulSat(h, max(h-1, 0)))
		case t.Collective != nil:
			n = addSat(n, collectiveFlows(t.Collective, set(t.Collective.Hosts)))
		case t.Poisson != nil:
			n = addSat(n, poissonCount(sc, t.Poisson, set(t.Poisson.Hosts)))
		}
	}
	return n
}

// poissonCount is the number of flows a Poisson item starts: its count, or the expected
// arrivals load x link rate x (stop - start) / mean size of its senders.
func poissonCount(sc *Scenario, p *Poisson, senders int64) int64 {
	if p.Count > 0 {
		return int64(p.Count)
	}
	if p.Workload == nil || p.Stop <= p.Start {
		return 0
	}
	mean := p.Workload.Mean()
	if mean < 1 {
		mean = 1
	}
	bytes := bytesIn(hostRate(&sc.Topology), p.Stop-p.Start)
	return int64(min(float64(senders)*p.Load*bytes/mean, 1e18)) + senders
}

// bytesIn is the bytes rate r carries in d, in floating point (no product overflows).
func bytesIn(r sim.Rate, d sim.Time) float64 {
	return max(float64(r)*float64(d)/(8*float64(sim.Second)), 0)
}

// hostRate is the fastest host link of the topology.
func hostRate(t *Topology) sim.Rate {
	p := t.Params
	switch t.Preset {
	case "star", "fattree":
		return p.Link.Rate
	case "dumbbell", "leafspine":
		return p.HostLink.Rate
	case "rail":
		r := p.NICLink.Rate * sim.Rate(p.Planes)
		if p.ScaleUp != nil {
			r = max(r, p.ScaleUp.Rate)
		}
		return r
	}
	var r sim.Rate
	for _, l := range t.Links {
		r = max(r, l.Rate)
	}
	return r
}

// count writes n with thousands separators.
func count(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// counted writes n and the noun, in the plural unless n is 1.
func counted(n int64, noun string) string {
	switch {
	case n == 1:
	case strings.HasSuffix(noun, "ch"):
		noun += "es"
	case strings.HasSuffix(noun, "y"):
		noun = noun[:len(noun)-1] + "ies"
	default:
		noun += "s"
	}
	return count(n) + " " + noun
}

// bytesOf writes a byte count in MB or GB.
func bytesOf(n int64) string {
	if n >= 1000<<30 {
		return count(n>>30) + " GB"
	}
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%d MB", (n+1<<20-1)>>20)
}

// hostsNamed is how many hosts a traffic item's host list names: all of them (hosts) when it
// names none.
func hostsNamed(names []string, hosts int64) int64 {
	if names == nil {
		return hosts
	}
	return int64(len(names))
}
