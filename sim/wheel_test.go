package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWheelAfterFindsTheNextBucketInTimeOrder checks after against a walk of the ring, on
// random sets of non-empty buckets and positions of cur, wrapping around the array's end.
func TestWheelAfterFindsTheNextBucketInTimeOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		var w wheel
		density := []float64{0.0005, 0.01, 0.3}[trial%3]
		for i := 0; i < wheelSize; i++ {
			if r.Float64() < density {
				w.full[i>>6] |= 1 << (uint(i) & 63)
			}
		}
		cur := r.Int64N(4 * wheelSize)
		c := int(cur & wheelMask)
		for probe := 0; probe < 50; probe++ {
			i := r.IntN(wheelSize)
			want := -1
			for k := (i-c)&wheelMask + 1; k < wheelSize; k++ {
				if j := (c + k) & wheelMask; w.full[j>>6]&(1<<(uint(j)&63)) != 0 {
					want = j
					break
				}
			}
			require.Equal(t, want, w.after(i, cur), "bucket %d, cur %d (slot %d), density %v", i, cur, c, density)
		}
	}
}
