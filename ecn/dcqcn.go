package ecn

import (
	"math"

	"github.com/fabricsim/fabricsim/sim"
)

// Params are the parameters of DCQCN's reaction and notification points, named as in the
// paper (and, in comments, as NVIDIA's firmware names them). PaperParams and NVIDIAParams give the two default sets.
type Params struct {
	// G is the gain of the alpha estimate: alpha = (1-G) alpha + G on congestion.
	G float64
	// AlphaInit is alpha before the first CNP.
	AlphaInit float64
	// AlphaPeriod (the paper's tau', NVIDIA's DCE_TCP_RTT): alpha is updated once per period.
	AlphaPeriod sim.Time
	// RateTimer (the paper's T, NVIDIA's RPG_TIME_RESET): one rate-increase event per period.
	RateTimer sim.Time
	// ByteCounter (the paper's B, NVIDIA's RPG_BYTE_RESET): one rate-increase event per this
	// many bytes sent. 0 turns the byte counter off, and the timer's stage alone decides, as
	// in NVIDIA-style models: fast recovery for F stages, one additive step, then hyper.
	ByteCounter int64
	// F (NVIDIA's RPG_THRESHOLD) is the number of fast-recovery stages before additive
	// increase (one counter past F) and hyper increase (both past F).
	F int
	// RAI and RHAI are the additive and hyper increase steps (RPG_AI_RATE, RPG_HAI_RATE).
	RAI, RHAI sim.Rate
	// HyperLinear makes hyper increase add i x RHAI at its i-th stage, as QCN and the DCQCN
	// authors' code do; otherwise each hyper step adds RHAI, as NVIDIA-style models do.
	HyperLinear bool
	// MinRate (RPG_MIN_RATE) is the floor of the current rate.
	MinRate sim.Rate
	// DecreasePeriod (RATE_REDUCE_MONITOR_PERIOD): the rate is cut at most once per period,
	// at the end of a period in which a CNP arrived; 0 cuts at every CNP.
	DecreasePeriod sim.Time
	// AlphaOnCNP updates alpha at the CNP itself, after the cut (the paper); otherwise a CNP
	// only marks its alpha period, and alpha rises at the period's end (NVIDIA).
	AlphaOnCNP bool
	// CNPInterval (the paper's N, NVIDIA's MIN_TIME_BETWEEN_CNPS) is the notification point's
	// minimum gap between two CNPs of a flow (or of a port, with PortPacing).
	CNPInterval sim.Time
	// NP is the notification point's rule: NPWindow (the paper mode's default, the authors'
	// code) answers the marks of each window of a per-flow timer at its end, NPPaper (the
	// SIGCOMM'15 text) answers a mark at once and the later marks at their window's end,
	// NPImmediateOnly (the nvidia mode's default, as NVIDIA documents it) forgets the marks
	// inside the interval.
	NP NPRule
	// PortPacing paces CNPs per NIC port instead of per flow: every flow a host receives
	// shares one pacer, at most one CNP per CNPInterval from the port (ConnectX
	// MIN_TIME_BETWEEN_CNPS is "minimum time between sending cnps from the port").
	PortPacing bool
}

// PaperParams are the DCQCN paper's defaults (SIGCOMM 2015, as collected in physics
// references 3.2 from the authors' fluid model and ns-3 code): g = 1/256, alpha starting at
// 1, tau' = T = 55 us, B = 10 MB, F = 5, R_AI = 40 Mb/s, CNP interval 50 us. R_HAI is not in
// the paper's text; 200 Mb/s, with i x R_HAI at hyper stage i, is the authors' ns-3
// (bobzhuyb/ns3-rdma, mix/config.txt). The paper sets no minimum rate; 1 Mb/s is NVIDIA's.
func PaperParams() Params {
	return Params{
		G: 1.0 / 256, AlphaInit: 1, AlphaPeriod: 55 * sim.Microsecond, RateTimer: 55 * sim.Microsecond,
		ByteCounter: 10_000_000, F: 5, RAI: 40 * sim.Mbps, RHAI: 200 * sim.Mbps, HyperLinear: true,
		MinRate: 1 * sim.Mbps, AlphaOnCNP: true, CNPInterval: 50 * sim.Microsecond, NP: NPWindow,
	}
}

