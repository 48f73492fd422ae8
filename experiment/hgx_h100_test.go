package experiment

import (
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/internal/accuracy"
)

// hgxH100ReadOff is NCCL's ring allreduce latency on an HGX H100 server as ASTRA-sim's
// validation page plots it (the "Hardware" line), in microseconds, per GPU count and size:
// read off the figures _static/images/validation/hardware/hgx_h100/{2,4,8}gpus.png of
// astra-sim/astra-sim-docs at commit 4a4dcf4 (page validation/hardware/gpu-validation-hgx-h100.md,
// https://astra-sim.github.io/astra-sim-docs/validation/hardware/gpu-validation-hgx-h100.html).
// Read by pixel: the hardware line's centre in the column of each size's tick, the last
// point its cap's top plus a pixel, against the axis at 0 and the top gridline (2 GPUs:
// 6000 us over 428 px, 14.02 us a pixel; 4 GPUs: 10000 us over 524.5 px, 19.07 us; 8 GPUs:
// 12500 us over 508.5 px, 24.58 us), so each value is good to about a pixel. They agree with
// the page's "maximum achieved BW is 741.34 GB/s (bidirectional)": 2 GiB's bus bandwidths
// are 363, 371 and 371 GB/s a direction.
var hgxH100ReadOff = map[int]map[int64]float64{
	2: {128 << 20: 393, 256 << 20: 771, 512 << 20: 1514, 1 << 30: 2993, 2 << 30: 5909},
	4: {128 << 20: 620, 256 << 20: 1153, 512 << 20: 2240, 1 << 30: 4461, 2 << 30: 8675},
	8: {128 << 20: 700, 256 << 20: 1327, 512 << 20: 2569, 1 << 30: 5138, 2 << 30: 10128},
}

// TestHGXH100AllreduceAgainstHardware runs experiment/testdata/hgx-h100-allreduce.yaml's
// sweep (ring allreduce over 2, 4 and 8 GPUs of one NVSwitch domain, 128 MiB to 2 GiB) and
// records a row per point: the hardware's bus bandwidth read off ASTRA-sim's figure against
// fabricsim's. fabricsim is faster, by 11-25%: its NVLink carries the payload at the frames'
// share of 3.6 Tb/s (417 GB/s), where NCCL reaches at most 371 GB/s a direction on the page,
// and it has no per-call cost (kernel launch, protocol set-up), which weighs more on the
// smaller sizes (docs/accuracy.md; docs/model.md section 17). The tolerance, 30%, is that
// gap's size, not noise: 12% from the bandwidth alone (417 against 371 GB/s) and up to 12%
// more from the per-call cost at 128 MiB; fabricsim must also stay above the hardware (no
// model here loses bandwidth NVLink has).
func TestHGXH100AllreduceAgainstHardware(t *testing.T) {
	slow(t, "15 runs, 128 MiB to 2 GiB over NVLink")
	text, err := os.ReadFile("testdata/hgx-h100-allreduce.yaml")
	require.NoError(t, err)
	for _, n := range []int{2, 4, 8} {
		for _, size := range []int64{128 << 20, 256 << 20, 512 << 20, 1 << 30, 2 << 30} {
			v := runOne(t, string(text), 0, fmt.Sprintf("topology.params.gpus_per_server=%d", n),
				fmt.Sprintf("traffic.0.collective.size=%dB", size))
			require.Len(t, v.Jobs, 1)
			j := v.Jobs[0]
			require.Equal(t, 1, j.Completed)
			factor := 2 * float64(n-1) / float64(n) // nccl-tests' bus factor for allreduce
			hw := float64(size) / (hgxH100ReadOff[n][size] * 1e-6) * factor / 1e9
			got := *j.BusbwGbps / 8
			require.Greater(t, got, hw, "N=%d %d MiB: fabricsim below the hardware", n, size>>20)
			accurate(t, "Collectives against hardware", fmt.Sprintf("NCCL ring allreduce, HGX H100, %d GPUs x %d MiB: bus bandwidth", n, size>>20),
				math.Round(hw*10)/10, got, "GB/s", 0.30, accuracy.Published,
				"ASTRA-sim's HGX-H100 validation, hardware line read off its figure (astra-sim-docs 4a4dcf4); fabricsim has no per-call cost nor NVLink protocol loss (docs/model.md section 17)")
		}
	}
}
