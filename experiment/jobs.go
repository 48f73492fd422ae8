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
	rate, share, alpha := j.bottleneck()
	perByte := 8 / (float64(rate) * share) // seconds per payload byte
	r := results.Job{Label: c.Label, Op: c.Op, Algorithm: c.Algorithm, Ranks: len(j.ranks), SizeBytes: c.Size,
		Channels: c.Channels, Iterations: c.Iterations, BusFactor: collective.BusFactor(c.Op, len(j.ranks)),
		IdealUS: j.plan.Ideal(perByte, alpha.Seconds()) * 1e6, BottleneckGbps: float64(rate) / 1e9, PayloadShare: share,
		StepLatencyUS: alpha.Microseconds(), Steps: j.plan.Steps, PerIteration: []results.JobIteration{}}
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

// bottleneck is what the job's ideal stands on: the slowest link rate of its ranks' hosts,
// the payload's share of a full packet's wire bytes under its transport, and the per-step
// latency: over the pairs of ranks its messages join, the longest time one full packet takes
// along its path on the empty fabric (store and forward, propagation, switch latencies; see
// pipeline), less its serialization at the first hop, which the bandwidth term counts.
func (j *jobRun) bottleneck() (sim.Rate, float64, sim.Time) {
	f := j.f
	var rate sim.Rate
	for _, h := range j.ranks {
		id, _ := f.nw.Lookup(h)
		r := f.nw.Links[f.nw.Nodes[id].Ports[0].Link].Params.Rate
		if rate == 0 || r < rate {
			rate = r
		}
	}
	var full, payload int64
	switch j.c.Transport {
	case "iwarp":
		fr := transports.NewIWARPFrames(f.starter.ic, 1<<20)
		full, payload = fr.SegmentWire(0), fr.SegmentPayload(0)
		if fr.Segments() > 1 {
			full, payload = fr.SegmentWire(1), fr.SegmentPayload(1)
		}
	default:
		rc := f.starter.configs[j.c.Transport]
		full, payload = transports.RoCEWireBytes(rc.Version, int64(rc.MTU), false), int64(rc.MTU)
	}
	share := float64(payload) / float64(full)
	var alpha sim.Time
	seen := map[[2]int]bool{}
	for _, m := range j.plan.Messages {
		k := [2]int{m.Src, m.Dst}
		if seen[k] {
			continue
		}
		seen[k] = true
		s, _ := f.nw.Lookup(j.ranks[m.Src])
		d, _ := f.nw.Lookup(j.ranks[m.Dst])
		hops, loop, err := f.routes.Path(s, d, 0, f.pathLimit())
		if err != nil || loop || len(hops) == 0 {
			continue
		}
		ph := f.pathHops(hops)
		one := pipeline(ph, 0, 1, 0, -1, func(int64) int64 { return full })
		alpha = max(alpha, one-ph[0].rate.TxTime(full))
	}
	return rate, share, alpha
}
