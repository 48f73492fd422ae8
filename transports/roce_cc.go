package transports

import (
	"errors"
	"fmt"

	"github.com/fabricsim/fabricsim/ecn"
	"github.com/fabricsim/fabricsim/sim"
)

// RoCECC is a RoCE queue pair's congestion control, part of RoCEConfig: the parameters of
// one scheme, whose type says which (*DCQCNParams, *HPCCParams, *TIMELYParams, *SwiftParams,
// *DCTCPParams, *NSCCParams); nil is cc none. A scheme checks itself against the queue pair
// and makes each flow's sender state; what more it asks of the transport it says with an
// optional method of its own (rateBased, echoesECN; its senderCC's setPath). A new scheme is a
// type in its own file with these two methods (docs/architecture.md).
type RoCECC interface {
	// check reports the first value that a queue pair of RoCE version cannot run with.
	check(version int) error
	// newCC returns the sender state of a flow of npkts packets of cfg starting at start
	// from NIC src of line rate line.
	newCC(src *NIC, cfg *RoCEConfig, line sim.Rate, start sim.Time, npkts uint32) senderCC
}

// DCQCNParams are cc dcqcn's: the responder is its notification point, the requester its
// reaction point (dcqcn_cc.go).
type DCQCNParams ecn.Params

func (p *DCQCNParams) check(int) error {
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
	return nil
}

func (p *DCQCNParams) newCC(src *NIC, _ *RoCEConfig, line sim.Rate, start sim.Time, _ uint32) senderCC {
	return newDCQCNCC(src, ecn.Params(*p), line, start)
}

func (*DCQCNParams) rateBased() {}

// RateBased reports whether the congestion control paces the flow at a rate of its own.
func (c *RoCEConfig) RateBased() bool {
	_, ok := c.CC.(interface{ rateBased() })
	return ok
}

// echoesECN reports whether the responder echoes each packet's CE mark in its ACKs' BTH
// BECN bit (RFC 8257 section 3.2's receiver): the window schemes that read ECN.
func (c *RoCEConfig) echoesECN() bool {
	_, ok := c.CC.(interface{ echoesECN() })
	return ok
}

// dcqcn is cc dcqcn's parameters, nil for another congestion control.
func (c *RoCEConfig) dcqcn() *ecn.Params {
	p, _ := c.CC.(*DCQCNParams)
	return (*ecn.Params)(p)
}

// pathUser is a RoCE senderCC that reads the flow's path (Registry.SetPath): HPCC's base RTT,
// Swift's hops, NSCC's RTT.
type pathUser interface {
	setPath(s *RoCESender, p Path)
}

// newRoCECC returns the congestion control cfg asks for, for a flow of npkts packets
// starting at start from NIC src of line rate line.
func newRoCECC(src *NIC, cfg *RoCEConfig, line sim.Rate, start sim.Time, npkts uint32) senderCC {
	if cfg.CC == nil {
		return noCC{}
	}
	return cfg.CC.newCC(src, cfg, line, start, npkts)
}
