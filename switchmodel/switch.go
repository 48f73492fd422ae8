// Package switchmodel is the switch: ports with eight egress priority queues, one shared
// buffer with dynamic-threshold admission for lossy classes and PFC (IEEE 802.1Qbb) ingress
// accounting with headroom for lossless ones, strict-priority or DWRR scheduling that skips
// paused classes, the PFC watchdog, L2/L3 forwarding with TTL and ECMP, and drop counters by
// reason.
package switchmodel

import (
	"math/rand/v2"

	"github.com/fabricsim/fabricsim/ecn"
	"github.com/fabricsim/fabricsim/pfc"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// NumPriorities is the number of traffic classes, and of egress queues per port (802.1Q PCP).
const NumPriorities = topology.NumPriorities

// Scheduler chooses which egress queue of a port sends next.
type Scheduler uint8

// Schedulers.
const (
	// Strict serves the highest non-empty priority first (7 highest).
	Strict Scheduler = iota
	// DWRR is deficit weighted round robin (Shreedhar and Varghese, 1995): each queue gets
	// a share of the port in proportion to its weight.
	DWRR
)

// DWRRQuantum is the bytes a weight of 1 earns per round; one standard Ethernet MTU.
const DWRRQuantum = 1500

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
}

// PFCConfig configures priority flow control on a switch.
type PFCConfig struct {
	// Lossless marks the classes under PFC; the others are lossy.
	Lossless [NumPriorities]bool
	// Ports holds each port's thresholds (XOFF, XON, headroom), by port index.
	Ports []pfc.Thresholds
	// Response is, by port index, how long the switch takes to stop sending on that port
	// after a PAUSE arrives there.
	Response []sim.Time
	// Quanta is the pause time of each PAUSE the switch sends (refreshed at half of it while
	// the condition lasts).
	Quanta uint16
	// Watchdog, when positive: an egress queue paused that long without a break is flushed
	// (its frames are dropped as watchdog drops), as switch PFC watchdogs break pause storms.
	Watchdog sim.Time
}

// Enabled reports whether any class is lossless.
func (c *PFCConfig) Enabled() bool {
	for _, l := range c.Lossless {
		if l {
			return true
		}
	}
	return false
}

// Switch is one switch of the fabric.
type Switch struct {
	ID     topology.NodeID
	Name   string
	Ports  []*Port
	router bool
	cfg    Config
	eng    *sim.Engine
	pool   *topology.Pool
	routes *topology.Routes

	// BufferUsed is the bytes of the queued frames. A frame leaves the buffer when its
	// transmission starts (as in the ns-3 RDMA switch models).
	BufferUsed int64
	// Drops counts discarded packets by reason; Forwarded the packets put on an egress queue.
	Drops     [NumDropReasons]int64
	Forwarded int64
	// Marked counts the frames marked CE.
	Marked int64
	// delayed counts packets waiting out the forwarding latency, by kind.
	delayed [topology.NumKinds]int64
	// lossless caches cfg.PFC.Lossless.
	lossless [NumPriorities]bool
}

// Port is one switch port: its egress queues and the wire it sends on.
type Port struct {
	Index  int
	Wire   *topology.Wire
	Queues [NumPriorities]topology.Queue

	sw *Switch
	// busyUntil is when the frame in service has left. The port schedules an event for that
	// moment only when another frame is waiting (txPending); a frame that arrives at an idle
	// or just-freed port goes out at once, so an uncongested hop costs one event, not two.
	busyUntil sim.Time
	txPending bool
	wakeAt    sim.Time // a pending wake-up for a pause that ends, Never if none

	// PFC: the accounting of frames that came in on this port, by class; the pause state
	// of this port's sending side; the PAUSE frames waiting to go out, ahead of all data.
	Ingress [NumPriorities]pfc.Ingress
	Pause   pfc.Egress
	control topology.Queue
	// PausesSent and ResumesSent count the PFC frames this port sent upstream, by class.
	PausesSent, ResumesSent [NumPriorities]int64
	// Served counts the frames each queue has sent: the deadlock detector's progress mark.
	Served    [NumPriorities]int64
	refreshOn [NumPriorities]bool // a refresh timer is pending for the class
	watchOn   [NumPriorities]bool // a watchdog check is pending for the class
	// storm marks a class the watchdog caught paused too long: until its pause ends it drops
	// what is queued and what arrives, and does not wait on the pause.
	storm    [NumPriorities]bool
	response sim.Time
	queued   int  // packets in all queues
	rr       int  // DWRR: the queue being visited
	credited bool // DWRR: the visited queue got its quantum this visit
	deficit  [NumPriorities]int64
}

