package experiment

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
)

func TestDerangementHasNoFixedPointAndIsUniform(t *testing.T) {
	rng := sim.Stream(1, "derangement-test")
	for n := 2; n <= 40; n++ {
		p := derangement(n, rng)
		seen := make([]bool, n)
		for i, v := range p {
			require.NotEqual(t, i, v, "n = %d: host %d would send to itself", n, i)
			require.False(t, seen[v], "n = %d: %d is a destination twice", n, v)
			seen[v] = true
		}
	}
	// n = 4 has 9 derangements (!4 = 9), each drawn with probability 1/9: over 9,000 draws
	// each count is binomial with mean 1000 and standard deviation sqrt(9000 x 1/9 x 8/9) =
	// 29.8; every count within 5 standard deviations fails with probability below 1e-5.
	counts := map[[4]int]int{}
	const draws = 9000
	for range draws {
		var k [4]int
		copy(k[:], derangement(4, rng))
		counts[k]++
	}
	require.Len(t, counts, 9)
	sd := math.Sqrt(draws * (1.0 / 9) * (8.0 / 9))
	for k, c := range counts {
		require.InDelta(t, draws/9, c, 5*sd, "derangement %v", k)
	}
}
