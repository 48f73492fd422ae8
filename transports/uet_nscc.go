package transports

import "github.com/fabricsim/fabricsim/sim"

// NSCC, the Ultra Ethernet transport's network-signal congestion control: a window from ECN
// marks and the measured queueing delay (the RTT less the base RTT), as uet-htsim gives it
// (htsim/sim/uec.cpp: initNsccParams, initNscc, updateCwndOnAck_NSCC, updateCwndOnNack_NSCC,
// quick_adapt, fair_increase, proportional_increase, fast_increase, multiplicative_decrease,
// fulfill_adjustment, update_base_rtt, update_delay; commit 40ccb05, "Fixed issue with NSCC
// not matching specs"). Per ACK, with delay = RTT - base RTT against the target queueing delay:
//
//	no ECN mark, delay >= target: fair increase, inc += fi x acked
//	no ECN mark, delay <  target: proportional increase, inc += alpha x acked x (target - delay),
//	                              or, while delay < 1 us for more than a window, fast increase
//	                              cwnd += fi_scale x acked
//	ECN mark,    delay >= target: multiplicative decrease, at most once per base RTT:
//	                              cwnd x= max(1 - gamma (avg_delay - target) / avg_delay, 0.5)
//	ECN mark,    delay <  target: no change (the entropy is switched instead)
//
// The increments gathered in inc are applied as cwnd += inc / cwnd once more than 8 packets'
// bytes have been acknowledged or a network RTT has passed, plus eta once per network RTT.
// Quick adapt, once per base RTT + target: after a NACK or a delay above 4 x target, when
// fewer than maxwnd / 2^qa_gate bytes were acknowledged in the period, cwnd falls to them.
// A NACK takes the trimmed packet's bytes off cwnd. cwnd stays within [one packet, maxwnd],
// maxwnd = 1.5 x BDP of the base RTT, and starts at maxwnd. The arithmetic truncates to
// whole bytes and picoseconds where uet-htsim's integer fields do.

// NSCC's constants, from uet-htsim UecSrc::initNsccParams unless said.
const (
	// nsccRefRTT and nsccRefRate make the reference BDP (100 Gb/s x 12 us) the scaling
	// factor a divides by: a = network BDP / reference BDP; b = target / 12 us.
	nsccRefRTT  = 12 * sim.Microsecond
	nsccRefRate = 100 * sim.Gbps
	// nsccGamma is the multiplicative decrease's gain; nsccMaxCut its floor (a cut keeps
	// at least half the window, multiplicative_decrease).
	nsccGamma  = 0.8
	nsccMaxCut = 0.5
	// nsccDelayAlpha is the EWMA gain of the average delay (update_delay).
	nsccDelayAlpha = 0.0125
	// nsccFastDelay is the delay below which the fast increase counts (fast_increase: 1 us).
	nsccFastDelay = sim.Microsecond
	// nsccMaxWndBDPs is maxwnd in BDPs of the base RTT (initNscc, update_base_rtt: 1.5).
	nsccMaxWndBDPs = 1.5
	// nsccAdjustPackets is how many packets' bytes acknowledged apply the gathered increase
	// (_adjust_bytes_threshold = 8 x MTU).
	nsccAdjustPackets = 8
)

// nsccParams are NSCC's per-network parameters (uet-htsim's static ones).
type nsccParams struct {
	mss, mtu          int64   // payload and packet bytes
	alpha             float64 // 4 x mss x a x b / target, bytes per picosecond
	fi, eta, fiScale  float64 // 5 x mss x a, 0.15 x mss x a, 0.25 x a
	target            sim.Time
	qaThreshold       float64 // 4 x target, picoseconds
	adjustPeriod      sim.Time
	adjustBytes, gate int64
}

