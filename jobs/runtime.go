package jobs

import (
	"fmt"
	"slices"

	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
)

// Runtime runs a fabric's jobs: it opens their queue pairs, and posts each message on them
// as its inputs arrive and its sender's gate passes.
//
// It runs on every partition of the fabric at once. A message's data arrive at its own sender
// (every After of a message is a message to its sender, or one from its sender on the same
// link: a pipelined algorithm's slot), so a release on data is decided in the sender's
// partition, by the receiver's arrival hook (Delivered), and each partition writes only its
// own ranks' state. A slot freed at the receiver reaches the sender between windows: the
// message that waited for it is released at the end of the window in which the slot's
// chunk arrived (at most the window later than NCCL's receiver would free it). What needs the whole job, a phase's end and the gates after it, is settled between
// windows (AfterWindow), and the phases open by events of the engine that runs between
// windows (Fabric.Engine), at their gates or, when a gate passed inside the window in which
// the phase ended, at that window's end: the same on any number of partitions.
type Runtime struct {
	fab  Fabric
	jobs []*Job
}

// New returns a runtime with no jobs on fabric fab.
func New(fab Fabric) *Runtime { return &Runtime{fab: fab} }

// Jobs are the runtime's jobs, in the order they were added.
func (rt *Runtime) Jobs() []*Job { return rt.jobs }

// Add makes collective c's job over the hosts ranks (rank r on ranks[r]) and opens its
// queue pairs with open; first is the index its first will get.
func (rt *Runtime) Add(c *scenarios.Collective, ranks []string, first int32, open OpenFunc) error {
	j, err := newJob(rt, c, ranks, first, open)
	if err != nil {
		return err
	}
	rt.jobs = append(rt.jobs, j)
	return nil
}

// Start schedules every job's phase 0 at its gates. The fabric calls Delivered as messages
// complete, and AfterWindow after every window.
func (rt *Runtime) Start() {
	for _, j := range rt.jobs {
		j.schedule(0, 0)
	}
}

// Delivered is the fabric's hook for a message completing at the receiver: work request msg
// of queue pair qp (the flow's index) at now, in the receiver's partition.
func (rt *Runtime) Delivered(qp int32, msg int64, now sim.Time) {
	if j, q := rt.jobOf(qp); j != nil {
		j.channelArrived(int(j.slots[j.slotOff[q]+int32(msg)]), now)
	}
}

// jobOf is the job of queue pair qp and its index among the job's.
func (rt *Runtime) jobOf(qp int32) (*Job, int32) {
	for _, j := range rt.jobs {
		if q := qp - j.firstQP; q >= 0 && int(q) < j.qps {
			return j, q
		}
	}
	return nil, 0
}

// AfterWindow settles, between two windows (the last ended at end), the phases whose last
// message arrived in it: each job's phase ends at its last arrival, and the next opens at
// its gates, at end at the earliest; after the last, the job's queue pairs are closed.
func (rt *Runtime) AfterWindow(end sim.Time) {
	closed := false
	for _, j := range rt.jobs {
		j.freeSlots(end)
		for k := j.current; k < len(j.phases) && j.begun[k] != sim.Never; k++ {
			var got int32
			last := sim.Time(0)
			for p := range j.got {
				got += j.got[p][k]
				last = max(last, j.last[p][k])
			}
			if int(got) < j.M(k) {
				break
			}
			j.ended[k], j.current = last, k+1
			if k+1 < len(j.phases) {
				j.schedule(k+1, end)
			} else {
				j.close()
				closed = true
			}
		}
	}
	if closed {
		rt.fab.Settle()
	}
}

// channelArrived counts one channel of instance inst as arrived at its receiver; the last
// one's arrival releases what waited for the message's data at the receiver, which sends
// them (if it may send in the phase), and counts the message in its receiver's partition.
func (j *Job) channelArrived(inst int, now sim.Time) {
	if j.waitChan[inst]--; j.waitChan[inst] > 0 {
		return
	}
	j.arrived[inst] = now
	k := int(j.phaseOf[inst])
	ph := &j.phases[k]
	msg := &ph.plan.Messages[inst-ph.off]
	p := j.part[msg.Dst]
	for _, d := range ph.plan.Next[inst-ph.off] {
		switch ph.plan.Messages[d].Src {
		case msg.Dst:
			j.satisfied(k, ph.off+int(d), now)
		case msg.Src:
			// The next chunk on this link waits for this one's slot: its sender hears of
			// the arrival between windows (AfterWindow).
			j.freed[p] = append(j.freed[p], int32(ph.off+int(d)))
		}
	}
	j.got[p][k]++
	j.last[p][k] = max(j.last[p][k], now)
}

