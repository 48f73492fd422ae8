package topology

import (
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
// the propagation delay and decides loss. Counters are plain fields read after the run.
//
// Frames arrive in the order they were sent, so the wire keeps those in flight in a FIFO and
// has one pending event, for the head, however many frames the link holds: the event queue
// stays as small as the number of links, not the number of frames in flight.
type Wire struct {
	// The per-frame working set first, in the order Send and Handle use it, so that a frame
	// touches the wire's first two cache lines and not all five.
	eng       *sim.Engine
	head      *Packet // frames in flight, oldest first
	tail      *Packet
	psPerByte sim.Time // serialization per byte when the rate divides 8e12 bit·ps/s exactly, else 0
	Params    LinkParams
	up        bool
	epoch     uint32 // bumped when the link goes down: frames in flight then are lost

	// Packets and Bytes count frames put on the wire (every kind), BusyTime their
	// serialization time.
	Packets  int64
	Bytes    int64
	BusyTime sim.Time
	InFlight [NumKinds]int64 // frames sent and not yet arrived or lost, by kind

	to        Receiver
	ToPort    int
	pool      *Pool
	dropEvery int64    // deterministic loss of every n-th data frame (a fault), 0 = off
	jitter    sim.Time // random extra delay per frame, below one minimum frame time
	// Tap, when set, sees every frame the wire carries as its transmission starts (a
	// packet capture); nil costs one comparison per frame.
	Tap Tap

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
}

// NewWire returns an up wire. rng draws the random losses of this direction only.
func NewWire(eng *sim.Engine, pool *Pool, from, to NodeID, fromPort, toPort int, p LinkParams, rng *rand.Rand) *Wire {
	w := &Wire{From: from, To: to, FromPort: fromPort, ToPort: toPort, Params: p, eng: eng, pool: pool, rng: rng, up: true}
	if bitPs := 8 * uint64(sim.Second); p.Rate > 0 && bitPs%uint64(p.Rate) == 0 {
		w.psPerByte = sim.Time(bitPs / uint64(p.Rate)) // 80 ps at 100 Gb/s: a multiply per frame, not a division
	}
	return w
}

// Attach sets the receiver at the far end.
func (w *Wire) Attach(to Receiver) { w.to = to }

// Up reports whether the link is up.
func (w *Wire) Up() bool { return w.up }

// SetUp changes the link state. Frames in flight when it goes down are lost.
func (w *Wire) SetUp(up bool) {
	if w.up && !up {
		w.epoch++
	}
	changed := w.up != up
	w.up = up
	if changed && w.onChange != nil {
		w.onChange(up)
	}
}

// OnStateChange makes SetUp call f with the new state whenever the link goes down or comes
// back up, so that the sending port can keep a copy of the state where it reads it for every
// frame. One function per wire; a second call replaces the first.
func (w *Wire) OnStateChange(f func(up bool)) { w.onChange = f }

// SetLoss changes the random loss probability of this direction.
func (w *Wire) SetLoss(p float64) { w.Params.Loss = p }

// SetDropEvery makes the wire lose every n-th data frame it carries (n = 0 turns it off).
func (w *Wire) SetDropEvery(n int64) { w.dropEvery, w.dataSeen = n, 0 }

// SetJitter makes each frame arrive up to j later, at random (from the wire's own stream).
// j is capped at one minimum frame time at the wire's rate, so frames keep their order; the
// cap is returned.
func (w *Wire) SetJitter(j sim.Time) sim.Time {
	w.jitter = min(j, w.Params.Rate.TxTime(MinFrame+WireOverhead))
	return w.jitter
}

// TxTime is the serialization time of p on this wire.
func (w *Wire) TxTime(p *Packet) sim.Time {
	if w.psPerByte > 0 {
		return sim.Time(p.WireBytes()) * w.psPerByte
	}
	return w.Params.Rate.TxTime(p.WireBytes())
}

// Send puts p on the wire now and returns when its last bit has left; the sender may start
// its next frame then. The frame arrives at the far end one propagation delay later, unless
// it is lost.
func (w *Wire) Send(now sim.Time, p *Packet) (done sim.Time) {
	tx := w.TxTime(p)
	if w.Tap != nil {
		w.Tap.Frame(now, w, p)
	}
	w.Packets++
	w.Bytes += p.WireBytes()
	w.BusyTime += tx
	w.InFlight[p.Kind]++
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
	p.next = nil
	if w.tail == nil {
		w.head = p
		w.eng.At(arrive, w, 0, nil)
	} else {
		// The frame ahead keeps this one's arrival: when it arrives, the wire schedules the
		// next arrival from the packet it already holds, without reading this one (on a
		// large fabric, a cache miss per hop).
		w.tail.next = p
		w.tail.nextAt = arrive
	}
	w.tail = p
	return now + tx
}

// Handle implements sim.Handler: the head frame's last bit reaches the far end.
func (w *Wire) Handle(now sim.Time, _ int, _ any) {
	p := w.head
	w.head = p.next
	p.next = nil
	if w.head == nil {
		w.tail = nil
	} else {
		w.eng.At(p.nextAt, w, 0, nil)
	}
	w.InFlight[p.Kind]--
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
