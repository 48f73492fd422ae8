package workload

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBundledMeansMatchTheirTables(t *testing.T) {
	// The means computed by hand from the tables (sum of midpoint x probability), as the HPCC
	// generator's documentation computes them.
	for name, want := range map[string]float64{
		"websearch":  1_711_250,
		"hadoop":     120_420.8,
		"alistorage": 40_869.8,
		"googlerpc":  2_891.6,
	} {
		c, err := Bundled(name)
		require.NoError(t, err)
		require.InEpsilon(t, want, c.Mean(), 0.0005, name)
	}
	// websearch by hand: 5000x.15 + 15000x.05 + 25000x.10 + 40000x.10 + 65000x.13 +
	// 140000x.07 + 600000x.10 + 1.5e6x.10 + 3.5e6x.10 + 7.5e6x.07 + 2e7x.03 = 1,711,250.
	c, _ := Bundled("websearch")
	require.InDelta(t, 1_711_250, c.Mean(), 1e-6)
	require.InDelta(t, 0.15, c.At(10_000), 1e-12, "P(size <= 10 KB)")
}

// TestSamplerMatchesTheDistribution draws 100,000 sizes from websearch and hadoop: the sample
// mean is within 2% of the distribution's mean, and the Kolmogorov-Smirnov distance between
// the sample and the CDF is below 0.01 (for 100,000 draws the 1% critical value is
// 1.63/sqrt(n) = 0.0052, so a correct sampler passes with room to spare). Sizes are whole
// bytes, truncated from the continuous draw X, so the reference is the CDF of the integer
// size: P(size <= k) = P(X < k+1) = At(k+1) for k >= 1 (a draw below 1 byte is 1 byte) and
// 0 below 1, which matters for googlerpc's tiny RPCs.
func TestSamplerMatchesTheDistribution(t *testing.T) {
	for _, name := range []string{"websearch", "hadoop", "alistorage", "googlerpc"} {
		c, err := Bundled(name)
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(1, 2))
		const n = 100_000
		xs := make([]float64, n)
		sum := 0.0
		for i := range xs {
			xs[i] = float64(c.Size(rng.Float64()))
			sum += xs[i]
		}
		require.InEpsilon(t, c.Mean(), sum/n, 0.02, "%s: sample mean", name)
		slices.Sort(xs)
		ref := func(k float64) float64 {
			if k < 1 {
				return 0
			}
			return c.At(k + 1)
		}
		ks := 0.0
		for i := 0; i < n; {
			j := i
			for j < n && xs[j] == xs[i] {
				j++
			}
			// At k = xs[i] the empirical CDF jumps from i/n to j/n, the reference from
			// P(size <= k-1) to P(size <= k).
			k := xs[i]
			ks = max(ks, math.Abs(float64(j)/n-ref(k)), math.Abs(float64(i)/n-ref(k-1)))
			i = j
		}
		t.Logf("%s: sample mean %.0f B (distribution %.0f B), KS distance %.4f", name, sum/n, c.Mean(), ks)
		require.Less(t, ks, 0.01, "%s: KS distance", name)
	}
}

func TestSizeInvertsTheCDF(t *testing.T) {
	c, err := Parse("t.txt", []byte("0 0\n100 50\n100 60\n300 100\n"))
	require.NoError(t, err)
	require.EqualValues(t, 1, c.Size(0), "0 becomes 1 byte")
	require.EqualValues(t, 50, c.Size(0.25))
	require.EqualValues(t, 100, c.Size(0.55), "inside a jump: the jump's size")
	require.EqualValues(t, 200, c.Size(0.8))
	require.EqualValues(t, 299, c.Size(0.99999999))
	require.InDelta(t, 0.8, c.At(200), 1e-12)
	require.Equal(t, 0.0, c.At(-1))
	require.Equal(t, 1.0, c.At(301))
}

func TestParseErrorsNameFileLineAndRule(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"0 0\n10 50\n5 100\n", "w.txt:3: size 5 is below the previous line's 10"},
		{"0 0\n10 50\n20 40\n30 100\n", "w.txt:3: cumulative percent 40 is below the previous line's 50"},
		{"0 0\n10 50\n20 90\n", "w.txt:3: the last cumulative percent is 90: a CDF ends at 100"},
		{"0 0\n10 abc\n", "w.txt:2: want two numbers, a size in bytes and a cumulative percent (e.g. 10000 35); the second field is no number"},
		{"0 0\nNaN 100\n", "w.txt:2: want two numbers, a size in bytes and a cumulative percent (e.g. 10000 35); the first field is no finite number"},
		{"0 0\n-3 100\n", "w.txt:2: size -3: sizes are positive"},
		{"5 10\n0 100\n", "w.txt:2: size 0: sizes are positive (only a first point may be 0)"},
		{"10 120\n", "w.txt:1: cumulative percent 120 is outside 0..100"},
		{"# only a comment\n\n", "w.txt:2: no points"},
		{"1 2 3\n", "w.txt:1: want two numbers, a size in bytes and a cumulative percent (e.g. 10000 35), found 3 fields"},
		{"0 0\n" + strings.Repeat("9", 70000) + " 100\n", "w.txt:2: bufio.Scanner: token too long"},
	} {
		_, err := Parse("w.txt", []byte(tc.text))
		require.Error(t, err, tc.text)
		require.Contains(t, err.Error(), tc.want)
	}
	_, err := Bundled("nope")
	require.EqualError(t, err, `unknown workload "nope" (bundled: websearch, hadoop, alistorage, googlerpc)`)
	c, err := Parse("ok.txt", []byte("# sizes\n1000 30\n\n2000 100\n"))
	require.NoError(t, err)
	require.Len(t, c.Points, 2)
}

// TestParseErrorsNeverQuoteTheFile: a path to some other file (a password file, the
// process's environment) is refused naming file:line and what was expected, with nothing of
// the file's text in the message; even a line of two fields whose first is a number is not
// quoted, nor a later line's numbers when an earlier line is not two numbers.
func TestParseErrorsNeverQuoteTheFile(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"root:$6$secrethash:19000:0:99999:7:::\n", "f:1: want two numbers, a size in bytes and a cumulative percent (e.g. 10000 35), found 1 fields"},
		{"HOME=/root\x00TOKEN=secrettoken\x00\n", "f:1: want two numbers"},
		{"# a comment\n1000 secretword\n", "f:2: want two numbers, a size in bytes and a cumulative percent (e.g. 10000 35); the second field is no number"},
		{"secretword 50\n", "f:1: want two numbers, a size in bytes and a cumulative percent (e.g. 10000 35); the first field is no finite number"},
		{"7777 50\n5555 40\nsecret word\n", "f:3: want two numbers"},
	} {
		_, err := Parse("f", []byte(tc.text))
		require.Error(t, err, tc.text)
		require.Contains(t, err.Error(), tc.want)
		for _, secret := range []string{"secret", "root", "HOME", "7777", "5555"} {
			require.NotContains(t, err.Error(), secret, tc.text)
		}
	}
}