// nscc is one flow's NSCC state.
type nscc struct {
	p                    nsccParams
	rate                 sim.Rate
	cwnd, maxwnd, mtu    int64 // mtu: the least window
	inflight             int64
	baseRTT, avgDelay    sim.Time
	achieved, recvd      int64 // bytes acknowledged in the quick adapt period; since the last adjustment
	ignored, toIgnore    int64
	inc, fiCount         int64
	increase, triggerQA  bool
	lastDec, lastAdjust  sim.Time
	qaEnd                sim.Time
	fair, prop, fast, md int64 // how often each rule ran
	qa, nacks            int64
}

// bdpBytes is rtt x rate in bytes.
func bdpBytes(rtt sim.Time, rate sim.Rate) float64 {
	return float64(rtt) / float64(sim.Second) * float64(rate) / 8
}

// init sets the parameters for a network of unloaded RTT network and line rate rate (the
// flow's NIC's), and the flow's state for its own base RTT; mtu is a full packet's bytes.
// nsccMaxWnd is NSCC's maxwnd for a path of base RTT base at rate: nsccMaxWndBDPs BDPs.
func nsccMaxWnd(base sim.Time, rate sim.Rate) int64 {
	return int64(nsccMaxWndBDPs * float64(int64(bdpBytes(base, rate))))
}

func (c *nscc) init(cfg *UETConfig, rate sim.Rate, base, network sim.Time, mtu int64) {
	p := nsccParams{mss: int64(cfg.MTU), mtu: mtu, target: cfg.TargetQDelay, gate: int64(cfg.QAGate)}
	if p.target == 0 {
		p.target = network // without trimming: one RTT
		if cfg.Trimming {
			p.target = sim.Time(float64(network) * 0.75)
		}
	}
	a := bdpBytes(network, rate) / bdpBytes(nsccRefRTT, nsccRefRate)
	b := float64(p.target) / float64(nsccRefRTT)
	p.alpha = 4 * float64(p.mss) * a * b / float64(p.target)
	p.fi, p.eta, p.fiScale = 5*float64(p.mss)*a, 0.15*float64(p.mss)*a, 0.25*a
	p.qaThreshold = 4 * float64(p.target)
	p.adjustPeriod, p.adjustBytes = network, nsccAdjustPackets*mtu
	*c = nscc{p: p, rate: rate, mtu: mtu, baseRTT: base}
	c.maxwnd = nsccMaxWnd(base, rate)
	c.cwnd = max(c.maxwnd, c.mtu)
}

// received takes the bytes the receiver reports newly received (processAck).
func (c *nscc) received(n int64) {
	c.achieved += n
	c.recvd += n
	c.ignored += n
	c.inflight -= n
}

func (c *nscc) bounds() { c.cwnd = min(max(c.cwnd, c.mtu), max(c.maxwnd, c.mtu)) }

// updateBaseRTT lowers the base RTT to a smaller sample, and the BDP and maxwnd with it.
func (c *nscc) updateBaseRTT(raw sim.Time) {
	if raw < c.baseRTT {
		c.baseRTT = raw
		c.maxwnd = int64(nsccMaxWndBDPs * float64(int64(bdpBytes(raw, c.rate))))
	}
}

// updateDelay folds a sample into the average delay: a delay above target on an unmarked ACK
// pulls it toward a quarter of the base RTT instead (update_delay as uet-htsim has it).
func (c *nscc) updateDelay(raw sim.Time, avg, marked bool) {
	if !avg {
		return
	}
	delay := float64(raw - c.baseRTT)
	switch {
	case !marked && delay > float64(c.p.target):
		c.avgDelay = sim.Time(nsccDelayAlpha*float64(c.baseRTT)*0.25 + (1-nsccDelayAlpha)*float64(c.avgDelay))
	default: // uet-htsim uses the same gain, 0.0125, above 5 base RTTs
		c.avgDelay = sim.Time(nsccDelayAlpha*delay + (1-nsccDelayAlpha)*float64(c.avgDelay))
	}
}

// sample takes an ACK's RTT sample (0: none): it lowers the base RTT and feeds the average
// delay, and the ACK's queueing delay is the sample less the base RTT; without a sample it is
// the average delay (processAck).
func (c *nscc) sample(rtt sim.Time, marked bool) sim.Time {
	if rtt <= 0 {
		return c.avgDelay
	}
	c.updateBaseRTT(rtt)
	c.updateDelay(rtt, true, marked)
	return rtt - c.baseRTT
}

