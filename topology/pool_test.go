package topology

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPoolsGiveBackWhatAnotherPoolTook: a packet (with an INT record) taken from pool 0 and
// delivered or dropped in pool 1 waits there until GiveBack, then is pool 0's again; pool 1
// reuses none of them and pool 0 allocates no second slab, however many times it repeats.
// Pool 0's own packets go straight back. The books stay with the pool that did each thing.
func TestPoolsGiveBackWhatAnotherPoolTook(t *testing.T) {
	ps := NewPools(3)
	a, b := ps[0], ps[1]
	p := a.Get(KindData)
	p.INT = a.GetINT()
	rec := p.INT
	b.Deliver(p)
	require.Equal(t, int64(1), b.Delivered[KindData])
	require.Zero(t, a.INTs+b.INTs, "the record went back with its packet")
	q := b.Get(KindAck)
	require.NotSame(t, p, q, "pool 1 does not hand out pool 0's packet")
	r := b.GetINT()
	require.NotSame(t, rec, r, "nor its record")
	b.PutINT(r)
	b.Deliver(q)
	ps.GiveBack()
	require.Same(t, p, a.Get(KindData), "back in pool 0 after GiveBack")
	require.Same(t, rec, a.GetINT())
	require.Empty(t, b.owed, "GiveBack empties the lists it spliced")

	// A run of windows: pool 0 sends poolSlab packets a window to pool 1, which drops half and
	// delivers half, and a record it takes off a packet, as a receiver does (PutINT).
	a.Drop(p)
	a.PutINT(rec)
	slabs := a.Slabs
	for range 10 {
		for i := range poolSlab {
			x := a.Get(KindData)
			x.INT = a.GetINT()
			if i%2 == 0 {
				b.Drop(x)
			} else {
				b.PutINT(x.INT)
				x.INT = nil
				b.Deliver(x)
			}
		}
		ps.GiveBack()
	}
	require.Equal(t, slabs, a.Slabs, "pool 0 allocated no new slab")
	require.Equal(t, int64(2), b.Slabs, "pool 1 only its own packets' and records' first slabs")
	require.Zero(t, ps[2].Slabs)
	require.Zero(t, a.INTs+b.INTs)
}

// TestPoolsCapAtAByte: a packet records its pool in a byte.
func TestPoolsCapAtAByte(t *testing.T) {
	require.Len(t, NewPools(MaxPools), MaxPools)
	require.Panics(t, func() { NewPools(MaxPools + 1) })
	require.Panics(t, func() { NewPools(0) })
	var alone Pool // a pool made alone is pool 0
	p := NewPools(2)[1].Get(KindData)
	require.Panics(t, func() { alone.Deliver(p) }, "a packet of pool 1 in a pool that knows no other")
}
