package transports

// renoAck is the scoreboard without SACK, as Linux emulates it for NewReno (RFC 6582): each
// duplicate ACK counts one segment as having left the network; the third marks una lost; in
// recovery a partial ACK marks the new una lost and resends it at once.
func (s *IWARPSender) renoAck(advanced bool, acked, outstandingBefore int64) {
	sb := &s.sb
	outstanding := s.nxt - s.una
	if !advanced {
		if outstandingBefore == 0 {
			return
		}
		s.dupacks++
		sb.sacked = min(sb.sacked+1, max(outstanding-1, 0))
		if s.dupacks >= 3 {
			sb.markLostBelow(s.una, s.una+1)
		}
		return
	}
	s.dupacks = 0
	if s.ca == caRecovery && s.una < s.recoverAt {
		sb.sacked = max(sb.sacked-(acked-1), 0)
		sb.markLostBelow(s.una, s.una+1)
		s.fastRetx = true
	} else {
		sb.sacked = 0
	}
	sb.sacked = min(sb.sacked, max(outstanding-1, 0))
}
