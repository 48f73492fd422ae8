package experiment

import (
	"fmt"

	"github.com/fabricsim/fabricsim/collective"
	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/transports"
)

// collectJobs reads every job's iterations into the results, and says of each flow never
// released what it waited for.
func (f *fabric) collectJobs(v *results.Variant, now sim.Time) {
	for _, j := range f.jobs {
		v.Jobs = append(v.Jobs, j.result(now))
		for inst, rel := range j.released {
			if rel != sim.Never {
				continue
			}
			it, m := inst/j.M, inst%j.M
			msg := &j.plan.Messages[m]
			for ch := 0; ch < j.C; ch++ {
				r := &v.PerFlow[int(j.first)+inst*j.C+ch]
				r.Reason = fmt.Sprintf("not released by the end of the run at %v: job %s, iteration %d, step %d waits for %d of its %d input messages",
					now, j.c.Label, it, msg.Step, j.waitDeps[inst], len(msg.After))
				if len(msg.After) == 0 || j.begun[it] == sim.Never {
					r.Reason = fmt.Sprintf("not released by the end of the run at %v: job %s's iteration %d had not begun", now, j.c.Label, it)
				}
			}
		}
	}
}

// result is the job's results entry.
func (j *jobRun) result(now sim.Time) results.Job {
	c := j.c
	id := j.ideal()
	r := results.Job{Label: c.Label, Op: c.Op, Algorithm: c.Algorithm, Ranks: len(j.ranks), SizeBytes: c.Size,
		Channels: c.Channels, ChunkBytes: c.Chunk, Iterations: c.Iterations, BusFactor: collective.BusFactor(c.Op, len(j.ranks)),
		IdealUS: id.us, IdealStepEndUS: id.steps, BottleneckGbps: float64(id.rate) / 1e9, PayloadShare: id.share,
		StepLatencyUS: id.alpha.Microseconds(), Steps: j.plan.Steps, PerIteration: []results.JobIteration{}}
	var sum float64
	for it := range j.left {
		ji := results.JobIteration{Iteration: it, Messages: j.M}
		if j.begun[it] != sim.Never {
			ji.StartUS = ptr(j.begun[it].Microseconds())
		}
		var slow sim.Time = -1
		for m := 0; m < j.M; m++ {
			inst := it*j.M + m
			if j.arrived[inst] == sim.Never {
				continue
			}
			ji.Arrived++
			if d := j.arrived[inst] - j.released[inst]; d > slow {
				slow = d
				msg := &j.plan.Messages[m]
				ji.SlowestStep, ji.SlowestRank, ji.SlowestHost = msg.Step, msg.Dst, j.ranks[msg.Dst]
			}
		}
		if slow >= 0 {
			ji.SlowestStepUS = ptr(slow.Microseconds())
		}
		ji.StepEndUS = j.stepEnds(it)
		if j.ended[it] != sim.Never {
			t := (j.ended[it] - j.begun[it]).Microseconds()
			a, b := results.Bandwidths(c.Size, t, r.BusFactor)
			ji.CompletionUS, ji.AlgbwGbps, ji.BusbwGbps = ptr(t), ptr(a), ptr(b)
			r.Completed++
			sum += t
		}
		r.PerIteration = append(r.PerIteration, ji)
	}
	if r.Completed > 0 {
		t := sum / float64(r.Completed)
		a, b := results.Bandwidths(c.Size, t, r.BusFactor)
		r.CompletionUS, r.AlgbwGbps, r.BusbwGbps = ptr(t), ptr(a), ptr(b)
	}
	return r
}

func ptr(x float64) *float64 { return &x }

// stepEnds is, for iteration it, each step's last arrival from the iteration's start, as far
// as every message of the steps so far has arrived.
func (j *jobRun) stepEnds(it int) []float64 {
	ends := make([]sim.Time, j.plan.Steps)
	for m := 0; m < j.M; m++ {
		msg := &j.plan.Messages[m]
		ends[msg.Step] = max(ends[msg.Step], j.arrived[it*j.M+m]) // sim.Never while under way
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

// jobIdeal is a job's ideal iteration and what it stands on: the slowest link between two
// ranks that exchange data, the payload's share of a full packet, the longest per-step
// latency.
type jobIdeal struct {
	us    float64
	steps []float64 // per step, when its last message arrives, in us from the start
	rate  sim.Rate
	share float64
	alpha sim.Time
}

// ideal is the job's iteration alone on the empty fabric, as the critical path through its
// dependency graph (collective.Plan.CriticalPath): each message takes its load (what its
// sender sends or its receiver receives in its step, the more) at its path's slowest link
// with the transport's headers (the payload's share of a full packet), plus its path's
// latency: one full packet's time along the path (store and forward, propagation, switch
// latencies; see pipeline) less its first serialization, which the load term counts. The
// tree's steps are its pipeline's rounds, so on a uniform fabric this is the tree's lockstep
// closed form (docs/model.md section 12).
func (j *jobRun) ideal() jobIdeal {
	f := j.f
	var full, payload int64
	switch j.c.Transport {
	case "iwarp":
		fr := transports.NewIWARPFrames(f.starter.ic, 1<<20)
		full, payload = fr.SegmentWire(0), fr.SegmentPayload(0)
		if fr.Segments() > 1 {
			full, payload = fr.SegmentWire(1), fr.SegmentPayload(1)
		}
	case "uet":
		mtu := int64(f.starter.uc.MTU)
		full, payload = transports.UETWireBytes(mtu, f.starter.uc.CC != transports.CCNSCC), mtu
	default:
		rc := f.starter.configs[j.c.Transport]
		full, payload = transports.RoCEWireBytes(rc.Version, int64(rc.MTU), false), int64(rc.MTU)
	}
	out := jobIdeal{share: float64(payload) / float64(full)}
	type pair struct {
		perByte float64 // seconds per payload byte
		alpha   sim.Time
	}
	pairs := map[[2]int]pair{}
	for _, m := range j.plan.Messages {
		k := [2]int{m.Src, m.Dst}
		if _, ok := pairs[k]; ok {
			continue
		}
		s, _ := f.nw.Lookup(j.ranks[m.Src])
		d, _ := f.nw.Lookup(j.ranks[m.Dst])
		hops, loop, err := f.routes.Path(s, d, 0, f.pathLimit())
		if err != nil || loop || len(hops) == 0 {
			pairs[k] = pair{} // no path: the run says why, the ideal leaves it out
			continue
		}
		ph := f.pathHops(hops)
		rate := ph[0].rate
		for _, h := range ph {
			rate = min(rate, h.rate)
		}
		alpha := pipeline(ph, 0, 1, 0, -1, func(int64) int64 { return full }) - ph[0].rate.TxTime(full)
		pairs[k] = pair{perByte: 8 / (float64(rate) * out.share), alpha: alpha}
		if out.rate == 0 || rate < out.rate {
			out.rate = rate
		}
		out.alpha = max(out.alpha, alpha)
	}
	loads := j.plan.MessageLoads()
	out.steps = j.plan.CriticalPathSteps(func(m int) float64 {
		msg := &j.plan.Messages[m]
		p := pairs[[2]int{msg.Src, msg.Dst}]
		return float64(loads[m])*p.perByte + p.alpha.Seconds()
	})
	for k := range out.steps {
		out.steps[k] *= 1e6
		out.us = max(out.us, out.steps[k])
	}
	return out
}
