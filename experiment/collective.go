package experiment

import (
	"fmt"

	"github.com/fabricsim/fabricsim/collective"
	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
)

// jobRun is one collective in a run: its plan's messages, every iteration's, each split
// over its channels into flows registered at build time (index first + (it*M + m)*C + c).
// A message instance (iteration it, message m) is released, its flows started, once every
// message of its After has arrived in the same iteration; an iteration's messages with no
// After go at its start: the job's start, or Compute after the iteration before ended (its
// last message arrived). A message has arrived when all its channels' flows completed, at
// the receiver (transports.Registry.OnComplete).
type jobRun struct {
	f        *fabric
	c        *scenarios.Collective
	plan     *collective.Plan
	ranks    []string
	first    int32 // the flow of iteration 0, message 0, channel 0
	M, C     int
	waitDeps []int32    // per instance: messages of its After not yet arrived
	waitChan []int32    // per instance: channels not yet completed
	released []sim.Time // per instance: when its flows started; sim.Never until then
	arrived  []sim.Time // per instance: when its last channel completed; sim.Never until then
	left     []int      // per iteration: messages not yet arrived
	begun    []sim.Time // per iteration: its start; sim.Never until then
	ended    []sim.Time // per iteration: its last arrival; sim.Never until then
	roots    []int32    // the messages with no After
}

// collectiveFlows makes collective c's flows, every iteration's, with add: a message of b
// bytes as C flows of b/C (the first b mod C one byte more), each from the sender's host to
// the receiver's at c.Start; count is the number of flows made so far. Only iteration 0's
// root messages start at c.Start: the others are held until released.
func (f *fabric) collectiveFlows(c *scenarios.Collective, add func(src, dst string, size int64, start sim.Time, transport string, prio int, rate sim.Rate) error, count func() int) error {
	ranks := f.hostNames(c.Hosts)
	plan, err := collective.Build(c.Op, c.Algorithm, len(ranks), c.Size, c.Chunk)
	if err != nil {
		return err
	}
	j := &jobRun{f: f, c: c, plan: plan, ranks: ranks, first: int32(count()), M: len(plan.Messages), C: c.Channels}
	n := j.M * c.Iterations
	j.waitDeps, j.waitChan = make([]int32, n), make([]int32, n)
	j.released, j.arrived = make([]sim.Time, n), make([]sim.Time, n)
	j.left, j.begun, j.ended = make([]int, c.Iterations), make([]sim.Time, c.Iterations), make([]sim.Time, c.Iterations)
	for it := range j.left {
		j.left[it], j.begun[it], j.ended[it] = j.M, sim.Never, sim.Never
	}
	for m, msg := range plan.Messages {
		if len(msg.After) == 0 {
			j.roots = append(j.roots, int32(m))
		}
	}
	for it := 0; it < c.Iterations; it++ {
		for m, msg := range plan.Messages {
			inst := it*j.M + m
			j.waitDeps[inst], j.waitChan[inst] = int32(len(msg.After)), int32(j.C)
			j.released[inst], j.arrived[inst] = sim.Never, sim.Never
			for ch := 0; ch < j.C; ch++ {
				b := msg.Bytes / int64(j.C)
				if int64(ch) < msg.Bytes%int64(j.C) {
					b++
				}
				if err := add(ranks[msg.Src], ranks[msg.Dst], b, c.Start, c.Transport, c.Priority, 0); err != nil {
					return err
				}
			}
		}
	}
	f.jobs = append(f.jobs, j)
	return nil
}

// startJobs hooks the jobs to the registry's completions and notes iteration 0's start;
// called once every flow is registered and the unheld ones started.
func (f *fabric) startJobs() {
	if len(f.jobs) == 0 {
		return
	}
	f.reg.OnComplete = f.completed
	for _, j := range f.jobs {
		j.begun[0] = j.c.Start
		for _, m := range j.roots {
			j.released[m] = j.c.Start
		}
	}
}

// markHeld sets f.held: every job's flows but its first iteration's root messages'.
func (f *fabric) markHeld(flows int) {
	if len(f.jobs) == 0 {
		return
	}
	f.held = make([]bool, flows)
	for _, j := range f.jobs {
		for k := 0; k < len(j.released)*j.C; k++ {
			f.held[int(j.first)+k] = true
		}
		for _, m := range j.roots {
			for ch := 0; ch < j.C; ch++ {
				f.held[int(j.first)+int(m)*j.C+ch] = false
			}
		}
	}
}

// completed is the registry's completion hook: flow i's receiver holds its message.
func (f *fabric) completed(i int32, now sim.Time) {
	for _, j := range f.jobs {
		if k := i - j.first; k >= 0 && int(k) < len(j.released)*j.C {
			j.channelDone(int(k)/j.C, now)
			return
		}
	}
}

// channelDone counts one channel of instance inst as arrived; the last one's arrival
// releases what waited for the message, and may end its iteration.
func (j *jobRun) channelDone(inst int, now sim.Time) {
	if j.waitChan[inst]--; j.waitChan[inst] > 0 {
		return
	}
	j.arrived[inst] = now
	it, m := inst/j.M, inst%j.M
	for _, d := range j.plan.Next[m] {
		k := it*j.M + int(d)
		if j.waitDeps[k]--; j.waitDeps[k] == 0 {
			j.release(k, now)
		}
	}
	if j.left[it]--; j.left[it] == 0 {
		j.ended[it] = now
		if it+1 < len(j.left) {
			j.f.eng.At(now.Plus(j.c.Compute), j, it+1, nil)
		}
	}
}

// Handle implements sim.Handler: iteration op begins, its root messages released.
func (j *jobRun) Handle(now sim.Time, op int, _ any) {
	j.begun[op] = now
	for _, m := range j.roots {
		j.release(op*j.M+int(m), now)
	}
}

// release starts instance inst's flows now.
func (j *jobRun) release(inst int, now sim.Time) {
	j.released[inst] = now
	for ch := 0; ch < j.C; ch++ {
		i := j.first + int32(inst*j.C+ch)
		j.f.reg.Flows[i].Start = now
		if err := j.f.startFlow(i); err != nil {
			// The transport was checked when the job's first flows started: this cannot be.
			panic(fmt.Sprintf("collective %s: %v", j.c.Label, err))
		}
	}
}

// flowsOf is the index range of job j's flows.
func (j *jobRun) flowsOf() (lo, hi int) {
	return int(j.first), int(j.first) + len(j.released)*j.C
}
