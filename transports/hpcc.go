package transports

import (
	"errors"
	"fmt"
	"math"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// HPCC congestion control (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM
// 2019): switches stamp in-band telemetry into every data packet (topology.INT, pushed at
// egress dequeue by switchmodel), the responder echoes the stack in its ACKs, and the
// requester turns each hop's queue and transmitted bytes into a normalised inflight U and sets
// its window W and pacing rate R = W/T from it.
//
// This follows the paper's Algorithm 1 (section 3.3) and its wording, not the authors' ns-3
// code where the two differ:
//   - one U per flow, the largest over the hops of u_j = min(qlen, previous qlen)/(B_j T) +
//     txRate_j/B_j, smoothed by an EWMA of weight tau/T (tau, the time between the two INT
//     records of the hop that gave the largest u_j, capped at T); the code's per-hop
//     "MultiRate" variant is not modelled;
//   - the reference window Wc is updated once per RTT, when an ACK acknowledges a packet sent
//     after the previous update (ack.seq > lastUpdateSeq, then lastUpdateSeq = snd_nxt); every
//     other ACK computes W from Wc without changing Wc or the stage (fast reaction);
//   - the window is in bytes and counts wire bytes (frame, preamble and gap) of the packets in
//     flight, as the switches' txBytes do, so that U = eta means the links carry eta x their
//     line rate on the wire.
//
// Where the paper is silent the choices are: U starts at 1 and the first ACK only stores its
// INT (as the authors' code); W never goes above W_init = line x T (the NIC cannot send
// faster) and never below one W_AI; sequence numbers are PSNs.
type HPCCParams struct {
	// Eta is the target utilisation (the paper's eta, 0.95).
	Eta float64
	// MaxStage is the number of additive-increase steps before a multiplicative step toward
	// eta even when U is below it (the paper's maxStage, 5).
	MaxStage int
	// AI is the additive-increase rate: W_AI = AI x T. 0 takes 10 Mb/s per 25 Gb/s of the
	// sender's line rate, the authors' run.py setting.
	AI sim.Rate
	// BaseRTT is T, the flow's base round-trip time. 0: the caller sets it for the flow from
	// its path (Registry.SetPath) before the flow starts.
	BaseRTT sim.Time
}

// validate reports the first parameter HPCC cannot run with.
func (p *HPCCParams) validate() error {
	switch {
	case !(p.Eta > 0 && p.Eta <= 1):
		return fmt.Errorf("HPCC eta %v: the target utilisation is in (0, 1]", p.Eta)
	case p.MaxStage < 0:
		return fmt.Errorf("HPCC max_stage %d: it must not be negative", p.MaxStage)
	case p.AI < 0:
		return fmt.Errorf("HPCC ai %v: it must not be negative", p.AI)
	case p.BaseRTT < 0:
		return fmt.Errorf("HPCC base RTT %v: it must not be negative", p.BaseRTT)
	}
	return nil
}

// defaultAIPer25G is the authors' additive increase, 10 Mb/s per 25 Gb/s of line rate
// (simulation/run.py: ai = 10 * bw / 25 Mb/s).
const defaultAIPer25G = 10 * sim.Mbps

// HPCC is the reaction point of one flow: a pure state machine fed the echoed INT of each
// ACK, with no engine or packets of its own.
type HPCC struct {
	P    HPCCParams
	Line sim.Rate // the sender's line rate B_NIC
	T    sim.Time // the base RTT

	wInit, wAI float64 // bytes
	w, wc      float64 // the window and the reference window, bytes
	u          float64 // the smoothed normalised inflight
	incStage   int
	lastUpdate uint32 // lastUpdateSeq
	prev       topology.INT
	started    bool // an INT has been stored

	// Updates counts the per-RTT updates of Wc, FastReacts the other ACKs that set W.
	Updates, FastReacts int64
	// Stats says what the flow measured (for diagnosis; it changes nothing).
	Stats HPCCStats
}

// HPCCStats is what one flow's reaction point has measured since it started: how its Wc
// updates went and what its U was made of. Flows sharing a bottleneck see the same txRate
// but each samples the queue at its own packets, so their queue terms can differ
// (docs/model.md, HPCC fairness).
type HPCCStats struct {
	MI, AI int64   // Wc updates that were multiplicative (U >= eta or maxStage reached) or additive
	SumU   float64 // U at the Wc updates (mean: SumU / (MI + AI))
	// Over the INT samples folded into U, each weighted by its EWMA weight tau/T: the
	// weights, the queue term min(qlen, prev qlen)/(B T) and the rate term txRate/B of the hop
	// that gave the largest u_j (time-weighted means: SumQ/SumK, SumTx/SumK).
	Samples           int64
	SumK, SumQ, SumTx float64
}

// NewHPCC returns the reaction point of a flow sending at line rate with base RTT t (which may
// be 0 until SetBaseRTT).
func NewHPCC(p HPCCParams, line sim.Rate, t sim.Time) *HPCC {
	h := &HPCC{P: p, Line: line, u: 1}
	if h.P.AI == 0 {
		h.P.AI = sim.Rate(int64(line) / int64(25*sim.Gbps/defaultAIPer25G))
	}
	h.SetBaseRTT(t)
	return h
}

// SetBaseRTT sets T, and with it W_init = line x T (the window starts there: HPCC has no slow
// start) and W_AI = AI x T.
func (h *HPCC) SetBaseRTT(t sim.Time) {
	h.T = t
	h.wInit = float64(h.Line) / 8 * t.Seconds()
	h.wAI = float64(h.P.AI) / 8 * t.Seconds()
	h.w, h.wc = h.wInit, h.wInit
}

// Window is W in bytes.
func (h *HPCC) Window() float64 { return h.w }

// U is the smoothed normalised inflight.
func (h *HPCC) U() float64 { return h.u }

// Rate is the pacing rate R = W/T.
func (h *HPCC) Rate() sim.Rate {
	if h.T <= 0 {
		return h.Line
	}
	return sim.Rate(math.Round(h.w * 8 / h.T.Seconds()))
}

// OnAck is Algorithm 1's NewACK: ackSeq is the PSN the ACK says the responder expects next,
// sndNxt the next PSN the requester will send, in the echoed telemetry.
func (h *HPCC) OnAck(ackSeq, sndNxt uint32, in *topology.INT) {
	if !h.started || in.N != h.prev.N {
		// The first feedback, or the path changed: store the records, compare from the next.
		h.store(in)
		h.lastUpdate = sndNxt
		return
	}
	u, ok := h.measureInflight(in)
	h.store(in)
	if !ok {
		return // no hop advanced in time: nothing measured
	}
	if ackSeq > h.lastUpdate {
		if u >= h.P.Eta || h.incStage >= h.P.MaxStage {
			h.Stats.MI++
		} else {
			h.Stats.AI++
		}
		h.Stats.SumU += u
		h.w = h.computeWind(u, true)
		h.lastUpdate = sndNxt
		h.Updates++
	} else {
		h.w = h.computeWind(u, false)
		h.FastReacts++
	}
}

func (h *HPCC) store(in *topology.INT) {
	h.prev.N = in.N
	copy(h.prev.Hops[:in.N], in.Hops[:in.N])
	h.started = true
}

// measureInflight is Algorithm 1's MeasureInflight: the largest hop's normalised inflight
// folded into U with weight tau/T. It reports false when no hop's records are apart in time.
func (h *HPCC) measureInflight(in *topology.INT) (float64, bool) {
	var umax, qmax, txmax float64
	var tau sim.Time
	found := false
	for j := range int(in.N) {
		cur, old := &in.Hops[j], &h.prev.Hops[j]
		dt := cur.At - old.At
		if dt <= 0 || cur.Rate <= 0 {
			continue
		}
		b := float64(cur.Rate) / 8 // bytes per second
		txRate := float64(cur.TxBytes-old.TxBytes) / dt.Seconds()
		q := float64(min(cur.QLen, old.QLen)) / (b * h.T.Seconds())
		if uj := q + txRate/b; !found || uj > umax {
			umax, tau, found = uj, dt, true
			qmax, txmax = q, txRate/b
		}
	}
	if !found {
		return 0, false
	}
	tau = min(tau, h.T)
	k := tau.Seconds() / h.T.Seconds()
	h.u = (1-k)*h.u + k*umax
	st := &h.Stats
	st.Samples++
	st.SumK += k
	st.SumQ += k * qmax
	st.SumTx += k * txmax
	return h.u, true
}

// computeWind is Algorithm 1's ComputeWind: a multiplicative step toward eta when U is at or
// above it or after MaxStage additive steps, else an additive step; Wc and the stage change
// only when updateWc.
func (h *HPCC) computeWind(u float64, updateWc bool) float64 {
	var w float64
	if u >= h.P.Eta || h.incStage >= h.P.MaxStage {
		w = h.wc/(u/h.P.Eta) + h.wAI
		if updateWc {
			h.incStage = 0
		}
	} else {
		w = h.wc + h.wAI
		if updateWc {
			h.incStage++
		}
	}
	w = min(max(w, h.wAI), h.wInit)
	if updateWc {
		h.wc = w
	}
	return w
}

// hpccCC is cc hpcc on the requester: the HPCC reaction point, the window it keeps over
// the packets in flight, and the telemetry header each data packet carries.
type hpccCC struct {
	h        *HPCC
	pool     *topology.Pool
	fullWire int64 // the wire bytes of a full packet, with its INT header
	pathT    bool  // T is the path's (no BaseRTT configured): setPath sets it
}

func (p *HPCCParams) check(version int) error {
	if version == 1 {
		return errors.New("HPCC over RoCE v1: its telemetry rides in RoCE v2 packets only")
	}
	return p.validate()
}

func (*HPCCParams) rateBased() {}

// newCC returns the reaction point of a flow of cfg from NIC src of line rate line.
func (p *HPCCParams) newCC(src *NIC, cfg *RoCEConfig, line sim.Rate, _ sim.Time, _ uint32) senderCC {
	return &hpccCC{h: NewHPCC(*p, line, p.BaseRTT), pool: src.pool, pathT: p.BaseRTT == 0,
		fullWire: frames.RoCEWireBytes(cfg.Version, int64(cfg.MTU), false) + topology.INTHeader}
}

// setPath gives T the flow's path's base RTT, unless BaseRTT was configured.
func (c *hpccCC) setPath(s *RoCESender, p Path) {
	if c.pathT {
		c.h.SetBaseRTT(s.cfg.HPCCBaseRTT(p))
	}
}

// start checks, as the flow starts, that it has a base RTT.
func (c *hpccCC) start() string {
	if c.h.T > 0 {
		return ""
	}
	return "HPCC needs the flow's base RTT: set transports.rocev2.hpcc.base_rtt, or the path must be known"
}

// rate is the pacing rate W/T while it is below the line rate.
func (c *hpccCC) rate() (sim.Rate, bool) {
	r := c.h.Rate()
	return r, r < c.h.Line
}

// inflight is the wire bytes of n packets in flight, each counted as a full packet.
func (c *hpccCC) inflight(n int64) float64 { return float64(n) * float64(c.fullWire) }

// windowOpen lets a packet go while less than W is in flight without it (so up to one packet
// over, as the authors' sender).
func (c *hpccCC) windowOpen(flight int64) bool { return c.inflight(flight-1) < c.h.w }

// sent gives a data packet its INT header (sealing it again: the header lengthens the
// frame), and asks for an ACK at once (the BTH AckReq bit) when it fills the window, so that
// coalesced ACKs cannot leave the window shut.
func (c *hpccCC) sent(p *topology.Packet, flight int64) {
	p.INT = c.pool.GetINT()
	p.Seal()
	if c.inflight(flight-1)+float64(c.fullWire) >= c.h.w {
		p.IB().AckReq = true
	}
}

// signal feeds an ACK's or NAK's echoed telemetry to the reaction point.
func (c *hpccCC) signal(s ccSignal) ccAck {
	if s.event > ccLost || s.telemetry == nil {
		return 0
	}
	c.h.OnAck(uint32(s.una), uint32(s.next), s.telemetry)
	return ccWindow
}

// hpccKeep takes a data packet's INT for the next ACK to echo (the newest wins). Once the
// flow has completed nothing is echoed (its last ACK took the last record), so a late
// duplicate's record goes straight back to the pool.
func (r *RoCEReceiver) hpccKeep(p *topology.Packet) {
	if r.echo != nil {
		r.dst.pool.PutINT(r.echo)
		r.echo = nil
	}
	if !r.flow.receiverOpen() {
		r.dst.pool.PutINT(p.INT)
		p.INT = nil
		return
	}
	r.echo, p.INT = p.INT, nil
}

// HPCCOf is flow i's HPCC reaction point, nil for a flow without HPCC.
func (r *Registry) HPCCOf(i int32) *HPCC {
	if s, ok := r.senders[i].(*RoCESender); ok {
		if c, ok := s.cc.(*hpccCC); ok {
			return c.h
		}
	}
	return nil
}
