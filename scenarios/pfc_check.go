package scenarios

import (
	"fmt"

	"github.com/fabricsim/fabricsim/pfc"
)

// pfcQuanta checks switch.pfc.quanta, and each switch node's own, against the shortest pause
// a switch can keep unbroken by refreshes (pfc.MinQuanta): a refresh may wait behind the
// largest frame of the traffic, already on the wire, and the PFC frames of the other
// lossless classes, and refreshes come no closer than four PFC frames apart; a pause shorter
// than that runs out before its refresh arrives, and the sender sends into the headroom.
func (r *resolver) pfcQuanta() {
	sc := r.sc
	frame := sc.MaxFrameWire()
	check := func(path string, c *PFCConfig) {
		if !c.Enabled {
			return
		}
		least := pfc.MinQuanta(frame, len(c.Priorities))
		if c.Quanta >= least {
			return
		}
		others := ""
		if n := len(c.Priorities) - 1; n > 0 {
			others = fmt.Sprintf(", behind %d PFC frames of the other lossless classes (%d B each),", n, pfc.FrameWireBytes)
		}
		need := frame + int64(len(c.Priorities)-1)*pfc.FrameWireBytes + pfc.MinRefreshBytes
		r.errf(path, "quanta %d (%d bit times) is too short a pause to refresh before it runs out: a refresh may wait behind a %d-byte frame already on the wire%s and refreshes come no closer than 4 PFC frames (%d B) apart, so the pause must last at least %d bytes' time (%d bit times, at every link rate): quanta %d..65535 (512 bit times each)",
			c.Quanta, c.Quanta*pfc.QuantumBits, frame, others, pfc.MinRefreshBytes, need, 8*need, least)
	}
	check("switch.pfc.quanta", &sc.Switch.PFC)
	for i := range sc.Topology.Nodes {
		n := &sc.Topology.Nodes[i]
		if n.Switch == nil {
			continue
		}
		if c := n.Switch.PFC; !sc.Switch.PFC.Enabled || c.Quanta != sc.Switch.PFC.Quanta {
			check(fmt.Sprintf("topology.nodes.%d.switch.pfc.quanta", i), &n.Switch.PFC)
		}
	}
}
