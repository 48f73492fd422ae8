package transports

import (
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// noCC is cc none: the requester sends at its line rate (or the flow's own rate), with no
// window; only loss recovery and PFC hold it back.
type noCC struct{}

func (noCC) start() string                 { return "" }
func (noCC) rate() (sim.Rate, bool)        { return 0, false }
func (noCC) windowOpen(uint32) bool        { return true }
func (noCC) sent(*topology.Packet, uint32) {}
func (noCC) signal(ccSignal) ccAck         { return 0 }
