package jobs

import (
	"github.com/fabricsim/fabricsim/collective"
	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
)

// Job is one job in a run: a sequence of phases (a collective item's iterations, or the
// collectives of a chakra item's traces), each a plan's messages, each message split over
// the job's channels into flows registered at build time (index first + inst*C + c, where
// instance inst is message m of phase k at phases[k].off + m). An instance is released, its
// flows started, once every message of its After has arrived in the same phase and its
// sender may send in that phase: a rank may send in phase k from the moment the phase
// before has ended (its last message arrived) and what the rank waits for has passed (its
// Waits: compute after the start or after an earlier phase's end; a collective item's
// iterations wait compute after the one before). A message has arrived when all its
// channels' flows completed, at the receiver (Runtime.Completed).
type Job struct {
	rt       *Runtime
	c        *scenarios.Collective
	ranks    []string
	first    int32 // the flow of phase 0, message 0, channel 0
	C        int
	phases   []jobPhase
	phaseOf  []int32    // per instance: its phase
	waitDeps []int32    // per instance: messages of its After not yet arrived
	waitChan []int32    // per instance: channels not yet completed
	released []sim.Time // per instance: when its flows started; sim.Never until then
	arrived  []sim.Time // per instance: when its last channel completed; sim.Never until then
	left     []int      // per phase: messages not yet arrived
	begun    []sim.Time // per phase: its first release; sim.Never until then
	ended    []sim.Time // per phase: its last arrival; sim.Never until then
	open     []sim.Time // per phase and rank (k*R + r): since when the rank may send; sim.Never until then
}

// jobPhase is one phase of a job: its plan, its first instance, and per rank what the rank
// waits for before it sends in it (one entry when every rank waits the same).
type jobPhase struct {
	plan  *collective.Plan
	off   int
	waits [][]scenarios.Wait
}

// M is the number of messages of phase k.
func (j *Job) M(k int) int { return len(j.phases[k].plan.Messages) }

// newJob makes job c's flows, every phase's, with add: a message of b bytes as C flows of b/C
// (the first b mod C one byte more), each from the sender's host to the receiver's; first is
// the index the first will get. Phase 0's root messages start when their ranks may send
// (c.Start for a collective item) if all ranks may at once; the others are held until
// released.
func newJob(rt *Runtime, c *scenarios.Collective, ranks []string, first int32, add AddFunc) (*Job, error) {
	j := &Job{rt: rt, c: c, ranks: ranks, first: first, C: c.Channels}
	if err := j.buildPhases(); err != nil {
		return nil, err
	}
	gate, uniform := j.gates(0)
	for k := range j.phases {
		for m, msg := range j.phases[k].plan.Messages {
			inst := j.phases[k].off + m
			j.waitDeps[inst], j.waitChan[inst] = int32(len(msg.After)), int32(j.C)
			j.released[inst], j.arrived[inst] = sim.Never, sim.Never
			start := c.Start // a held flow's until released
			if k == 0 && uniform && len(msg.After) == 0 {
				start = gate
			}
			for ch := 0; ch < j.C; ch++ {
				b := msg.Bytes / int64(j.C)
				if int64(ch) < msg.Bytes%int64(j.C) {
					b++
				}
				if err := add(ranks[msg.Src], ranks[msg.Dst], b, start, c.Transport, c.Priority, 0); err != nil {
					return nil, err
				}
			}
		}
	}
	return j, nil
}

// buildPhases makes the job's phases and sizes its per-instance and per-phase state: a
// collective item's Iterations of one plan, each but the first waiting Compute after the
// one before; a chakra item's Steps, each with its own plan and its ranks' waits.
func (j *Job) buildPhases() error {
	c, R := j.c, len(j.ranks)
	n := 0
	add := func(p *collective.Plan, waits [][]scenarios.Wait) {
		j.phases = append(j.phases, jobPhase{plan: p, off: n, waits: waits})
		for range p.Messages {
			j.phaseOf = append(j.phaseOf, int32(len(j.phases)-1))
		}
		n += len(p.Messages)
	}
	if c.Steps == nil {
		plan, err := collective.Build(c.Op, c.Algorithm, R, c.Size, c.Chunk)
		if err != nil {
			return err
		}
		for it := 0; it < c.Iterations; it++ {
			w := []scenarios.Wait{{After: it - 1}}
			if it > 0 {
				w[0].Compute = c.Compute
			}
			add(plan, [][]scenarios.Wait{w})
		}
	} else {
		for _, s := range c.Steps {
			plan, err := collective.Build(s.Op, s.Algorithm, R, s.Size, s.Chunk)
			if err != nil {
				return err
			}
			add(plan, s.Waits)
		}
	}
	j.waitDeps, j.waitChan = make([]int32, n), make([]int32, n)
	j.released, j.arrived = make([]sim.Time, n), make([]sim.Time, n)
	K := len(j.phases)
	j.left, j.begun, j.ended = make([]int, K), make([]sim.Time, K), make([]sim.Time, K)
	j.open = make([]sim.Time, K*R)
	for k := range j.left {
		j.left[k], j.begun[k], j.ended[k] = j.M(k), sim.Never, sim.Never
	}
	for i := range j.open {
		j.open[i] = sim.Never
	}
	return nil
}

// gate is when rank r may send in phase k: once the phase before has ended (phase 0: the
// job's start) and what r waits for has passed; the phases it names must have ended.
func (j *Job) gate(k, r int) sim.Time { return j.gateAt(k, r, j.ended) }

// gateAt is gate with the phases' ends taken from ended.
func (j *Job) gateAt(k, r int, ended []sim.Time) sim.Time {
	base := func(after int) sim.Time {
		if after < 0 {
			return j.c.Start
		}
		return ended[after]
	}
	ws := j.phases[k].waits
	mine := ws[0] // every rank's, unless each has its own
	if len(ws) > 1 {
		mine = ws[r]
	}
	g := base(k - 1)
	for _, w := range mine {
		g = max(g, base(w.After)+w.Compute)
	}
	return g
}

// gates is phase k's gate t when it is the same for every rank (uniform), else rank 0's.
func (j *Job) gates(k int) (t sim.Time, uniform bool) {
	t = j.gate(k, 0)
	for r := 1; r < len(j.ranks); r++ {
		if j.gate(k, r) != t {
			return t, false
		}
	}
	return t, true
}

// Collective is the traffic item the job runs.
func (j *Job) Collective() *scenarios.Collective { return j.c }

// Ranks are the job's hosts: rank r on Ranks()[r].
func (j *Job) Ranks() []string { return j.ranks }

// Plan is phase k's plan.
func (j *Job) Plan(k int) *collective.Plan { return j.phases[k].plan }
