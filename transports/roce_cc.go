package transports

import (
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// roceCC is a RoCE requester's congestion control, as congestionControl is a TCP sender's:
// the requester asks it for its pacing rate and whether its window lets a new packet go, and
// tells it about each data packet sent, each ACK (with the telemetry or timestamps it
// echoes) and each CNP. The requester decides when an event happens; the congestion control
// decides what it does to the rate and the window. None of its methods allocates.
//
// The implementations: none (cc_none.go), DCQCN's reaction point (dcqcn_cc.go, on
// ecn.ReactionPoint), HPCC (hpcc.go). A new one is a type in its own file and a case in
// newRoCECC (docs/architecture.md).
type roceCC interface {
	// start is the flow's start: "" when it may send, else why it cannot run.
	start() string
	// rate is the pacing rate now and true, or false when the congestion control does not
	// limit the flow below its line rate.
	rate() (sim.Rate, bool)
	// windowOpen reports whether a new packet may go with inFlight packets outstanding (sent
	// and not cumulatively acknowledged; at least one: with none a packet always may).
	windowOpen(inFlight uint32) bool
	// sent is a data packet leaving, sealed, with inFlight packets outstanding before it: it
	// may add headers (and seal again) or ask for an ACK (AckReq).
	sent(p *topology.Packet, inFlight uint32)
	// acked is an ACK or NAK p after loss recovery has taken it, with the requester's una and
	// next new PSN; it reports whether the window may have opened.
	acked(now sim.Time, p *topology.Packet, una, sndNxt uint32) bool
	// cnp is a congestion notification packet at now.
	cnp(now sim.Time)
}

// newRoCECC returns the congestion control cfg asks for, for a flow of reg starting at start
// from a NIC of line rate line.
func newRoCECC(reg *Registry, cfg *RoCEConfig, line sim.Rate, start sim.Time) roceCC {
	switch {
	case cfg.DCQCN != nil:
		return newDCQCNCC(reg.eng, *cfg.DCQCN, line, start)
	case cfg.HPCC != nil:
		return newHPCCCC(reg, cfg, line)
	}
	return noCC{}
}
