package jobs

import (
	"math"
	"slices"

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
// (the payload's share of a full packet), as far as the link's slack leaves it; the last of
// a queue pair's messages arrives at least the others' times after the first (a queue pair
// sends its work requests in order), and the last of a link's after all their bytes. So it
// is a lower bound at every size: a 7-byte message pays a minimum frame, not
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
		// sizes are the message sizes of the plan at hand on the pair, each with its time
		// alone and per link its lead and tail: a ring's messages are of one or two sizes.
		sizes []pairSize
	}
	pairs := map[[2]int]*pair{}
	var rates []sim.Rate // per link of the job, by its number
	number := map[int32]int32{}
	done := map[*collective.Plan]int{}
	ends := make([]sim.Time, len(j.phases))
	perByte := func(r sim.Rate) float64 { return 8 / (float64(r) * out.share) }
	var of []*pair // per message of the plan at hand, its pair
	for k := range j.phases {
		ph := &j.phases[k]
		plan := ph.plan
		if prev, ok := done[plan]; ok {
			out.us, out.steps = append(out.us, out.us[prev]), append(out.steps, out.steps[prev])
		} else {
			done[plan] = k
			of = slices.Grow(of[:0], len(plan.Messages))
			for _, m := range plan.Messages {
				key := [2]int{m.Src, m.Dst}
				if pr, ok := pairs[key]; ok {
					of = append(of, pr)
					continue
				}
				p, ok := fab.Path(j.c, j.ranks[m.Src], j.ranks[m.Dst])
				if !ok {
					pairs[key] = &pair{} // no path: the run says why, the ideal leaves it out
					of = append(of, pairs[key])
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
				of = append(of, pr)
				if out.rate == 0 || p.Rate < out.rate {
					out.rate = p.Rate
				}
				out.alpha = max(out.alpha, p.Alpha)
			}
			for _, pr := range pairs {
				pr.sizes = pr.sizes[:0]
			}
			// size is message m's entry among its pair's sizes, made on first use.
			size := func(m int) *pairSize {
				p, b := of[m], plan.Messages[m].Bytes
				for i := range p.sizes {
					if p.sizes[i].bytes == b {
						return &p.sizes[i]
					}
				}
				e := pairSize{bytes: b, around: make([][2]float64, len(p.path.Links))}
				if p.path.Alone != nil {
					e.alone = p.path.Alone(b).Seconds()
				}
				for k, l := range p.path.Links {
					lead, tail := l.Around(b)
					e.around[k] = [2]float64{lead.Seconds(), tail.Seconds()}
				}
				p.sizes = append(p.sizes, e)
				return &p.sizes[len(p.sizes)-1]
			}
			pairOf := func(m int) *pair { return of[m] }
			aloneOf := func(m int) float64 { return size(m).alone }
			aroundOf := func(m, k int) [2]float64 { return size(m).around[k] }
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

// pairSize is one message size on a pair of ranks: its time alone on the pair's path, and
// per link of Path.Links its first packet's lead and last packet's tail (PathLink.Around).
type pairSize struct {
	bytes  int64
	alone  float64
	around [][2]float64
}
