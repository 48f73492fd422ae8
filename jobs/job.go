package jobs

import (
	"fmt"

	"github.com/fabricsim/fabricsim/collective"
	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
)

// Job is one job in a run: a sequence of phases (a collective item's iterations, or the
// collectives of a chakra item's traces), each a plan's messages. The job keeps one queue
// pair per channel and pair of ranks that exchange data for its whole life, as NCCL keeps
// one per channel and peer (NCCL_IB_QPS_PER_CONNECTION QPs per connection): a persistent
// flow of the fabric, opened at the job's start. A message goes as one work request on each
// of its pair's channels (its bytes split over them), after the ones posted on them before.
// Instance inst is message m of phase k at phases[k].off + m. It is released, its work
// requests posted, once every message of its After has arrived in the same phase and its
// sender may send in that phase: a rank may send in phase k from the moment the phase before
// has ended (its last message arrived) and what the rank waits for has passed (its Waits:
// compute after the start or after an earlier phase's end; a collective item's iterations
// wait compute after the one before). A message has arrived when its work request on every
// channel has completed at the receiver (Runtime.Delivered).
type Job struct {
	rt     *Runtime
	c      *scenarios.Collective
	ranks  []string
	C      int
	phases []jobPhase
	// firstQP is the flow of the job's first queue pair, qps their number; slotOff is, per
	// queue pair (from 0), where its messages' slots start in slots, which holds, per work
	// request in posting order, its instance.
	firstQP int32
	qps     int
	slotOff []int32
	slots   []int32
	// Per instance (a few tens of bytes a message, whatever the job's size):
	phaseOf  []int32    // its phase
	waitDeps []int32    // messages of its After not yet arrived
	waitChan []int32    // channels not yet completed at the receiver
	released []sim.Time // when its work requests were posted; sim.Never until then
	arrived  []sim.Time // when its last channel completed; sim.Never until then
	// part is each rank's partition; got and last are, per partition and phase, the
	// messages that arrived at its ranks and the latest arrival (each partition writes its
	// own); current is the first phase not known to have ended (AfterWindow).
	part    []int
	freed   [][]int32 // per partition: instances whose slot's chunk arrived in the window
	ready   []int32   // instances to release at the window's end (Handle, readyOp)
	merged  []int32   // freeSlots' buffer: every partition's freed, in instance order
	got     [][]int32
	last    [][]sim.Time
	current int
	begun   []sim.Time // per phase: its first release; sim.Never until then
	ended   []sim.Time // per phase: its last arrival; sim.Never until then
	open    []sim.Time // per phase and rank (k*R + r): since when the rank may send; sim.Never until then
}

// jobPhase is one phase of a job: its plan, its first instance, per rank what the rank waits
// for before it sends in it (one entry when every rank waits the same), and per message of
// the plan its first queue pair (from 0 in the job; a message split over the C channels
// takes C in a row).
type jobPhase struct {
	plan  *collective.Plan
	off   int
	waits [][]scenarios.Wait
	qp    []int32
}

// channels is how many queue pairs message m of phase k goes on: one when the plan gives it
// a channel of its own, else the job's C, its bytes split over them.
func (j *Job) channels(k, m int) int {
	if j.phases[k].plan.Messages[m].Channel >= 0 {
		return 1
	}
	return j.C
}

// M is the number of messages of phase k.
func (j *Job) M(k int) int { return len(j.phases[k].plan.Messages) }

