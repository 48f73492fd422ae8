package transports

import (
	"fmt"
	"math/bits"

	"github.com/fabricsim/fabricsim/ecn"
	"github.com/fabricsim/fabricsim/pfc"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// NIC is a host's network interface: one port, the endpoints of the host's flows, and a
// transmit scheduler. A host with several ports (a GPU's NIC ports on several planes, its
// scale-up port) has a NIC per port, each with its own link, pause state and scheduler; a
// flow sends from the one topology.Routes.HostPort names (or from all its planes, Spray),
// and a frame the scale-up switch brought to a GPU for another GPU is relayed on (relay,
// PXN). Control frames (ACK, NAK) go first; then requesters with data are served by strict
// priority and round robin within a priority, each within its pacing rate (the data relayed
// for other GPUs is one requester of its class: relayQueue).
// A class the switch has paused (PFC) sends nothing until the pause ends. A working NIC
// never sends PAUSE: it takes what arrives at line rate. A broken one may (a fault): PFC
// frames it is made to send go out ahead of everything, and are never paused themselves.
type NIC struct {
	// The fields every frame uses, in the first cache line: on a large fabric each other
	// line a frame touches is a cache miss.
	Wire *topology.Wire
	reg  *Registry
	eng  *sim.Engine
	pool *topology.Pool
	lane sim.Lane // the host's lane (sim.Lane): every event of the NIC and its flows'
	ID   topology.NodeID
	busy bool
	// ctrlBacklog has bit c set while Control[c] holds a frame, and activeBacklog while
	// requesters of priority c are on the schedule: the transmit scheduler reads two bytes,
	// not eight queue headers and eight lists.
	ctrlBacklog   uint8
	activeBacklog uint8
	pfcOut        int32 // PFCOut.Len, kept here
	// pausedUntil is when every pause received has ended (pfc.Egress.End): until then a
	// class may be paused and the scheduler asks Pause; after it, it does not.
	pausedUntil sim.Time
	wakeAt      sim.Time
	// Peer is the tables of the switch at the far end of the link (nil: none, or a host):
	// the NIC looks up there, for each frame it sends, where that switch will forward it
	// (topology.Forwarding.Ahead).
	Peer *topology.Forwarding

	Name string
	// Control holds the control frames waiting for the link, by priority.
	Control [topology.NumPriorities]topology.Queue
	// Pause is the PFC state of the NIC's sending side, by class.
	Pause pfc.Egress
	// Response is how long the NIC takes to stop sending after a PAUSE arrives.
	Response sim.Time
	// Misdelivered counts frames that arrived for another host (a static route that points
	// at a host, say): the NIC discards them, and they count as unroutable drops.
	Misdelivered int64
	// Port is the NIC's port on its host (from 0). On a GPU's scale-up port, Ports are the
	// host's NICs by port and Routes the route tables, to relay with (nil elsewhere);
	// Relayed counts the frames a NIC sent on for another GPU (PXN).
	Port    int
	Ports   []*NIC
	Routes  *topology.Routes
	Relayed int64
	// Spray, with hosts.plane_spread packet, is the host's NICs on its planes (this one
	// among them), which every flow of the host's sends on, frame by frame, whichever is
	// free; Reach says which hosts' plane ports are up, so that no frame goes on a plane
	// whose link at either end is down. ctrlRR turns control frames over the planes.
	Spray   []*NIC
	Reach   *Reach
	ctrlRR  int
	sprayAt int // this NIC's index in Spray
	// PFCOut holds the PFC frames waiting to go out (faults only); PausesSent and
	// ResumesSent count those sent, by class.
	PFCOut                  topology.Queue
	PausesSent, ResumesSent [topology.NumPriorities]int64
	stormUntil              [topology.NumPriorities]sim.Time // a pause storm on the class lasts until then

	active   [topology.NumPriorities][]sender
	relays   [topology.NumPriorities]*relayQueue // PXN: the data relayed for other GPUs, by class (relay.go)
	depth    *topology.DepthLog                  // LogDepth's, for the relay queues made after it
	rr       [topology.NumPriorities]int
	IP       topology.IPv4
	TTL      uint8
	PeerPort int
	cnp      *cnpPacer  // the port's CNP pacer (DCQCN with per-port pacing), made on first use
	pulls    *pullPacer // the UET flows' RCCC pull pacer (uet_rccc.go), made on first use
	err      error      // what NewNIC found wrong
}

const (
	nicTxDone = iota
	nicWake
	nicStorm // | class<<2: the next PAUSE of a storm on that class
)

// NewNIC returns the NIC of host id, which sends IPv4 datagrams with TTL ttl. An id that is
// not a host of nw, or a TTL of 0, makes a NIC that no flow starts on (see validate).
func NewNIC(reg *Registry, nw *topology.Network, id topology.NodeID, ttl uint8) *NIC {
	nic := &NIC{ID: id, reg: reg, eng: reg.eng, pool: reg.pool, lane: topology.LaneOf(id), TTL: ttl, wakeAt: sim.Never}
	reg.eng.SetLanes(int(nic.lane) + 1)
	if int(id) < 0 || int(id) >= len(nw.Nodes) || nw.Nodes[id].Type != topology.Host {
		nic.err = fmt.Errorf("node %d is not a host of the network", id)
		return nic
	}
	n := &nw.Nodes[id]
	nic.Name, nic.IP = n.Name, n.IP
	if ttl == 0 {
		// RFC 1122 section 3.2.1.7: a host must not send a datagram with a TTL of 0.
		nic.err = fmt.Errorf("NIC %s: an IP TTL of 0", n.Name)
	}
	return nic
}

// validate reports why no flow can run on the NIC: what NewNIC found, no link, a link
// without a rate, a negative PAUSE response time.
func (n *NIC) validate() error {
	switch {
	case n.err != nil:
		return n.err
	case n.Wire == nil:
		return fmt.Errorf("NIC %s has no link", n.Name)
	case n.Wire.Params.Rate <= 0:
		return fmt.Errorf("NIC %s: its link's rate is %v", n.Name, n.Wire.Params.Rate)
	case n.Response < 0:
		return fmt.Errorf("NIC %s: a negative PAUSE response time, %v", n.Name, n.Response)
	}
	return nil
}

// Receive implements topology.Receiver.
func (n *NIC) Receive(now sim.Time, p *topology.Packet, _ int) {
	if p.Dst != n.ID && p.Kind != topology.KindPause {
		if n.Ports != nil {
			if pi := n.Routes.RelayPort(n.ID, p.Src, p.Dst); pi >= 0 {
				n.Ports[pi].relay(now, p)
				return
			}
		}
		n.Misdelivered++
		n.pool.Drop(p)
		return
	}
	switch p.Kind {
	case topology.KindData:
		n.reg.receivers[p.Flow].onData(now, p)
	case topology.KindAck, topology.KindNak, topology.KindCNP:
		n.reg.senders[p.Flow].onControl(now, p)
	case topology.KindCredit:
		if ue := p.UET(); ue.CreditRequest || ue.AckRequest {
			if r, ok := n.reg.receivers[p.Flow].(*UETReceiver); ok {
				r.onRequest(now, p)
			}
		} else {
			n.reg.senders[p.Flow].onControl(now, p)
		}
	case topology.KindPause:
		pf := p.Pause()
		for c := 0; c < len(pf.Quanta); c++ {
			if pf.Enable&(1<<c) != 0 {
				n.Pause.Receive(now, c, pf.Quanta[c], n.Wire.Params.Rate, n.Response)
			}
		}
		n.pausedUntil = n.Pause.End()
		n.pool.Deliver(p)
		n.kick(now)
		return
	}
	n.pool.Deliver(p)
}

// Handle implements sim.Handler.
func (n *NIC) Handle(now sim.Time, op int, _ any) {
	switch op & 3 {
	case nicTxDone:
		n.busy = false
	case nicWake:
		if now != n.wakeAt {
			return // superseded by an earlier wake-up
		}
		n.wakeAt = sim.Never
	case nicStorm:
		n.stormTick(now, op>>2)
		return
	}
	n.kick(now)
}

// LogDepth makes every queue of the NIC add to its depth record through l (see
// topology.DepthLog).
func (n *NIC) LogDepth(l *topology.DepthLog) {
	for c := range n.Control {
		n.Control[c].LogTo(l)
		if r := n.relays[c]; r != nil {
			r.q.LogTo(l)
		}
	}
	n.PFCOut.LogTo(l)
	n.depth = l
}

// SendPause makes the NIC send one PFC frame pausing class c for quanta (0 resumes it), as
// a faulty NIC may: it goes out at the next frame boundary, ahead of all data.
func (n *NIC) SendPause(now sim.Time, c int, quanta uint16) {
	p := n.pool.Get(topology.KindPause)
	pfc.FillFrame(p, c, quanta)
	p.Src, p.Dst = n.ID, n.Wire.To
	p.SentAt = now
	n.PFCOut.Push(now, p)
	n.pfcOut++
	if quanta == 0 {
		n.ResumesSent[c]++
	} else {
		n.PausesSent[c]++
	}
	n.kick(now)
}

// Storm makes the NIC flood its switch with PAUSE frames on class c from now until until, as
// a broken NIC does: frames of the largest quanta, each refreshed at half its pause time (as
// switches refresh theirs). When the storm ends no resume is sent: the last pause runs out.
func (n *NIC) Storm(now sim.Time, c int, until sim.Time) {
	n.stormUntil[c] = until
	n.stormTick(now, c)
}

func (n *NIC) stormTick(now sim.Time, c int) {
	if now >= n.stormUntil[c] {
		return
	}
	n.SendPause(now, c, pfc.MaxQuanta)
	next := now + pfc.RefreshInterval(pfc.MaxQuanta, n.Wire.Params.Rate, 0)
	if next < n.stormUntil[c] {
		n.at(next, n, nicStorm|c<<2, nil)
	}
}

// sendControl queues a control frame.
func (n *NIC) sendControl(now sim.Time, p *topology.Packet) {
	if n.Spray != nil {
		n = n.sprayPort(p.Dst)
	}
	n.Control[p.Priority].Push(now, p)
	n.ctrlBacklog |= 1 << p.Priority
	n.kick(now)
}

// SetSprayIndex says which of Spray this NIC is.
func (n *NIC) SetSprayIndex(k int) { n.sprayAt = k }

// Reach is the links of every host's plane ports, by node id and port, for spraying NICs to
// see which planes reach a destination (the fabric's link state, as a multi-plane NIC's path
// probing learns it; docs/model.md section 15). A plane's port has the same index on every
// host (topology.WithPlanes and topology.Rail build them so).
type Reach struct {
	Wires [][]*topology.Wire // [host][port]: the host's sending wire on that port
}

// Up reports whether host h's port on plane port is up (true when it is not known).
func (r *Reach) Up(h topology.NodeID, port int) bool {
	if int(h) >= len(r.Wires) || port >= len(r.Wires[h]) || r.Wires[h][port] == nil {
		return true
	}
	return r.Wires[h][port].Up()
}

// sprayPort is the NIC a spraying NIC's control frame to dst goes out of: the next plane, in
// turn, whose link is up at both ends (the NIC itself when none is).
func (n *NIC) sprayPort(dst topology.NodeID) *NIC {
	for range n.Spray {
		n.ctrlRR++
		if n.ctrlRR >= len(n.Spray) {
			n.ctrlRR = 0
		}
		m := n.Spray[n.ctrlRR]
		if m.Wire.Up() && n.Reach.Up(dst, m.Port) {
			return m
		}
	}
	return n
}

// activate puts a requester with data to send on the schedule.
func (n *NIC) activate(now sim.Time, s sender) {
	if n.Spray == nil {
		n.schedule(now, s)
		return
	}
	first := s.slot().next
	for k := range n.Spray {
		n.Spray[(first+k)%len(n.Spray)].schedule(now, s)
	}
}

// schedule puts a requester with data on this NIC's schedule.
func (n *NIC) schedule(now sim.Time, s sender) {
	if sl, bit := s.slot(), uint32(1)<<n.Port; sl.on&bit == 0 {
		sl.on |= bit
		n.active[s.class()] = append(n.active[s.class()], s)
		n.activeBacklog |= 1 << s.class()
	}
	n.kick(now)
}

func (n *NIC) kick(now sim.Time) {
	if n.busy || !n.Wire.Up() {
		return // a NIC whose link is down holds its frames until the link comes back
	}
	if p := n.nextFrame(now); p != nil {
		if n.Peer != nil && p.Kind != topology.KindPause {
			n.Peer.Ahead(p)
		}
		n.busy = true
		n.eng.AtLane(n.lane, n.Wire.Send(now, p), n, nicTxDone, nil) // not n.at: one call less
	}
}

func (n *NIC) nextFrame(now sim.Time) *topology.Packet {
	if n.pfcOut > 0 {
		n.pfcOut--
		return n.PFCOut.Pop(now)
	}
	earliest := sim.Never
	for m := n.ctrlBacklog; m != 0; {
		i := bits.Len8(m) - 1 // the highest priority with control frames waiting
		m &^= 1 << i
		if n.paused(now, i) {
			earliest = min(earliest, n.Pause.Until(now, i))
			continue
		}
		p := n.Control[i].Pop(now)
		if n.Control[i].Len == 0 {
			n.ctrlBacklog &^= 1 << i
		}
		return p
	}
	for m := n.activeBacklog; m != 0; {
		prio := bits.Len8(m) - 1 // the highest priority with requesters on the schedule
		m &^= 1 << prio
		if n.paused(now, prio) {
			earliest = min(earliest, n.Pause.Until(now, prio))
			continue
		}
		list := n.active[prio]
		i := n.rr[prio]
		for tries := len(list); tries > 0 && len(list) > 0; tries-- {
			if i >= len(list) {
				i = 0
			}
			s := list[i]
			sl := s.slot()
			if !s.hasData() {
				// Nothing left to send: leave the schedule until a NAK or a timeout.
				sl.on &^= 1 << n.Port
				list = append(list[:i], list[i+1:]...)
				continue
			}
			if n.Spray != nil && !n.Reach.Up(sl.dst, n.Port) {
				i++ // the destination's link on this plane is down: the other planes send
				continue
			}
			if at := sl.readyAt; at > now {
				earliest = min(earliest, at)
				i++
				continue
			}
			n.active[prio], n.rr[prio] = list, i+1
			if n.Spray != nil {
				sl.next = n.sprayAt + 1
			}
			return s.emit(now)
		}
		n.active[prio], n.rr[prio] = list, i
		if len(list) == 0 {
			n.activeBacklog &^= 1 << prio
		}
	}
	if earliest < n.wakeAt {
		n.wakeAt = earliest
		n.at(earliest, n, nicWake, nil)
	}
	return nil
}

// paused reports whether class c may not start a frame at now.
func (n *NIC) paused(now sim.Time, c int) bool {
	return now < n.pausedUntil && n.Pause.Paused(now, c)
}

// SetEngine makes the NIC, and the flows that start on it from now, run on eng (its
// partition's, with the partition's packet pool).
func (n *NIC) SetEngine(eng *sim.Engine, pool *topology.Pool) { n.eng, n.pool = eng, pool }

// at schedules an event of the NIC's host, in its lane.
func (n *NIC) at(t sim.Time, h sim.Handler, op int, data any) { n.eng.AtLane(n.lane, t, h, op, data) }

// portPacer is the NIC port's CNP pacer, shared by every flow it receives under DCQCN with
// per-port pacing; the first such flow's interval and rule make it (every RoCE v2 flow has
// the same DCQCN parameters).
func (n *NIC) portPacer(p *ecn.Params) *cnpPacer {
	if n.cnp == nil {
		n.cnp = newCNPPacer(n, p)
	}
	return n.cnp
}

// Resume restarts sending after the NIC's link has come back up.
func (n *NIC) Resume(now sim.Time) { n.kick(now) }

// LinkDown makes the NIC forget the pauses it received, as a MAC resets its pause timers on
// loss of link (IEEE 802.3 annex 31B): when the link comes back, its classes are free until
// the switch pauses them again.
func (n *NIC) LinkDown(now sim.Time) {
	n.Pause.Clear(now)
	n.pausedUntil = n.Pause.End()
}
