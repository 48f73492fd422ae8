package frames

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLayoutIsConsistent: the cut of a message into FPDUs agrees with itself (every offset
// maps back to its segment, the payloads add up to the message) and with RFC 5044's MULPDU:
// for an MSS of 1460, 1440 bytes of DDP payload without markers and 1428 with.
func TestLayoutIsConsistent(t *testing.T) {
	for _, c := range []struct {
		mtu             int
		ts, markers     bool
		size            int64
		wantD, wantFull int64
	}{
		{1500, false, false, 1_000_000, 1440, 1460},
		{1500, false, true, 1_000_000, 1428, 1448},
		{1500, true, true, 100_001, 1416, 1436},
		{9000, false, true, 3_000_003, 8868, 8888},
		{9000, true, false, 8928, 8928, 8948},
		{1500, false, true, 0, 1428, 1448},
		{576, false, true, 100_000, 508, 528},
	} {
		t.Run(fmt.Sprintf("%+v", c), func(t *testing.T) {
			l := NewLayout(c.mtu, c.ts, c.markers, c.size)
			require.Equal(t, c.wantD, l.d)
			require.Equal(t, c.wantFull, l.full)
			var total int64
			for k := int64(0); k < l.n; k++ {
				require.Equal(t, k, l.Covered(l.Start(k)), "a SACK left edge names its segment")
				require.Equal(t, k+1, l.Covered(l.End(k)), "an ACK at the end of k covers k")
				require.Equal(t, k, l.Covered(l.End(k)-1), "one byte short does not")
				require.LessOrEqual(t, l.length(k), l.mss)
				// Markers sit at the stream offsets 0, 512, 1024, ...: segment k holds those
				// in [start, end), ceil(end / 512) - ceil(start / 512) of them, none without
				// markers.
				want := (l.End(k)+511)/512 - (l.Start(k)+511)/512
				if !c.markers {
					want = 0
				}
				require.Equal(t, want, l.markersIn(k), "segment %d", k)
				total += l.Payload(k)
			}
			require.Equal(t, c.size, total)
			require.Equal(t, c.size, l.PayloadBetween(0, l.n))
			require.Equal(t, l.n, l.Covered(l.End(l.n-1)+10_000), "nothing beyond the last")
			if c.markers {
				// One marker per 512 bytes of stream, the first at offset 0.
				require.Equal(t, (l.End(l.n-1)+511)/512, sumMarkers(&l))
			}
		})
	}
}

func sumMarkers(l *Layout) int64 {
	var m int64
	for k := int64(0); k < l.n; k++ {
		m += l.markersIn(k)
	}
	return m
}
