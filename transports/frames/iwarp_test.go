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

// TestLayoutAtContinuesTheStream: messages laid out one after another (NewLayoutAt from the
// Next of the one before) tile the stream: each starts where the one before ended, every
// segment holds the markers that fall in it (one at each multiple of 512 of the whole
// stream, RFC 5044 section 5, counted here directly), the stream's length is the FPDUs plus
// its markers, and Covered maps each segment's end back to it.
func TestLayoutAtContinuesTheStream(t *testing.T) {
	for _, markers := range []bool{false, true} {
		t.Run(fmt.Sprintf("markers %v", markers), func(t *testing.T) {
			var origin, end, fpdus int64
			for k, size := range []int64{3*1428 + 11, 0, 1, 5 * 1428, 777} {
				l := NewLayoutAt(1500, false, markers, size, origin)
				require.Equal(t, end, l.Start(0), "message %d starts where the one before ended", k)
				for j := int64(0); j < l.Segments(); j++ {
					var in int64 // markers at multiples of 512 in [Start, End), one before the first byte
					for o := l.Start(j); o < l.End(j); o++ {
						if markers && o%512 == 0 {
							in++
						}
					}
					require.Equal(t, in, l.markersIn(j), "message %d segment %d", k, j)
					require.Equal(t, j+1, l.Covered(l.End(j)), "message %d segment %d", k, j)
					fpdus += l.length(j) - 4*in
				}
				origin, end = l.Next(), l.End(l.Segments()-1)
			}
			want := fpdus
			if markers {
				want += 4 * ((end + 511) / 512) // one per 512 bytes of stream begun
			}
			require.Equal(t, want, end)
		})
	}
}
