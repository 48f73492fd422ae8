package topology

import (
	"math"
	"math/rand/v2"

	"github.com/fabricsim/fabricsim/sim"
)

// Tap observes the frames put on a wire.
type Tap interface {
	Frame(at sim.Time, w *Wire, p *Packet)
}

// Receiver takes the frames a wire delivers to a node's port.
type Receiver interface {
	Receive(now sim.Time, p *Packet, port int)
}

// Wire is one direction of a link: it carries frames from a port of node From to a port of
// node To. The sending port serializes (Send returns when the last bit is out); the wire adds
// the propagation delay and decides loss. Counters are read after the run.
//
// Frames arrive in the order they were sent, so the wire keeps those in flight in a FIFO and
// has one pending event, for the head, however many frames the link holds: the event queue
// stays as small as the number of links, not the number of frames in flight.
type Wire struct {
	// A frame on a plain wire (up, never down, no loss, jitter, fault or capture, a rate
	// whose serialization per byte is a whole number of picoseconds) reads and writes this
	// first cache line only, in Send and in Handle: on a large fabric every other line of
	// the wire would be a cache miss per hop.
	head, tail *Packet // frames in flight, oldest first
	to         Receiver
	eng        *sim.Engine
	bytes      int64  // wire bytes of the frames sent (Bytes)
	packets    uint32 // frames sent, modulo 2^32; packetsHi counts the wraps
	psPerByte  uint32 // serialization per byte in ps when the rate divides 8e12 bit·ps/s exactly, else 0
	delay      uint32 // the propagation delay in ps, when plain
	toPort     uint16 // ToPort, when plain
	plain      bool   // the conditions above hold: Send and Handle take their short paths
	cross      bool   // the far end is in another partition: frames go through x

	// Params are the link's rate, delay and loss; change the loss with SetLoss.
	Params    LinkParams
	up        bool
	epoch     uint32   // bumped when the link goes down: frames in flight then are lost
	busy      sim.Time // serialization time of the frames sent, when psPerByte is 0
	packetsHi uint32

	ToPort    int
	pool      *Pool
	dropEvery int64    // deterministic loss of every n-th data frame (a fault), 0 = off
	jitter    sim.Time // random extra delay per frame, below one minimum frame time
	tap       Tap      // sees every frame put on the wire (SetTap)

	From, To NodeID
	FromPort int
	rng      *rand.Rand
	dataSeen int64
	lastAt   sim.Time // the latest arrival scheduled: frames never overtake each other
	// LostRandom and LostDown count frames lost to random loss (or drop_every) and to the
	// link being down.
	LostRandom int64
	LostDown   int64
	onChange   func(up bool) // told of each change of the link state (OnStateChange)
	// toLane is the lane of the far end's node: a frame's arrival runs there.
	toLane sim.Lane
	x      *crossing // the sending side of a wire between two partitions, nil within one
	// A Wire is 256 bytes, a size class of Go's allocator whose objects start on a cache
	// line, so that the first line above is one line (layout_test.go).
	_ [16]byte
}

// crossing is a wire whose ends are in two partitions of a sim.Group, run by two threads at
// once. The sending side (Send, stage) writes the wire's first line and the staged lists;
// the frames sent in the current window wait there (one list per window parity) until the
// receiving partition takes them in, before its next window. The receiving side (Cross and
// the arrivals, crossing.Handle) keeps the frames in flight on a line of its own, so that
// neither side writes a line the other reads while both run (a line written by one core
// and read by another moves between their caches on every frame).
type crossing struct {
	src *sim.Engine // the sending partition's engine
	to  int         // the receiving partition
	w   *Wire
	_   [40]byte
	// staged is written by the sender for every frame of a window; each parity has a line.
	staged [2]struct {
		head, tail *Packet
		at         sim.Time // the head's arrival
		seq        uint64   // the head's arrival key
		_          [32]byte
	}
	rx struct {
		head, tail *Packet // frames in flight, oldest first
		recv       Receiver
		eng        *sim.Engine // the receiving partition's engine
		toLane     sim.Lane
		toPort     uint16
		plain      bool // a copy of the wire's, kept by replan
		_          [17]byte
	}
}

