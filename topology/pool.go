package topology

import "fmt"

// Pool recycles packets and keeps the books: every packet taken is, at any moment, either
// delivered, dropped or still in the network.
//
// A fabric cut into partitions (sim.Group) has a pool per partition (Pools), and a packet
// often ends in another partition than the one that took it: a data packet is taken at its
// sender and delivered at its receiver. Such a packet goes back to the pool it came from, not
// to the one that saw it last: it waits on a list for its own pool until Pools.GiveBack,
// which runs between two windows, when no partition runs. Otherwise traffic one way across a
// cut would move the sender's packets into the receiver's free list for good, and the sender
// would allocate a slab every poolSlab packets for as long as the run lasts.
type Pool struct {
	free      *Packet
	Taken     [NumKinds]int64
	Delivered [NumKinds]int64
	Dropped   [NumKinds]int64
	// INTs is the number of INT records taken and not given back (int.go). A record given
	// back in another partition lowers that partition's pool's count, so one pool's may be
	// negative: only the sum over a fabric's pools means anything.
	INTs    int64
	freeINT *INT
	// Slabs is the number of slabs of packets and of INT records the pool has allocated: it
	// grows while the network fills and stays put in a steady state.
	Slabs int64
	// id is the pool's index in its Pools: what a packet it takes records as its home.
	id uint8
	// away holds, by home pool, the packets and INT records of other pools given back to
	// this one in the current window; owed lists the homes whose lists are not empty.
	away []awayList
	owed []uint8
	// A Pool is 256 bytes, a size class of Go's allocator whose objects start on a cache
	// line, so that two partitions' pools, written by two cores, share no line.
	_ [24]byte
}

// awayList is what a pool holds for another until the window ends, linked through next.
type awayList struct {
	head, tail       *Packet
	headINT, tailINT *INT
}

// poolSlab is how many packets the pool allocates at once when it runs dry: growing in
// slabs keeps allocations rare while the network fills, and neighbours close in memory.
const poolSlab = 512

// MaxPools is the most pools a Pools may have, so the most partitions a fabric is cut into:
// a packet records its pool in a byte.
const MaxPools = 256

// Pools are the packet pools of a fabric cut into partitions, one each, indexed by partition.
type Pools []*Pool

// NewPools returns n empty pools, each knowing its place, n from 1 to MaxPools.
func NewPools(n int) Pools {
	if n < 1 || n > MaxPools {
		panic(fmt.Sprintf("topology: %d pools; 1 to %d", n, MaxPools))
	}
	ps := make(Pools, n)
	for i := range ps {
		ps[i] = &Pool{id: uint8(i)}
		if n > 1 {
			ps[i].away = make([]awayList, n)
			ps[i].owed = make([]uint8, 0, n)
		}
	}
	return ps
}

// GiveBack returns every packet and INT record that went back to another pool than its own
// in the last window to its own pool's free list. It must run while no partition does
// (between two windows); its cost is one splice per pair of pools that exchanged anything.
func (ps Pools) GiveBack() {
	for _, pl := range ps {
		for _, h := range pl.owed {
			a, home := &pl.away[h], ps[h]
			if a.head != nil {
				a.tail.next, home.free = home.free, a.head
			}
			if a.headINT != nil {
				a.tailINT.next, home.freeINT = home.freeINT, a.headINT
			}
			*a = awayList{}
		}
		pl.owed = pl.owed[:0]
	}
}

// Get returns a zeroed packet of kind k.
func (pl *Pool) Get(k Kind) *Packet {
	if pl.free == nil {
		slab := make([]Packet, poolSlab)
		for i := range slab {
			slab[i].next = pl.free
			pl.free = &slab[i]
		}
		pl.Slabs++
	}
	p := pl.free
	pl.free = p.next
	*p = Packet{}
	p.Kind, p.home = k, pl.id
	pl.Taken[k]++
	return p
}

// Deliver returns a packet that reached its destination.
func (pl *Pool) Deliver(p *Packet) {
	pl.Delivered[p.Kind]++
	pl.put(p)
}

// Drop returns a packet that was lost; the caller counts the reason.
func (pl *Pool) Drop(p *Packet) {
	pl.Dropped[p.Kind]++
	pl.put(p)
}

// put takes p back: onto the free list when it is the pool's own and carries no INT record,
// the common case, which stays short enough to inline; otherwise through putOther.
func (pl *Pool) put(p *Packet) {
	if p.INT == nil && p.home == pl.id {
		p.next, pl.free = pl.free, p
	} else {
		pl.putOther(p)
	}
}

// putOther takes back a packet with an INT record, or one of another pool, which it keeps
// for GiveBack.
func (pl *Pool) putOther(p *Packet) {
	if p.INT != nil {
		pl.PutINT(p.INT)
		p.INT = nil
	}
	if p.home == pl.id {
		p.next, pl.free = pl.free, p
		return
	}
	a := pl.owe(p.home)
	if a.head == nil {
		a.tail = p
	}
	p.next, a.head = a.head, p
}

// owe is the list of what pl holds for pool home, which GiveBack will splice.
func (pl *Pool) owe(home uint8) *awayList {
	if int(home) >= len(pl.away) {
		// A packet of another pool in a pool made alone (not by NewPools): a programming
		// error, which would otherwise lose the packet silently.
		panic(fmt.Sprintf("topology: a packet of pool %d given back to pool %d of %d", home, pl.id, max(len(pl.away), 1)))
	}
	a := &pl.away[home]
	if a.head == nil && a.headINT == nil {
		pl.owed = append(pl.owed, home)
	}
	return a
}

// InNetwork is the number of packets of kind k taken and not yet delivered or dropped.
func (pl *Pool) InNetwork(k Kind) int64 { return pl.Taken[k] - pl.Delivered[k] - pl.Dropped[k] }
