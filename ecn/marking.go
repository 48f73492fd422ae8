// Package ecn is ECN marking and DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA
// Deployments", SIGCOMM 2015) as pure state machines: the switch's RED-style marking curve
// (the congestion point), the receiver's CNP generation (the notification point) and the
// sender's rate limiter (the reaction point). Nothing here schedules events: the switch and
// the NIC call in with the time and act on what comes back.
package ecn

// Marker is the congestion point: RED-style marking of ECN-capable packets on an egress
// queue, on the instantaneous queue length q (docs/model.md section 2): no mark at or below
// Kmin, probability rising linearly to Pmax at Kmax, always above Kmax.
type Marker struct {
	Kmin, Kmax int64 // bytes
	Pmax       float64
}

// Probability is the marking probability at queue length q bytes.
func (m Marker) Probability(q int64) float64 {
	switch {
	case q <= m.Kmin:
		return 0
	case q > m.Kmax:
		return 1
	case m.Kmax == m.Kmin:
		return m.Pmax
	}
	return float64(q-m.Kmin) / float64(m.Kmax-m.Kmin) * m.Pmax
}

// Mark decides for one packet at queue length q. draw is called for a uniform number in
// [0,1) only when the outcome is random, so a quiet queue consumes no random numbers.
func (m Marker) Mark(q int64, draw func() float64) bool {
	switch {
	case q <= m.Kmin:
		return false
	case q > m.Kmax:
		return true
	}
	return draw() < m.Probability(q)
}