// SetLane makes the wire's arrivals run in lane l, the far end's node's.
func (w *Wire) SetLane(l sim.Lane) {
	w.toLane = l
	w.replan()
}

// CrossFrom makes the wire one between two partitions: its sender runs in src, its far end
// in partition to, whose engine is the one the wire was made with.
func (w *Wire) CrossFrom(src *sim.Engine, to int) {
	w.x = &crossing{src: src, to: to, w: w}
	w.cross = true
	w.replan()
}

// arrivalKey is the key of the arrival of the frame just counted: the far end's lane with a
// sequence number of its own, below any the lane counts itself (sim.FirstSeq): the frame's
// number on the wire, then the far end's port. It is the same whichever partition sends
// the frame and whenever it is taken in, and each next arrival's key is arrivalStep more.
// Frames that arrive at a node at the same picosecond as events of its own come first:
// their arrival was scheduled before anything the node scheduled for that time, which is
// the order of a single event list by insertion, and a port whose transmission ends as a
// frame arrives can choose that frame. Frames that arrive at one node at the same
// picosecond go by their number on their wire, the one whose link has carried fewer first,
// so that no port wins every tie.
//
// The port takes 16 bits (a node has at most MaxPorts ports) and the frame's number 47: a
// link carries fewer than 2^47 frames (count).
func (w *Wire) arrivalKey() uint64 {
	return uint64(w.Packets())<<16 | uint64(uint16(w.ToPort))
}

// MaxPorts is the most ports a node may have: a frame's arrival key holds the port in 16
// bits.
const MaxPorts = 1 << 16

// arrivalStep is what the key of a wire's next arrival adds to the one before (arrivalKey).
const arrivalStep = 1 << 16

// NewWire returns an up wire. rng draws the random losses of this direction only.
func NewWire(eng *sim.Engine, pool *Pool, from, to NodeID, fromPort, toPort int, p LinkParams, rng *rand.Rand) *Wire {
	w := &Wire{From: from, To: to, FromPort: fromPort, ToPort: toPort, Params: p, eng: eng, pool: pool, rng: rng, up: true}
	if bitPs := 8 * uint64(sim.Second); p.Rate > 0 && bitPs%uint64(p.Rate) == 0 && bitPs/uint64(p.Rate) <= math.MaxUint32 {
		w.psPerByte = uint32(bitPs / uint64(p.Rate)) // 80 ps at 100 Gb/s: a multiply per frame, not a division
	}
	w.replan()
	return w
}

// replan decides whether frames may take the short paths of Send and Handle, after anything
// they depend on changed.
func (w *Wire) replan() {
	w.plain = w.up && w.epoch == 0 && w.tap == nil && w.dropEvery == 0 && w.Params.Loss == 0 && w.jitter == 0 &&
		w.psPerByte > 0 && w.Params.Delay >= 0 && w.Params.Delay <= math.MaxUint32 && w.ToPort >= 0 && w.ToPort <= math.MaxUint16
	if w.plain {
		w.delay, w.toPort = uint32(w.Params.Delay), uint16(w.ToPort)
	}
	if x := w.x; x != nil {
		// The receiving side's copies: the wire's own fields are on the sender's line.
		x.rx.recv, x.rx.eng, x.rx.toLane = w.to, w.eng, w.toLane
		x.rx.toPort, x.rx.plain = w.toPort, w.plain
	}
}

// Attach sets the receiver at the far end.
func (w *Wire) Attach(to Receiver) {
	w.to = to
	w.replan()
}

// SetTap makes t see every frame put on the wire from now on (a packet capture); nil stops it.
func (w *Wire) SetTap(t Tap) {
	w.tap = t
	w.replan()
}

// Up reports whether the link is up. A plain wire is, which spares a sender that asks for
// every frame the wire's second cache line.
func (w *Wire) Up() bool { return w.plain || w.up }

// SetUp changes the link state. Frames in flight when it goes down are lost.
func (w *Wire) SetUp(up bool) {
	if w.up && !up {
		w.epoch++
	}
	changed := w.up != up
	w.up = up
	w.replan()
	if changed && w.onChange != nil {
		w.onChange(up)
	}
}