// New builds switch id of nw with its ports unconnected; attach a wire to each with SetWire.
func New(eng *sim.Engine, pool *topology.Pool, nw *topology.Network, routes *topology.Routes, id topology.NodeID, cfg Config) *Switch {
	n := &nw.Nodes[id]
	sw := &Switch{ID: id, Name: n.Name, router: n.Router(), cfg: cfg, eng: eng, pool: pool, routes: routes,
		lossless: cfg.PFC.Lossless}
	if cfg.PFC.Quanta == 0 {
		sw.cfg.PFC.Quanta = pfc.MaxQuanta
	}
	for i := range n.Ports {
		pt := &Port{Index: i, sw: sw, wakeAt: sim.Never}
		if i < len(cfg.PFC.Ports) {
			for c := range pt.Ingress {
				pt.Ingress[c].Thresholds = cfg.PFC.Ports[i]
			}
		}
		if i < len(cfg.PFC.Response) {
			pt.response = cfg.PFC.Response[i]
		}
		sw.Ports = append(sw.Ports, pt)
	}
	return sw
}

// SetWire attaches the egress wire of port i.
func (sw *Switch) SetWire(i int, w *topology.Wire) { sw.Ports[i].Wire = w }

// The ops of Handle: opForward, or a port event: kind | port<<2 | class<<18.
const (
	opForward = -1
	evTx      = 0 // the frame in service on the port has left
	evWake    = 1 // a pause on the port may have ended
	evRefresh = 2 // refresh the PAUSE sent upstream for a class, if it still holds
	evWatch   = 3 // watchdog check of a paused class
)

func portOp(kind, port, class int) int { return kind | port<<2 | class<<18 }

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
		sw.eng.At(now+sw.cfg.Latency, sw, opForward, p)
		return
	}
	sw.forward(now, p)
}

// Handle implements sim.Handler.
func (sw *Switch) Handle(now sim.Time, op int, data any) {
	if op == opForward {
		p := data.(*topology.Packet)
		sw.delayed[p.Kind]--
		sw.forward(now, p)
		return
	}
	kind, pt, class := op&3, sw.Ports[op>>2&0xFFFF], op>>18
	switch kind {
	case evTx:
		pt.txPending = false
	case evWake:
		if now != pt.wakeAt {
			return // superseded
		}
		pt.wakeAt = sim.Never
	case evRefresh:
		pt.refreshOn[class] = false
		if pt.Ingress[class].Paused {
			pt.sendPause(now, class, sw.cfg.PFC.Quanta)
		}
		return
	case evWatch:
		pt.watchOn[class] = false
		pt.watchdog(now, class)
		return
	}
	pt.kick(now)
}

func (sw *Switch) drop(p *topology.Packet, r DropReason) {
	sw.Drops[r]++
	sw.pool.Drop(p)
}

func (sw *Switch) forward(now sim.Time, p *topology.Packet) {
	if p.CrossSubnet && sw.router {
		// Routing between subnets: RFC 791 decrements TTL at each router and discards the
		// datagram when it reaches zero.
		p.Routed = true
		if p.TTL <= 1 {
			sw.drop(p, DropTTL)
			return
		}
		p.TTL--
	}
	t := topology.TableFor(p)
	out := sw.routes.Pick(sw.ID, t, p.Dst, p.Hash)
	if out < 0 {
		sw.drop(p, DropUnroutable)
		return
	}
	if !sw.Ports[out].Wire.Up() {
		out = sw.failover(t, p, out)
	}
	sw.enqueue(now, sw.Ports[out], p)
}

// failover picks another equal-cost port whose link is up, as a switch removes a failed
// member from its ECMP group; with none, the frame goes to the dead link and is lost there.
func (sw *Switch) failover(t topology.Table, p *topology.Packet, out int) int {
	ports := sw.routes.Next(sw.ID, t, p.Dst)
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
	if pt.storm[p.Priority] {
		sw.drop(p, DropWatchdog)
		return
	}
	size := int64(p.Frame)
	q := &pt.Queues[p.Priority]
	free := sw.cfg.BufferBytes - sw.BufferUsed
	if sw.lossless[p.Priority] {
		// A lossless class is admitted by its ingress accounting, not by the egress
		// threshold; what does not fit in XOFF + headroom is a headroom drop.
		in := sw.Ports[p.InPort]
		if size > free {
			sw.drop(p, DropHeadroom)
			return
		}
		ok, act := in.Ingress[p.Priority].Admit(size)
		if !ok {
			sw.drop(p, DropHeadroom)
			return
		}
		if act == pfc.Pause {
			in.sendPause(now, int(p.Priority), sw.cfg.PFC.Quanta)
		}
	} else if size > free || float64(q.Bytes+size) > sw.cfg.Alpha*float64(free) {
		sw.drop(p, DropBuffer)
		return
	}
	sw.BufferUsed += size
	sw.Forwarded++
	q.Push(now, p)
	pt.queued++
	pt.kick(now)
}