// NVIDIAParams are the ConnectX firmware defaults (docs/model.md section 4): NVIDIA's DOCA
// page "DCQCN CC Parameters" (ConnectX-4 and later) and the device values of mlxconfig
// dumps: alpha EWMA weight 1019/1024 (DCE_TCP_G, so g = 5/1024) updated every 1 us
// (DCE_TCP_RTT), INITIAL_ALPHA_VALUE 1023/1023, a rate cut at most every 4 us
// (RATE_REDUCE_MONITOR_PERIOD), rate timer 300 us (RPG_TIME_RESET), a byte counter of 32767
// bytes (RPG_BYTE_RESET: "transmitted data between rate increases if no CNPs are received,
// given in bytes, 0 disables", in mstflint's mlxconfig parameter text; IEEE 802.1Qau's
// rpg_byte_reset, as Linux's dcbnl.h documents struct ieee_qcn), one fast-recovery stage
// (RPG_THRESHOLD), AI 5 Mb/s and HAI 50 Mb/s per step, minimum rate 1 Mb/s, and 4 us between
// CNPs (MIN_TIME_BETWEEN_CNPS), paced per port as the firmware's description of that setting
// says ("minimum time between sending cnps from the port"), with marks inside the interval
// forgotten (NPImmediateOnly).
func NVIDIAParams() Params {
	return Params{
		G: 5.0 / 1024, AlphaInit: 1, AlphaPeriod: 1 * sim.Microsecond, RateTimer: 300 * sim.Microsecond,
		ByteCounter: 32767, F: 1, RAI: 5 * sim.Mbps, RHAI: 50 * sim.Mbps, MinRate: 1 * sim.Mbps,
		DecreasePeriod: 4 * sim.Microsecond, CNPInterval: 4 * sim.Microsecond, PortPacing: true,
		NP: NPImmediateOnly,
	}
}

// ReactionPoint is the sender side of DCQCN for one flow: a rate limiter whose current rate
// Rc falls on each congestion notification and climbs back by fast recovery, additive and
// hyper increase toward a target Rt. Alpha is kept lazily (it decays by (1-G) per
// AlphaPeriod without congestion, so no event is needed for it); rate-increase timers and
// deferred cuts are run by the caller at the times the methods return.
type ReactionPoint struct {
	P    Params
	Line float64 // the line rate, bits/s: no rate goes above it

	rc, rt    float64 // current and target rate, bits/s
	alpha     float64 // as of alphaAt
	alphaAt   sim.Time
	cnpInTick bool // NVIDIA: a CNP arrived in the alpha period that ends after alphaAt

	timerStage, byteStage int
	bytes                 int64
	cutPending            bool
	lastCut               sim.Time
	cutDone               bool
	// Cuts counts rate decreases.
	Cuts int64
}

// NewReactionPoint returns a flow's reaction point at line rate (DCQCN has no slow start).
func NewReactionPoint(p Params, line sim.Rate) *ReactionPoint {
	l := float64(line)
	return &ReactionPoint{P: p, Line: l, rc: l, rt: l, alpha: p.AlphaInit}
}

// Start tells the reaction point when its flow starts sending (it is built when the flow
// is set up, which may be earlier): alpha keeps AlphaInit until then and decays from then
// on, so a flow that joins late starts with alpha = AlphaInit like any other.
func (rp *ReactionPoint) Start(now sim.Time) { rp.alphaAt = now }

// Rate is the current rate Rc.
func (rp *ReactionPoint) Rate() sim.Rate { return sim.Rate(math.Round(rp.rc)) }

// Target is the target rate Rt.
func (rp *ReactionPoint) Target() sim.Rate { return sim.Rate(math.Round(rp.rt)) }

// Alpha is the congestion estimate at now.
func (rp *ReactionPoint) Alpha(now sim.Time) float64 {
	rp.advanceAlpha(now)
	return rp.alpha
}