// OnStateChange makes SetUp call f with the new state whenever the link goes down or comes
// back up, so that the sending port can keep a copy of the state where it reads it for every
// frame. One function per wire; a second call replaces the first.
func (w *Wire) OnStateChange(f func(up bool)) { w.onChange = f }

// SetLoss changes the random loss probability of this direction.
func (w *Wire) SetLoss(p float64) {
	w.Params.Loss = p
	w.replan()
}

// SetDropEvery makes the wire lose every n-th data frame it carries (n = 0 turns it off).
func (w *Wire) SetDropEvery(n int64) {
	w.dropEvery, w.dataSeen = n, 0
	w.replan()
}

// SetJitter makes each frame arrive up to j later, at random (from the wire's own stream).
// j is capped at one minimum frame time at the wire's rate, so frames keep their order; the
// cap is returned.
func (w *Wire) SetJitter(j sim.Time) sim.Time {
	w.jitter = min(j, w.Params.Rate.TxTime(MinFrame+WireOverhead))
	w.replan()
	return w.jitter
}

// TxTime is the serialization time of p on this wire.
func (w *Wire) TxTime(p *Packet) sim.Time {
	if w.psPerByte > 0 {
		return sim.Time(p.WireBytes()) * sim.Time(w.psPerByte)
	}
	return w.Params.Rate.TxTime(p.WireBytes())
}

// Packets is the number of frames put on the wire, of every kind.
func (w *Wire) Packets() int64 { return int64(w.packetsHi)<<32 | int64(w.packets) }

// Bytes is the wire bytes (frame and overhead) of the frames put on the wire.
func (w *Wire) Bytes() int64 { return w.bytes }

// BusyTime is the serialization time of the frames put on the wire.
func (w *Wire) BusyTime() sim.Time {
	if w.psPerByte > 0 {
		return sim.Time(w.bytes) * sim.Time(w.psPerByte) // every frame's TxTime, summed
	}
	return w.busy
}

// InFlight is the number of frames of kind k sent and not yet arrived or lost. It walks the
// frames on the wire: for audits, not for the datapath.
func (w *Wire) InFlight(k Kind) int64 {
	n := countKind(w.head, k)
	if w.x != nil {
		n += countKind(w.x.rx.head, k)
		for _, s := range w.x.staged {
			n += countKind(s.head, k)
		}
	}
	return n
}

// Send puts p on the wire now and returns when its last bit has left; the sender may start
// its next frame then. The frame arrives at the far end one propagation delay later, unless
// it is lost.
func (w *Wire) Send(now sim.Time, p *Packet) (done sim.Time) {
	if !w.plain {
		return w.sendChecked(now, p)
	}
	wb := int64(p.Frame) + WireOverhead
	tx := sim.Time(wb) * sim.Time(w.psPerByte)
	w.count(wb)
	p.epoch, p.dropped = 0, false // a plain wire's epoch is 0
	w.launch(p, now+tx+sim.Time(w.delay))
	return now + tx
}

// count adds a frame of wb wire bytes to the counters.
func (w *Wire) count(wb int64) {
	w.bytes += wb
	w.packets++
	if w.packets == 0 {
		w.packetsHi++
		if w.packetsHi == 1<<15 {
			// 2^47 frames (1.4e14; at 148.8 M minimum frames a second on 100 Gb/s, 11 days
			// of simulated time): the arrival keys would reach the lanes' own (arrivalKey).
			panic("topology: a link carried 2^47 frames")
		}
	}
}

// sendChecked is Send on a wire that is not plain: a capture, a down link, loss, a fault,
// jitter, or a rate or delay the short path cannot hold.
func (w *Wire) sendChecked(now sim.Time, p *Packet) sim.Time {
	tx := w.TxTime(p)
	if w.tap != nil {
		w.tap.Frame(now, w, p)
	}
	w.count(p.WireBytes())
	if w.psPerByte == 0 {
		w.busy += tx
	}
	p.epoch = w.epoch
	if !w.up {
		// Sent into a down link: lost to it even if the link comes back before the frame
		// would arrive. Epochs only grow, so this one never matches the wire's again.
		p.epoch--
	}
	p.dropped = !w.up
	if !p.dropped && p.Kind == KindData && w.dropEvery > 0 {
		w.dataSeen++
		p.dropped = w.dataSeen%w.dropEvery == 0
	}
	if !p.dropped && w.Params.Loss > 0 {
		p.dropped = w.rng.Float64() < w.Params.Loss
	}
	arrive := now + tx + w.Params.Delay
	if w.jitter > 0 {
		arrive = max(arrive+sim.Time(w.rng.Int64N(int64(w.jitter))), w.lastAt)
		w.lastAt = arrive
	}
	w.launch(p, arrive)
	return now + tx
}

