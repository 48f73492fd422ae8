package transports

import (
	"fmt"
	"math"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// Swift congestion control (Kumar et al., "Swift: Delay is Simple and Effective for
// Congestion Control in the Datacenter", SIGCOMM 2020, "the paper"): the sender keeps a
// congestion window in packets and an AIMD controller on it per ACK, against a target
// delay: below it the window grows by ai/cwnd per packet acknowledged (ai x acked below one
// packet), at or above it the window is cut by max(1 - beta (delay - target)/delay,
// 1 - max_mdf), at most once per RTT (Algorithm 1). A window below one packet (down to
// min_cwnd) is a pacing delay of RTT/cwnd between packets (section 3.4).
//
// The target of the fabric window (section 3.5) is base_target + hops x h + max(0,
// min(alpha/sqrt(fcwnd) + beta_fs, fs_range)), alpha = fs_range / (1/sqrt(fs_min_cwnd) -
// 1/sqrt(fs_max_cwnd)), beta_fs = -alpha/sqrt(fs_max_cwnd): fs_range over base at
// fs_min_cwnd, nothing at fs_max_cwnd. The paper splits the RTT (section 3.3): endpoint
// delay (the remote NIC's Rx queue and stack, echoed in the ACK, plus the local NIC's Rx
// queue) against an endpoint target with its own window ecwnd, and fabric delay = RTT -
// endpoint delay against the scaled target with fcwnd; the window is min(fcwnd, ecwnd).
//
// The paper gives the algorithm, the formula and min_cwnd (0.001 packets, section 3.4),
// and a base target of 25 us (section 5.1: throughput saturates above about 25 us; section
// 5.2 runs at 25 us) and an endpoint target of 100 us (section 5.4, Table 4's run), but no
// value for ai, beta, max_mdf, h, fs_range, fs_min_cwnd, fs_max_cwnd, max_cwnd or
// RETX_RESET_THRESHOLD. Those are the defaults of Google's own Swift in its Falcon
// simulator Isekai, which says many of them come from Swift in Pony Express, the paper's
// stack (Copyright Google LLC; read in its copy testing-cla/downstreamIsekai at 52e2622,
// isekai/host/falcon/rue/algorithm/swift.cc, Swift::DefaultConfiguration, lines 238-294: ai
// 1.0, beta 0.8, max_mdf 0.5, per-hop scaling 1 us, fs_range 100 us, flow scaling over cwnd
// 0.1 to 256, max_cwnd 256, base delay 25 us; swift.h, ComputeTimeoutFabricCongestionWindow,
// lines 906-923: the minimum window after retransmit_limit 3 timeouts). htsim's Swift
// (Broadcom/csg-htsim at 841d9e7, sim/swift.cpp, SwiftSrc::SwiftSrc, lines 591-629) has ai
// 1.0, beta 0.8 and max_mdf 0.5 too, each marked there as a guess.
type SwiftParams struct {
	// BaseTarget is base_target: the fabric delay target of a one-hop path with few flows
	// (the paper, sections 5.1-5.2: 25 us; Isekai fabric_base_delay 25 us).
	BaseTarget sim.Time
	// H is h, the target added per hop of the flow's path (Isekai topo_scaling_per_hop 1
	// us). The hops are the switches on the flow's route, from its path (Registry.SetPath):
	// the paper counts the forward path's IP hops by the TTL the receiver sees (section 3.5,
	// echoed in the ACK); a layer-2 switch leaves the TTL alone, and on a fabric of routers
	// the switches are the TTL difference.
	H sim.Time
	// FSRange is fs_range, the most flow-based scaling adds (Isekai max_flow_scaling 100
	// us; htsim 5 x its 20 us base).
	FSRange sim.Time
	// FSMinCwnd and FSMaxCwnd are fs_min_cwnd and fs_max_cwnd, in packets: scaling is
	// fs_range at and below the first, 0 at and above the second (Isekai 0.1 and 256).
	FSMinCwnd, FSMaxCwnd float64
	// AI is ai, the additive increment: packets per RTT (Isekai 1.0).
	AI float64
	// Beta is beta, the multiplicative decrease constant (Isekai 0.8).
	Beta float64
	// MaxMDF is max_mdf, the largest fraction one decrease takes, and what a loss takes
	// (Isekai 0.5).
	MaxMDF float64
	// MinCwnd and MaxCwnd bound both windows, in packets (the paper: min 0.001; Isekai max
	// 256).
	MinCwnd, MaxCwnd float64
	// InitCwnd is the window a flow starts with, in packets. 0: the window that fills the
	// sender's line rate for base_target, at most max_cwnd (the paper: "the initial value
	// of cwnd has little effect" with long-lived flows; this one has no slow start, as HPCC's
	// W_init).
	InitCwnd float64
	// RetxResetThreshold is RETX_RESET_THRESHOLD: after this many retransmit timeouts in a
	// row the fabric window goes to min_cwnd (Isekai retransmit_limit 3).
	RetxResetThreshold int
	// EndpointTarget is the endpoint window's target (the paper, section 5.4: 100 us).
	EndpointTarget sim.Time
}

// DefaultSwiftParams are the parameters above.
func DefaultSwiftParams() SwiftParams {
	return SwiftParams{BaseTarget: 25 * sim.Microsecond, H: sim.Microsecond, FSRange: 100 * sim.Microsecond,
		FSMinCwnd: 0.1, FSMaxCwnd: 256, AI: 1, Beta: 0.8, MaxMDF: 0.5, MinCwnd: 0.001, MaxCwnd: 256,
		RetxResetThreshold: 3, EndpointTarget: 100 * sim.Microsecond}
}

// swiftMaxCwnd bounds max_cwnd: the requester keeps one send time per packet it may have in
// flight.
const swiftMaxCwnd = 1 << 16

// validate reports the first parameter Swift cannot run with.
func (p *SwiftParams) validate() error {
	switch {
	case p.BaseTarget <= 0 || p.EndpointTarget <= 0:
		return fmt.Errorf("Swift base_target %v and endpoint_target %v: both must be positive", p.BaseTarget, p.EndpointTarget)
	case p.H < 0 || p.FSRange < 0:
		return fmt.Errorf("Swift h %v and fs_range %v: neither may be negative", p.H, p.FSRange)
	case !(p.FSMinCwnd > 0 && p.FSMinCwnd < p.FSMaxCwnd):
		return fmt.Errorf("Swift fs_min_cwnd %v and fs_max_cwnd %v: 0 < fs_min_cwnd < fs_max_cwnd", p.FSMinCwnd, p.FSMaxCwnd)
	case !(p.AI > 0) || !(p.Beta > 0 && p.Beta <= 1) || !(p.MaxMDF > 0 && p.MaxMDF < 1):
		return fmt.Errorf("Swift ai %v, beta %v, max_mdf %v: ai > 0, beta in (0, 1], max_mdf in (0, 1)", p.AI, p.Beta, p.MaxMDF)
	case !(p.MinCwnd > 0 && p.MinCwnd <= p.MaxCwnd && p.MaxCwnd <= swiftMaxCwnd):
		return fmt.Errorf("Swift min_cwnd %v and max_cwnd %v: 0 < min_cwnd <= max_cwnd <= %d", p.MinCwnd, p.MaxCwnd, swiftMaxCwnd)
	case p.InitCwnd != 0 && !(p.InitCwnd >= p.MinCwnd && p.InitCwnd <= p.MaxCwnd):
		return fmt.Errorf("Swift init_cwnd %v: between min_cwnd %v and max_cwnd %v", p.InitCwnd, p.MinCwnd, p.MaxCwnd)
	case p.RetxResetThreshold < 1:
		return fmt.Errorf("Swift retx_reset_threshold %d: at least 1", p.RetxResetThreshold)
	}
	return nil
}

// swiftWindow is one of Swift's two windows (fcwnd, ecwnd) and the time of its latest
// decrease, stepped by Algorithm 1.
type swiftWindow struct {
	cwnd         float64 // packets
	lastDecrease sim.Time
	decreased    bool // a decrease has happened (before it, can_decrease holds)
}

// canDecrease is Algorithm 1's can_decrease: a decrease at most once per rtt.
func (w *swiftWindow) canDecrease(now, rtt sim.Time) bool {
	return !w.decreased || now-w.lastDecrease >= rtt
}

// set clamps cwnd into [lo, hi] and records a decrease from prev. Algorithm 1 prints
// "if cwnd <= cwnd_prev"; a window held at max_cwnd would then count as decreasing on
// every ACK and never be cut, so a decrease is cwnd < cwnd_prev, as in htsim's
// applySwiftLimits (sim/swift.cpp lines 152-170).
func (w *swiftWindow) set(now sim.Time, cwnd, prev, lo, hi float64) bool {
	w.cwnd = min(max(cwnd, lo), hi)
	if w.cwnd < prev {
		w.lastDecrease, w.decreased = now, true
		return true
	}
	return false
}

// ack is Algorithm 1's "On Receiving ACK" for this window: delay against target, n packets
// newly acknowledged; it reports whether the window was cut.
func (w *swiftWindow) ack(now, rtt, delay, target sim.Time, n float64, p *SwiftParams) bool {
	prev, cwnd := w.cwnd, w.cwnd
	switch {
	case delay < target && cwnd >= 1:
		cwnd += p.AI / cwnd * n
	case delay < target:
		cwnd += p.AI * n
	case w.canDecrease(now, rtt):
		cwnd *= max(1-p.Beta*float64(delay-target)/float64(delay), 1-p.MaxMDF)
	}
	return w.set(now, cwnd, prev, p.MinCwnd, p.MaxCwnd)
}

// Swift is the window computation of one flow: a pure state machine fed delay samples and
// losses.
type Swift struct {
	P    SwiftParams
	Hops int // the flow's hops for topology-based scaling

	alpha, betaFS float64 // flow-based scaling's coefficients, in picoseconds
	f, e          swiftWindow
	rtt           sim.Time // the latest end-to-end RTT sample; 0 before the first
	retransmits   int      // retransmit_cnt: timeouts since the last ACK

	// Stats says what the flow measured (for diagnosis; it changes nothing).
	Stats SwiftStats
}

// SwiftStats counts one flow's samples and what they did.
type SwiftStats struct {
	Samples              int64
	SumDelay             sim.Time // sum of the fabric delay samples (mean: SumDelay / Samples)
	SumTarget            sim.Time // sum of the targets they were compared with
	MinDelay, MaxDelay   sim.Time
	Increases, Decreases int64   // fabric-window updates that grew it, and the cuts
	Held                 int64   // samples at or above target within an RTT of the last cut
	Timeouts, Recoveries int64   // retransmit timeouts and fast recoveries (NAKs)
	Paced                int64   // updates after which the window was below one packet
	MinCwnd, MaxCwnd     float64 // the least and the most window after an update
}

// NewSwift returns the window computation of a flow from a NIC of line rate line, whose
// full data packet is fullWire bytes on the wire.
func NewSwift(p SwiftParams, line sim.Rate, fullWire int64) *Swift {
	s := &Swift{P: p}
	if p.FSRange > 0 {
		s.alpha = float64(p.FSRange) / (1/math.Sqrt(p.FSMinCwnd) - 1/math.Sqrt(p.FSMaxCwnd))
		s.betaFS = -s.alpha / math.Sqrt(p.FSMaxCwnd)
	}
	init := p.InitCwnd
	if init == 0 {
		init = float64(line) / 8 * p.BaseTarget.Seconds() / float64(fullWire)
	}
	init = min(max(init, p.MinCwnd), p.MaxCwnd)
	s.f.cwnd, s.e.cwnd = init, p.MaxCwnd
	return s
}

// Cwnd is the effective window, min(fcwnd, ecwnd), in packets.
func (s *Swift) Cwnd() float64 { return min(s.f.cwnd, s.e.cwnd) }

// FabricCwnd is fcwnd, the window against fabric delay.
func (s *Swift) FabricCwnd() float64 { return s.f.cwnd }

// EndpointCwnd is ecwnd, the window against endpoint delay.
func (s *Swift) EndpointCwnd() float64 { return s.e.cwnd }

// RTT is the latest RTT sample, or base_target before the first (for the pacing delay and
// can_decrease of a flow that has had none).
func (s *Swift) RTT() sim.Time {
	if s.rtt > 0 {
		return s.rtt
	}
	return s.P.BaseTarget
}

// Target is the fabric window's target delay now: section 3.5's formula at fcwnd.
func (s *Swift) Target() sim.Time { return s.TargetAt(s.f.cwnd) }

// TargetAt is the fabric target at a fabric window of cwnd packets.
func (s *Swift) TargetAt(cwnd float64) sim.Time {
	fs := min(max(s.alpha/math.Sqrt(cwnd)+s.betaFS, 0), float64(s.P.FSRange))
	return s.P.BaseTarget + sim.Time(s.Hops)*s.P.H + sim.Time(math.Round(fs))
}

// PacingDelay is Algorithm 1's pacing_delay: RTT/cwnd between packets while the window is
// below one packet, else 0.
func (s *Swift) PacingDelay() sim.Time {
	if c := s.Cwnd(); c < 1 {
		return sim.Time(math.Round(float64(s.RTT()) / c))
	}
	return 0
}

// Ack takes an ACK at now acknowledging n new packets, with end-to-end RTT rtt and
// endpoint delay endpoint (its part spent in the NICs and stacks): both windows follow
// Algorithm 1, the fabric one on rtt - endpoint against Target, the endpoint one on
// endpoint against EndpointTarget.
func (s *Swift) Ack(now, rtt, endpoint sim.Time, n float64) {
	s.rtt, s.retransmits = rtt, 0
	fabric := max(rtt-endpoint, 0)
	target := s.Target()
	st := &s.Stats
	if st.Samples == 0 || fabric < st.MinDelay {
		st.MinDelay = fabric
	}
	st.MaxDelay = max(st.MaxDelay, fabric)
	st.Samples++
	st.SumDelay += fabric
	st.SumTarget += target
	before := s.f.cwnd
	switch {
	case s.f.ack(now, rtt, fabric, target, n, &s.P):
		st.Decreases++
	case s.f.cwnd > before:
		st.Increases++
	case fabric >= target:
		st.Held++
	}
	s.e.ack(now, rtt, endpoint, s.P.EndpointTarget, n, &s.P)
	s.noteCwnd()
}

// Timeout is Algorithm 1's "On Retransmit Timeout": the fabric window goes to min_cwnd
// after RETX_RESET_THRESHOLD timeouts in a row, else is cut by max_mdf (once per RTT).
// Losses act on the fabric window only, as Isekai's ProcessRetransmit leaves the NIC
// window alone (swift.h line 766: "no nic congestion window alteration is performed").
func (s *Swift) Timeout(now sim.Time) {
	s.retransmits++
	s.Stats.Timeouts++
	prev, cwnd := s.f.cwnd, s.f.cwnd
	switch {
	case s.retransmits >= s.P.RetxResetThreshold:
		cwnd = s.P.MinCwnd
	case s.f.canDecrease(now, s.RTT()):
		cwnd *= 1 - s.P.MaxMDF
	}
	s.f.set(now, cwnd, prev, s.P.MinCwnd, s.P.MaxCwnd)
	s.noteCwnd()
}

// FastRecovery is Algorithm 1's "On Fast Recovery": a loss found by the receiver (a NAK)
// cuts the fabric window by max_mdf, once per RTT.
func (s *Swift) FastRecovery(now sim.Time) {
	s.retransmits = 0
	s.Stats.Recoveries++
	prev, cwnd := s.f.cwnd, s.f.cwnd
	if s.f.canDecrease(now, s.RTT()) {
		cwnd *= 1 - s.P.MaxMDF
	}
	s.f.set(now, cwnd, prev, s.P.MinCwnd, s.P.MaxCwnd)
	s.noteCwnd()
}

// noteCwnd counts the window after an update.
func (s *Swift) noteCwnd() {
	st, c := &s.Stats, s.Cwnd()
	if c < 1 {
		st.Paced++
	}
	if st.MinCwnd == 0 || c < st.MinCwnd {
		st.MinCwnd = c
	}
	st.MaxCwnd = max(st.MaxCwnd, c)
}

// swiftCC is cc swift on the requester: the window computation, the send time of each
// packet in flight (to take a delay sample from each ACK) and the cumulative
// acknowledgement it has seen.
//
// Every data packet asks for an ACK at once (BTH AckReq): Swift does not delay ACKs
// (section 3.6), so that each ACK's delay is the packet's own. An ACK of PSN k gives the
// sample RTT = arrival - the send time of k (the packet that made the responder answer),
// unless k was sent more than once (Karn's rule: the ACK could be the original's). The
// endpoint delay is what this NIC model has: none. The responder answers at a data
// packet's arrival, and a NIC hands an ACK to its sender at once, so the remote NIC Rx delay
// and processing time the paper echoes in the ACK, and the local NIC Rx delay, are 0, the
// fabric delay is the whole RTT, and ecwnd (target endpoint_target) only grows, to max_cwnd.
// The ACK's wait in the responder's NIC behind a data frame is a NIC Tx delay, which the
// paper counts in the fabric delay too.
type swiftCC struct {
	s        *Swift
	line     sim.Rate
	fullWire int64      // the wire bytes of a full data packet
	times    *sendTimes // when each packet in flight left
	una      uint32     // the cumulative acknowledgement seen
	paced    bool       // the window was below one packet after the latest update
}

func (p *SwiftParams) check(int) error { return p.validate() }

// setPath gives Swift the hops of its target: the switches on the route.
func (c *swiftCC) setPath(_ *RoCESender, p Path) { c.s.Hops = len(p.Fwd) - 1 }

// newCC returns the Swift sender of a flow of npkts packets of cfg from a NIC of line
// rate line. Its send times hold max_cwnd + 2 packets in flight (the window's bound), or the
// flow's packets if fewer: 2 KB per flow with the defaults. A PSN whose slot a later one has
// taken before its ACK came (more in flight while pacing below one packet) gives no sample.
func (p *SwiftParams) newCC(_ *NIC, cfg *RoCEConfig, line sim.Rate, _ sim.Time, npkts uint32) senderCC {
	full := frames.RoCEWireBytes(cfg.Version, int64(cfg.MTU), false)
	n := int(min(math.Ceil(p.MaxCwnd)+2, float64(npkts)))
	c := &swiftCC{s: NewSwift(*p, line, full), line: line, fullWire: full, times: newSendTimes(n)}
	c.paced = c.s.Cwnd() < 1
	return c
}

func (c *swiftCC) start() string { return "" }

// rate paces the flow while the window is below one packet: a full packet every
// RTT/cwnd.
func (c *swiftCC) rate() (sim.Rate, bool) {
	d := c.s.PacingDelay()
	if d <= 0 {
		return 0, false
	}
	r := sim.Rate(math.Round(float64(c.fullWire) * 8 / d.Seconds()))
	return max(min(r, c.line), 1), true
}

// windowOpen lets a new packet go while no more than cwnd would be in flight with it; below
// one packet the pacing rate holds the flow instead.
func (c *swiftCC) windowOpen(flight int64) bool {
	w := c.s.Cwnd()
	return w < 1 || float64(flight) <= w
}

// sent records when the packet left (or that it left again), and asks for an ACK at once.
func (c *swiftCC) sent(p *topology.Packet, _ int64) {
	c.times.sent(p.PSN, p.SentAt) // a resend's ACK is no sample (Karn)
	p.IB().AckReq = true
}

// signal takes an ACK's delay sample and the packets it newly acknowledges, a NAK's loss,
// or a retransmit timeout; it says the window may have opened, and that the flow stops
// pacing when the window has grown to a packet or more.
func (c *swiftCC) signal(s ccSignal) ccAck {
	switch s.event {
	case ccTimedOut:
		c.timedOut(s.now)
		return 0
	case ccNotified:
		return 0
	}
	now := s.now
	n := float64(0)
	if una := uint32(s.una); una > c.una {
		n, c.una = float64(una-c.una), una
	}
	switch {
	case s.event == ccLost:
		c.s.FastRecovery(now)
	case n > 0:
		rtt := c.times.sample(s.psn, now)
		if rtt == 0 {
			return ccWindow
		}
		c.s.Ack(now, rtt, 0, n)
	default:
		return 0
	}
	was := c.paced
	c.paced = c.s.Cwnd() < 1
	if was && !c.paced {
		return ccWindow | ccUnpace
	}
	return ccWindow
}

// timedOut is a retransmit timeout: Algorithm 1's "On Retransmit Timeout".
func (c *swiftCC) timedOut(now sim.Time) {
	c.s.Timeout(now)
	c.paced = c.s.Cwnd() < 1
}

// SwiftOf is flow i's Swift window computation (RoCE's cc swift or UET's), nil for a flow
// without Swift.
func (r *Registry) SwiftOf(i int32) *Swift {
	if u, ok := r.senders[i].(*UETSender); ok {
		if c, ok := u.cc.(*uetSwift); ok {
			return c.s
		}
		return nil
	}
	if s, ok := r.senders[i].(*RoCESender); ok {
		if c, ok := s.cc.(*swiftCC); ok {
			return c.s
		}
	}
	return nil
}
