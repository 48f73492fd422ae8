package transports

import (
	"math"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// Swift on the Ultra Ethernet transport (transports.uet.cc: swift): Swift's window (swift.go,
// Kumar et al., SIGCOMM 2020) in place of NSCC's, on the signals UET's sender already takes.
// The window is Swift's, in packets, held in the bytes the sender counts (a full packet's
// payload and PDS and SES headers each), so that the send check, SLEEK's allowance and the
// sender's flight read it as they read NSCC's. The sender gives Swift:
//   - each ACK that newly acknowledges bytes and carries an RTT sample (the PSN that drew it,
//     by Karn's rule as NSCC's samples): the sample as the fabric delay (the NIC answers at
//     once: no endpoint delay, as cc swift on RoCE) and the packets acknowledged (bytes over
//     a full packet's);
//   - a NACK (a trimmed packet): Swift's fast recovery (a cut by max_mdf, at most once per
//     RTT); a retransmit timeout: its timeout rule. A loss SLEEK finds leaves the window
//     alone, as it leaves NSCC's (uet_loss.go).
//
// The hops Swift's target scales with are the switches on the flow's path (Registry.SetPath).
// SLEEK's allowance bounds its threshold by maxwnd, NSCC's 1.5 BDP of the base RTT, the base
// RTT lowered by each ACK's and NACK's sample, as under NSCC.
//
// Every data packet asks for an ACK at once (AR): Swift does not delay ACKs (section 3.6),
// so each ACK's delay is its own packet's. Below one packet the window is one packet, and the
// flow is paced at RTT / cwnd between packets (section 3.4), as on RoCE.
type uetSwift struct {
	s      *Swift
	pkt    int64 // a full packet's bytes, as the window counts them
	cwnd   int64 // Swift's window in bytes, at least a packet
	line   sim.Rate
	base   sim.Time // the least RTT seen, from the path's unloaded one
	maxwnd int64    // nsccMaxWnd of base
}

func (p *SwiftParams) checkUET(*UETConfig) error { return p.validate() }

func (p *SwiftParams) newUETCC(cfg *UETConfig, line sim.Rate, hdr int64) senderCC {
	c := &uetSwift{s: NewSwift(*p, line, frames.UETWireBytes(int64(cfg.MTU), false)), pkt: int64(cfg.MTU) + hdr, line: line}
	c.update()
	return c
}

// setUETPath gives Swift the hops of its target, and the base RTT maxwnd starts from.
func (c *uetSwift) setUETPath(base, _ sim.Time, p Path) {
	c.s.Hops = len(p.Fwd) - 1
	c.base, c.maxwnd = base, nsccMaxWnd(base, c.line)
}

func (c *uetSwift) start() string                { return "" }
func (c *uetSwift) rate() (sim.Rate, bool)       { return 0, false }
func (c *uetSwift) window() (cwnd, maxwnd int64) { return c.cwnd, c.maxwnd }
func (c *uetSwift) windowOpen(flight int64) bool { return c.cwnd >= flight }

// sent asks for an ACK at once.
func (c *uetSwift) sent(p *topology.Packet, _ int64) { p.UET().AckReq = true }

// gap is Swift's pacing delay while its window is below one packet.
func (c *uetSwift) gap() sim.Time { return c.s.PacingDelay() }

// update sets the window in bytes from Swift's.
func (c *uetSwift) update() {
	c.cwnd = max(int64(math.Floor(c.s.Cwnd()*float64(c.pkt))), c.pkt)
}

// sample lowers the base RTT, and maxwnd with it, to an RTT sample.
func (c *uetSwift) sample(raw sim.Time) {
	if raw > 0 && raw < c.base {
		c.base, c.maxwnd = raw, nsccMaxWnd(raw, c.line)
	}
}

// signal takes an ACK, a NACK or a timeout (the type's comment).
func (c *uetSwift) signal(s ccSignal) ccAck {
	switch s.event {
	case ccAcked:
		c.sample(s.rtt)
		if s.rtt <= 0 || s.acked <= 0 {
			return 0
		}
		c.s.Ack(s.now, s.rtt, 0, float64(s.acked)/float64(c.pkt))
	case ccLost:
		c.sample(s.rtt)
		c.s.FastRecovery(s.now)
	case ccTimedOut:
		c.s.Timeout(s.now)
	default:
		return 0
	}
	c.update()
	return ccWindow
}
