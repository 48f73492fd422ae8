package experiment

import (
	"fmt"

	"github.com/fabricsim/fabricsim/collective"
	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
)

// jobRun is one job in a run: a sequence of phases (a collective item's iterations, or the
// collectives of a chakra item's traces), each a plan's messages, each message split over
// the job's channels into flows registered at build time (index first + inst*C + c, where
// instance inst is message m of phase k at phases[k].off + m). An instance is released, its
// flows started, once every message of its After has arrived in the same phase and its
// sender may send in that phase: a rank may send in phase k from the moment the phase
// before has ended (its last message arrived) and what the rank waits for has passed (its
// Waits: compute after the start or after an earlier phase's end; a collective item's
// iterations wait compute after the one before). A message has arrived when all its
// channels' flows completed, at the receiver (transports.Registry.OnComplete).
type jobRun struct {
	f        *fabric
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
func (j *jobRun) M(k int) int { return len(j.phases[k].plan.Messages) }

// collectiveFlows makes job c's flows, every phase's, with add: a message of b bytes as C
// flows of b/C (the first b mod C one byte more), each from the sender's host to the
// receiver's; count is the number of flows made so far. Phase 0's root messages start when
// their ranks may send (c.Start for a collective item) if all ranks may at once; the others
// are held until released.
func (f *fabric) collectiveFlows(c *scenarios.Collective, add func(src, dst string, size int64, start sim.Time, transport string, prio int, rate sim.Rate) error, count func() int) error {
	ranks := f.hostNames(c.Hosts)
	j := &jobRun{f: f, c: c, ranks: ranks, first: int32(count()), C: c.Channels}
	if err := j.buildPhases(); err != nil {
		return err
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
					return err
				}
			}
		}
	}
	f.jobs = append(f.jobs, j)
	return nil
}

// buildPhases makes the job's phases and sizes its per-instance and per-phase state: a
// collective item's Iterations of one plan, each but the first waiting Compute after the
// one before; a chakra item's Steps, each with its own plan and its ranks' waits.
func (j *jobRun) buildPhases() error {
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
func (j *jobRun) gate(k, r int) sim.Time { return j.gateAt(k, r, j.ended) }

// gateAt is gate with the phases' ends taken from ended.
func (j *jobRun) gateAt(k, r int, ended []sim.Time) sim.Time {
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
func (j *jobRun) gates(k int) (t sim.Time, uniform bool) {
	t = j.gate(k, 0)
	for r := 1; r < len(j.ranks); r++ {
		if j.gate(k, r) != t {
			return t, false
		}
	}
	return t, true
}

// startJobs hooks the jobs to the registry's completions and opens phase 0: at once when
// its ranks all may send at its roots' start (they were not held), else rank by rank.
func (f *fabric) startJobs() {
	if len(f.jobs) == 0 {
		return
	}
	f.reg.OnComplete = f.completed
	for _, j := range f.jobs {
		t, uniform := j.gates(0)
		if !uniform {
			j.schedule(0)
			continue
		}
		j.begun[0] = t
		for r := range j.ranks {
			j.open[r] = t
		}
		for m, msg := range j.phases[0].plan.Messages {
			if len(msg.After) == 0 {
				j.released[m] = t
			}
		}
	}
}

// markHeld sets f.held: every job's flows but its phase 0's root messages' when its ranks
// all may send at once.
func (f *fabric) markHeld(flows int) {
	if len(f.jobs) == 0 {
		return
	}
	f.held = make([]bool, flows)
	for _, j := range f.jobs {
		for k := 0; k < len(j.released)*j.C; k++ {
			f.held[int(j.first)+k] = true
		}
		if _, uniform := j.gates(0); !uniform {
			continue
		}
		for m, msg := range j.phases[0].plan.Messages {
			if len(msg.After) > 0 {
				continue
			}
			for ch := 0; ch < j.C; ch++ {
				f.held[int(j.first)+m*j.C+ch] = false
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
// releases what waited for the message (if its sender may send), and may end its phase.
func (j *jobRun) channelDone(inst int, now sim.Time) {
	if j.waitChan[inst]--; j.waitChan[inst] > 0 {
		return
	}
	j.arrived[inst] = now
	k := int(j.phaseOf[inst])
	ph := &j.phases[k]
	R := len(j.ranks)
	for _, d := range ph.plan.Next[inst-ph.off] {
		i := ph.off + int(d)
		if j.waitDeps[i]--; j.waitDeps[i] == 0 && j.open[k*R+ph.plan.Messages[d].Src] != sim.Never {
			j.release(i, now)
		}
	}
	if j.left[k]--; j.left[k] == 0 {
		j.ended[k] = now
		if k+1 < len(j.phases) {
			j.schedule(k + 1)
		}
	}
}

// schedule opens phase k at its gates: one event when every rank's is the same, else one
// per rank.
func (j *jobRun) schedule(k int) {
	R := len(j.ranks)
	t, uniform := j.gates(k)
	if uniform {
		j.f.eng.At(t, j, k*(R+1), nil)
		return
	}
	for r := range j.ranks {
		j.f.eng.At(j.gate(k, r), j, k*(R+1)+1+r, nil)
	}
}

// Handle implements sim.Handler: in phase op/(R+1), every rank (op%(R+1) == 0) or rank
// op%(R+1)-1 may send from now; its messages whose inputs have arrived are released, in
// message order.
func (j *jobRun) Handle(now sim.Time, op int, _ any) {
	R := len(j.ranks)
	k, who := op/(R+1), op%(R+1)-1
	if j.begun[k] == sim.Never {
		j.begun[k] = now
	}
	for r := range j.ranks {
		if who < 0 || r == who {
			j.open[k*R+r] = now
		}
	}
	ph := &j.phases[k]
	for m, msg := range ph.plan.Messages {
		i := ph.off + m
		if (who < 0 || msg.Src == who) && j.waitDeps[i] == 0 && j.released[i] == sim.Never {
			j.release(i, now)
		}
	}
}

// release starts instance inst's flows now.
func (j *jobRun) release(inst int, now sim.Time) {
	j.released[inst] = now
	for ch := 0; ch < j.C; ch++ {
		i := j.first + int32(inst*j.C+ch)
		j.f.reg.Flows[i].Start = now
		if err := j.f.startFlow(i); err != nil {
			// The transports were checked when the scenario was loaded: this cannot be.
			panic(fmt.Sprintf("collective %s: %v", j.c.Label, err))
		}
	}
}

// flowsOf is the index range of job j's flows.
func (j *jobRun) flowsOf() (lo, hi int) {
	return int(j.first), int(j.first) + len(j.released)*j.C
}
