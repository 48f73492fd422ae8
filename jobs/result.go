package jobs

import (
	"fmt"

	"github.com/fabricsim/fabricsim/collective"
	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/sim"
)

// Collect is every job's results entry at the end of the run (now).
func (rt *Runtime) Collect(now sim.Time) []results.Job {
	var out []results.Job
	for _, j := range rt.jobs {
		out = append(out, j.Result(now))
	}
	return out
}

// stalled says why iteration it had not ended by now: its first message never released, and
// what that message waited for; "" when every message was released.
func (j *Job) stalled(it int, now sim.Time) string {
	ph := &j.phases[it]
	for m := range ph.plan.Messages {
		inst := ph.off + m
		if j.released[inst] != sim.Never {
			continue
		}
		msg := &ph.plan.Messages[m]
		switch {
		case j.begun[it] == sim.Never:
			return fmt.Sprintf("not begun by the end of the run at %v", now)
		case j.waitDeps[inst] == 0:
			return fmt.Sprintf("at the end of the run at %v, message %d (step %d, rank %d to %d) had its inputs, but rank %d (%s) was still waiting before it",
				now, m, msg.Step, msg.Src, msg.Dst, msg.Src, j.ranks[msg.Src])
		}
		return fmt.Sprintf("at the end of the run at %v, message %d (step %d, rank %d to %d) waited for %d of its %d input messages",
			now, m, msg.Step, msg.Src, msg.Dst, j.waitDeps[inst], len(msg.After))
	}
	return ""
}

// Result is the job's results entry. A chakra job's collectives differ: its iterations say
// each one's op, size and ideal, its own ideal_us is their mean, and it has no algbw or busbw
// of its own.
func (j *Job) Result(now sim.Time) results.Job {
	c := j.c
	id := j.ideal()
	p0 := j.phases[0].plan
	r := results.Job{Label: c.Label, Op: c.Op, Algorithm: c.Algorithm, Ranks: len(j.ranks), SizeBytes: c.Size, QueuePairs: j.qps,
		Channels: c.Channels, ChunkBytes: c.Chunk, Iterations: len(j.phases), BusFactor: collective.BusFactor(c.Op, len(j.ranks)),
		IdealUS: id.us[0], IdealStepEndUS: id.steps[0], BottleneckGbps: float64(id.rate) / 1e9, PayloadShare: id.share,
		StepLatencyUS: id.alpha.Microseconds(), Steps: p0.Steps, PerIteration: []results.JobIteration{}}
	r.MessageBytesMin, r.MessageBytesMax = j.messageBytes()
	var sum float64
	for it := range j.phases {
		ji := j.iteration(it, id, now)
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
	if len(j.ranks) <= results.MaxTimelineRanks && len(j.ranks)*p0.Steps <= results.MaxTimelineCells {
		r.RankSteps, r.RankHosts = j.rankSteps(0, now), j.ranks
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

// iteration is phase it's results entry at now: its time, its steps' ends and slowest
// messages (per step and overall), the histogram of its messages' times.
func (j *Job) iteration(it int, id jobIdeal, now sim.Time) results.JobIteration {
	ph := &j.phases[it]
	ji := results.JobIteration{Iteration: it, Messages: j.M(it), StepSlowestUS: []float64{}, StepSlowestRank: []int{},
		MessageTimes: results.NewHistogram()}
	if j.begun[it] != sim.Never {
		ji.StartUS = ptr(j.begun[it].Microseconds())
	}
	slowest := make([]sim.Time, ph.plan.Steps)
	slowRank := make([]int, ph.plan.Steps)
	for s := range slowest {
		slowest[s] = -1
	}
	var slow sim.Time = -1
	for m := range ph.plan.Messages {
		inst := ph.off + m
		if j.arrived[inst] == sim.Never {
			continue
		}
		ji.Arrived++
		msg := &ph.plan.Messages[m]
		d := j.arrived[inst] - j.released[inst]
		ji.MessageTimes.Add(d.Microseconds())
		if d > slowest[msg.Step] {
			slowest[msg.Step], slowRank[msg.Step] = d, msg.Dst
		}
		if d > slow {
			slow = d
			ji.SlowestStep, ji.SlowestRank, ji.SlowestHost = msg.Step, msg.Dst, j.ranks[msg.Dst]
		}
	}
	if slow >= 0 {
		ji.SlowestStepUS = ptr(slow.Microseconds())
	}
	for s, d := range slowest {
		if d < 0 {
			break
		}
		ji.StepSlowestUS, ji.StepSlowestRank = append(ji.StepSlowestUS, d.Microseconds()), append(ji.StepSlowestRank, slowRank[s])
	}
	if j.ended[it] == sim.Never {
		ji.Reason = j.stalled(it, now)
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
func (j *Job) stepEnds(it int) []float64 {
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

// rankSteps is, for iteration it, when each rank's messages of each step ran (results.
// RankStep), rank by rank, step by step; nil before the iteration began.
func (j *Job) rankSteps(it int, now sim.Time) []results.RankStep {
	ph := &j.phases[it]
	if j.begun[it] == sim.Never {
		return nil
	}
	type cell struct {
		start, end sim.Time
		arrived    bool
		seen       bool
	}
	steps := ph.plan.Steps
	cells := make([]cell, len(j.ranks)*steps)
	for m := range ph.plan.Messages {
		inst := ph.off + m
		if j.released[inst] == sim.Never {
			continue
		}
		msg := &ph.plan.Messages[m]
		c := &cells[msg.Dst*steps+msg.Step]
		end, arrived := j.arrived[inst], true
		if end == sim.Never {
			end, arrived = now, false
		}
		if !c.seen {
			*c = cell{start: j.released[inst], end: end, arrived: arrived, seen: true}
			continue
		}
		c.start, c.end, c.arrived = min(c.start, j.released[inst]), max(c.end, end), c.arrived && arrived
	}
	out := []results.RankStep{}
	for k, c := range cells {
		if c.seen {
			out = append(out, results.RankStep{Rank: k / steps, Step: k % steps, StartUS: (c.start - j.begun[it]).Microseconds(),
				EndUS: (c.end - j.begun[it]).Microseconds(), Arrived: c.arrived})
		}
	}
	return out
}

// messageBytes are the smallest and largest message one queue pair carries in phase 0: a
// message split over C channels is C work requests, the bytes shared as post shares them
// (the first b mod C one byte more).
func (j *Job) messageBytes() (lo, hi int64) {
	plan := j.phases[0].plan
	for m := range plan.Messages {
		b, C := plan.Messages[m].Bytes, int64(j.channels(0, m))
		small, large := b/C, b/C
		if b%C != 0 {
			large++
		}
		if m == 0 || small < lo {
			lo = small
		}
		hi = max(hi, large)
	}
	return lo, hi
}
