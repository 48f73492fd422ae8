package experiment

import (
	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/switchmodel"
	"github.com/fabricsim/fabricsim/topology"
)

// fabricColumns are the places of the sampler's link, buffer and event columns in the
// series, -1 until a column appears (a link that carried its first frame, a buffer that
// held its first, a count that left 0), as slices in the order a sample visits them:
// linkCol by wire (2 x link + direction, as fabric.wires), wireEv by wire x 2 (random_loss,
// link_down), bufferCol by switch (its index in fabric.switches), switchEv by switch x
// switchEvents, hostEv by node id x hostEvents.
type fabricColumns struct {
	linkCol   []int32
	wireEv    []int32
	wireName  []string // by wire: "a->b", the place of its losses
	bufferCol []int32
	switchEv  []int32
	hostEv    []int32
	// retx and cnps are one sample's sums over the flows by node id: the data packets each
	// host sent again, the CNPs each sent (scratch, kept so a sample allocates none).
	retx, cnps []int64
}

// switchDropReasons name switchmodel's drop reasons as drops.by_reason does.
var switchDropReasons = [switchmodel.NumDropReasons]string{
	switchmodel.DropBuffer: "buffer", switchmodel.DropHeadroom: "headroom", switchmodel.DropUnroutable: "unroutable",
	switchmodel.DropTTL: "ttl", switchmodel.DropWatchdog: "watchdog"}

// A switch's event columns: its drops by reason, then its ECN marks and trimmed packets; a
// host's: frames for another host (unroutable), data packets sent again, CNPs sent.
const (
	switchEvents = int(switchmodel.NumDropReasons) + 2
	hostEvents   = 3
)

// initFabric makes the column places, none taken.
func (s *sampler) initFabric() {
	f := s.f
	c := &s.fabricColumns
	c.linkCol = noColumns(2 * len(f.wires))
	c.wireEv = noColumns(4 * len(f.wires))
	for _, pair := range f.wires {
		for _, w := range pair {
			c.wireName = append(c.wireName, f.nw.Nodes[w.From].Name+"->"+f.nw.Nodes[w.To].Name)
		}
	}
	c.bufferCol = noColumns(len(f.switches))
	c.switchEv = noColumns(len(f.switches) * switchEvents)
	c.hostEv = noColumns(len(f.nw.Nodes) * hostEvents)
	c.retx = make([]int64, len(f.nw.Nodes))
	c.cnps = make([]int64, len(f.nw.Nodes))
}

// takeFabric appends one sample (the n-th) to the link, buffer and event columns.
func (s *sampler) takeFabric(n int) {
	f, ss, c := s.f, &s.series, &s.fabricColumns
	for li, pair := range f.wires {
		for d, w := range pair {
			k := 2*li + d
			col := &c.linkCol[k]
			if *col < 0 {
				if w.Bytes() == 0 {
					continue
				}
				*col = int32(len(ss.Links))
				m := f.linkMembership(li)
				ss.Links = append(ss.Links, results.LinkSeries{From: f.nw.Nodes[w.From].Name, To: f.nw.Nodes[w.To].Name,
					FromPort: w.FromPort + 1, ToPort: w.ToPort + 1, RateGbps: w.Params.Rate.Gbps(), WireBytes: make([]int64, n, n+1),
					Plane: int(m.plane), Rail: int(m.rail), ScaleUp: int(m.scaleup)})
			}
			l := &ss.Links[*col]
			l.WireBytes = append(l.WireBytes, w.Bytes())
			s.event(&c.wireEv[2*k], w.LostRandom, n, c.wireName[k], results.PlaceLink, results.EventDrop, "random_loss")
			s.event(&c.wireEv[2*k+1], w.LostDown, n, c.wireName[k], results.PlaceLink, results.EventDrop, "link_down")
		}
	}
	for si, sw := range f.switches {
		col := &c.bufferCol[si]
		if *col < 0 && sw.BufferUsed > 0 {
			*col = int32(len(ss.Buffers))
			ss.Buffers = append(ss.Buffers, results.BufferSeries{Node: sw.Name, CapacityBytes: sw.BufferBytes(), Bytes: make([]int64, n, n+1)})
		}
		if *col >= 0 {
			b := &ss.Buffers[*col]
			b.Bytes = append(b.Bytes, sw.BufferUsed)
		}
		ev := c.switchEv[si*switchEvents : (si+1)*switchEvents]
		for r, name := range switchDropReasons {
			s.event(&ev[r], sw.Drops[r], n, sw.Name, results.PlaceSwitch, results.EventDrop, name)
		}
		s.event(&ev[switchmodel.NumDropReasons], sw.Marked, n, sw.Name, results.PlaceSwitch, results.EventMark, "")
		s.event(&ev[switchmodel.NumDropReasons+1], sw.Trimmed, n, sw.Name, results.PlaceSwitch, results.EventTrim, "")
	}
	clear(c.retx)
	clear(c.cnps)
	for i, fl := range f.reg.Flows {
		c.retx[fl.Src] += fl.Retransmitted
		c.cnps[fl.Dst] += f.reg.CNPs(int32(i))
	}
	for id := range f.nw.Nodes {
		var lost int64
		for _, nic := range f.ports[id] {
			lost += nic.Misdelivered
		}
		name := f.nw.Nodes[id].Name
		ev := c.hostEv[id*hostEvents : (id+1)*hostEvents]
		s.event(&ev[0], lost, n, name, results.PlaceHost, results.EventDrop, "unroutable")
		s.event(&ev[1], c.retx[id], n, name, results.PlaceHost, results.EventRetransmit, "")
		s.event(&ev[2], c.cnps[id], n, name, results.PlaceHost, results.EventCNP, "")
	}
}

// event appends count, a cumulative count of event (for a drop, of reason) at place, to
// its column at *col, made (back-filled with n zeros) when the count first leaves 0.
func (s *sampler) event(col *int32, count int64, n int, place, placeType, event, reason string) {
	ss := &s.series
	if *col < 0 {
		if count == 0 {
			return
		}
		*col = int32(len(ss.Events))
		ss.Events = append(ss.Events, results.EventSeries{Place: place, PlaceType: placeType, Event: event, Reason: reason,
			Counts: make([]int64, n, n+1)})
	}
	e := &ss.Events[*col]
	e.Counts = append(e.Counts, count)
}

// queueDepths records queue q's time-weighted depth over [0, now] (a queue of the
// document's queues list: node's port, class prio) for the series.
func (s *sampler) queueDepths(node topology.NodeID, port, prio int, q *topology.Queue, now sim.Time) {
	n := &s.f.nw.Nodes[node]
	qd := results.QueueDepths{Node: n.Name, Port: port + 1, Peer: s.f.nw.Nodes[n.Ports[port].Peer].Name, Priority: prio, MaxBytes: q.MaxBytes}
	for _, d := range q.DepthTimes(now) {
		qd.Depths = append(qd.Depths, results.DepthRange{LoBytes: d.LoBytes, HiBytes: d.HiBytes, TimeUS: d.Time.Microseconds()})
	}
	s.series.QueueDepths = append(s.series.QueueDepths, qd)
}
