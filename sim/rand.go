package sim

import (
	"hash/fnv"
	"math/rand/v2"
)

// Stream returns a random source for one component, derived from the scenario seed and the
// component's identity (e.g. "link:tor1->r1" or "switch:leaf1"). Streams of different
// components are independent, so adding a flow does not reshuffle another link's losses.
func Stream(seed uint64, component string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(component))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}
