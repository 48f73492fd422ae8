// Package switchmodel is the switch: ports with eight egress priority queues, one shared
// buffer with dynamic-threshold admission for lossy classes and PFC (IEEE 802.1Qbb) ingress
// accounting with headroom for lossless ones, strict-priority or DWRR scheduling that skips
// paused classes, the PFC watchdog, L2/L3 forwarding with TTL and ECMP, and drop counters by
// reason. The datapath is in switch.go, the schedulers in scheduler.go, everything PFC does
// at a switch (admission, PAUSE sending and refresh, pause reception, watchdog) in pfc.go,
// and the PFC deadlock detector in deadlock.go.
package switchmodel

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/fabricsim/fabricsim/ecn"
	"github.com/fabricsim/fabricsim/pfc"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// NumPriorities is the number of traffic classes, and of egress queues per port (802.1Q PCP).
const NumPriorities = topology.NumPriorities

// DropReason is why a switch discarded a packet.
type DropReason uint8

// Drop reasons a switch counts. (Wires count random loss and link-down losses.)
const (
	DropBuffer     DropReason = iota // lossy class: the shared buffer or the queue's dynamic threshold was full
	DropHeadroom                     // lossless class: the frame did not fit in XOFF + headroom (or the buffer)
	DropUnroutable                   // no route to the destination
	DropTTL                          // the IP TTL ran out at a router
	DropWatchdog                     // the PFC watchdog flushed a queue paused too long
	NumDropReasons
)

// Config is a switch's datapath configuration.
type Config struct {
	// BufferBytes is the shared packet buffer.
	BufferBytes int64
	// Alpha is the dynamic-threshold factor (Choudhury and Hahne, 1998): a queue may grow
	// to Alpha x (free buffer). With Alpha = 1 one congested queue can take half the buffer.
	Alpha float64
	// Scheduler and, for DWRR, the weight of each priority.
	Scheduler Scheduler
	Weights   [NumPriorities]int
	// Latency is the forwarding latency from the last bit in to eligibility for egress.
	Latency sim.Time
	// PFC is the priority flow control configuration; zero means off.
	PFC PFCConfig
	// ECN, when not nil, marks ECN-capable frames CE on egress by this curve, drawing from
	// Rand, the switch's own random stream.
	ECN  *ecn.Marker
	Rand *rand.Rand
	// UETHostsUnmarked, with ECN, leaves UET packets (UDP to port 4793) unmarked on the
	// ports whose link leads to a host (uet-htsim main_uec.cpp 708: no marking on the
	// top-of-rack switches' links to hosts when receiver-based CC runs).
	UETHostsUnmarked bool
	// LoadBalancing is how the switch chooses among equal-cost ports (balance.go); under
	// Flowlet a flow moves after an idle gap of more than FlowletGap. BalanceRand is the
	// choices' own random stream.
	LoadBalancing LoadBalancing
	FlowletGap    sim.Time
	BalanceRand   *rand.Rand
	// Trim, when Enabled, cuts a trimmable data packet to its headers instead of dropping
	// it (trim.go).
	Trim TrimConfig
}

// Switch is one switch of the fabric.
type Switch struct {
	ID     topology.NodeID
	Name   string
	Ports  []*Port
	router bool
	cfg    Config
	eng    *sim.Engine
	lane   sim.Lane // the switch's lane (topology.LaneOf): every event of the switch's
	pool   *topology.Pool
	routes *topology.Routes
	fwd    *topology.Forwarding // this switch's tables
	lb     *balancer            // nil under ECMP

	// BufferUsed is the bytes of the queued frames. A frame leaves the buffer when its
	// transmission starts (as in the ns-3 RDMA switch models).
	BufferUsed int64
	// Drops counts discarded packets by reason; Forwarded the packets put on an egress queue.
	Drops     [NumDropReasons]int64
	Forwarded int64
	// Marked counts the frames marked CE; Trimmed the data packets cut to their headers.
	Marked  int64
	Trimmed int64
	// delayed counts packets waiting out the forwarding latency, by kind.
	delayed [topology.NumKinds]int64
	// headroomUsed is the bytes held in the lossless port-classes' headroom (pfc.Ingress's
	// InHeadroom, summed): not in the shared buffer a dynamic XOFF divides.
	headroomUsed int64
	// lossless caches cfg.PFC.Lossless.
	lossless [NumPriorities]bool
}