// advanceAlpha applies the alpha periods that ended by now: a period in which a CNP arrived
// (NVIDIA mode) raises alpha by G, the others decay it by (1-G).
func (rp *ReactionPoint) advanceAlpha(now sim.Time) {
	if rp.P.AlphaPeriod <= 0 || now < rp.alphaAt+rp.P.AlphaPeriod {
		return
	}
	k := int64((now - rp.alphaAt) / rp.P.AlphaPeriod)
	rp.alphaAt += sim.Time(k) * rp.P.AlphaPeriod
	if rp.cnpInTick {
		rp.alpha = (1-rp.P.G)*rp.alpha + rp.P.G
		rp.cnpInTick = false
		k--
	}
	rp.alpha *= math.Pow(1-rp.P.G, float64(k))
}

// CNP handles a congestion notification at now. It returns the time at which the caller must
// call Cut (the rate is cut at most once per DecreasePeriod), or 0 when the cut was made at
// once; and, in either case, the rate-increase timer restarts: the next RateTimer event is
// due at now + RateTimer.
func (rp *ReactionPoint) CNP(now sim.Time) (cutAt sim.Time) {
	rp.timerStage, rp.byteStage, rp.bytes = 0, 0, 0
	rp.advanceAlpha(now)
	if !rp.P.AlphaOnCNP {
		rp.cnpInTick = true
	}
	if rp.P.DecreasePeriod == 0 || !rp.cutDone || now >= rp.lastCut+rp.P.DecreasePeriod {
		rp.cut(now)
		return 0
	}
	rp.cutPending = true
	return rp.lastCut + rp.P.DecreasePeriod
}

// Cut makes a deferred cut due at now (see CNP).
func (rp *ReactionPoint) Cut(now sim.Time) {
	if rp.cutPending {
		rp.cut(now)
	}
}

func (rp *ReactionPoint) cut(now sim.Time) {
	rp.advanceAlpha(now)
	rp.cutPending = false
	rp.cutDone, rp.lastCut = true, now
	rp.rt = rp.rc
	rp.rc = max(rp.rc*(1-rp.alpha/2), float64(rp.P.MinRate))
	if rp.P.AlphaOnCNP {
		// The paper updates alpha on the CNP, after the cut; the alpha timer restarts.
		rp.alpha = (1-rp.P.G)*rp.alpha + rp.P.G
		rp.alphaAt = now
	}
	rp.Cuts++
}

// RateTimer handles a rate-increase timer event; it reports whether the timer should keep
// running (false once both rates are back at line rate).
func (rp *ReactionPoint) RateTimer(now sim.Time) bool {
	rp.timerStage++
	rp.increase()
	return rp.rc < rp.Line || rp.rt < rp.Line
}

// Sent counts bytes sent at the current rate, for the byte counter.
func (rp *ReactionPoint) Sent(n int64) {
	if rp.P.ByteCounter <= 0 || (rp.rc >= rp.Line && rp.rt >= rp.Line) {
		return
	}
	rp.bytes += n
	for rp.bytes >= rp.P.ByteCounter {
		rp.bytes -= rp.P.ByteCounter
		rp.byteStage++
		rp.increase()
	}
}

// increase is one rate-increase event: fast recovery while both counters are at most F,
// additive increase when one is past it, hyper increase when both are. Without a byte
// counter, the timer stage F+1 is additive and the later ones hyper.
func (rp *ReactionPoint) increase() {
	f := rp.P.F
	if rp.P.ByteCounter <= 0 {
		switch {
		case rp.timerStage > f+1:
			rp.rt += float64(rp.P.RHAI)
		case rp.timerStage == f+1:
			rp.rt += float64(rp.P.RAI)
		}
		rp.rt = min(rp.rt, rp.Line)
		rp.rc = min((rp.rt+rp.rc)/2, rp.Line)
		return
	}
	switch {
	case rp.timerStage > f && rp.byteStage > f:
		step := float64(rp.P.RHAI)
		if rp.P.HyperLinear {
			step *= float64(min(rp.timerStage, rp.byteStage) - f)
		}
		rp.rt += step
	case rp.timerStage > f || rp.byteStage > f:
		rp.rt += float64(rp.P.RAI)
	}
	rp.rt = min(rp.rt, rp.Line)
	rp.rc = min((rp.rt+rp.rc)/2, rp.Line)
}
