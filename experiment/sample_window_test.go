package experiment

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSeriesRecordsSwiftAndNSCCWindows: with the time series on, a Swift flow's window is
// sampled in packets: 0 before its sender exists, exactly init_cwnd until its first ACK
// (nothing has moved it), then within [min_cwnd, max_cwnd], and it moves (two flows into
// one 100 Gb/s port queue up, and Swift cuts); a UET flow's NSCC window is sampled too, at
// least one full packet once the flow runs. A DCQCN flow has no window column.
func TestSeriesRecordsSwiftAndNSCCWindows(t *testing.T) {
	const initCwnd, minCwnd, maxCwnd = 6.0, 0.001, 256.0 // the last two: swift.go's defaults
	text := fmt.Sprintf(swiftStar, "200us", 3, fmt.Sprintf("init_cwnd: %v", initCwnd),
		"  - flow: {src: h1, dst: h3, size: 10GB, transport: rocev2}\n  - flow: {src: h2, dst: h3, size: 10GB, transport: rocev2}")
	v, err := runLimited(load(t, text).Scenario(0), nil, Capture{}, Limits{}, true, 1)
	require.NoError(t, err)
	s := v.Series
	for i := range s.Flows {
		fs := &s.Flows[i]
		require.Len(t, fs.WindowPackets, s.Len(), "flow %d", fs.Flow)
		moved := false
		for k, w := range fs.WindowPackets {
			switch {
			case fs.DeliveredBytes[k] == 0:
				require.Contains(t, []float64{0, initCwnd}, w, "flow %d at %v us: before any ACK", fs.Flow, s.TimesUS[k])
			default:
				require.GreaterOrEqual(t, w, minCwnd)
				require.LessOrEqual(t, w, maxCwnd)
				moved = moved || w != initCwnd
			}
		}
		require.True(t, moved, "flow %d: Swift's window moved", fs.Flow)
	}

	uet := fmt.Sprintf(swiftStar, "100us", 3, "", "  - flow: {src: h1, dst: h3, size: 10GB, transport: uet}\n  - flow: {src: h2, dst: h3, size: 1MB, transport: rocev2}")
	v, err = runLimited(load(t, uet, "transports.rocev2.cc=dcqcn").Scenario(0), nil, Capture{}, Limits{}, true, 1)
	require.NoError(t, err)
	s = v.Series
	require.Len(t, s.Flows[0].WindowPackets, s.Len())
	for k, w := range s.Flows[0].WindowPackets {
		if s.Flows[0].DeliveredBytes[k] > 0 {
			require.GreaterOrEqual(t, w, 1.0, "NSCC keeps at least a packet")
		}
	}
	require.Nil(t, s.Flows[1].WindowPackets, "DCQCN holds no window")
}
