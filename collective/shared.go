package collective

import "slices"

// SharedLinks are what SharedCriticalPathSteps knows of each message m on its path alone:
// Alone(m), its own packets' time from its first bit out to its last bit in; Serial(m), its
// bytes' time at its path's bottleneck (headers included); Packet(m), one full packet's
// time there.
type SharedLinks struct {
	Alone, Serial, Packet func(m int) float64
}

// SharedCriticalPathSteps is, per step, when its last message arrives, at the earliest: each
// message leaves when the last of its After has arrived, takes its time alone, and waits
// for the other messages of its step that share its sender's link (or its receiver's, the
// more) while they are under way together. A NIC serves its queue pairs in turn, a packet
// each, and a switch port's queue takes the packets of senders that send together in turn,
// so message m is held by another message m' for as long as both have bytes left, less one
// packet (m' may send its last one after m's): min(T(m') - max(0, r(m) - r(m')),
// T(m) - max(0, r(m') - r(m))) - P(m'), with T the serial time and r the time each is
// ready. It is a lower bound whatever order the packets take, and where the messages of a
// step are ready together it is the lockstep schedule less a packet per message shared with.
func (p *Plan) SharedCriticalPathSteps(l SharedLinks) []float64 {
	steps := make([]float64, p.Steps)
	ready := make([]float64, len(p.Messages))
	done := make([]float64, len(p.Messages))
	order := p.byStep(func(*Message) int { return 0 })
	// The messages of a step from one sender, and to one receiver, each a run of bySrc and
	// byDst: sorted, not hashed, so a plan of millions of messages takes a few arrays.
	bySrc := p.byStep(func(m *Message) int { return m.Src })
	byDst := p.byStep(func(m *Message) int { return m.Dst })
	srcRun, dstRun := p.runs(bySrc, func(m *Message) int { return m.Src }), p.runs(byDst, func(m *Message) int { return m.Dst })
	held := func(m int32, others []int32) float64 {
		var t float64
		for _, o := range others {
			if o == m {
				continue
			}
			both := min(l.Serial(int(o))-max(0, ready[m]-ready[o]), l.Serial(int(m))-max(0, ready[o]-ready[m]))
			t += max(0, both-l.Packet(int(o)))
		}
		return t
	}
	// Step by step (a message's After are in earlier steps): first when each message of the
	// step is ready, then, knowing when the others are, when it arrives.
	for lo := 0; lo < len(order); {
		hi := lo
		for hi < len(order) && p.Messages[order[hi]].Step == p.Messages[order[lo]].Step {
			m := order[hi]
			for _, a := range p.Messages[m].After {
				ready[m] = max(ready[m], done[a])
			}
			hi++
		}
		for _, m := range order[lo:hi] {
			msg := &p.Messages[m]
			wait := max(held(m, bySrc[srcRun[m][0]:srcRun[m][1]]), held(m, byDst[dstRun[m][0]:dstRun[m][1]]))
			done[m] = ready[m] + l.Alone(int(m)) + wait
			steps[msg.Step] = max(steps[msg.Step], done[m])
		}
		lo = hi
	}
	return steps
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

// runs is, per message, the run of sorted (byStep with key) that holds the messages of its
// step with its key: positions lo, hi.
func (p *Plan) runs(sorted []int32, key func(*Message) int) [][2]int32 {
	out := make([][2]int32, len(p.Messages))
	for lo := 0; lo < len(sorted); {
		first := &p.Messages[sorted[lo]]
		hi := lo + 1
		for hi < len(sorted) {
			m := &p.Messages[sorted[hi]]
			if m.Step != first.Step || key(m) != key(first) {
				break
			}
			hi++
		}
		for _, m := range sorted[lo:hi] {
			out[m] = [2]int32{int32(lo), int32(hi)}
		}
		lo = hi
	}
	return out
}