// newJob makes job c and opens its queue pairs with open, the first getting index first:
// for every pair of ranks (sender, receiver) of a message in any phase, one per channel (or
// the one of its channel, for a plan that gives each channel its own messages: NCCL's rail
// rings), in the order of their first messages, from the job's start (c.Start).
func newJob(rt *Runtime, c *scenarios.Collective, ranks []string, first int32, open OpenFunc) (*Job, error) {
	j := &Job{rt: rt, c: c, ranks: ranks, firstQP: first, C: c.Channels}
	if err := j.buildPhases(); err != nil {
		return nil, err
	}
	j.part = make([]int, len(ranks))
	for r, h := range ranks {
		j.part[r] = rt.fab.Partition(h)
	}
	parts := rt.fab.Partitions()
	j.got, j.last, j.freed = make([][]int32, parts), make([][]sim.Time, parts), make([][]int32, parts)
	for p := range j.got {
		j.got[p], j.last[p] = make([]int32, len(j.phases)), make([]sim.Time, len(j.phases))
	}
	// A queue pair per (sender, receiver, channel): a message on channel -1 takes the C of
	// its pair of ranks in a row, one on channel k the pair's own k-th.
	qpOf := map[[3]int]int32{}
	var perQP []int32 // work requests on each queue pair over the job's life
	plans := map[*collective.Plan][]int32{}
	for k := range j.phases {
		ph := &j.phases[k]
		if qs, ok := plans[ph.plan]; ok {
			ph.qp = qs
		} else {
			if err := local(ph.plan); err != nil {
				return nil, err
			}
			ph.qp = make([]int32, len(ph.plan.Messages))
			for m, msg := range ph.plan.Messages {
				if msg.Channel >= j.C {
					return nil, fmt.Errorf("%s %s: message %d is on channel %d of %d", ph.plan.Op, ph.plan.Algorithm, m, msg.Channel, j.C)
				}
				key := [3]int{msg.Src, msg.Dst, msg.Channel}
				q, ok := qpOf[key]
				if !ok {
					q = int32(len(perQP))
					qpOf[key] = q
					for range j.channels(k, m) {
						if err := open(ranks[msg.Src], ranks[msg.Dst], c.Start, c.Transport, c.Priority); err != nil {
							return nil, err
						}
						perQP = append(perQP, 0)
					}
				}
				ph.qp[m] = q
			}
			plans[ph.plan] = ph.qp
		}
		for m := range ph.plan.Messages {
			n := j.channels(k, m)
			for ch := range n {
				perQP[int(ph.qp[m])+ch]++
			}
			inst := ph.off + m
			j.waitDeps[inst], j.waitChan[inst] = int32(len(ph.plan.Messages[m].After)), int32(n)
			j.released[inst], j.arrived[inst] = sim.Never, sim.Never
		}
	}
	j.qps = len(perQP)
	j.slotOff = make([]int32, j.qps+1)
	for q, n := range perQP {
		j.slotOff[q+1] = j.slotOff[q] + n
	}
	j.slots = make([]int32, j.slotOff[len(j.slotOff)-1])
	return j, nil
}

// local checks that every input of each message of plan is a message to its sender (its
// data) or from its sender (a link's slot: the message follows it on the queue pair): what
// the runtime decides in the sender's partition.
func local(plan *collective.Plan) error {
	for d, msg := range plan.Messages {
		for _, a := range msg.After {
			if in := &plan.Messages[a]; in.Dst != msg.Src && in.Src != msg.Src {
				return fmt.Errorf("%s %s: message %d (rank %d to %d) waits for message %d (rank %d to %d), which neither its sender receives nor sends",
					plan.Op, plan.Algorithm, d, msg.Src, msg.Dst, a, in.Src, in.Dst)
			}
		}
	}
	return nil
}

// buildPhases makes the job's phases and sizes its per-instance and per-phase state: a
// collective item's Iterations of one plan, each but the first waiting Compute after the
// one before; a chakra item's Steps, each with its own plan and its ranks' waits.
func (j *Job) buildPhases() error {
	c, R := j.c, len(j.ranks)
	n := 0
	add := func(p *collective.Plan, waits [][]scenarios.Wait) {
		j.phases = append(j.phases, jobPhase{plan: p, off: n, waits: waits})
		n += len(p.Messages)
	}
	if c.Steps == nil {
		plan, err := j.rt.fab.Plan(c, c.Op, c.Algorithm, j.ranks, c.Size, c.Chunk)
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
			plan, err := j.rt.fab.Plan(c, s.Op, s.Algorithm, j.ranks, s.Size, s.Chunk)
			if err != nil {
				return err
			}
			add(plan, s.Waits)
		}
	}
	j.phaseOf = make([]int32, 0, n)
	for k := range j.phases {
		for range j.phases[k].plan.Messages {
			j.phaseOf = append(j.phaseOf, int32(k))
		}
	}
	j.waitDeps, j.waitChan = make([]int32, n), make([]int32, n)
	j.released, j.arrived = make([]sim.Time, n), make([]sim.Time, n)
	K := len(j.phases)
	j.begun, j.ended = make([]sim.Time, K), make([]sim.Time, K)
	j.open = make([]sim.Time, K*R)
	for k := range j.begun {
		j.begun[k], j.ended[k] = sim.Never, sim.Never
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
