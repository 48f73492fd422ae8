package header

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestINTRecordRoundTrip(t *testing.T) {
	b := make(INT, INTSize)
	b.SetHops(2)
	// 100 Gb/s, t = 2^24 + 5 ns (the time keeps 24 bits), 1,280,000 bytes sent (a multiple of
	// 128), 8,000 bytes queued (a multiple of 80).
	b.PutHop(1, INTRateCode(100e9), 1<<24+5, 1_280_000, 8_000)
	require.Equal(t, 2, b.Hops())
	rate, ns, tx, q := b.Hop(1)
	require.Equal(t, uint8(INTRate100G), rate)
	require.Equal(t, uint64(5), ns)
	require.Equal(t, uint64(1_280_000), tx)
	require.Equal(t, uint64(8_000), q)
	// A queue beyond 17 bits of 80 bytes saturates; a rate without a code is 7.
	b.PutHop(0, INTRateCode(40e9), 0, 0, 1<<40)
	rate, _, _, q = b.Hop(0)
	require.Equal(t, uint8(INTRateOther), rate)
	require.Equal(t, uint64(1<<17-1)*80, q)
	require.Equal(t, 42, INTSize, "the HPCC authors' header: 5 hops x 8 bytes + a 2-byte count")
}