// Port is one switch port: its egress queues and the wire it sends on.
type Port struct {
	// The fields every frame uses first, so that a hop touches the port's first cache line,
	// its queue and its PFC state, not lines spread over the whole port (on a large fabric,
	// where ports do not stay in cache, each line is a miss).
	Wire *topology.Wire
	sw   *Switch
	// busyUntil is when the frame in service has left. The port schedules an event for that
	// moment only when another frame is waiting (txPending); a frame that arrives at an idle
	// or just-freed port goes out at once, so an uncongested hop costs one event, not two.
	busyUntil sim.Time
	queued    int // packets in all queues
	txPending bool
	// backlog has bit c set while queue c holds a frame, so the strict-priority scheduler
	// finds the next queue without reading eight queue headers (twelve cache lines).
	backlog uint8
	// storm has bit c set for a class the watchdog caught paused too long (pfc.go): until its
	// pause ends it drops what is queued and what arrives, and does not wait on the pause.
	storm  uint8
	down   bool  // the wire is down (Wire.Up, kept here: a congested port's wire is not otherwise read per frame)
	ctrl   int32 // PAUSE frames waiting (control.Len, kept here, in the first line)
	Index  int
	wakeAt sim.Time // a pending wake-up for a pause that ends, Never if none
	// pausedUntil is when every pause received on the port has ended (pfc.Egress.End): until
	// then a class may be paused and the scheduler asks the pause state; after it, no class
	// is, and the scheduler does not read that state (another cache line per frame).
	pausedUntil sim.Time
	Queues      [NumPriorities]topology.Queue

	// portPFC is the port's priority flow control (pfc.go): Ingress, Pause, PausesSent and
	// ResumesSent.
	portPFC
	rr       int  // DWRR: the queue being visited
	credited bool // DWRR: the visited queue got its quantum this visit
	// noUET: the link leads to a host, and Config.UETHostsUnmarked leaves UET packets
	// unmarked here (read only for those, not in the first line).
	noUET   bool
	deficit [NumPriorities]int64
	// peer is the tables of the switch at the far end, nil for a host: the port looks up
	// there, for each frame it sends, where that switch will forward it (Forwarding.Ahead).
	peer *topology.Forwarding
	// Drops counts the packets the switch discarded at this port, by reason: a buffer or
	// watchdog drop at the egress port whose queue it was bound for, a headroom, unroutable
	// or TTL drop at the ingress port it arrived on. Summed over the ports it is Switch.Drops.
	Drops [NumDropReasons]int64
	// pad makes the port an odd number of cache lines (29), so that the same line of
	// consecutive ports (the first line, a class's queue, a class's ingress accounting) falls
	// in different cache sets. At 28 lines, as the fields alone round to, every port's lines
	// 0, 4 and 12 (class 3's queue and accounting) had the same address bits 6-7 and met in
	// a quarter of the L1 and L2 sets (docs/performance.md, round five). New keeps a switch's
	// ports in one array, whose element size is this stride.
	_ [88]byte
}

