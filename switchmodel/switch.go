// Package switchmodel is the switch: ports with eight egress priority queues, one shared
// buffer with dynamic-threshold admission, strict-priority or DWRR scheduling, and L2/L3
// forwarding with TTL, ECMP and drop counters by reason.
package switchmodel

import (
	"fmt"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// NumPriorities is the number of traffic classes, and of egress queues per port (802.1Q PCP).
const NumPriorities = 8

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
	DropBuffer     DropReason = iota // the shared buffer or the queue's dynamic threshold was full
	DropUnroutable                   // no route to the destination
	DropTTL                          // the IP TTL ran out at a router
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
	// delayed counts packets waiting out the forwarding latency, by kind.
	delayed [topology.NumKinds]int64
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
	queued    int  // packets in all queues
	rr        int  // DWRR: the queue being visited
	credited  bool // DWRR: the visited queue got its quantum this visit
	deficit   [NumPriorities]int64
}

// New builds switch id of nw with its ports unconnected; attach a wire to each with SetWire.
func New(eng *sim.Engine, pool *topology.Pool, nw *topology.Network, routes *topology.Routes, id topology.NodeID, cfg Config) *Switch {
	n := &nw.Nodes[id]
	sw := &Switch{ID: id, Name: n.Name, router: n.Router(), cfg: cfg, eng: eng, pool: pool, routes: routes}
	for i := range n.Ports {
		sw.Ports = append(sw.Ports, &Port{Index: i, sw: sw})
	}
	return sw
}

// SetWire attaches the egress wire of port i.
func (sw *Switch) SetWire(i int, w *topology.Wire) { sw.Ports[i].Wire = w }

// ops of Handle: a non-negative op is the port whose frame finished serializing.
const opForward = -1

// Receive implements topology.Receiver: a frame has fully arrived on port in.
func (sw *Switch) Receive(now sim.Time, p *topology.Packet, in int) {
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
	pt := sw.Ports[op]
	pt.txPending = false
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
	size := int64(p.Frame)
	q := &pt.Queues[p.Priority]
	free := sw.cfg.BufferBytes - sw.BufferUsed
	if size > free || float64(q.Bytes+size) > sw.cfg.Alpha*float64(free) {
		sw.drop(p, DropBuffer)
		return
	}
	sw.BufferUsed += size
	sw.Forwarded++
	q.Push(now, p)
	pt.queued++
	pt.kick(now)
}

// kick makes sure the port is sending if it has a frame: at once when the line is free,
// else by an event at the end of the frame in service.
func (pt *Port) kick(now sim.Time) {
	if pt.txPending || pt.queued == 0 {
		return
	}
	if now < pt.busyUntil {
		pt.txPending = true
		pt.sw.eng.At(pt.busyUntil, pt.sw, pt.Index, nil)
		return
	}
	var qi int
	if pt.sw.cfg.Scheduler == DWRR {
		qi = pt.nextDWRR()
	} else {
		qi = pt.nextStrict()
	}
	p := pt.Queues[qi].Pop(now)
	pt.queued--
	pt.sw.BufferUsed -= int64(p.Frame)
	pt.busyUntil = pt.Wire.Send(now, p)
	if pt.queued > 0 {
		pt.txPending = true
		pt.sw.eng.At(pt.busyUntil, pt.sw, pt.Index, nil)
	}
}

func (pt *Port) nextStrict() int {
	for i := NumPriorities - 1; i >= 0; i-- {
		if pt.Queues[i].Len > 0 {
			return i
		}
	}
	panic(fmt.Sprintf("switchmodel: %s port %d: %d packets queued in no queue", pt.sw.Name, pt.Index+1, pt.queued))
}

// nextDWRR visits the queues in turn; a visited queue earns weight x quantum once per visit
// and sends while its deficit covers the head frame. An empty queue loses its deficit.
func (pt *Port) nextDWRR() int {
	w := &pt.sw.cfg.Weights
	for {
		q := &pt.Queues[pt.rr]
		if q.Len == 0 {
			pt.deficit[pt.rr] = 0
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
