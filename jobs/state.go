package jobs

import "github.com/fabricsim/fabricsim/sim"

// Phases is the number of the job's phases (a collective item's iterations, a chakra item's
// collectives).
func (j *Job) Phases() int { return len(j.phases) }

// Begun is when phase k's first message was released; sim.Never until then.
func (j *Job) Begun(k int) sim.Time { return j.begun[k] }

// Ended is when phase k's last message arrived; sim.Never until then.
func (j *Job) Ended(k int) sim.Time { return j.ended[k] }

// Released is when message m of phase k was released (its flows started); sim.Never until
// then.
func (j *Job) Released(k, m int) sim.Time { return j.released[j.phases[k].off+m] }

// Arrived is when message m of phase k had fully arrived (its last channel completed);
// sim.Never until then.
func (j *Job) Arrived(k, m int) sim.Time { return j.arrived[j.phases[k].off+m] }

// Gate is when rank r may send in phase k, as far as the phases before have ended.
func (j *Job) Gate(k, r int) sim.Time { return j.gate(k, r) }

// Channels is the number of queue pairs each message is split over.
func (j *Job) Channels() int { return j.C }

// QP is the flow index of the queue pair that carries channel ch of message m of phase k
// (ch below its Channels(k, m)).
func (j *Job) QP(k, m, ch int) int { return int(j.firstQP) + int(j.phases[k].qp[m]) + ch }

// MessageChannels is how many queue pairs message m of phase k goes on.
func (j *Job) MessageChannels(k, m int) int { return j.channels(k, m) }

// QueuePairs is the flow index range of the job's queue pairs.
func (j *Job) QueuePairs() (lo, hi int) { return int(j.firstQP), int(j.firstQP) + j.qps }
