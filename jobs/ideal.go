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
// latencies, each packet's own headers and padding; Fabric.Path), once its inputs have
// arrived and the collective's release latency has passed; it waits for the messages of its
// step that share a link of its path with it (Path.Links: its sender's, a relaying NIC's,
// its receiver's) while both are under way, at that link's rate with a full packet's headers
// (the payload's share of a full packet), as far as the link's slack leaves it; and it
// arrives at least its bytes' time at its path's slowest link after the messages of the
// steps before on its queue pair (a queue pair sends its work requests in order), less a
// packet. So it is a lower bound at every size: a 7-byte message pays a minimum frame, not
// a full packet's latency, and messages ready at different times share only the time they
// overlap (issue 34, point 6). The tree's steps are its pipeline's rounds, so on a uniform
// fabric this is the tree's lockstep closed form less a packet per shared message
// (docs/model.md section 12). The job's ideal end chains the phases: each starts at its
// last rank's gate, computed from the ideal ends before it.
func (j *Job) ideal() jobIdeal {
	fab := j.rt.fab
	full, payload := fab.Frame(j.c.Transport)
	out := jobIdeal{share: float64(payload) / float64(full)}
	type pair struct {
		perByte float64 // seconds per payload byte
		path    Path
		links   []int32 // its Links, numbered from 0 in the job (rates)
	}
	pairs := map[[2]int]*pair{}
	var rates []sim.Rate // per link of the job, by its number
	number := map[int32]int32{}
	// alone is a message's time alone on its path (its own packets through the store-and-
	// forward pipeline), by pair and size: a ring's messages are of one or two sizes;
	// around is what a link's lead and tail are, by pair, size and link.
	alone := map[[3]int64]float64{}
	around := map[[4]int64][2]float64{}
	done := map[*collective.Plan]int{}
	ends := make([]sim.Time, len(j.phases))
	perByte := func(r sim.Rate) float64 { return 8 / (float64(r) * out.share) }
	for k := range j.phases {
		ph := &j.phases[k]
		plan := ph.plan
		if prev, ok := done[plan]; ok {
			out.us, out.steps = append(out.us, out.us[prev]), append(out.steps, out.steps[prev])
		} else {
			done[plan] = k
			for _, m := range plan.Messages {
				key := [2]int{m.Src, m.Dst}
				if _, ok := pairs[key]; ok {
					continue
				}
				p, ok := fab.Path(j.c, j.ranks[m.Src], j.ranks[m.Dst])
				if !ok {
					pairs[key] = &pair{} // no path: the run says why, the ideal leaves it out
					continue
				}
				pr := &pair{perByte: perByte(p.Rate), path: p}
				for _, l := range p.Links {
					n, seen := number[l.ID]
					if !seen {
						n = int32(len(rates))
						number[l.ID] = n
						rates = append(rates, l.Rate)
					}
					pr.links = append(pr.links, n)
				}
				pairs[key] = pr
				if out.rate == 0 || p.Rate < out.rate {
					out.rate = p.Rate
				}
				out.alpha = max(out.alpha, p.Alpha)
			}
			pairOf := func(m int) *pair { return pairs[[2]int{plan.Messages[m].Src, plan.Messages[m].Dst}] }
			aloneOf := func(m int) float64 {
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
			}
			aroundOf := func(m, k int) [2]float64 {
				msg := &plan.Messages[m]
				key := [4]int64{int64(msg.Src), int64(msg.Dst), msg.Bytes, int64(k)}
				a, ok := around[key]
				if !ok {
					lead, tail := pairOf(m).path.Links[k].Around(msg.Bytes)
					a = [2]float64{lead.Seconds(), tail.Seconds()}
					around[key] = a
				}
				return a
			}
			steps, end := plan.SharedCriticalPathSteps(collective.SharedLinks{
				Release:  j.c.ReleaseLatency.Seconds(),
				Alone:    aloneOf,
				Links:    func(m int) []int32 { return pairOf(m).links },
				PerByte:  func(l int32) float64 { return perByte(rates[l]) },
				Packet:   func(l int32) float64 { return float64(payload) * perByte(rates[l]) },
				Lead:     func(m, k int) float64 { return aroundOf(m, k)[0] },
				Tail:     func(m, k int) float64 { return aroundOf(m, k)[1] },
				NumLinks: len(rates),
				Delay: func(m, k int, held float64) float64 {
					p := pairOf(m)
					l := p.path.Links[k]
					if l.Rate <= p.path.Rate { // the slowest link: every byte held there is a byte later
						return held
					}
					a := aroundOf(m, k)
					return max(0, a[0]+float64(plan.Messages[m].Bytes)*perByte(l.Rate)+held+a[1]-aloneOf(m))
				},
				QP:  func(m int) int { return int(ph.qp[m]) },
				QPs: j.qps,
				Queued: func(m int) float64 {
					p := pairOf(m)
					return max(0, float64(plan.Messages[m].Bytes)/float64(j.channels(k, m))*p.perByte-float64(payload)*p.perByte)
				},
			})
			us := end * 1e6 // the last step's end, or a link's messages one after another
			for s := range steps {
				steps[s] *= 1e6
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
