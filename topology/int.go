package topology

import "github.com/fabricsim/fabricsim/sim"

// In-band network telemetry (INT) as HPCC uses it (Li et al., SIGCOMM 2019, section 4.1 and
// the authors' ns-3 model): a fixed-size header in every data packet of an HPCC flow, into
// which each switch pushes one record for the egress port the packet leaves by, and which
// the receiver copies into its ACK. The header has room for INTMaxHops records of
// INTHopBytes each behind a 2-byte hop count; its size does not change along the path, so a
// packet's wire size is set when it is sent.
const (
	INTMaxHops  = 5
	INTHopBytes = 8
	INTHeader   = 2 + INTMaxHops*INTHopBytes // 42 bytes, as the authors' IntHeader
)

// INTHop is what a switch records for a packet at its egress port as the packet leaves the
// queue: when, how many bytes the port has put on its wire (this packet included, preamble
// and inter-frame gap counted, so that a busy link sends Rate/8 bytes a second), how many
// bytes wait in its queues behind it, and the port's line rate. The model keeps the values
// exact; the capture packs them into 8 bytes as the authors' header does (results/pcap.go).
type INTHop struct {
	At      sim.Time
	TxBytes int64
	QLen    int64
	Rate    sim.Rate
}

// INT is the telemetry a packet carries: N records, oldest (the first switch) first. A
// switch on a path longer than INTMaxHops adds nothing (the header is full).
type INT struct {
	N    uint8
	home uint8 // the pool that took it, as a packet's
	Hops [INTMaxHops]INTHop
	next *INT // free list
}

// Push appends a hop record, unless the header is full.
func (t *INT) Push(h INTHop) {
	if int(t.N) < INTMaxHops {
		t.Hops[t.N] = h
		t.N++
	}
}

// GetINT returns an empty INT record from the pool's free list. A packet holding one in its
// INT field gives it back when the packet goes back to the pool (Deliver, Drop); whoever
// takes it off the packet first (p.INT = nil) owns it and gives it back with PutINT, to the
// pool of its partition: the record goes on to its own pool (pool.go).
func (pl *Pool) GetINT() *INT {
	t := pl.freeINT
	if t == nil {
		slab := make([]INT, poolSlab)
		for i := range slab[1:] {
			slab[i+1].next = pl.freeINT
			pl.freeINT = &slab[i+1]
		}
		t = &slab[0]
		pl.Slabs++
	} else {
		pl.freeINT = t.next
	}
	*t = INT{home: pl.id}
	pl.INTs++
	return t
}

// PutINT returns an INT record to the pool.
func (pl *Pool) PutINT(t *INT) {
	pl.INTs--
	if t.home != pl.id {
		pl.putAwayINT(t)
		return
	}
	t.next, pl.freeINT = pl.freeINT, t
}

// putAwayINT keeps t, another pool's record, for GiveBack.
func (pl *Pool) putAwayINT(t *INT) {
	a := pl.owe(t.home)
	if a.headINT == nil {
		a.tailINT = t
	}
	t.next, a.headINT = a.headINT, t
}