// freeSlots counts, between windows (the last ended at end), the slots freed in it as
// inputs of the messages that waited for them, in instance order (the same on any number of
// partitions), and releases those now ready at end, by an event of the engine that runs
// between windows.
func (j *Job) freeSlots(end sim.Time) {
	j.merged = j.merged[:0]
	for p := range j.freed {
		j.merged = append(j.merged, j.freed[p]...)
		j.freed[p] = j.freed[p][:0]
	}
	if len(j.merged) == 0 {
		return
	}
	slices.Sort(j.merged)
	idle := len(j.ready) == 0 // no release event pending yet
	for _, i := range j.merged {
		k := int(j.phaseOf[i])
		src := j.phases[k].plan.Messages[int(i)-j.phases[k].off].Src
		if j.waitDeps[i]--; j.waitDeps[i] == 0 && j.open[k*len(j.ranks)+src] != sim.Never {
			j.ready = append(j.ready, i)
		}
	}
	if L := j.c.ReleaseLatency; L > 0 { // each at its own time: end + L
		for _, i := range j.ready {
			j.rt.fab.Engine().At(end+L, j, releaseOp(int(i)), nil)
		}
		j.ready = j.ready[:0]
		return
	}
	if idle && len(j.ready) > 0 {
		j.rt.fab.Engine().At(end, j, readyOp, nil)
	}
}

// readyOp is the operation of Job.Handle that releases the messages whose slots were freed
// in the window before; releaseOp(i), below it, the one that posts instance i after the
// release latency (collective.release_latency).
const readyOp = -1

func releaseOp(i int) int { return readyOp - 1 - i }

// satisfied counts one input of instance i of phase k as there, and releases it when it was
// the last and its sender may send in the phase: at once, or the collective's release
// latency later, by an event of the sender's partition (where the input arrived).
func (j *Job) satisfied(k, i int, now sim.Time) {
	src := j.phases[k].plan.Messages[i-j.phases[k].off].Src
	if j.waitDeps[i]--; j.waitDeps[i] == 0 && j.open[k*len(j.ranks)+src] != sim.Never {
		if L := j.c.ReleaseLatency; L > 0 {
			j.rt.fab.Local(j.part[src]).At(now+L, j, releaseOp(i), nil)
			return
		}
		j.post(i, now)
	}
}

// schedule opens phase k at its gates, notBefore at the earliest: one event when every
// rank's is the same, else one per rank.
func (j *Job) schedule(k int, notBefore sim.Time) {
	R := len(j.ranks)
	t, uniform := j.gates(k)
	if uniform {
		j.rt.fab.Engine().At(max(t, notBefore), j, k*(R+1), nil)
		return
	}
	for r := range j.ranks {
		j.rt.fab.Engine().At(max(j.gate(k, r), notBefore), j, k*(R+1)+1+r, nil)
	}
}

// Handle implements sim.Handler. Between windows: in phase op/(R+1), every rank (op%(R+1)
// == 0) or rank op%(R+1)-1 may send from now; its messages whose inputs are there are
// released, in message order; readyOp posts the messages whose slots were freed. releaseOp(i)
// posts instance i once its release latency has passed, in its sender's partition (or
// between windows, for a slot).
func (j *Job) Handle(now sim.Time, op int, _ any) {
	if op == readyOp {
		for _, i := range j.ready {
			j.post(int(i), now)
		}
		j.ready = j.ready[:0]
		return
	}
	if op < readyOp {
		j.post(readyOp-1-op, now)
		return
	}
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
			j.post(i, now)
		}
	}
}

// post releases instance inst at now: its work request on each of its queue pairs, b/n
// bytes each over n of them (the first b mod n one byte more).
func (j *Job) post(inst int, now sim.Time) {
	j.released[inst] = now
	k := int(j.phaseOf[inst])
	ph := &j.phases[k]
	m := inst - ph.off
	b := ph.plan.Messages[m].Bytes
	C := j.channels(k, m)
	for ch := 0; ch < C; ch++ {
		q := int(ph.qp[m]) + ch
		n := b / int64(C)
		if int64(ch) < b%int64(C) {
			n++
		}
		msg, err := j.rt.fab.Post(j.firstQP+int32(q), n)
		if err != nil {
			// The transports were checked when the scenario was loaded: this cannot be.
			panic(fmt.Sprintf("collective %s: %v", j.c.Label, err))
		}
		j.slots[j.slotOff[q]+int32(msg)] = int32(inst)
	}
}

// close says to every queue pair of the job that no message follows: its last phase ended.
func (j *Job) close() {
	for q := 0; q < j.qps; q++ {
		if err := j.rt.fab.Close(j.firstQP + int32(q)); err != nil {
			panic(fmt.Sprintf("collective %s: %v", j.c.Label, err))
		}
	}
}
