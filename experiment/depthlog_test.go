package experiment

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/scenarios"
)

// TestDepthLogLeavesResultsAsTheyWere runs bundled scenarios with every queue's depth sums
// going through a DepthLog and with none doing so, and requires the same results document
// (queue means, 99th percentiles and maxima among them) to the byte: the log changes when
// the sums are added, never what they come to. incast-pfc has deep lossless queues and
// pauses, tradeoff lossy drops, TCP and several transports.
func TestDepthLogLeavesResultsAsTheyWere(t *testing.T) {
	defer func(p int) { depthLogPorts = p }(depthLogPorts)
	for _, name := range []string{"incast-pfc", "tradeoff"} {
		t.Run(name, func(t *testing.T) {
			data, ok := scenarios.BundledYAML(name)
			require.True(t, ok)
			f := load(t, string(data), "stop=300us")
			queued := false
			run := func(ports int) []byte {
				depthLogPorts = ports
				var out []byte
				for i := range f.Variants() {
					v, err := Run(f.Scenario(i), nil)
					require.NoError(t, err)
					v.WallSeconds = 0
					for _, q := range v.Queues {
						queued = queued || q.MeanBytes > 0
					}
					b, err := json.Marshal(v)
					require.NoError(t, err)
					out = append(out, b...)
				}
				return out
			}
			direct, logged := run(1<<30), run(0)
			require.Equal(t, string(direct), string(logged))
			require.True(t, queued, "some queue held frames: the sums were exercised")
		})
	}
}
