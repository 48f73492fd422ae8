package transports

import (
	"github.com/fabricsim/fabricsim/topology"
)

// Scoreboard flags of a sent segment.
const (
	segSacked   uint8 = 1 << iota // the receiver holds it (SACK)
	segLost                       // presumed lost: RFC 6675 IsLost, or everything after an RTO
	segRetx                       // retransmitted and not yet acknowledged: in flight again
	segEverRetx                   // sent more than once
)

// scoreboard is the sender's view of its segments in flight, una..nxt-1, kept in a ring (the
// receive window bounds how many can be outstanding) with counts so that the pipe of RFC
// 6675 is pipe = outstanding - sacked - lost + retransmitted, as Linux computes it, without
// a walk over the window.
type scoreboard struct {
	flags  []uint8 // ring indexed by segment & mask
	mask   int64
	sacked int64 // SACKed segments in una..nxt-1 (without SACK: duplicate ACKs, as Reno counts them)
	lost   int64 // marked lost and not SACKed
	retx   int64 // retransmitted, in flight
	// lostTo: every segment in una..lostTo-1 that is not SACKed is marked lost.
	lostTo int64
	// top holds the three highest SACKed segments, highest first (-1: none). A segment below
	// top[2] has three SACKed segments above it: RFC 6675's IsLost with DupThresh 3.
	top [3]int64
	// retxScan and rule3Scan move forward over segments that cannot be retransmitted under
	// NextSeg rules 1 and 3 until an RTO resets them, so that each pick is amortized O(1).
	retxScan, rule3Scan int64
	// cache holds the previous ACK's SACK blocks (segment ranges): they are SACKed already,
	// so a block that repeats them costs nothing.
	cache  [topology.TCPMaxSACKs][2]int64
	ncache int
}

func newScoreboard(window int64) scoreboard {
	c := int64(64)
	for c < window {
		c <<= 1
	}
	return scoreboard{flags: make([]uint8, c), mask: c - 1, top: [3]int64{-1, -1, -1}}
}

func (sb *scoreboard) capacity() int64     { return sb.mask + 1 }
func (sb *scoreboard) flag(k int64) *uint8 { return &sb.flags[k&sb.mask] }

// ackTo clears the segments from..to-1, cumulatively acknowledged, and returns how many of
// them had not been SACKed: the segments this ACK newly delivered.
func (sb *scoreboard) ackTo(from, to int64) int64 {
	var delivered int64
	for k := from; k < to; k++ {
		f := sb.flag(k)
		if *f&segSacked != 0 {
			sb.sacked--
		} else {
			delivered++
		}
		if *f&segLost != 0 && *f&segSacked == 0 {
			sb.lost--
		}
		if *f&segRetx != 0 {
			sb.retx--
		}
		*f = 0
	}
	return delivered
}

// sack marks the segments lo..hi-1 SACKed, skipping those the previous ACK's blocks covered,
// and returns how many were newly SACKed.
func (sb *scoreboard) sack(lo, hi int64) int64 {
	var n int64
	for lo < hi {
		moved := false
		for _, c := range sb.cache[:sb.ncache] {
			if c[0] <= lo && lo < c[1] {
				lo, moved = c[1], true
			}
		}
		if moved {
			continue
		}
		end := hi
		for _, c := range sb.cache[:sb.ncache] {
			if c[0] > lo && c[0] < end {
				end = c[0]
			}
		}
		for k := lo; k < end; k++ {
			if sb.markSacked(k) {
				n++
			}
		}
		lo = end
	}
	return n
}

func (sb *scoreboard) markSacked(k int64) bool {
	f := sb.flag(k)
	if *f&segSacked != 0 {
		return false
	}
	if *f&segLost != 0 {
		sb.lost--
	}
	if *f&segRetx != 0 {
		sb.retx--
	}
	*f = (*f | segSacked) &^ (segLost | segRetx)
	sb.sacked++
	switch {
	case k > sb.top[0]:
		sb.top = [3]int64{k, sb.top[0], sb.top[1]}
	case k > sb.top[1] && k != sb.top[0]:
		sb.top[2], sb.top[1] = sb.top[1], k
	case k > sb.top[2] && k != sb.top[0] && k != sb.top[1]:
		sb.top[2] = k
	}
	return true
}

// markLost applies IsLost (RFC 6675 section 4, DupThresh 3): every segment from una below
// the third-highest SACKed one that is not SACKed is lost.
func (sb *scoreboard) markLost(una int64) {
	sb.markLostBelow(una, sb.top[2])
}

// markLostBelow marks lost every segment in una..to-1 that is not SACKed nor marked yet.
func (sb *scoreboard) markLostBelow(una, to int64) {
	for k := max(sb.lostTo, una); k < to; k++ {
		f := sb.flag(k)
		if *f&(segSacked|segLost) == 0 {
			*f |= segLost
			sb.lost++
		}
	}
	sb.lostTo = max(sb.lostTo, to)
}
