package transports

import "github.com/fabricsim/fabricsim/topology"

// sackRecovery is SACK-based loss recovery (RFC 6675): the receiver's SACK blocks (RFC 2018)
// mark segments held, IsLost marks lost every unSACKed segment with three SACKed ones above
// it, and in fast recovery NextSeg's rule 3 resends what lies below the highest SACKed
// segment when nothing else may go.
type sackRecovery struct {
	s *IWARPSender
}

// onAck marks the segments the ACK's SACK blocks name (within una..nxt-1), then applies
// IsLost (RFC 6675 section 4, DupThresh 3).
func (r *sackRecovery) onAck(p *topology.Packet, ref, _ int64) int64 {
	th := p.TCP()
	s := r.s
	var sacked int64
	n := int(th.SACKBlocks)
	var blocks [topology.TCPMaxSACKs][2]int64
	for b := 0; b < n; b++ {
		lo := s.covered(unwrap(ref, th.SACK[b][0]-s.isn) - s.base)
		hi := s.covered(unwrap(ref, th.SACK[b][1]-s.isn) - s.base)
		lo, hi = max(lo, s.una), min(hi, s.nxt)
		blocks[b] = [2]int64{lo, hi}
		if lo < hi {
			sacked += s.sb.sack(lo, hi)
		}
	}
	s.sb.cache, s.sb.ncache = blocks, n
	s.sb.markLost(s.una)
	return sacked
}

// rescue is NextSeg rule 3 (RFC 6675 section 4): the lowest segment below the highest SACKed
// one that is neither SACKed, lost nor resent already.
func (r *sackRecovery) rescue() int64 {
	s, sb := r.s, &r.s.sb
	sb.rule3Scan = max(sb.rule3Scan, s.una)
	for ; sb.rule3Scan < sb.top[0]; sb.rule3Scan++ {
		if *sb.flag(sb.rule3Scan)&(segSacked|segRetx|segLost) == 0 {
			return sb.rule3Scan
		}
	}
	return -1
}

// rtoExpired keeps the SACK marks: this receiver never reneges.
func (r *sackRecovery) rtoExpired() {}
