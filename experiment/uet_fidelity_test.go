package experiment

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/scenarios"
)

// uetPermutation is the bundled multipath's permutation alone (a k=8 fat-tree, 128 hosts,
// 100 Gb/s links, 1 us each, 1 MB of buffer per switch, each host writing 2 MB to another),
// run by UET with uet-htsim's defaults as docs/model.md section 13 matches them (main_uec.cpp:
// trimming at a queue of one BDP, 43 packets of 4,150 bytes, 178,450 B; ECN from 20% to 80%
// of it, 37,350 and 145,250 B, pmax 1; the retransmit timeout 15 us + 6 x 178,450 B at
// 100 Gb/s = 100.66 us follows from the threshold) and the entropy scheme entropy.
func uetPermutation(t *testing.T, entropy string) string {
	t.Helper()
	text, ok := scenarios.BundledYAML("multipath")
	require.True(t, ok)
	s := string(text)
	s = s[:strings.Index(s, "  - incast:")] + "variants:\n" +
		"  - {name: UET, transport: uet, set: {transports.uet.entropy: " + entropy + ",\n" +
		"      switch.trimming.enabled: true, switch.trimming.threshold: 178450B,\n" +
		"      switch.ecn.enabled: true, switch.ecn.kmin: 37350B, switch.ecn.kmax: 145250B, switch.ecn.pmax: 1}}\n"
	return s
}

// TestUETNackAfterResendKeepsTheWindow: with oblivious spraying on the 128-host permutation,
// packets are trimmed and sometimes resent before the NACK for the trimmed original comes
// back. Timed from the resend, such a NACK gave an RTT of about 0.1 us, which cut NSCC's base
// RTT and with it maxwnd (1.5 BDP) to about half a packet, and held the flow near one packet
// per RTT for over a millisecond: the slowest flow took 1,696 us, 10x its ideal (issue 35,
// point 1; uet-htsim uec.cpp processNack 1566-1569 takes the same sample unless
// update_base_rtt_on_nack is off). Karn's rule, a sample only from a packet sent once (or
// the resend's own echo), keeps the window: over seeds 1-5 the slowest flow ends within 1.75x
// of its own ideal (FCT alone on the empty fabric, uetIdealFCT).
func TestUETNackAfterResendKeepsTheWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: full suite (./test.sh --full)")
	}
	text := uetPermutation(t, "oblivious")
	for seed := 1; seed <= 5; seed++ {
		v := runOne(t, text, 0, fmt.Sprintf("seed=%d", seed))
		require.EqualValues(t, 128, v.Flows.Completed, "seed %d", seed)
		worst, worstFCT := 0.0, 0.0
		for _, f := range v.PerFlow {
			require.NotNil(t, f.Slowdown)
			require.GreaterOrEqual(t, *f.Slowdown, 1.0, "no flow beats its ideal")
			if *f.Slowdown > worst {
				worst, worstFCT = *f.Slowdown, *f.FCTUS
			}
		}
		// accuracy: UET oblivious permutation, slowest flow / ideal; expected <= 1.75
		// (issue 35: 237-280 us against about 171 us with the sample guarded).
		t.Logf("seed %d: slowest flow %.0f us, %.3fx its ideal; %d trimmed, %d resent, %d timeouts",
			seed, worstFCT, worst, v.TrimmedPackets, v.RetransmittedPackets, v.Timeouts)
		require.Less(t, worst, 1.75, "seed %d", seed)
	}
}
