package transports

import (
	"github.com/fabricsim/fabricsim/ecn"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// dcqcnCC is cc dcqcn on the requester: DCQCN's reaction point (ecn.ReactionPoint, the state
// machine) on the engine, with its two timers: the rate-increase timer (lazy, an alarm) and
// a deferred rate cut (at the end of the decrease period). The responder is the notification
// point (cnp.go).
type dcqcnCC struct {
	rp    *ecn.ReactionPoint
	nic   *NIC
	timer alarm
	cutAt sim.Time
}

const (
	opCCTimer = iota // DCQCN rate-increase timer
	opCCCut          // DCQCN deferred rate cut
)

// newDCQCNCC returns the reaction point of a flow starting at start: alpha decays from the
// flow's start, not from time 0.
func newDCQCNCC(nic *NIC, p ecn.Params, line sim.Rate, start sim.Time) *dcqcnCC {
	c := &dcqcnCC{rp: ecn.NewReactionPoint(p, line), nic: nic, cutAt: sim.Never}
	c.timer = newAlarm(nic, c, opCCTimer)
	c.rp.Start(start)
	return c
}

func (c *dcqcnCC) start() string { return "" }

// rate is the reaction point's current rate R_C while it is below the line rate.
func (c *dcqcnCC) rate() (sim.Rate, bool) {
	r := c.rp.Rate()
	return r, r < sim.Rate(c.rp.Line)
}

func (c *dcqcnCC) windowOpen(int64) bool { return true }

// sent counts the frame's bytes for the byte counter.
func (c *dcqcnCC) sent(p *topology.Packet, _ int64) { c.rp.Sent(int64(p.Frame)) }

// signal takes a CNP: DCQCN's reaction point reacts to nothing else.
func (c *dcqcnCC) signal(s ccSignal) ccAck {
	if s.event == ccNotified {
		c.cnp(s.now)
	}
	return 0
}

// cnp cuts the rate (now, or at the end of the decrease period) and restarts the
// rate-increase timer.
func (c *dcqcnCC) cnp(now sim.Time) {
	if at := c.rp.CNP(now); at > 0 && at != c.cutAt {
		c.cutAt = at
		c.nic.at(at, c, opCCCut, nil)
	}
	c.timer.set(now + c.rp.P.RateTimer)
}

// Handle implements sim.Handler: the rate-increase timer and the deferred cut.
func (c *dcqcnCC) Handle(now sim.Time, op int, _ any) {
	switch op {
	case opCCTimer:
		if c.timer.expired(now) && c.rp.RateTimer(now) {
			c.timer.set(now + c.rp.P.RateTimer)
		}
	case opCCCut:
		if now == c.cutAt {
			c.cutAt = sim.Never
			c.rp.Cut(now)
		}
	}
}