// New builds switch id of nw with its ports unconnected; attach a wire to each with SetWire.
func New(eng *sim.Engine, pool *topology.Pool, nw *topology.Network, routes *topology.Routes, id topology.NodeID, cfg Config) (*Switch, error) {
	n := &nw.Nodes[id]
	if err := cfg.validate(len(n.Ports)); err != nil {
		return nil, fmt.Errorf("switch %s: %w", n.Name, err)
	}
	sw := &Switch{ID: id, Name: n.Name, router: n.Router(), cfg: cfg, eng: eng, lane: topology.LaneOf(id), pool: pool, routes: routes,
		fwd: routes.Forwarding(id), lossless: cfg.PFC.Lossless, lb: newBalancer(&cfg)}
	eng.SetLanes(int(sw.lane) + 1)
	if cfg.PFC.Quanta == 0 {
		sw.cfg.PFC.Quanta = pfc.MaxQuanta
	}
	ports := make([]Port, len(n.Ports)) // one array: the ports' stride is Port's size (see pad)
	for i := range n.Ports {
		pt := &ports[i]
		pt.Index, pt.sw, pt.wakeAt = i, sw, sim.Never
		if cfg.UETHostsUnmarked {
			l := &nw.Links[n.Ports[i].Link]
			peer := l.A.Node
			if peer == id {
				peer = l.B.Node
			}
			pt.noUET = nw.Nodes[peer].Type == topology.Host
		}
		pt.configurePFC(&cfg.PFC)
		sw.Ports = append(sw.Ports, pt)
	}
	return sw, nil
}

// validate reports a configuration the switch cannot run with, as etcd raft's
// Config.validate does: a buffer or threshold factor that is not positive, a DWRR weight
// below 1 (its queue would starve), a negative latency, PFC sizes missing for a port or out
// of order (XON above XOFF), PFC quanta too short to refresh (pfc.MinQuanta), or ECN marking
// without a random stream. PFC response times may
// be left out (nil): every port then stops at once.
func (c *Config) validate(ports int) error {
	switch {
	case c.BufferBytes <= 0:
		return fmt.Errorf("buffer %d bytes: must be positive", c.BufferBytes)
	case !(c.Alpha > 0) || math.IsInf(c.Alpha, 0):
		return fmt.Errorf("dynamic threshold factor %v: must be positive and finite", c.Alpha)
	case c.Latency < 0:
		return fmt.Errorf("forwarding latency %v: must not be negative", c.Latency)
	case c.ECN != nil && c.Rand == nil:
		return fmt.Errorf("ECN marking needs a random stream")
	case c.LoadBalancing > Adaptive:
		return fmt.Errorf("load balancing %d: not a scheme", c.LoadBalancing)
	case c.LoadBalancing != ECMP && c.BalanceRand == nil:
		return fmt.Errorf("load balancing other than ECMP needs a random stream")
	case c.LoadBalancing == Flowlet && c.FlowletGap <= 0:
		return fmt.Errorf("flowlet gap %v: must be positive", c.FlowletGap)
	}
	if err := c.Trim.validate(&c.PFC); err != nil {
		return err
	}
	if c.Trim.Enabled && c.Trim.Reserve >= c.BufferBytes {
		return fmt.Errorf("trimmed headers' reserve %d bytes leaves nothing of the %d-byte buffer for data", c.Trim.Reserve, c.BufferBytes)
	}
	if c.Scheduler == DWRR {
		for prio, w := range c.Weights {
			if w < 1 {
				return fmt.Errorf("DWRR weight of priority %d is %d: at least 1, or its queue never sends", prio, w)
			}
		}
	}
	classes := c.PFC.classes()
	if classes == 0 {
		return nil
	}
	if least := pfc.MinQuanta(c.PFC.MaxFrameWire, classes); c.PFC.Quanta != 0 && int(c.PFC.Quanta) < least {
		return fmt.Errorf("PFC quanta %d: a refresh cannot reach the sender before so short a pause runs out (frames of %d bytes, %d lossless classes): at least %d",
			c.PFC.Quanta, c.PFC.MaxFrameWire, classes, least)
	}
	if c.PFC.MaxFrameWire < 0 {
		return fmt.Errorf("PFC largest frame %d bytes: must not be negative", c.PFC.MaxFrameWire)
	}
	if len(c.PFC.Ports) != ports || (c.PFC.Response != nil && len(c.PFC.Response) != ports) {
		return fmt.Errorf("PFC thresholds for %d ports and response times for %d (none: 0): the switch has %d ports",
			len(c.PFC.Ports), len(c.PFC.Response), ports)
	}
	for i, t := range c.PFC.Ports {
		if t.Xoff < 0 || t.Headroom < 0 || t.Xon < 0 || t.Xon > t.Xoff {
			return fmt.Errorf("port %d: PFC XOFF %d, XON %d, headroom %d bytes: none negative, XON at most XOFF", i+1, t.Xoff, t.Xon, t.Headroom)
		}
	}
	for i, r := range c.PFC.Response {
		if r < 0 {
			return fmt.Errorf("port %d: PFC response time %v: must not be negative", i+1, r)
		}
	}
	if c.PFC.Dynamic && (!(c.PFC.Alpha > 0) || math.IsInf(c.PFC.Alpha, 0) || c.PFC.Shared <= 0 || c.PFC.XonOffset < 0) {
		return fmt.Errorf("dynamic PFC XOFF: alpha %v, shared buffer %d bytes, XON offset %d bytes: alpha positive and finite, the shared buffer positive, the offset not negative",
			c.PFC.Alpha, c.PFC.Shared, c.PFC.XonOffset)
	}
	if c.PFC.Watchdog < 0 {
		return fmt.Errorf("PFC watchdog %v: must not be negative", c.PFC.Watchdog)
	}
	return nil
}