// launch puts p, which arrives at arrive, behind the frames in flight.
func (w *Wire) launch(p *Packet, arrive sim.Time) {
	p.next = nil
	if w.cross {
		w.stage(p, arrive)
		return
	}
	if w.tail == nil {
		w.head = p
		w.eng.AtKey(w.toLane, w.toLane, w.arrivalKey(), arrive, w, 0, p)
	} else {
		// The frame ahead keeps this one's arrival: when it arrives, the wire schedules the
		// next arrival from the packet it already holds, without reading this one (on a
		// large fabric, a cache miss per hop).
		w.tail.next = p
		w.tail.nextAt = arrive
	}
	w.tail = p
}

// stage keeps p, sent to another partition, for it to take in before its next window.
func (w *Wire) stage(p *Packet, arrive sim.Time) {
	x := w.x
	s := &x.staged[x.src.Parity()]
	if s.head == nil {
		s.head, s.at, s.seq = p, arrive, w.arrivalKey()
		x.src.HandOff(x.to, w, arrive)
	} else {
		s.tail.next, s.tail.nextAt = p, arrive
	}
	s.tail = p
}

// Cross implements sim.Crossing: the receiving partition takes in the frames sent in the
// window of parity par, behind those in flight, exactly as if they had been launched there.
func (w *Wire) Cross(par int) {
	x := w.x
	s, rx := &x.staged[par], &x.rx
	if rx.tail == nil {
		rx.head = s.head
		rx.eng.AtKey(rx.toLane, rx.toLane, s.seq, s.at, x, 0, s.head)
	} else {
		rx.tail.next, rx.tail.nextAt = s.head, s.at
	}
	rx.tail = s.tail
	s.head, s.tail = nil, nil
}

// Handle implements sim.Handler for a wire between two partitions: Wire.Handle, on the
// receiving side's line.
func (x *crossing) Handle(now sim.Time, _ int, _ any) {
	rx := &x.rx
	p := rx.head
	rx.head = p.next
	p.next = nil
	if rx.head == nil {
		rx.tail = nil
	} else {
		rx.eng.AtNext(arrivalStep, p.nextAt, x, 0, rx.head)
	}
	if rx.plain && !p.dropped {
		rx.recv.Receive(now, p, int(rx.toPort))
		return
	}
	x.w.deliverChecked(now, p)
}

// Handle implements sim.Handler: the head frame's last bit reaches the far end. The event
// carries the frame as its data, so that the engine can fetch it into the cache ahead of
// time; the wire reads it from its own list.
func (w *Wire) Handle(now sim.Time, _ int, _ any) {
	p := w.head
	w.head = p.next
	p.next = nil
	if w.head == nil {
		w.tail = nil
	} else {
		w.eng.AtNext(arrivalStep, p.nextAt, w, 0, w.head)
	}
	if w.plain && !p.dropped {
		// Up and never down: p was sent in this epoch.
		w.to.Receive(now, p, int(w.toPort))
		return
	}
	w.deliverChecked(now, p)
}

// deliverChecked is the arrival of p on a wire that is not plain, or of a frame lost on the
// way: lost to the link going down since it was sent, or to the wire's loss, or delivered.
func (w *Wire) deliverChecked(now sim.Time, p *Packet) {
	switch {
	case !w.up || p.epoch != w.epoch:
		w.LostDown++
		w.pool.Drop(p)
	case p.dropped:
		w.LostRandom++
		w.pool.Drop(p)
	default:
		w.to.Receive(now, p, w.ToPort)
	}
}
