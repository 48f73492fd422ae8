package jobs

import (
	"fmt"

	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
)

// Runtime runs a fabric's jobs: it registers their flows, holds those that wait for a
// release, and releases them as their inputs arrive and their senders' gates pass.
type Runtime struct {
	fab  Fabric
	jobs []*Job
	// held marks the flows that wait for a release (nil without jobs).
	held []bool
}

// New returns a runtime with no jobs on fabric fab.
func New(fab Fabric) *Runtime { return &Runtime{fab: fab} }

// Jobs are the runtime's jobs, in the order they were added.
func (rt *Runtime) Jobs() []*Job { return rt.jobs }

// Add makes collective c's job over the hosts ranks (rank r on ranks[r]) and registers its
// flows with add; first is the index its first flow will get.
func (rt *Runtime) Add(c *scenarios.Collective, ranks []string, first int32, add AddFunc) error {
	j, err := newJob(rt, c, ranks, first, add)
	if err != nil {
		return err
	}
	rt.jobs = append(rt.jobs, j)
	return nil
}

// MarkHeld marks, among flows flows in all, every job's flows but its phase 0's root
// messages' when its ranks all may send at once.
func (rt *Runtime) MarkHeld(flows int) {
	if len(rt.jobs) == 0 {
		return
	}
	rt.held = make([]bool, flows)
	for _, j := range rt.jobs {
		for k := 0; k < len(j.released)*j.C; k++ {
			rt.held[int(j.first)+k] = true
		}
		if _, uniform := j.gates(0); !uniform {
			continue
		}
		for m, msg := range j.phases[0].plan.Messages {
			if len(msg.After) > 0 {
				continue
			}
			for ch := 0; ch < j.C; ch++ {
				rt.held[int(j.first)+m*j.C+ch] = false
			}
		}
	}
}

// Held reports whether flow i waits for a release: the fabric does not start it.
func (rt *Runtime) Held(i int) bool { return rt.held != nil && rt.held[i] }

// Start opens every job's phase 0: at once when its ranks all may send at its roots' start
// (they were not held), else rank by rank. The fabric calls Completed as flows complete.
func (rt *Runtime) Start() {
	for _, j := range rt.jobs {
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

// Completed is the fabric's completion hook: flow i's receiver holds its message.
func (rt *Runtime) Completed(i int32, now sim.Time) {
	for _, j := range rt.jobs {
		if k := i - j.first; k >= 0 && int(k) < len(j.released)*j.C {
			j.channelDone(int(k)/j.C, now)
			return
		}
	}
}

// channelDone counts one channel of instance inst as arrived; the last one's arrival
// releases what waited for the message (if its sender may send), and may end its phase.
func (j *Job) channelDone(inst int, now sim.Time) {
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
func (j *Job) schedule(k int) {
	R := len(j.ranks)
	t, uniform := j.gates(k)
	if uniform {
		j.rt.fab.Engine().At(t, j, k*(R+1), nil)
		return
	}
	for r := range j.ranks {
		j.rt.fab.Engine().At(j.gate(k, r), j, k*(R+1)+1+r, nil)
	}
}

// Handle implements sim.Handler: in phase op/(R+1), every rank (op%(R+1) == 0) or rank
// op%(R+1)-1 may send from now; its messages whose inputs have arrived are released, in
// message order.
func (j *Job) Handle(now sim.Time, op int, _ any) {
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
func (j *Job) release(inst int, now sim.Time) {
	j.released[inst] = now
	for ch := 0; ch < j.C; ch++ {
		if err := j.rt.fab.StartFlow(j.first+int32(inst*j.C+ch), now); err != nil {
			// The transports were checked when the scenario was loaded: this cannot be.
			panic(fmt.Sprintf("collective %s: %v", j.c.Label, err))
		}
	}
}
