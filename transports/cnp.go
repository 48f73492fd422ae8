package transports

import (
	"github.com/fabricsim/fabricsim/ecn"
	"github.com/fabricsim/fabricsim/sim"
)

// cnpPacer runs an ecn.Pacer on the engine: a flow's own (per-flow pacing) or its receiving
// NIC's (per-port pacing). Its window timer is an alarm armed only while a mark waits for a
// window's end, so a pacer costs at most one event per window, and none per packet.
type cnpPacer struct {
	ecn.Pacer
	reg   *Registry
	timer alarm
}

// newCNPPacer returns a pacer with p's interval and rule.
func newCNPPacer(n *NIC, p *ecn.Params) *cnpPacer {
	c := &cnpPacer{Pacer: ecn.Pacer{Interval: p.CNPInterval, Rule: p.NP}, reg: n.reg}
	c.timer = newAlarm(n, c, 0)
	return c
}

// arm makes the pacer's Expire run at t, the end of the window it waits for. (The window's
// end only moves later, when a CNP goes out, so t is never earlier than a pending deadline
// that is still of use: Expire before a window's end does nothing.)
func (c *cnpPacer) arm(t sim.Time) { c.timer.set(t) }

// Handle implements sim.Handler: the end of a window sends the CNP it owes, if any.
func (c *cnpPacer) Handle(now sim.Time, _ int, _ any) {
	if !c.timer.expired(now) {
		return
	}
	to, wake := c.Expire(now)
	if to != nil {
		c.reg.receivers[to.Flow].(*RoCEReceiver).cnp(now)
	}
	if wake != sim.Never {
		c.arm(wake)
	}
}
