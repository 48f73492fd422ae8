package experiment

import (
	"fmt"
	"math"

	"github.com/fabricsim/fabricsim/collective"
	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// spread counts the servers and the rails the named GPUs are on (0, 0 for plain hosts).
func (f *fabric) spread(names []string) (servers, rails int) {
	seenS, seenR := map[int32]bool{}, map[int32]bool{}
	for _, name := range names {
		if id, ok := f.nw.Lookup(name); ok {
			if n := &f.nw.Nodes[id]; n.Server > 0 {
				seenS[n.Server], seenR[n.Rail] = true, true
			}
		}
	}
	return len(seenS), len(seenR)
}

// collectJobs reads every job's iterations into the results, and says of each flow never
// released what it waited for.
func (f *fabric) collectJobs(v *results.Variant, now sim.Time) {
	for _, j := range f.jobs {
		r := j.result(now)
		r.Servers, r.Rails = f.spread(j.ranks)
		v.Jobs = append(v.Jobs, r)
		for inst, rel := range j.released {
			if rel != sim.Never {
				continue
			}
			it := int(j.phaseOf[inst])
			msg := &j.phases[it].plan.Messages[inst-j.phases[it].off]
			for ch := 0; ch < j.C; ch++ {
				r := &v.PerFlow[int(j.first)+inst*j.C+ch]
				r.Reason = fmt.Sprintf("not released by the end of the run at %v: job %s, iteration %d, step %d waits for %d of its %d input messages",
					now, j.c.Label, it, msg.Step, j.waitDeps[inst], len(msg.After))
				switch {
				case j.begun[it] == sim.Never:
					r.Reason = fmt.Sprintf("not released by the end of the run at %v: job %s's iteration %d had not begun", now, j.c.Label, it)
				case j.waitDeps[inst] == 0:
					r.Reason = fmt.Sprintf("not released by the end of the run at %v: job %s, iteration %d: its inputs arrived, but rank %d (%s) was still waiting before it",
						now, j.c.Label, it, msg.Src, j.ranks[msg.Src])
				}
			}
		}
	}
}

// result is the job's results entry. A chakra job's collectives differ: its iterations say
// each one's op, size and ideal, its own ideal_us is their mean, and it has no algbw or busbw
// of its own.
func (j *jobRun) result(now sim.Time) results.Job {
	c := j.c
	id := j.ideal()
	p0 := j.phases[0].plan
	r := results.Job{Label: c.Label, Op: c.Op, Algorithm: c.Algorithm, Ranks: len(j.ranks), SizeBytes: c.Size,
		Channels: c.Channels, ChunkBytes: c.Chunk, Iterations: len(j.phases), BusFactor: collective.BusFactor(c.Op, len(j.ranks)),
		IdealUS: id.us[0], IdealStepEndUS: id.steps[0], BottleneckGbps: float64(id.rate) / 1e9, PayloadShare: id.share,
		StepLatencyUS: id.alpha.Microseconds(), Steps: p0.Steps, PerIteration: []results.JobIteration{}}
	var sum float64
	for it := range j.phases {
		ji := j.iteration(it, id)
		if ji.CompletionUS != nil {
			r.Completed++
			sum += *ji.CompletionUS
		}
		r.PerIteration = append(r.PerIteration, ji)
	}
	if c.Steps != nil {
		r.IdealUS, r.Traces, r.BusFactor = 0, c.Traces, 0
		for _, u := range id.us {
			r.IdealUS += u / float64(len(id.us))
		}
		r.JobIdealUS = ptr((id.job - c.Start).Microseconds())
		if last := j.ended[len(j.ended)-1]; last != sim.Never {
			r.JobUS = ptr((last - c.Start).Microseconds())
		}
	}
	if r.Completed > 0 {
		t := sum / float64(r.Completed)
		r.CompletionUS = ptr(t)
		if c.Steps == nil {
			a, b := results.Bandwidths(c.Size, t, r.BusFactor)
			r.AlgbwGbps, r.BusbwGbps = ptr(a), ptr(b)
		}
	}
	return r
}

// iteration is phase it's results entry.
func (j *jobRun) iteration(it int, id jobIdeal) results.JobIteration {
	ph := &j.phases[it]
	ji := results.JobIteration{Iteration: it, Messages: j.M(it)}
	if j.begun[it] != sim.Never {
		ji.StartUS = ptr(j.begun[it].Microseconds())
	}
	var slow sim.Time = -1
	for m := range ph.plan.Messages {
		inst := ph.off + m
		if j.arrived[inst] == sim.Never {
			continue
		}
		ji.Arrived++
		if d := j.arrived[inst] - j.released[inst]; d > slow {
			slow = d
			msg := &ph.plan.Messages[m]
			ji.SlowestStep, ji.SlowestRank, ji.SlowestHost = msg.Step, msg.Dst, j.ranks[msg.Dst]
		}
	}
	if slow >= 0 {
		ji.SlowestStepUS = ptr(slow.Microseconds())
	}
	ji.StepEndUS = j.stepEnds(it)
	size, factor := j.c.Size, collective.BusFactor(j.c.Op, len(j.ranks))
	if st := j.c.Steps; st != nil {
		s := &st[it]
		size, factor = s.Size, collective.BusFactor(s.Op, len(j.ranks))
		ji.Op, ji.Algorithm, ji.SizeBytes, ji.Node, ji.IdealUS = s.Op, s.Algorithm, s.Size, s.Node, ptr(id.us[it])
		if j.begun[it] != sim.Never {
			before := j.c.Start
			if it > 0 {
				before = j.ended[it-1]
			}
			ji.WaitUS = ptr((j.begun[it] - before).Microseconds())
		}
	}
	if j.ended[it] != sim.Never {
		t := (j.ended[it] - j.begun[it]).Microseconds()
		a, b := results.Bandwidths(size, t, factor)
		ji.CompletionUS, ji.AlgbwGbps, ji.BusbwGbps = ptr(t), ptr(a), ptr(b)
	}
	return ji
}

func ptr(x float64) *float64 { return &x }

// stepEnds is, for iteration it, each step's last arrival from the iteration's start, as far
// as every message of the steps so far has arrived.
func (j *jobRun) stepEnds(it int) []float64 {
	ph := &j.phases[it]
	ends := make([]sim.Time, ph.plan.Steps)
	for m := range ph.plan.Messages {
		msg := &ph.plan.Messages[m]
		ends[msg.Step] = max(ends[msg.Step], j.arrived[ph.off+m]) // sim.Never while under way
	}
	out := []float64{}
	for _, e := range ends {
		if e == sim.Never {
			break
		}
		out = append(out, (e - j.begun[it]).Microseconds())
	}
	return out
}

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
// latencies, each packet's own headers and padding; see pipeline and packetTrain), and waits
// for the messages of its step that share its sender's or its receiver's link while both are
// under way, at the path's slowest link with a full packet's headers (the payload's share of
// a full packet). So it is a lower bound at every size: a 7-byte message pays a minimum
// frame, not a full packet's latency, and messages ready at different times share only the
// time they overlap (issue 34, point 6). The tree's steps are its pipeline's rounds, so on a
// uniform fabric this is the tree's lockstep closed form less a packet per shared message
// (docs/model.md section 12). The job's ideal end chains the phases: each
// starts at its last rank's gate, computed from the ideal ends before it.
func (j *jobRun) ideal() jobIdeal {
	f := j.f
	var full, payload int64
	switch j.c.Transport {
	case "iwarp":
		fr := f.starter.ic.Frames(1 << 20)
		full, payload = fr.SegmentWire(0), fr.SegmentPayload(0)
		if fr.Segments() > 1 {
			full, payload = fr.SegmentWire(1), fr.SegmentPayload(1)
		}
	case "uet":
		mtu := int64(f.starter.uc.MTU)
		full, payload = f.starter.uc.WireBytes(mtu), mtu
	default:
		rc := f.starter.configs[j.c.Transport]
		full, payload = frames.RoCEWireBytes(rc.Version, int64(rc.MTU), false), int64(rc.MTU)
	}
	out := jobIdeal{share: float64(payload) / float64(full)}
	type pair struct {
		perByte float64 // seconds per payload byte
		alpha   sim.Time
		hops    []pathHop
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
				s, _ := f.nw.Lookup(j.ranks[m.Src])
				d, _ := f.nw.Lookup(j.ranks[m.Dst])
				hops, loop, err := f.routes.Path(s, d, 0, f.pathLimit())
				if err != nil || loop || len(hops) == 0 {
					pairs[key] = pair{} // no path: the run says why, the ideal leaves it out
					continue
				}
				ph := f.pathHops(hops)
				rate := ph[0].rate
				for _, h := range ph {
					rate = min(rate, h.rate)
				}
				alpha := pipeline(ph, 0, 1, 0, -1, func(int64) int64 { return full }) - ph[0].rate.TxTime(full)
				pairs[key] = pair{perByte: 8 / (float64(rate) * out.share), alpha: alpha, hops: ph}
				if out.rate == 0 || rate < out.rate {
					out.rate = rate
				}
				out.alpha = max(out.alpha, alpha)
			}
			pairOf := func(m int) pair { return pairs[[2]int{plan.Messages[m].Src, plan.Messages[m].Dst}] }
			steps := plan.SharedCriticalPathSteps(collective.SharedLinks{
				Alone: func(m int) float64 {
					msg := &plan.Messages[m]
					p := pairOf(m)
					if p.hops == nil {
						return 0
					}
					key := [3]int64{int64(msg.Src), int64(msg.Dst), msg.Bytes}
					t, ok := alone[key]
					if !ok {
						t = f.starter.train(j.c.Transport, msg.Bytes).through(p.hops, 0, 0).Seconds()
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