// LogDepth makes every queue of the switch add to its depth record through l (see
// topology.DepthLog).
func (sw *Switch) LogDepth(l *topology.DepthLog) {
	for _, pt := range sw.Ports {
		for c := range pt.Queues {
			pt.Queues[c].LogTo(l)
		}
		pt.control.LogTo(l)
	}
}

// SetWire attaches the egress wire of port i.
func (sw *Switch) SetWire(i int, w *topology.Wire) {
	pt := sw.Ports[i]
	pt.Wire, pt.down, pt.peer = w, !w.Up(), sw.routes.Forwarding(w.To)
	pt.refreshLead = pfc.RefreshLead(w.Params.Rate, sw.cfg.PFC.MaxFrameWire, sw.cfg.PFC.classes())
	w.OnStateChange(func(up bool) {
		pt.down = !up
		pt.linkChanged(sw.eng.Now(), up)
	})
}

// The ops of the switch's and its ports' events: the switch's opForward, a port's kind |
// class<<2.
const (
	opForward = -1
	evTx      = 0 // the frame in service on the port has left
	evWake    = 1 // a pause on the port may have ended
	evRefresh = 2 // refresh the PAUSE sent upstream for a class, if it still holds
	evWatch   = 3 // watchdog check of a paused class
)

func portOp(kind, class int) int { return kind | class<<2 }

// Receive implements topology.Receiver: a frame has fully arrived on port in.
func (sw *Switch) Receive(now sim.Time, p *topology.Packet, in int) {
	if p.Kind == topology.KindPause {
		sw.Ports[in].receivePause(now, p)
		sw.pool.Deliver(p)
		return
	}
	p.InPort = int32(in)
	if sw.cfg.Latency > 0 {
		sw.delayed[p.Kind]++
		sw.eng.AtLane(sw.lane, now+sw.cfg.Latency, sw, opForward, p)
		return
	}
	sw.forward(now, p)
}

// Handle implements sim.Handler: a frame that waited out the forwarding latency.
func (sw *Switch) Handle(now sim.Time, _ int, data any) {
	p := data.(*topology.Packet)
	sw.delayed[p.Kind]--
	sw.forward(now, p)
}

// Handle implements sim.Handler: the port's own events. A port's events name the port as
// their handler, so the engine fetches its first line into the cache ahead of the event
// (sim.Engine), and a transmission's end carries the frame likely to go next, for the same
// reason.
func (pt *Port) Handle(now sim.Time, op int, _ any) {
	switch kind, class := op&3, op>>2; kind {
	case evTx:
		pt.txPending = false
	case evWake:
		if now != pt.wakeAt {
			return // superseded
		}
		pt.wakeAt = sim.Never
	case evRefresh:
		pt.refresh(now, class)
		return
	case evWatch:
		pt.watchdog(now, class)
		return
	}
	pt.kick(now)
}

