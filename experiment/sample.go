package experiment

import (
	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/switchmodel"
	"github.com/fabricsim/fabricsim/topology"
)

// firstInterval is where an automatic sampler starts: fine enough for 512 samples over a
// 5 us run. An automatic sampler keeps at most the scenario's SeriesSamples: when it has
// one more it drops every other one (the last kept) and doubles its interval, so a run keeps
// between SeriesSamples/2 and SeriesSamples+1 evenly spaced samples from the first flow's
// start to its end (and one at the end), whatever its length.
const firstInterval = 10 * sim.Nanosecond

// sampler records the time series of results.Series: a periodic event, never per packet,
// that reads the counters the model keeps anyway. It runs only when a run asks for series
// (with -o): off, nothing is scheduled. Its own events are not counted in the variant's
// events, so the results document is the same with it or without.
type sampler struct {
	f        *fabric
	interval sim.Time
	fixed    bool     // the scenario's sample_interval: never thinned
	ticks    uint64   // events of the sampler, left out of the variant's count
	last     sim.Time // the last sample's time
	series   results.Series
	rateCC   []bool // per flow: its sender runs a rate-based congestion control (DCQCN, TIMELY, or HPCC's W/T pacing)
	iwarp    []bool // per flow: an iWARP (TCP) sender
	refs     []pfcRef
	// The columns' places in the series, -1 until a column appears. A sample visits every
	// port-class of the fabric, so these are slices in the order it visits them, not maps
	// (on a 1,024-host fabric, hashing 50,000 keys a sample took a third of a run with -o):
	// queueCol and pauseCol by switch port-class, at (portBase[switch] + port) *
	// NumPriorities + class; nicPauseCol by NIC (its index in fabric.nicList) * NumPriorities +
	// class; ingressCol by the index in refs.
	portBase    []int
	queueCol    []int32
	pauseCol    []int32
	nicPauseCol []int32
	ingressCol  []int32
	fabricColumns
}

// pfcRef is a switch's lossless ingress port-class.
type pfcRef struct {
	sw   *switchmodel.Switch
	port int
	prio int
}

// startSampler schedules the first sample at the first flow's start. Call it after the
// flows are added.
func (f *fabric) startSampler() {
	s := &sampler{f: f, interval: f.sc.SampleInterval, fixed: f.sc.SampleInterval > 0}
	if !s.fixed {
		s.interval = firstInterval
	}
	f.sampler = s
	rateCC := func(t string) bool { c := f.roceConfig(t); return c.RateBased() }
	byTransport := map[string]bool{"rocev1": rateCC("rocev1"), "rocev2": rateCC("rocev2")}
	start := sim.Never
	for i, fl := range f.reg.Flows {
		start = min(start, fl.Start)
		s.rateCC = append(s.rateCC, byTransport[fl.Transport])
		s.iwarp = append(s.iwarp, fl.Transport == "iwarp")
		s.series.Flows = append(s.series.Flows, results.FlowSeries{Flow: f.reg.Flows[i].ID})
	}
	ports := 0
	for _, sw := range f.switches {
		s.portBase = append(s.portBase, ports)
		ports += len(sw.Ports)
		for pi, pt := range sw.Ports {
			for c := range pt.Ingress {
				if pt.Ingress[c].Xoff > 0 {
					s.refs = append(s.refs, pfcRef{sw, pi, c})
				}
			}
		}
	}
	s.queueCol = noColumns(ports * switchmodel.NumPriorities)
	s.pauseCol = noColumns(ports * switchmodel.NumPriorities)
	s.nicPauseCol = noColumns(len(f.nicList) * topology.NumPriorities)
	s.ingressCol = noColumns(len(s.refs))
	s.initFabric()
	if start == sim.Never {
		return // no flow: nothing to follow
	}
	f.global.At(start, s, 0, nil)
}

// Handle implements sim.Handler: one sample, then the next.
func (s *sampler) Handle(now sim.Time, _ int, _ any) {
	s.ticks++
	s.take(now)
	if !s.fixed && s.series.Len() > s.f.sc.SeriesSamples {
		s.thin()
	}
	s.f.global.At(now+s.interval, s, 0, nil)
}

