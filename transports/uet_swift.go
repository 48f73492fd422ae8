package transports

import (
	"math"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// Swift on the Ultra Ethernet transport (transports.uet.cc: swift): Swift's window (swift.go,
// Kumar et al., SIGCOMM 2020) in place of NSCC's, on the signals UET's sender already takes.
// The window is Swift's, in packets, held as NSCC's cwnd in the bytes the sender counts (a
// full packet's payload and PDS and SES headers each), so that the send check, the ACK
// request on a full window and SLEEK's allowance read it unchanged; NSCC's own rules do not
// run. The sender gives Swift:
//   - each ACK that newly acknowledges bytes and carries an RTT sample (the PSN that drew it,
//     by Karn's rule as NSCC's samples): the sample as the fabric delay (the NIC answers at
//     once: no endpoint delay, as cc swift on RoCE) and the packets acknowledged (bytes over
//     a full packet's);
//   - a NACK (a trimmed packet): Swift's fast recovery (a cut by max_mdf, at most once per
//     RTT); a retransmit timeout: its timeout rule. A loss SLEEK finds leaves the window
//     alone, as it leaves NSCC's (uet_loss.go).
//
// The hops Swift's target scales with are the switches on the flow's path (Registry.SetPath).
//
// Every data packet asks for an ACK at once (AR): Swift does not delay ACKs (section 3.6),
// so each ACK's delay is its own packet's. Below one packet the window is one packet, and the
// flow is paced at RTT / cwnd between packets (section 3.4), as on RoCE.

// uetPacket is the bytes a full packet counts in the window.
func (s *UETSender) uetPacket() int64 { return int64(s.mtu) + s.hdr }

// newUETSwift is the Swift of a flow of cfg from a NIC of line rate line.
func newUETSwift(cfg *UETConfig, line sim.Rate) *Swift {
	return NewSwift(cfg.Swift, line, frames.UETWireBytes(int64(cfg.MTU), false))
}

// swiftWindow sets the window from Swift's.
func (s *UETSender) swiftWindow() {
	pkt := s.uetPacket()
	s.cc.cwnd = max(int64(math.Floor(s.sw.Cwnd()*float64(pkt))), pkt)
}

// swiftAck takes an ACK at now that newly acknowledges newly bytes, with RTT sample raw (0:
// none).
func (s *UETSender) swiftAck(now, raw sim.Time, newly int64) {
	if raw <= 0 || newly <= 0 {
		return
	}
	s.sw.Ack(now, raw, 0, float64(newly)/float64(s.uetPacket()))
	s.swiftWindow()
}

// swiftLoss is a trimmed or lost packet: fast recovery.
func (s *UETSender) swiftLoss(now sim.Time) {
	s.sw.FastRecovery(now)
	s.swiftWindow()
}

// swiftTimeout is a retransmit timeout.
func (s *UETSender) swiftTimeout(now sim.Time) {
	s.sw.Timeout(now)
	s.swiftWindow()
}

// swiftPace holds the next packet for Swift's pacing delay while its window is below one
// packet.
func (s *UETSender) swiftPace(now sim.Time) {
	if d := s.sw.PacingDelay(); d > 0 {
		s.sched.readyAt = max(s.sched.readyAt, now+d)
	}
}
