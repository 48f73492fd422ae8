package transports

import (
	"errors"
	"fmt"

	"github.com/fabricsim/fabricsim/ecn"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// RoCECC is a RoCE queue pair's congestion control, part of RoCEConfig: the parameters of
// at most one scheme; none set is cc none.
type RoCECC struct {
	// DCQCN, when not nil, runs DCQCN congestion control with these parameters: the
	// responder is its notification point, the requester its reaction point (dcqcn_cc.go).
	DCQCN *ecn.Params
	// HPCC, when not nil, runs HPCC congestion control (hpcc.go) with these parameters:
	// RoCE v2 only.
	HPCC *HPCCParams
	// TIMELY, when not nil, runs TIMELY congestion control (timely.go) with these
	// parameters.
	TIMELY *TIMELYParams
	// Swift, when not nil, runs Swift congestion control (swift.go) with these parameters.
	Swift *SwiftParams
	// DCTCP, when not nil, runs DCTCP (roce_dctcp.go) with these parameters: RoCE v2 only.
	DCTCP *DCTCPParams
	// NSCC, when not nil, runs UET's NSCC (roce_nscc.go) with these parameters: RoCE v2
	// only.
	NSCC *NSCCParams
}

// echoesECN reports whether the responder echoes each packet's CE mark in its ACKs' BTH
// BECN bit (RFC 8257 section 3.2's receiver): the window schemes that read ECN.
func (c *RoCECC) echoesECN() bool { return c.DCTCP != nil || c.NSCC != nil }

// RateBased reports whether the congestion control paces the flow at a rate of its own.
func (c *RoCECC) RateBased() bool { return c.DCQCN != nil || c.HPCC != nil || c.TIMELY != nil }

// validate reports the first value of c that a queue pair of RoCE version cannot run with.
func (c *RoCECC) validate(version int) error {
	if p := c.DCQCN; p != nil {
		switch {
		case p.G < 0 || p.G > 1:
			return fmt.Errorf("DCQCN gain g %v: it is in [0, 1]", p.G)
		case p.RateTimer <= 0 || p.AlphaPeriod <= 0:
			return fmt.Errorf("DCQCN rate timer %v and alpha period %v: both must be positive", p.RateTimer, p.AlphaPeriod)
		case p.MinRate <= 0:
			return errors.New("DCQCN minimum rate: it must be positive, or a cut rate could reach zero and the flow never send again")
		case p.CNPInterval < 0 || p.DecreasePeriod < 0 || p.ByteCounter < 0:
			return fmt.Errorf("DCQCN CNP interval %v, decrease period %v and byte counter %d: none may be negative",
				p.CNPInterval, p.DecreasePeriod, p.ByteCounter)
		}
	}
	if p := c.TIMELY; p != nil {
		if c.DCQCN != nil || c.HPCC != nil {
			return errors.New("TIMELY with DCQCN or HPCC: a flow runs one congestion control")
		}
		if err := p.validate(); err != nil {
			return err
		}
	}
	if p := c.Swift; p != nil {
		if c.DCQCN != nil || c.HPCC != nil || c.TIMELY != nil {
			return errors.New("Swift with DCQCN, HPCC or TIMELY: a flow runs one congestion control")
		}
		if err := p.validate(); err != nil {
			return err
		}
	}
	if p := c.DCTCP; p != nil {
		switch {
		case version == 1:
			return errors.New("DCTCP over RoCE v1: it needs ECN marks, and RoCE v1 frames carry no IP header")
		case c.DCQCN != nil || c.HPCC != nil || c.TIMELY != nil || c.Swift != nil:
			return errors.New("DCTCP with DCQCN, HPCC, TIMELY or Swift: a flow runs one congestion control")
		}
		if err := p.validate(); err != nil {
			return err
		}
	}
	if p := c.NSCC; p != nil {
		switch {
		case version == 1:
			return errors.New("NSCC over RoCE v1: it needs ECN marks, and RoCE v1 frames carry no IP header")
		case c.DCQCN != nil || c.HPCC != nil || c.TIMELY != nil || c.Swift != nil || c.DCTCP != nil:
			return errors.New("NSCC with DCQCN, HPCC, TIMELY, Swift or DCTCP: a flow runs one congestion control")
		}
		if err := p.validate(); err != nil {
			return err
		}
	}
	if p := c.HPCC; p != nil {
		switch {
		case version == 1:
			return errors.New("HPCC over RoCE v1: its telemetry rides in RoCE v2 packets only")
		case c.DCQCN != nil:
			return errors.New("HPCC and DCQCN together: a flow runs one congestion control")
		}
		return p.validate()
	}
	return nil
}

// roceCC is a RoCE requester's congestion control, as congestionControl is a TCP sender's:
// the requester asks it for its pacing rate and whether its window lets a new packet go, and
// tells it about each data packet sent and each event, as a ccSignal: an ACK or NAK (with
// the ECN echo or telemetry it carries), a CNP, a retransmit timeout. The requester decides when an event happens; the congestion control
// decides what it does to the rate and the window. None of its methods allocates.
//
// The implementations: none (cc_none.go), DCQCN's reaction point (dcqcn_cc.go, on
// ecn.ReactionPoint), HPCC (hpcc.go), TIMELY (timely.go), Swift (swift.go), DCTCP
// (roce_dctcp.go, TCP's DCTCP over a window of packets), NSCC (roce_nscc.go, UET's over a
// window of bytes). A new one is a
// type in its own file and a case in newRoCECC (docs/architecture.md).
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
	// signal is an event (cc_signal.go): an ACK or NAK after loss recovery has taken it, a
	// congestion notification, a retransmit timeout the flow survives. It reports whether
	// the window may have opened and whether the flow has stopped pacing (ccAck).
	signal(s ccSignal) ccAck
}

// ccAck says what an ACK did to a congestion control: ccWindow, its window may have opened
// (the requester goes back on the NIC's schedule if it has data); ccUnpace, it has stopped
// pacing, so the next packet need not wait for the gap the last one's pacing rate set.
type ccAck uint8

const (
	ccWindow ccAck = 1 << iota
	ccUnpace
)

// newRoCECC returns the congestion control cfg asks for, for a flow of npkts packets
// starting at start from NIC src of line rate line.
func newRoCECC(src *NIC, cfg *RoCEConfig, line sim.Rate, start sim.Time, npkts uint32) roceCC {
	switch {
	case cfg.DCQCN != nil:
		return newDCQCNCC(src, *cfg.DCQCN, line, start)
	case cfg.HPCC != nil:
		return newHPCCCC(src, cfg, line)
	case cfg.TIMELY != nil:
		return newTIMELYCC(*cfg.TIMELY, line, start)
	case cfg.Swift != nil:
		return newSwiftCC(cfg, line, npkts)
	case cfg.DCTCP != nil:
		return newRoceDCTCP(*cfg.DCTCP, npkts)
	case cfg.NSCC != nil:
		return newRoceNSCC(cfg, line, npkts)
	}
	return noCC{}
}