// drop discards p for reason r, counted on the switch and on port at.
func (sw *Switch) drop(p *topology.Packet, r DropReason, at *Port) {
	sw.Drops[r]++
	at.Drops[r]++
	sw.pool.Drop(p)
}

func (sw *Switch) forward(now sim.Time, p *topology.Packet) {
	if p.CrossSubnet && sw.router {
		// Routing between subnets: RFC 791 decrements TTL at each router and discards the
		// datagram when it reaches zero.
		p.Routed = true
		if p.TTL <= 1 {
			sw.drop(p, DropTTL, sw.Ports[p.InPort])
			return
		}
		p.TTL--
	}
	t := topology.TableFor(p)
	var out int
	if sw.lb == nil {
		out = sw.fwd.Out(t, p)
	} else {
		out = sw.choose(now, t, p)
	}
	if out < 0 {
		sw.drop(p, DropUnroutable, sw.Ports[p.InPort])
		return
	}
	if sw.Ports[out].down {
		out = sw.failover(t, p, out)
	}
	sw.enqueue(now, sw.Ports[out], p)
}

// failover picks another equal-cost port whose link is up, as a switch removes a failed
// member from its ECMP group; with none, the frame goes to the dead link and is lost there.
func (sw *Switch) failover(t topology.Table, p *topology.Packet, out int) int {
	ports := sw.fwd.Next(t, p.Dst)
	start := 0
	for i, q := range ports {
		if int(q) == out {
			start = i
		}
	}
	for k := 1; k < len(ports); k++ {
		q := int(ports[(start+k)%len(ports)])
		if sw.Ports[q].Wire.Up() {
			return q
		}
	}
	return out
}

func (sw *Switch) enqueue(now sim.Time, pt *Port, p *topology.Packet) {
	if pt.discarding(p.Priority) {
		sw.drop(p, DropWatchdog, pt)
		return
	}
	size := int64(p.Frame)
	q := &pt.Queues[p.Priority]
	free := sw.cfg.BufferBytes - sw.BufferUsed
	if !p.Trimmed {
		free -= sw.cfg.Trim.Reserve // kept for trimmed headers (trim.go); 0 without trimming
	}
	if sw.lossless[p.Priority] {
		// A lossless class is admitted by its ingress accounting, not by the egress
		// threshold; what does not fit in XOFF + headroom is a headroom drop.
		if size > free || !sw.Ports[p.InPort].admit(now, p.Priority, size) {
			sw.drop(p, DropHeadroom, sw.Ports[p.InPort])
			return
		}
	} else if size > free || float64(q.Bytes+size) > sw.cfg.Alpha*float64(free) {
		if sw.trimmable(p) {
			sw.trim(now, pt, p)
			return
		}
		sw.drop(p, DropBuffer, pt)
		return
	} else if sw.overTrimThreshold(q, size) && sw.trimmable(p) {
		// The threshold cuts data a transport can recover from a notice; it admits
		// everything else as the buffer does (trimmed headers, ACKs, other transports).
		sw.trim(now, pt, p)
		return
	}
	sw.BufferUsed += size
	sw.Forwarded++
	q.Push(now, p)
	pt.queued++
	pt.backlog |= 1 << p.Priority
	pt.kick(now)
}

// kick makes sure the port is sending if it has a frame it may send: at once when the line is
// free, else by an event at the end of the frame in service. PAUSE frames go first and are
// never paused; a paused class waits for its pause to end.
func (pt *Port) kick(now sim.Time) {
	if pt.txPending || pt.queued+int(pt.ctrl) == 0 {
		return
	}
	if now < pt.busyUntil {
		pt.txPending = true
		pt.sw.eng.AtLane(pt.sw.lane, pt.busyUntil, pt, portOp(evTx, 0), pt.likelyNext())
		return
	}
	var p *topology.Packet
	if pt.ctrl > 0 {
		p = pt.control.Pop(now)
		pt.ctrl--
	} else {
		qi := pt.next(now)
		if qi < 0 {
			pt.wakeAtPauseEnd(now)
			return
		}
		p = pt.dequeue(now, qi)
		if pt.peer != nil {
			pt.peer.Ahead(p)
		}
	}
	pt.busyUntil = pt.Wire.Send(now, p)
	if pt.queued+int(pt.ctrl) > 0 {
		pt.txPending = true
		pt.sw.eng.AtLane(pt.sw.lane, pt.busyUntil, pt, portOp(evTx, 0), pt.likelyNext())
	}
}

