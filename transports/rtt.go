package transports

import (
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// rttEstimator is the RFC 6298 round-trip estimator: SRTT and RTTVAR with gains 1/8 and 1/4.
type rttEstimator struct {
	srtt, rttvar sim.Time
	valid        bool
}

func (e *rttEstimator) sample(r sim.Time) {
	if !e.valid {
		e.srtt, e.rttvar, e.valid = r, r/2, true // (2.2)
		return
	}
	d := e.srtt - r
	if d < 0 {
		d = -d
	}
	e.rttvar = (3*e.rttvar + d) / 4 // (2.3), RTTVAR first, with the old SRTT
	e.srtt = (7*e.srtt + r) / 8
}

// rto is SRTT + 4 RTTVAR (the clock granularity G is a nanosecond here), kept within
// [lo, hi] (2.4, 2.5).
func (e *rttEstimator) rto(lo, hi sim.Time) sim.Time {
	return min(max(e.srtt+max(sim.Nanosecond, 4*e.rttvar), lo), hi)
}

// sampleRTT takes an RTT sample from a segment's echoed timestamp or, without timestamps,
// from the time `sent` of the segment it acknowledges, and recomputes the RTO (which ends any
// back-off).
func (s *IWARPSender) sampleRTT(now sim.Time, p *topology.Packet, sent sim.Time) {
	var r sim.Time
	switch {
	case s.cfg.Timestamps && p.TCP().TSEcr != 0:
		r = tsElapsed(now, p.TCP().TSEcr)
	case !s.cfg.Timestamps:
		r = now - sent
	}
	if r > 0 {
		s.rtt.sample(r)
		s.rto = s.rtt.rto(s.cfg.MinRTO, s.cfg.MaxRTO)
	}
}

// tsClock is the TCP timestamp clock (RFC 7323): nanoseconds, offset by one so that a
// timestamp is never 0, which the sender takes for "no echo".
func tsClock(now sim.Time) uint32 { return uint32(now/sim.Nanosecond) + 1 }

// tsElapsed is the time since timestamp ts was taken.
func tsElapsed(now sim.Time, ts uint32) sim.Time {
	return sim.Time(tsClock(now)-ts) * sim.Nanosecond
}
