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

// Channels is the number of flows each message is split over.
func (j *Job) Channels() int { return j.C }

// Flow is the index of channel ch's flow of message m of phase k.
func (j *Job) Flow(k, m, ch int) int { return int(j.first) + (j.phases[k].off+m)*j.C + ch }
