package transports

import (
	"github.com/fabricsim/fabricsim/topology"
)

// segRange is a run of segments lo..hi-1; on a persistent connection a run of stream bytes
// lo..hi-1, with pay the DDP payload in it.
type segRange struct{ lo, hi, pay int64 }

// reassembly is the receiver's sequence state: the next segment it expects, the runs it
// holds beyond it (sorted, disjoint, not adjacent), and the SACK blocks to report, the most
// recently changed first (RFC 2018 section 4). A persistent connection counts in stream bytes
// instead of segments (addSpan), as its receiver does not know the segments' sizes ahead.
type reassembly struct {
	nxt     int64
	ooo     []segRange
	recent  [topology.TCPMaxSACKs]segRange
	nrecent int
}

// add records segment k and returns how far the in-order point moved (0 for a segment out
// of order or already held), whether k was new, and whether it filled (part of) a gap.
func (r *reassembly) add(k int64, maxBlocks int) (advanced int64, isNew, filled bool) {
	advanced, isNew, filled, _ = r.addSpan(k, k+1, 0, maxBlocks)
	return advanced, isNew, filled
}

// addSpan records the run lo..hi-1 carrying pay bytes of payload, which starts at or beyond
// the in-order point or wholly below it (a duplicate), and returns what add does, and the
// payload of what the in-order point passed.
func (r *reassembly) addSpan(lo, hi, pay int64, maxBlocks int) (advanced int64, isNew, filled bool, passed int64) {
	if lo < r.nxt {
		return 0, false, false, 0
	}
	if lo == r.nxt {
		filled = len(r.ooo) > 0
		old := r.nxt
		r.nxt, passed = hi, pay
		if len(r.ooo) > 0 && r.ooo[0].lo == r.nxt {
			r.nxt, passed = r.ooo[0].hi, passed+r.ooo[0].pay
			r.ooo = r.ooo[:copy(r.ooo, r.ooo[1:])]
		}
		j := 0
		for _, b := range r.recent[:r.nrecent] {
			if b.hi > r.nxt {
				r.recent[j] = b
				j++
			}
		}
		r.nrecent = j
		return r.nxt - old, true, filled, passed
	}
	i := len(r.ooo)
	for i > 0 && r.ooo[i-1].lo > lo {
		i--
	}
	if i > 0 && lo < r.ooo[i-1].hi {
		return 0, false, false, 0 // held already
	}
	var at int
	switch {
	case i > 0 && r.ooo[i-1].hi == lo:
		r.ooo[i-1].hi = hi
		r.ooo[i-1].pay += pay
		if i < len(r.ooo) && r.ooo[i].lo == hi {
			r.ooo[i-1].hi = r.ooo[i].hi
			r.ooo[i-1].pay += r.ooo[i].pay
			r.ooo = append(r.ooo[:i], r.ooo[i+1:]...)
		}
		at = i - 1
	case i < len(r.ooo) && r.ooo[i].lo == hi:
		r.ooo[i].lo = lo
		r.ooo[i].pay += pay
		at = i
	default:
		r.ooo = append(r.ooo, segRange{})
		copy(r.ooo[i+1:], r.ooo[i:])
		r.ooo[i] = segRange{lo, hi, pay}
		at = i
	}
	r.touch(r.ooo[at], maxBlocks)
	return 0, true, false, 0
}

// touch puts block b first among the SACK blocks to report, dropping the blocks it has
// absorbed and the oldest beyond maxBlocks.
func (r *reassembly) touch(b segRange, maxBlocks int) {
	j := 0
	var keep [topology.TCPMaxSACKs]segRange
	for _, x := range r.recent[:r.nrecent] {
		if x.lo >= b.lo && x.hi <= b.hi {
			continue
		}
		if j < maxBlocks-1 {
			keep[j] = x
			j++
		}
	}
	r.recent[0] = b
	copy(r.recent[1:], keep[:j])
	r.nrecent = j + 1
}