// finish takes a last sample at the end of the run; one taken at that very time is taken
// again, since events of that time may have run after it.
func (s *sampler) finish(now sim.Time) *results.Series {
	if s.series.Len() > 0 && now == s.last {
		s.dropLast()
	}
	s.take(now)
	s.series.IntervalUS = s.interval.Microseconds()
	return &s.series
}

// take appends one sample at now to every column; a column that appears now (a queue that
// held its first frame, a class paused for the first time) is back-filled with zeros.
func (s *sampler) take(now sim.Time) {
	f, ss := s.f, &s.series
	s.last = now
	n := ss.Len()
	ss.TimesUS = append(ss.TimesUS, now.Microseconds())
	for i, fl := range f.reg.Flows {
		fs := &ss.Flows[i]
		fs.DeliveredBytes = append(fs.DeliveredBytes, fl.Delivered)
		if s.rateCC[i] {
			r := 0.0
			if fl.Start <= now && !f.reg.Ended(int32(i)) {
				rate := f.reg.RateOf(int32(i))
				if rate == 0 { // no cut yet: the limiter (or HPCC's W_init/T) lets the NIC's line rate through
					rate = f.nicFor(fl.Src, fl.Dst, int32(i)).Wire.Params.Rate
				}
				r = rate.Gbps()
			}
			fs.RateGbps = append(fs.RateGbps, r)
		}
		if s.iwarp[i] {
			st, _ := f.reg.TCPStats(int32(i))
			fs.CwndSegments = append(fs.CwndSegments, st.Cwnd)
		}
		// Swift's or NSCC's window: a column from the first sample its sender has one (a
		// UET sender's NSCC has none before the flow starts), zeros before; after, 0 when
		// the sender has gone.
		if w, ok := f.reg.WindowPackets(int32(i)); ok || fs.WindowPackets != nil {
			if fs.WindowPackets == nil {
				fs.WindowPackets = make([]float64, n, n+1)
			}
			fs.WindowPackets = append(fs.WindowPackets, w)
		}
	}
	for si, sw := range f.switches {
		for pi, pt := range sw.Ports {
			at := (s.portBase[si] + pi) * switchmodel.NumPriorities
			for c := range pt.Queues {
				q := &pt.Queues[c]
				k := s.queueCol[at+c]
				if k < 0 {
					if q.Bytes == 0 {
						continue
					}
					k = int32(len(ss.Queues))
					s.queueCol[at+c] = k
					peer := f.nw.Nodes[f.nw.Nodes[sw.ID].Ports[pi].Peer].Name
					qs := results.QueueSeries{Node: sw.Name, Port: pi + 1, Peer: peer, Priority: c, Bytes: make([]int64, n, n+1)}
					qs.TrimBytes, qs.Trims = sw.TrimThreshold(c)
					if m, ok := sw.Marking(); ok {
						qs.KminBytes, qs.KmaxBytes = m.Kmin, m.Kmax
					}
					ss.Queues = append(ss.Queues, qs)
				}
				ss.Queues[k].Bytes = append(ss.Queues[k].Bytes, q.Bytes)
			}
			for c := range pt.Queues {
				s.pause(&s.pauseCol[at+c], sw.ID, pi, c, pt.Pause.PausedTime(c, now), n)
			}
		}
	}
	for i := range s.refs {
		r := &s.refs[i]
		in := &r.sw.Ports[r.port].Ingress[r.prio]
		k := s.ingressCol[i]
		if k < 0 {
			if in.Bytes == 0 {
				continue
			}
			k = int32(len(ss.Ingress))
			s.ingressCol[i] = k
			ss.Ingress = append(ss.Ingress, results.IngressSeries{Node: r.sw.Name, Port: r.port + 1,
				Peer: f.nw.Nodes[f.nw.Nodes[r.sw.ID].Ports[r.port].Peer].Name, Priority: r.prio,
				XoffBytes: in.Xoff, XonBytes: in.Xon, HeadroomBytes: in.Headroom, Bytes: make([]int64, n, n+1)})
		}
		ss.Ingress[k].Bytes = append(ss.Ingress[k].Bytes, in.Bytes)
	}
	for ni, nic := range f.nicList {
		for c := range nic.Control {
			s.pause(&s.nicPauseCol[ni*topology.NumPriorities+c], nic.ID, nic.Port, c, nic.Pause.PausedTime(c, now), n)
		}
	}
	s.takeFabric(n)
}

