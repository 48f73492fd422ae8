package transports

import "github.com/fabricsim/fabricsim/topology"

// renoRecovery is loss recovery without SACK, NewReno's (RFC 6582), on the scoreboard as
// Linux emulates it: each duplicate ACK counts one segment as having left the network; the
// third marks una lost; in recovery a partial ACK marks the new una lost and resends it at
// once.
type renoRecovery struct {
	s       *IWARPSender
	dupacks int // duplicate ACKs in a row
}

// onAck counts a duplicate ACK, or takes a cumulative one (partial in recovery, or not). It
// SACKs nothing.
func (r *renoRecovery) onAck(_ *topology.Packet, _, prevUna int64) int64 {
	s := r.s
	sb := &s.sb
	outstanding := s.nxt - s.una
	if s.una == prevUna {
		if outstanding == 0 {
			return 0
		}
		r.dupacks++
		sb.sacked = min(sb.sacked+1, max(outstanding-1, 0))
		if r.dupacks >= 3 {
			sb.markLostBelow(s.una, s.una+1)
		}
		return 0
	}
	r.dupacks = 0
	if s.ca == caRecovery && s.una < s.recoverAt {
		acked := s.una - prevUna
		sb.sacked = max(sb.sacked-(acked-1), 0)
		sb.markLostBelow(s.una, s.una+1)
		s.fastRetx = true
	} else {
		sb.sacked = 0
	}
	sb.sacked = min(sb.sacked, max(outstanding-1, 0))
	return 0
}

// rescue: without SACK there is no rule 3.
func (r *renoRecovery) rescue() int64 { return -1 }

// rtoExpired forgets the duplicate ACKs.
func (r *renoRecovery) rtoExpired() {
	r.dupacks = 0
	r.s.sb.sacked = 0
}