// quickAdapt is quick_adapt: it reports whether it acted or told the caller to ignore this
// ACK (the bytes in flight when it last acted are ignored).
func (c *nscc) quickAdapt(now sim.Time, loss, marked bool, delay sim.Time) bool {
	done := false
	if c.ignored < c.toIgnore && marked {
		done = true
	} else if now > c.qaEnd {
		if c.qaEnd != 0 && (c.triggerQA || loss || float64(delay) > c.p.qaThreshold) && c.achieved < c.maxwnd>>c.p.gate {
			c.cwnd = max(c.achieved, c.mtu)
			c.toIgnore, c.ignored = c.inflight, 0
			c.triggerQA, done = false, true
			c.qa++
		}
		c.achieved = 0
		c.qaEnd = now + c.baseRTT + c.p.target
	}
	if done {
		c.inc, c.recvd = 0, 0
	}
	return done
}

// onAck is updateCwndOnAck_NSCC for an ACK that reports acked new bytes, ECN-marked or not,
// with its delay.
func (c *nscc) onAck(now sim.Time, marked bool, delay sim.Time, acked int64) {
	if c.quickAdapt(now, false, marked, delay) {
		return
	}
	switch {
	case !marked && delay >= c.p.target:
		c.inc = int64(float64(c.inc) + c.p.fi*float64(acked))
		c.fair++
	case !marked:
		c.proportional(acked, delay)
	case delay >= c.p.target:
		c.decrease(now)
	}
	c.bounds()
	if c.recvd > c.p.adjustBytes || now-c.lastAdjust > c.p.adjustPeriod {
		c.fulfill(now)
	}
	c.bounds()
}

// proportional is proportional_increase, after fast_increase's check.
func (c *nscc) proportional(acked int64, delay sim.Time) {
	if delay < nsccFastDelay {
		c.fiCount += acked
		if c.fiCount > c.cwnd || c.increase {
			c.cwnd = int64(float64(c.cwnd) + float64(acked)*c.p.fiScale)
			c.increase = true
			c.fast++
			return
		}
	} else {
		c.fiCount = 0
	}
	c.increase = false
	c.inc = int64(float64(c.inc) + c.p.alpha*float64(acked)*float64(c.p.target-delay))
	c.prop++
}

// decrease is multiplicative_decrease.
func (c *nscc) decrease(now sim.Time) {
	c.increase, c.fiCount = false, 0
	avg := c.avgDelay
	if avg > c.p.target && now-c.lastDec > c.baseRTT {
		f := max(1-nsccGamma*float64(avg-c.p.target)/float64(avg), nsccMaxCut)
		c.cwnd = max(int64(float64(c.cwnd)*f), c.mtu)
		c.lastDec = now
		c.md++
	}
}

// fulfill is fulfill_adjustment: the gathered increase, and eta once per network RTT.
func (c *nscc) fulfill(now sim.Time) {
	c.cwnd += c.inc / c.cwnd
	if now-c.lastAdjust >= c.p.adjustPeriod {
		c.cwnd = int64(float64(c.cwnd) + c.p.eta)
		c.lastAdjust = now
	}
	c.inc, c.recvd = 0, 0
}

// onNack is updateCwndOnNack_NSCC for a trimmed packet of size bytes: its bytes are
// ignored by quick adapt's count, the average delay takes a sample of one network RTT, and
// quick adapt is due; unless it acts, the window loses the packet's bytes.
func (c *nscc) onNack(now sim.Time, size int64) {
	c.ignored += size
	c.nacks++
	c.updateDelay(c.baseRTT+c.p.adjustPeriod, true, true)
	c.triggerQA = true
	if c.quickAdapt(now, true, true, 0) {
		return
	}
	c.cwnd -= size
	c.bounds()
}