// kick makes sure the port is sending if it has a frame it may send: at once when the line is
// free, else by an event at the end of the frame in service. PAUSE frames go first and are
// never paused; a paused class waits for its pause to end.
func (pt *Port) kick(now sim.Time) {
	if pt.txPending || pt.queued+pt.control.Len == 0 {
		return
	}
	if now < pt.busyUntil {
		pt.txPending = true
		pt.sw.eng.At(pt.busyUntil, pt.sw, portOp(evTx, pt.Index, 0), nil)
		return
	}
	var p *topology.Packet
	if pt.control.Len > 0 {
		p = pt.control.Pop(now)
	} else {
		qi := pt.next(now)
		if qi < 0 {
			pt.wakeAtPauseEnd(now)
			return
		}
		p = pt.dequeue(now, qi)
	}
	pt.busyUntil = pt.Wire.Send(now, p)
	if pt.queued+pt.control.Len > 0 {
		pt.txPending = true
		pt.sw.eng.At(pt.busyUntil, pt.sw, portOp(evTx, pt.Index, 0), nil)
	}
}

// dequeue takes the head frame of queue qi out of the switch.
func (pt *Port) dequeue(now sim.Time, qi int) *topology.Packet {
	sw := pt.sw
	p := pt.Queues[qi].Pop(now)
	pt.queued--
	pt.Served[qi]++
	size := int64(p.Frame)
	sw.BufferUsed -= size
	if sw.cfg.ECN != nil && (p.ECN == topology.ECNECT0 || p.ECN == topology.ECNECT1) &&
		sw.cfg.ECN.Mark(pt.Queues[qi].Bytes, sw.cfg.Rand.Float64) {
		// Commodity switches mark on egress, at dequeue, on the queue the frame leaves behind
		// (physics references 3.1): the mark then carries no queueing delay of its own.
		p.ECN = topology.ECNCE
		sw.Marked++
	}
	if sw.lossless[qi] {
		in := sw.Ports[p.InPort]
		if in.Ingress[qi].Release(size) == pfc.Resume {
			in.sendPause(now, qi, 0)
		}
	}
	return p
}

// next picks the queue to serve among the classes that are not paused, or -1.
func (pt *Port) next(now sim.Time) int {
	if pt.sw.cfg.Scheduler == DWRR {
		return pt.nextDWRR(now)
	}
	return pt.nextStrict(now)
}

// wakeAtPauseEnd arranges a kick when the earliest pause of a non-empty class ends.
func (pt *Port) wakeAtPauseEnd(now sim.Time) {
	t := sim.Never
	for c := range pt.Queues {
		if pt.Queues[c].Len > 0 && pt.Pause.Paused(now, c) {
			t = min(t, pt.Pause.Until(c))
		}
	}
	if t < pt.wakeAt {
		pt.wakeAt = t
		pt.sw.eng.At(t, pt.sw, portOp(evWake, pt.Index, 0), nil)
	}
}

// sendPause queues a PFC frame for class c on this port, to the upstream sender; quanta 0
// resumes it. While the class stays paused, a refresh goes out at half the pause time, so the
// sender never resumes by expiry.
func (pt *Port) sendPause(now sim.Time, c int, quanta uint16) {
	if quanta > 0 && !pt.refreshOn[c] {
		pt.refreshOn[c] = true
		pt.sw.eng.At(now+pt.refreshInterval(quanta), pt.sw, portOp(evRefresh, pt.Index, c), nil)
	}
	pt.InjectPause(now, c, quanta)
}

// InjectPause queues one PFC frame for class c on this port, outside the PFC accounting (a
// fault: nothing refreshes or resumes it); quanta 0 resumes the class.
func (pt *Port) InjectPause(now sim.Time, c int, quanta uint16) {
	p := pt.sw.pool.Get(topology.KindPause)
	pfc.FillFrame(p, c, quanta)
	p.Src, p.Dst = pt.sw.ID, pt.Wire.To
	p.SentAt = now
	pt.control.Push(now, p)
	if quanta == 0 {
		pt.ResumesSent[c]++
	} else {
		pt.PausesSent[c]++
	}
	pt.kick(now)
}

// refreshInterval is how soon a PAUSE of quanta is refreshed while its condition lasts: at
// half the pause time, but never sooner than a few PFC frame times, so that tiny quanta
// cannot fill the link with pause frames.
func (pt *Port) refreshInterval(quanta uint16) sim.Time {
	rate := pt.Wire.Params.Rate
	return max(pfc.PauseDuration(quanta, rate)/2, 4*rate.TxTime(pfc.FrameWireBytes))
}

