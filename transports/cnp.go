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

// arm makes sure the pacer's Expire runs no later than t.
func (c *cnpPacer) arm(t sim.Time) { c.timer.armAt(c.reg.eng, c, 0, t) }

// Handle implements sim.Handler: the end of a window sends the CNP it owes, if any.
func (c *cnpPacer) Handle(now sim.Time, _ int, _ any) {
	c.timer.fired()
	to, wake := c.Expire(now)
	if to != nil {
		c.reg.receivers[to.Flow].(*RoCEReceiver).cnp(now)
	}
	if wake != sim.Never {
		c.arm(wake)
	}
}
