package transports

import (
	"fmt"
	"math"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// TIMELY congestion control (Mittal et al., "TIMELY: RTT-based Congestion Control for the
// Datacenter", SIGCOMM 2015): the sender measures round-trip times with the NIC's send and
// completion timestamps and sets its pacing rate from them, with no switch support: below
// T_low it adds delta, above T_high it cuts in proportion to how far the RTT is over, and in
// between it follows the RTT gradient, the smoothed difference of successive RTTs over the
// minimum RTT: a falling or flat RTT adds delta (N x delta in hyperactive increase, after
// HAIThreshold falling RTTs in a row), a rising one cuts the rate by beta x gradient.
//
// The rate rule is the paper's Algorithm 1 as the first author published it
// (people.eecs.berkeley.edu/~radhika/timely-code-snippet.cc, getNewRate, "the snippet"),
// with its delta_factor: each step is scaled by the time since the previous update over
// minRTT, at most 1. The paper's text could not be retrieved where this was written. The
// defaults are those of the HPCC authors' ns-3 (alibaba-edu/High-Precision-Congestion-Control
// at 9f4be2a, simulation/src/point-to-point/model/rdma-hw.cc, RdmaHw::GetTypeId lines
// 142-166: TimelyAlpha 0.875, TimelyBeta 0.8, TimelyTLow 50 us, TimelyTHigh 500 us,
// TimelyMinRtt 20 us; simulation/run.py lines 132-134: ai = 10 Mb/s and hai = 50 Mb/s per
// 10 Gb/s of line rate), whose sender, like this one, paces packet by packet and updates
// once per RTT, but for T_low: 0, the snippet's value for per-packet pacing (its 50 us is for
// 64 KB segments sent in bursts). docs/model.md says what the other values do at 100 Gb/s:
// T_low 50 us drains the queue at every cut, the snippet's alpha 0.02 (meant for an update
// per completion) lets it swing past T_high.
//
// The RTT samples: TIMELY times a segment (16-64 KB) from its send to its completion, less
// its serialization at line rate. Here the NIC paces packet by packet, and the requester
// times one packet per round trip, as a NIC timestamps a work request and its completion:
// the first new packet sent while no packet is timed. It asks for an ACK at once (BTH
// AckReq), so that the sample holds no wait for a coalesced ACK, and RTT = completion - send
// - the packet's serialization at line rate. A resend at or below the timed PSN drops the
// sample (Karn's rule: its ACK could be the original's). One update per sample, so once per
// round trip, as the HPCC authors' UpdateRateTimely (rdma-hw.cc lines 923-990) updates once
// per RTT.
type TIMELYParams struct {
	// Alpha is the EWMA weight of a new RTT difference in the smoothed one (HPCC ns-3
	// TimelyAlpha 0.875, with one update per RTT as here; the snippet's ewma_alpha 0.02 is
	// for an update per completion).
	Alpha float64
	// Beta is the multiplicative decrease factor (the snippet's decreaseFactor and HPCC ns-3
	// TimelyBeta: 0.8).
	Beta float64
	// TLow is T_low: below it the rate only grows by delta (the snippet: 0 with per-packet
	// pacing, 50 us with 64 KB segments; HPCC ns-3 TimelyTLow 50 us).
	TLow sim.Time
	// THigh is T_high: above it the rate is cut by beta x (1 - T_high/RTT) (HPCC ns-3
	// TimelyTHigh 500 us; the snippet recommends 1 ms).
	THigh sim.Time
	// MinRTT normalises the gradient and the delta factor: the minimum network RTT (HPCC
	// ns-3 TimelyMinRtt 20 us).
	MinRTT sim.Time
	// Delta is the additive increment delta. 0: 10 Mb/s per 10 Gb/s of the sender's line rate
	// (the snippet: "10Mbps for 10Gbps line rate"; HPCC run.py: ai = 10 x bw / 10 Mb/s).
	Delta sim.Rate
	// HAIThreshold is how many completions with a falling RTT in a row switch the gradient
	// rule's increase to N x delta (the snippet's HAI_Thresh 5).
	HAIThreshold int
	// N is the hyperactive increase's multiple of delta (5: HPCC run.py's hai = 5 x ai).
	N int
	// MinRate is the floor of the rate (the snippet: optional; HPCC ns-3 MinRate 100 Mb/s).
	MinRate sim.Rate
	// Rule is the rate rule: TIMELYPaper (the snippet's) or TIMELYHPCCNS3 (the HPCC
	// authors' ns-3's).
	Rule TIMELYRule
}

// TIMELYRule is which rate rule TIMELY follows.
type TIMELYRule uint8

// TIMELY's rules.
const (
	// TIMELYPaper is Algorithm 1 as the snippet gives it: every step, up or down, is scaled
	// by the time since the previous update over minRTT, at most 1; below T_low the rate
	// adds delta, and hyperactive increase (N x delta) needs HAIThreshold falling RTTs in a
	// row and applies to the gradient rule only.
	TIMELYPaper TIMELYRule = iota
	// TIMELYHPCCNS3 is the HPCC authors' ns-3 (alibaba-edu/High-Precision-Congestion-Control
	// at 9f4be2a, simulation/src/point-to-point/model/rdma-hw.cc, UpdateRateTimely, lines
	// 932-990): no update on the first RTT, which only sets lastRtt (lines 936, 989); full
	// steps, unscaled by the time since the last update; an increase, below T_low or on a
	// gradient <= 0, adds rai while fewer than five increases came in a row and rhai (N x
	// delta) after (lines 959-966, m_incStage: counted at 969, reset by any decrease at
	// 976; the five is HAIThreshold here); a decrease takes the rate to max(MinRate, rate x
	// c) (line 973).
	TIMELYHPCCNS3
)

// DefaultTIMELYParams are the parameters above: Delta 0 takes the line-rate rule.
func DefaultTIMELYParams() TIMELYParams {
	return TIMELYParams{Alpha: 0.875, Beta: 0.8, TLow: 0, THigh: 500 * sim.Microsecond,
		MinRTT: 20 * sim.Microsecond, HAIThreshold: 5, N: 5, MinRate: 100 * sim.Mbps}
}

// validate reports the first parameter TIMELY cannot run with.
func (p *TIMELYParams) validate() error {
	switch {
	case !(p.Alpha > 0 && p.Alpha <= 1):
		return fmt.Errorf("TIMELY alpha %v: the EWMA weight is in (0, 1]", p.Alpha)
	case !(p.Beta > 0 && p.Beta <= 1):
		return fmt.Errorf("TIMELY beta %v: the decrease factor is in (0, 1]", p.Beta)
	case p.TLow < 0 || p.THigh <= p.TLow:
		return fmt.Errorf("TIMELY t_low %v and t_high %v: 0 <= t_low < t_high", p.TLow, p.THigh)
	case p.MinRTT <= 0:
		return fmt.Errorf("TIMELY min_rtt %v: it must be positive", p.MinRTT)
	case p.Delta < 0 || p.MinRate <= 0:
		return fmt.Errorf("TIMELY delta %v and min_rate %v: delta must not be negative, min_rate must be positive", p.Delta, p.MinRate)
	case p.HAIThreshold < 1 || p.N < 1:
		return fmt.Errorf("TIMELY hai_threshold %d and n %d: both at least 1", p.HAIThreshold, p.N)
	}
	return nil
}

// TIMELY is the rate computation of one flow: a pure state machine fed RTT samples.
type TIMELY struct {
	P    TIMELYParams
	Line sim.Rate

	rate       float64  // bits/s
	prevRTT    sim.Time // the previous sample
	rttDiff    float64  // the smoothed RTT difference, seconds
	negCount   int      // samples in a row whose RTT fell
	incStage   int      // increases in a row (TIMELYHPCCNS3)
	lastUpdate sim.Time

	// Stats says what the flow measured (for diagnosis; it changes nothing).
	Stats TIMELYStats
}

// TIMELYStats counts one flow's samples and the branch each took.
type TIMELYStats struct {
	Samples                  int64
	SumRTT                   sim.Time // sum of the samples (mean: SumRTT / Samples)
	MinRTT, MaxRTT           sim.Time
	Low, High, Up, HAI, Down int64 // updates below T_low, above T_high, gradient <= 0 (of which HAI), gradient > 0
}

// NewTIMELY returns the rate computation of a flow starting at start at line rate.
func NewTIMELY(p TIMELYParams, line sim.Rate, start sim.Time) *TIMELY {
	t := &TIMELY{P: p, Line: line, rate: float64(line), lastUpdate: start}
	if t.P.Delta == 0 {
		t.P.Delta = sim.Rate(int64(line) / int64(10*sim.Gbps/(10*sim.Mbps)))
	}
	return t
}

// Rate is the pacing rate.
func (t *TIMELY) Rate() sim.Rate { return sim.Rate(math.Round(t.rate)) }

// LastRTT is the latest RTT sample (0 before the first).
func (t *TIMELY) LastRTT() sim.Time { return t.prevRTT }

// Gradient is the normalised RTT gradient: the smoothed RTT difference over MinRTT.
func (t *TIMELY) Gradient() float64 { return t.rttDiff / t.P.MinRTT.Seconds() }

// Sample is Algorithm 1 on an RTT sample taken at now.
func (t *TIMELY) Sample(now, rtt sim.Time) {
	st := &t.Stats
	if st.Samples == 0 || rtt < st.MinRTT {
		st.MinRTT = rtt
	}
	st.MaxRTT = max(st.MaxRTT, rtt)
	st.Samples++
	st.SumRTT += rtt
	if st.Samples == 1 {
		t.prevRTT = rtt // the first sample's difference is 0
		if t.P.Rule == TIMELYHPCCNS3 {
			t.lastUpdate = now
			return // rdma-hw.cc 936: no update on the first RTT
		}
	}
	diff := rtt - t.prevRTT
	if diff < 0 {
		t.negCount++
	} else {
		t.negCount = 0
	}
	t.rttDiff = (1-t.P.Alpha)*t.rttDiff + t.P.Alpha*diff.Seconds()
	g := t.Gradient()
	since := now - t.lastUpdate
	t.prevRTT, t.lastUpdate = rtt, now
	if t.P.Rule == TIMELYHPCCNS3 {
		t.hpccNS3(rtt, g)
		return
	}
	f := min(float64(since)/float64(t.P.MinRTT), 1)
	delta := float64(t.P.Delta)
	switch {
	case rtt < t.P.TLow:
		t.rate += delta * f
		st.Low++
	case rtt > t.P.THigh:
		t.rate *= 1 - f*t.P.Beta*(1-float64(t.P.THigh)/float64(rtt))
		st.High++
	case g <= 0:
		n := 1
		if t.negCount >= t.P.HAIThreshold {
			n = t.P.N
			st.HAI++
		}
		t.rate += float64(n) * delta * f
		st.Up++
	default:
		t.rate *= max(1-f*t.P.Beta*g, 0)
		st.Down++
	}
	t.rate = min(max(t.rate, float64(t.P.MinRate)), float64(t.Line))
}

// hpccNS3 is UpdateRateTimely's rate step (TIMELYHPCCNS3) on a sample rtt with gradient g.
func (t *TIMELY) hpccNS3(rtt sim.Time, g float64) {
	st := &t.Stats
	c, inc := 0.0, false
	switch {
	case rtt < t.P.TLow:
		inc = true
		st.Low++
	case rtt > t.P.THigh:
		c = 1 - t.P.Beta*(1-float64(t.P.THigh)/float64(rtt))
		st.High++
	case g <= 0:
		inc = true
		st.Up++
	default:
		c = max(1-t.P.Beta*g, 0)
		st.Down++
	}
	if !inc {
		t.rate = max(float64(t.P.MinRate), t.rate*c)
		t.incStage = 0
		return
	}
	step := float64(t.P.Delta)
	if t.incStage >= t.P.HAIThreshold {
		step *= float64(t.P.N)
		st.HAI++
	}
	t.rate = min(t.rate+step, float64(t.Line))
	t.incStage++
}

// timelyCC is cc timely on the requester: the rate computation and the one packet it times.
type timelyCC struct {
	t        *TIMELY
	timed    bool     // a packet is being timed
	timedPSN uint32   // its PSN
	timedAt  sim.Time // when it was sent
	timedTx  sim.Time // its serialization at line rate
	newFrom  uint32   // one past the highest PSN sent: a PSN below it is a resend
}

// newTIMELYCC returns the TIMELY sender of a flow starting at start from a NIC of line rate
// line.
func (p *TIMELYParams) check(int) error { return p.validate() }

func (*TIMELYParams) rateBased() {}

func (p *TIMELYParams) newCC(_ *NIC, _ *RoCEConfig, line sim.Rate, start sim.Time, _ uint32) senderCC {
	return newTIMELYCC(*p, line, start)
}

func newTIMELYCC(p TIMELYParams, line sim.Rate, start sim.Time) *timelyCC {
	return &timelyCC{t: NewTIMELY(p, line, start)}
}

func (c *timelyCC) start() string { return "" }

// rate is TIMELY's rate while it is below the line rate.
func (c *timelyCC) rate() (sim.Rate, bool) {
	r := c.t.Rate()
	return r, r < c.t.Line
}

func (c *timelyCC) windowOpen(int64) bool { return true }

// sent times the first new packet while none is timed, and drops the sample when a packet at
// or below the timed one is sent again.
func (c *timelyCC) sent(p *topology.Packet, _ int64) {
	isNew := p.PSN >= c.newFrom
	c.newFrom = max(c.newFrom, p.PSN+1)
	switch {
	case c.timed && !isNew && p.PSN <= c.timedPSN:
		c.timed = false
	case !c.timed && isNew:
		c.timed, c.timedPSN, c.timedAt = true, p.PSN, p.SentAt
		c.timedTx = c.t.Line.TxTime(p.WireBytes())
		p.IB().AckReq = true
	}
}

// signal takes the sample when an ACK's or NAK's cumulative acknowledgement passes the timed
// packet.
func (c *timelyCC) signal(s ccSignal) ccAck {
	if s.event > ccLost || !c.timed || s.una <= int64(c.timedPSN) {
		return 0
	}
	c.timed = false
	c.t.Sample(s.now, max(s.now-c.timedAt-c.timedTx, 0))
	return 0
}

// TIMELYOf is flow i's TIMELY rate computation, nil for a flow without TIMELY.
func (r *Registry) TIMELYOf(i int32) *TIMELY {
	if s, ok := r.senders[i].(*RoCESender); ok {
		if c, ok := s.cc.(*timelyCC); ok {
			return c.t
		}
	}
	return nil
}