// likelyNext is the frame the port will most likely send next, if nothing arrives or pauses
// first: the head of its highest non-empty queue (a PAUSE frame's, if one waits). It is a hint
// for the engine's prefetch, read from queue lines the port has just used.
func (pt *Port) likelyNext() any {
	if pt.ctrl > 0 {
		return pt.control.Peek()
	}
	if pt.backlog == 0 {
		return nil
	}
	return pt.Queues[bits.Len8(pt.backlog)-1].Peek()
}

// dequeue takes the head frame of queue qi out of the switch.
func (pt *Port) dequeue(now sim.Time, qi int) *topology.Packet {
	sw := pt.sw
	p := pt.Queues[qi].Pop(now)
	pt.Queues[qi].Served++
	pt.queued--
	if pt.Queues[qi].Len == 0 {
		pt.backlog &^= 1 << qi
	}
	size := int64(p.Frame)
	sw.BufferUsed -= size
	if sw.cfg.ECN != nil && (p.ECN == topology.ECNECT0 || p.ECN == topology.ECNECT1) &&
		!(pt.noUET && p.DstPort == topology.UDPPortUET) &&
		sw.cfg.ECN.Mark(pt.Queues[qi].Bytes, sw.cfg.Rand.Float64) {
		// Commodity switches mark on egress, at dequeue, on the queue the frame leaves behind
		// (docs/model.md): the mark then carries no queueing delay of its own.
		p.ECN = topology.ECNCE
		sw.Marked++
	}
	if sw.lossless[qi] {
		sw.Ports[p.InPort].release(now, qi, size)
	}
	if p.INT != nil && p.Kind == topology.KindData {
		pt.stampINT(now, p)
	}
	return p
}

// stampINT pushes the port's telemetry into an HPCC data packet as it leaves the queue, as
// the HPCC authors' switch does at dequeue: the time, the bytes the port has sent counting
// this frame, the bytes still queued on the port (every class) and the line rate.
func (pt *Port) stampINT(now sim.Time, p *topology.Packet) {
	var q int64
	for i := range pt.Queues {
		q += pt.Queues[i].Bytes
	}
	p.INT.Push(topology.INTHop{At: now, TxBytes: pt.Wire.Bytes() + p.WireBytes(), QLen: q, Rate: pt.Wire.Params.Rate})
}

// Queued is the number of packets waiting in the port's queues.
func (pt *Port) Queued() int { return pt.queued }

// Latency is the switch's forwarding latency.
func (sw *Switch) Latency() sim.Time { return sw.cfg.Latency }

// InTransit is the number of packets of kind k inside the switch but in no queue: waiting
// out the forwarding latency.
func (sw *Switch) InTransit(k topology.Kind) int64 { return sw.delayed[k] }

// MarksECN reports whether the switch marks ECN.
func (sw *Switch) MarksECN() bool { return sw.cfg.ECN != nil }

// Marking is the curve by which the switch marks ECN-capable frames CE at dequeue, against
// the depth of their egress queue (Kmin, Kmax in bytes, Pmax); ok is false when it marks none.
func (sw *Switch) Marking() (m ecn.Marker, ok bool) {
	if sw.cfg.ECN == nil {
		return ecn.Marker{}, false
	}
	return *sw.cfg.ECN, true
}

// BufferBytes is the size of the switch's shared packet buffer (BufferUsed is its use).
func (sw *Switch) BufferBytes() int64 { return sw.cfg.BufferBytes }
