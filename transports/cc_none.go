package transports

import (
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// noCC is cc none: the sender sends at its line rate (or the flow's own rate), with no
// window; only loss recovery and PFC hold it back (RoCE's cc none; UET's sender under RCCC
// alone, whose credit holds it instead).
type noCC struct{}

func (noCC) start() string                { return "" }
func (noCC) rate() (sim.Rate, bool)       { return 0, false }
func (noCC) windowOpen(int64) bool        { return true }
func (noCC) sent(*topology.Packet, int64) {}
func (noCC) signal(ccSignal) ccAck        { return 0 }