// ControlCount is the number of PFC frames of kind k waiting to go out (for audits).
func (pt *Port) ControlCount(k topology.Kind) int64 { return pt.control.Count(k) }

// receivePause applies a PFC frame that arrived on this port to its sending side. Classes
// without PFC ignore it: IEEE 802.1Qbb enables PFC per priority.
func (pt *Port) receivePause(now sim.Time, p *topology.Packet) {
	for c := 0; c < NumPriorities; c++ {
		if p.PauseEnable&(1<<c) == 0 || !pt.sw.lossless[c] {
			continue
		}
		pt.Pause.Receive(now, c, p.PauseQuanta[c], pt.Wire.Params.Rate, pt.response)
		if p.PauseQuanta[c] > 0 && pt.sw.cfg.PFC.Watchdog > 0 && !pt.watchOn[c] {
			pt.watchOn[c] = true
			pt.sw.eng.At(now+pt.response+pt.sw.cfg.PFC.Watchdog, pt.sw, portOp(evWatch, pt.Index, c), nil)
		}
	}
	pt.kick(now) // a resume may free a class; a pause is honoured at the next frame boundary
}

// watchdog flushes queue c if it has been paused, without a break, for the watchdog time:
// its frames are dropped (watchdog drops), which frees the buffer they held upstream's pause
// depends on, and so breaks a pause storm or deadlock. If the class is paused but for less
// time, the check comes back when it would be due.
func (pt *Port) watchdog(now sim.Time, c int) {
	since := pt.Pause.PausedSince(now, c)
	if since == sim.Never {
		pt.storm[c] = false // the pause is over: the class is restored
		return
	}
	if due := since + pt.sw.cfg.PFC.Watchdog; now < due {
		pt.watchOn[c] = true
		pt.sw.eng.At(due, pt.sw, portOp(evWatch, pt.Index, c), nil)
		return
	}
	// A pause storm: drop what the queue holds, and (in enqueue) what arrives for it, until
	// the pause ends, as switch PFC watchdogs do in their drop mode. The check comes back at
	// the end of the pause to restore the class.
	pt.storm[c] = true
	pt.flush(now, c)
	pt.watchOn[c] = true
	pt.sw.eng.At(max(pt.Pause.Until(c), now+1), pt.sw, portOp(evWatch, pt.Index, c), nil)
}

// flush drops every frame of queue c as a watchdog drop, releasing its buffer and ingress
// accounting (which may resume the upstream senders).
func (pt *Port) flush(now sim.Time, c int) {
	sw := pt.sw
	for pt.Queues[c].Len > 0 {
		p := pt.Queues[c].Pop(now)
		pt.queued--
		size := int64(p.Frame)
		sw.BufferUsed -= size
		if sw.lossless[c] {
			in := sw.Ports[p.InPort]
			if in.Ingress[c].Release(size) == pfc.Resume {
				in.sendPause(now, c, 0)
			}
		}
		sw.drop(p, DropWatchdog)
	}
}

func (pt *Port) nextStrict(now sim.Time) int {
	for i := NumPriorities - 1; i >= 0; i-- {
		if pt.Queues[i].Len > 0 && !pt.Pause.Paused(now, i) {
			return i
		}
	}
	return -1
}

// nextDWRR visits the queues in turn; a visited queue earns weight x quantum once per visit
// and sends while its deficit covers the head frame. An empty queue loses its deficit; a
// paused one keeps it and is passed over. It returns -1 when every non-empty queue is paused.
func (pt *Port) nextDWRR(now sim.Time) int {
	w := &pt.sw.cfg.Weights
	eligible := false
	for c := range pt.Queues {
		eligible = eligible || (pt.Queues[c].Len > 0 && !pt.Pause.Paused(now, c))
	}
	if !eligible {
		return -1
	}
	for {
		q := &pt.Queues[pt.rr]
		if q.Len == 0 {
			pt.deficit[pt.rr] = 0
			pt.advance()
			continue
		}
		if pt.Pause.Paused(now, pt.rr) {
			pt.advance()
			continue
		}
		if !pt.credited {
			pt.deficit[pt.rr] += int64(w[pt.rr]) * DWRRQuantum
			pt.credited = true
		}
		if head := int64(q.Peek().Frame); pt.deficit[pt.rr] >= head {
			pt.deficit[pt.rr] -= head
			return pt.rr
		}
		pt.advance()
	}
}

func (pt *Port) advance() {
	pt.rr = (pt.rr + 1) % NumPriorities
	pt.credited = false
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
