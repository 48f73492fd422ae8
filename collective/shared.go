package collective

import (
	"cmp"
	"math"
	"slices"
)

// SharedLinks are what SharedCriticalPathSteps knows of each message m on its path alone,
// and of the links and queue pairs messages share.
//
// Alone(m) is its own packets' time from its first bit out to its last bit in. Links(m) are
// the links (numbered from 0) m's packets cross whatever hash or spray picks: the links that
// leave a host (the sender's, a relaying GPU's NIC) and the one into its receiver. PerByte(l)
// is a payload byte's time on link l (headers included, at the payload's share of a full
// packet), Packet(l) a full packet's. Lead(m, k) is the time m's first packet takes alone
// from its sender to its first bit on its k-th link, Tail(m, k) its last packet's from its
// last bit there to the receiver; NumLinks is the number of links. Delay(m, k, held) is how much later
// than alone m arrives when held seconds of other messages' bytes cross its k-th link while m has bytes
// to send there: held itself where that link is as slow as m's path's slowest, else only what
// is left after the slack m has there (its bytes, the other's, and a packet's latency on each
// side of the link, against its time alone).
//
// QP(m) is the queue pair m goes on, 0 to QPs-1 (-1: none); Queued(m) is the time m's bytes
// on one of them take at its path's slowest link, less a packet: a queue pair sends its work
// requests in order (IBA's send queue), so the last of its messages arrives at least the
// others' times after the first. The order is the order they were posted, which is not
// always their steps' (NCCL's tree on rails posts a step-3 chunk after a step-4 one on one
// queue pair), so this bounds the step's end and the phase's, not each message. Links or QP
// may be nil: nothing shared. Release is the
// time between a message's last input arriving and its sender posting it
// (collective.release_latency).
type SharedLinks struct {
	Release  float64
	Alone    func(m int) float64
	Links    func(m int) []int32
	PerByte  func(l int32) float64
	Packet   func(l int32) float64
	Lead     func(m, k int) float64
	Tail     func(m, k int) float64
	NumLinks int
	Delay    func(m, k int, held float64) float64
	QP       func(m int) int
	QPs      int
	Queued   func(m int) float64
}

