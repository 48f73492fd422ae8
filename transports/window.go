package transports

// WindowPackets is flow i's congestion window now, in full packets, and true, when its
// sender's congestion control holds a window other than TCP's (TCPStats has that one):
// Swift's min(fcwnd, ecwnd), in packets as the paper counts them (below 1 the flow is
// paced), or UET NSCC's cwnd, in bytes of whole packets (payload and headers), over a full
// packet's bytes. False for any other flow, and for a UET flow before it started (NSCC has
// no packet size yet). Read-only; call it where no partition runs.
func (r *Registry) WindowPackets(i int32) (float64, bool) {
	switch s := r.senders[i].(type) {
	case *RoCESender:
		if c, ok := s.cc.(*swiftCC); ok {
			return c.s.Cwnd(), true
		}
	case *UETSender:
		if c, ok := s.cc.(*uetNSCC); ok && c.c.p.mtu > 0 {
			return float64(c.c.cwnd) / float64(c.c.p.mtu), true
		}
	}
	return 0, false
}
