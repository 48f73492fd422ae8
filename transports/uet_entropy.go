package transports

import (
	"math/rand/v2"

	"github.com/fabricsim/fabricsim/sim"
)

// EntropyScheme is how a UET sender picks each packet's entropy value (its UDP source port:
// hashing switches send packets of one flow with other entropies down other paths).
type EntropyScheme uint8

// Entropy schemes.
const (
	// EntropyREPS recycles entropies that came back unmarked, as uet-htsim's UecMpReps
	// (htsim/sim/uec_mp.cpp, after Bonato et al.'s REPS) does: an ACK without an ECN mark
	// puts its entropy in an 8-entry ring; a packet takes the oldest fresh entropy there,
	// or, when there is none, one at random. With trimming, a timeout freezes the ring
	// (packets reuse its entropies in turn, fresh or not) for 10 ms, after which the ring is
	// emptied and the next 16 packets explore at random.
	EntropyREPS EntropyScheme = iota
	// EntropyOblivious sprays without feedback, as uet-htsim's UecMpOblivious: it walks all
	// the entropy values, each index XOR a random mask that is drawn again after every pass.
	EntropyOblivious
)

// REPS's constants (uet-htsim htsim/sim/buffer_reps.cpp and uec_mp.cpp, UecMpReps).
const (
	repsBuffer      = 8                    // CircularBufferREPS::repsBufferSize
	repsFreeze      = 10 * sim.Millisecond // exit_freeze_after: 10^10 ps
	repsExploreNext = 16                   // explore_counter after a freeze
)

// Path feedback kinds (uet-htsim UecMultipath::PathFeedback).
const (
	pathGood = iota
	pathECN
	pathNack
	pathTimeout
)

// entropyChooser is a UET sender's entropy scheme: REPS or oblivious spraying.
type entropyChooser struct {
	scheme   EntropyScheme
	paths    int
	trimming bool
	rng      *rand.Rand

	// oblivious
	index, xor int

	// REPS: the ring of recycled entropies.
	ring        [repsBuffer]uint16
	valid       [repsBuffer]bool
	head, count int
	fresh       int
	frozen      bool
	frozenHead  int
	thaw        sim.Time
	explore     int

	// Recycled and Random count REPS's choices.
	Recycled, Random int64
}

func newEntropyChooser(scheme EntropyScheme, paths int, trimming bool, rng *rand.Rand) entropyChooser {
	c := entropyChooser{scheme: scheme, paths: max(paths, 1), trimming: trimming, rng: rng}
	c.xor = c.rng.IntN(c.paths)
	return c
}

// next is the entropy of the next packet sent (nextEntropy).
func (c *entropyChooser) next(now sim.Time) uint16 {
	if c.scheme == EntropyOblivious {
		ev := (c.index ^ c.xor) & (c.paths - 1)
		if c.index++; c.index == c.paths {
			c.index, c.xor = 0, c.rng.IntN(c.paths)
		}
		return uint16(ev)
	}
	if c.frozen && now > c.thaw {
		c.thawRing()
	}
	switch {
	case c.explore > 0:
		c.explore--
	case c.frozen && c.count > 0:
		c.Recycled++
		return c.takeFrozen()
	case !c.frozen && c.fresh > 0:
		c.Recycled++
		return c.takeFresh()
	}
	c.Random++
	return uint16(c.rng.IntN(c.paths))
}

// feedback is what an ACK (good or marked), a NACK or a timeout says of entropy ev
// (processEv): only unmarked ACKs recycle; a timeout with trimming freezes the ring.
func (c *entropyChooser) feedback(now sim.Time, ev uint16, kind int) {
	if c.scheme != EntropyREPS {
		return
	}
	if kind == pathTimeout && !c.frozen && c.explore == 0 && c.trimming {
		c.frozen, c.frozenHead, c.thaw = true, 0, now+repsFreeze
	}
	if c.frozen && now > c.thaw {
		c.thawRing()
	}
	if kind == pathGood {
		c.add(ev)
	}
}

func (c *entropyChooser) thawRing() {
	c.frozen = false
	c.valid, c.head, c.count, c.fresh, c.frozenHead = [repsBuffer]bool{}, 0, 0, 0, 0
	c.explore = repsExploreNext
}

// add writes ev at the ring's head (CircularBufferREPS::add).
func (c *entropyChooser) add(ev uint16) {
	if !c.valid[c.head] {
		c.fresh++
	}
	c.ring[c.head], c.valid[c.head] = ev, true
	c.head = (c.head + 1) % repsBuffer
	c.fresh = min(c.fresh, repsBuffer)
	c.count = min(c.count+1, repsBuffer)
}

// takeFresh takes the oldest fresh entropy (remove_earliest_fresh).
func (c *entropyChooser) takeFresh() uint16 {
	at := (c.head - c.fresh + repsBuffer) % repsBuffer
	c.valid[at] = false
	c.fresh--
	return c.ring[at]
}

// takeFrozen reuses the ring's entropies in turn, fresh or not (remove_frozen).
func (c *entropyChooser) takeFrozen() uint16 {
	at := c.frozenHead
	if c.valid[at] {
		c.fresh--
	}
	c.valid[at] = false
	c.frozenHead = (c.frozenHead + 1) % c.count
	return c.ring[at]
}
