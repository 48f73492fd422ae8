package jobs

import (
	"math"

	"github.com/fabricsim/fabricsim/collective"
	"github.com/fabricsim/fabricsim/sim"
)

// jobIdeal is a job's ideal and what it stands on: per phase its time and its steps' ends;
// the whole job's end (its phases one after another, each when its ranks' waits allow);
// the slowest link between two ranks that exchange data, the payload's share of a full
// packet, the longest per-step latency.
type jobIdeal struct {
	us    []float64   // per phase
	steps [][]float64 // per phase and step, when its last message arrives, in us from the phase's start
	job   sim.Time
	rate  sim.Rate
	share float64
	alpha sim.Time
}

// ideal is each phase alone on the empty fabric, as the critical path through its
// dependency graph (collective.Plan.SharedCriticalPathSteps): each message takes its own
// packets' time alone on its path (store and forward at every hop, propagation, switch
// latencies, each packet's own headers and padding; Fabric.Path), and waits
// for the messages of its step that share its sender's or its receiver's link while both are
// under way, at the path's slowest link with a full packet's headers (the payload's share of
// a full packet). So it is a lower bound at every size: a 7-byte message pays a minimum
// frame, not a full packet's latency, and messages ready at different times share only the
// time they overlap (issue 34, point 6). The tree's steps are its pipeline's rounds, so on a
// uniform fabric this is the tree's lockstep closed form less a packet per shared message
// (docs/model.md section 12). The job's ideal end chains the phases: each
// starts at its last rank's gate, computed from the ideal ends before it.
func (j *Job) ideal() jobIdeal {
	fab := j.rt.fab
	full, payload := fab.Frame(j.c.Transport)
	out := jobIdeal{share: float64(payload) / float64(full)}
	type pair struct {
		perByte float64 // seconds per payload byte
		path    Path
	}
	pairs := map[[2]int]pair{}
	// alone is a message's time alone on its path (its own packets through the store-and-
	// forward pipeline), by pair and size: a ring's messages are of one or two sizes.
	alone := map[[3]int64]float64{}
	done := map[*collective.Plan]int{}
	ends := make([]sim.Time, len(j.phases))
	for k := range j.phases {
		plan := j.phases[k].plan
		if prev, ok := done[plan]; ok {
			out.us, out.steps = append(out.us, out.us[prev]), append(out.steps, out.steps[prev])
		} else {
			done[plan] = k
			for _, m := range plan.Messages {
				key := [2]int{m.Src, m.Dst}
				if _, ok := pairs[key]; ok {
					continue
				}
				p, ok := fab.Path(j.c.Transport, j.ranks[m.Src], j.ranks[m.Dst])
				if !ok {
					pairs[key] = pair{} // no path: the run says why, the ideal leaves it out
					continue
				}
				pairs[key] = pair{perByte: 8 / (float64(p.Rate) * out.share), path: p}
				if out.rate == 0 || p.Rate < out.rate {
					out.rate = p.Rate
				}
				out.alpha = max(out.alpha, p.Alpha)
			}
			pairOf := func(m int) pair { return pairs[[2]int{plan.Messages[m].Src, plan.Messages[m].Dst}] }
			steps := plan.SharedCriticalPathSteps(collective.SharedLinks{
				Alone: func(m int) float64 {
					msg := &plan.Messages[m]
					p := pairOf(m)
					if p.path.Alone == nil {
						return 0
					}
					key := [3]int64{int64(msg.Src), int64(msg.Dst), msg.Bytes}
					t, ok := alone[key]
					if !ok {
						t = p.path.Alone(msg.Bytes).Seconds()
						alone[key] = t
					}
					return t
				},
				Serial: func(m int) float64 { return float64(plan.Messages[m].Bytes) * pairOf(m).perByte },
				Packet: func(m int) float64 { return float64(payload) * pairOf(m).perByte },
			})
			us := 0.0
			for s := range steps {
				steps[s] *= 1e6
				us = max(us, steps[s])
			}
			out.us, out.steps = append(out.us, us), append(out.steps, steps)
		}
		var start sim.Time
		for r := range j.ranks {
			start = max(start, j.gateAt(k, r, ends))
		}
		ends[k] = start + sim.Time(math.Round(out.us[k]*float64(sim.Microsecond)))
	}
	out.job = ends[len(ends)-1]
	return out
}
