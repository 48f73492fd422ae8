package switchmodel

import (
	"math/bits"

	"github.com/fabricsim/fabricsim/sim"
)

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

// next picks the queue to serve among the classes that are not paused, or -1.
func (pt *Port) next(now sim.Time) int {
	if pt.sw.cfg.Scheduler == DWRR {
		return pt.nextDWRR(now)
	}
	return pt.nextStrict(now)
}

// nextStrict is the highest non-empty queue that is not paused, found from the backlog bits.
func (pt *Port) nextStrict(now sim.Time) int {
	for m := pt.backlog; m != 0; {
		i := bits.Len8(m) - 1
		if !pt.paused(now, i) {
			return i
		}
		m &^= 1 << i
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
		eligible = eligible || (pt.Queues[c].Len > 0 && !pt.paused(now, c))
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
		if pt.paused(now, pt.rr) {
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