// pause appends the paused time so far of one sending port-class (port of node, class
// prio), once it has been paused; col is its column's place (-1: none yet).
func (s *sampler) pause(col *int32, node topology.NodeID, port, prio int, paused sim.Time, n int) {
	ss := &s.series
	i := *col
	if i < 0 {
		if paused == 0 {
			return
		}
		i = int32(len(ss.Pauses))
		*col = i
		nd := &s.f.nw.Nodes[node]
		ss.Pauses = append(ss.Pauses, results.PauseSeries{Node: nd.Name, Port: port + 1, Peer: s.f.nw.Nodes[nd.Ports[port].Peer].Name, Priority: prio,
			PausedUS: make([]float64, n, n+1)})
	}
	ss.Pauses[i].PausedUS = append(ss.Pauses[i].PausedUS, paused.Microseconds())
}

// noColumns is n column places, none taken.
func noColumns(n int) []int32 {
	cols := make([]int32, n)
	for i := range cols {
		cols[i] = -1
	}
	return cols
}

// thin keeps every other sample (the first, the third, ..., the last: there are an odd
// number) of every column and doubles the interval, so the samples stay evenly spaced.
func (s *sampler) thin() {
	s.eachColumn(half[int64], half[float64])
	s.interval *= 2
}

// dropLast removes the last sample from every column, so that finish can take it again
// when the run ended at the very time of a sample, after the sampler's event (events at
// one time run in the order they were scheduled): the last sample holds the final counts.
func (s *sampler) dropLast() { s.eachColumn(allButLast[int64], allButLast[float64]) }

// eachColumn replaces every column of the series, the sample times included, by what ints
// or floats make of it (a column a flow does not have, nil, stays nil).
func (s *sampler) eachColumn(ints func([]int64) []int64, floats func([]float64) []float64) {
	ss := &s.series
	ss.TimesUS = floats(ss.TimesUS)
	for i := range ss.Flows {
		fs := &ss.Flows[i]
		fs.DeliveredBytes = ints(fs.DeliveredBytes)
		fs.RateGbps = floats(fs.RateGbps)
		fs.CwndSegments = floats(fs.CwndSegments)
		fs.WindowPackets = floats(fs.WindowPackets)
	}
	for i := range ss.Queues {
		ss.Queues[i].Bytes = ints(ss.Queues[i].Bytes)
	}
	for i := range ss.Ingress {
		ss.Ingress[i].Bytes = ints(ss.Ingress[i].Bytes)
	}
	for i := range ss.Pauses {
		ss.Pauses[i].PausedUS = floats(ss.Pauses[i].PausedUS)
	}
	for i := range ss.Links {
		ss.Links[i].WireBytes = ints(ss.Links[i].WireBytes)
	}
	for i := range ss.Buffers {
		ss.Buffers[i].Bytes = ints(ss.Buffers[i].Bytes)
	}
	for i := range ss.Events {
		ss.Events[i].Counts = ints(ss.Events[i].Counts)
	}
}

// allButLast is xs without its last element (nil stays nil).
func allButLast[T any](xs []T) []T {
	if len(xs) == 0 {
		return xs
	}
	return xs[:len(xs)-1]
}

// half keeps the even-indexed elements of xs, in place.
func half[T any](xs []T) []T {
	k := 0
	for i := 0; i < len(xs); i += 2 {
		xs[k] = xs[i]
		k++
	}
	return xs[:k]
}
