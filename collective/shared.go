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
	order := make([]int, len(p.Messages))
	for m := range order {
		order[m] = m
	}
	slices.SortStableFunc(order, func(a, b int) int { return p.Messages[a].Step - p.Messages[b].Step })
	type key struct{ step, rank int }
	bySrc, byDst := map[key][]int{}, map[key][]int{}
	for _, m := range order {
		msg := &p.Messages[m]
		bySrc[key{msg.Step, msg.Src}] = append(bySrc[key{msg.Step, msg.Src}], m)
		byDst[key{msg.Step, msg.Dst}] = append(byDst[key{msg.Step, msg.Dst}], m)
	}
	held := func(m int, others []int) float64 {
		var t float64
		for _, o := range others {
			if o == m {
				continue
			}
			both := min(l.Serial(o)-max(0, ready[m]-ready[o]), l.Serial(m)-max(0, ready[o]-ready[m]))
			t += max(0, both-l.Packet(o))
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
			wait := max(held(m, bySrc[key{msg.Step, msg.Src}]), held(m, byDst[key{msg.Step, msg.Dst}]))
			done[m] = ready[m] + l.Alone(m) + wait
			steps[msg.Step] = max(steps[msg.Step], done[m])
		}
		lo = hi
	}
	return steps
}