// SharedCriticalPathSteps is, per step, when its last message arrives, at the earliest: each
// message leaves when the last of its After has arrived, takes its time alone, and waits
// for the other messages of its step that share one of its links while they are under way
// together. A NIC serves its queue
// pairs in turn, a packet each, and a switch port's queue takes the packets of senders that
// send together in turn, so message m is held on link l by another message m' for as long as
// both have bytes left, less one packet (m' may send its last one after m's): min(T(m') -
// max(0, r(m) - r(m')), T(m) - max(0, r(m') - r(m))) - P, with T the bytes' time on l, P a
// packet's, and r the time each can reach l (when it is ready, and its first packet's way
// there alone). A queue pair sends its messages in order, so of the messages of one queue
// pair only the one that holds m the longest counts (the others may wait behind it), and
// none on m's own (m may go first). It is a lower bound whatever order the packets take,
// and where the messages of a step are ready together on links of one rate, a message a
// queue pair, it is the lockstep schedule less a packet per message shared with.
func (p *Plan) SharedCriticalPathSteps(l SharedLinks) (steps []float64, end float64) {
	steps = make([]float64, p.Steps)
	ready := make([]float64, len(p.Messages))
	done := make([]float64, len(p.Messages))
	order := p.byStep(func(*Message) int { return 0 })
	wait := make([]float64, len(p.Messages))
	// queue is, per queue pair, its messages' earliest arrival, their times on it summed and
	// the longest of them: the last arrives at least first + sum - most.
	var queue []struct{ first, sum, most float64 }
	if l.QP != nil {
		queue = make([]struct{ first, sum, most float64 }, l.QPs)
		for q := range queue {
			queue[q].first = math.Inf(1)
		}
	}
	// A step's messages' links, sorted by link then message: the runs of messages that
	// share one (sorted, not hashed, so a plan of millions of messages takes a few arrays).
	type use struct{ link, qp, m, k int32 }
	var uses []use
	var group []int32 // a step's messages by queue pair
	// busy is, per link, the earliest a message's first bit can reach it, its messages'
	// bytes' time on it, and the shortest last packet's way on from it: it carries them one
	// after another, so the last arrives at least from + work + tail after the start.
	busy := make([]struct{ from, work, tail float64 }, l.NumLinks)
	for i := range busy {
		busy[i].from, busy[i].tail = math.Inf(1), math.Inf(1)
	}
	qpOf := func(m int32) int32 { // m's queue pair, or a number of its own below 0
		if l.QP != nil {
			if q := l.QP(int(m)); q >= 0 {
				return int32(q)
			}
		}
		return -1 - m
	}
	// held is how long the others of run keep link busy while m has bytes for it: each from
	// when its first packet can reach the link (its ready time and its lead), none on m's
	// own queue pair (which sends in order: m may go first).
	held := func(m int32, k int32, link int32, run []use) float64 {
		var t, most float64
		perByte, packet := l.PerByte(link), l.Packet(link)
		T := func(o int32) float64 { return float64(p.Messages[o].Bytes) * perByte }
		at := ready[m] + l.Lead(int(m), int(k))
		mine := qpOf(m)
		for i, u := range run {
			if o := u.m; o != m && u.qp != mine {
				ao := ready[o] + l.Lead(int(o), int(u.k))
				both := min(T(o)-max(0, at-ao), T(m)-max(0, ao-at))
				most = max(most, both-packet)
			}
			if i == len(run)-1 || run[i+1].qp != u.qp { // the end of a queue pair's messages
				t, most = t+most, 0
			}
		}
		return t
	}
	// Step by step (a message's After are in earlier steps): first when each message of the
	// step is ready, then, knowing when the others are, when it arrives.
	for lo := 0; lo < len(order); {
		hi := lo
		step := p.Messages[order[lo]].Step
		for hi < len(order) && p.Messages[order[hi]].Step == step {
			m := order[hi]
			for _, a := range p.Messages[m].After {
				ready[m] = max(ready[m], done[a]+l.Release)
			}
			hi++
		}
		if l.Links != nil {
			uses = uses[:0]
			for _, m := range order[lo:hi] {
				for k, link := range l.Links(int(m)) {
					uses = append(uses, use{link, qpOf(m), m, int32(k)})
					b := &busy[link]
					b.from = min(b.from, ready[m]+l.Lead(int(m), k))
					b.work += float64(p.Messages[m].Bytes) * l.PerByte(link)
					b.tail = min(b.tail, l.Tail(int(m), k))
				}
			}
			slices.SortFunc(uses, func(a, b use) int {
				if a.link != b.link {
					return int(a.link) - int(b.link)
				}
				if a.qp != b.qp {
					return int(a.qp) - int(b.qp)
				}
				return int(a.m) - int(b.m)
			})
			for r := 0; r < len(uses); {
				next := r + 1
				for next < len(uses) && uses[next].link == uses[r].link {
					next++
				}
				if next-r > 1 {
					for _, u := range uses[r:next] {
						wait[u.m] = max(wait[u.m], l.Delay(int(u.m), int(u.k), held(u.m, u.k, u.link, uses[r:next])))
					}
				}
				r = next
			}
		}
		for _, m := range order[lo:hi] {
			done[m] = ready[m] + l.Alone(int(m)) + wait[m]
			if queue != nil {
				if q := l.QP(int(m)); q >= 0 {
					t := l.Queued(int(m))
					qu := &queue[q]
					qu.first, qu.sum, qu.most = min(qu.first, done[m]), qu.sum+t, max(qu.most, t)
				}
			}
			steps[step] = max(steps[step], done[m])
		}
		if queue != nil {
			// The messages of the step on one queue pair arrive in the order they were
			// posted, which is not known: the first at its earliest, each other at least
			// its own time after it.
			group = append(group[:0], order[lo:hi]...)
			slices.SortFunc(group, func(a, b int32) int { return cmp.Compare(qpOf(a), qpOf(b)) })
			for g := 0; g < len(group); {
				q, next := qpOf(group[g]), g+1
				first, sum, most := done[group[g]], l.Queued(int(group[g])), l.Queued(int(group[g]))
				for ; next < len(group) && qpOf(group[next]) == q; next++ {
					first = min(first, done[group[next]])
					sum += l.Queued(int(group[next]))
					most = max(most, l.Queued(int(group[next])))
				}
				if q >= 0 && next-g > 1 {
					steps[step] = max(steps[step], first+sum-most)
				}
				g = next
			}
		}
		lo = hi
	}
	for _, t := range steps {
		end = max(end, t)
	}
	for _, b := range busy {
		if b.work > 0 {
			end = max(end, b.from+b.work+b.tail)
		}
	}
	for _, q := range queue {
		if q.sum > q.most {
			end = max(end, q.first+q.sum-q.most)
		}
	}
	return steps, end
}

// byStep is the plan's messages sorted by step, then by key, in index order within both.
func (p *Plan) byStep(key func(*Message) int) []int32 {
	order := make([]int32, len(p.Messages))
	for m := range order {
		order[m] = int32(m)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		ma, mb := &p.Messages[a], &p.Messages[b]
		if ma.Step != mb.Step {
			return ma.Step - mb.Step
		}
		return key(ma) - key(mb)
	})
	return order
}
