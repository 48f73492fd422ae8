package experiment

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/internal/accuracy"
	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
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
		atLeast(t, "UET", fmt.Sprintf("128-host k=8 permutation, oblivious spraying, seed %d: slowest flow against its ideal", seed), worstFCT/worst, worstFCT, "us", 0.75,
			accuracy.ClosedForm, "the flow's packets alone through the store-and-forward pipeline; 1.75x is issue 35's bound")
	}
}

// TestUETECNToHosts: transports.uet.ecn_to_hosts: false leaves UET packets unmarked on the
// switch ports that face hosts, and only those (uet-htsim main_uec.cpp 708). On a star every
// switch port faces a host: 16 UET senders into h17 with ECN on are marked by default and not
// at all with the setting off; 8 UET and 8 RoCE v2 (DCQCN) senders into h17 with it off: the
// RoCE packets are still marked and draw CNPs. On multipath's fat-tree the permutation's UET
// packets are still marked inside the fabric (switch-to-switch ports) with it off.
func TestUETECNToHosts(t *testing.T) {
	const star = `
version: 1
name: ecn-to-hosts
stop: 50ms
topology:
  preset: star
  params: {hosts: 17, link: {rate: 100Gbps, delay: 1us}}
switch: {buffer: 4MB, ecn: {enabled: true, kmin: 20KB, kmax: 200KB, pmax: 0.2}}
traffic:
  - incast: {senders: [h1, h2, h3, h4, h5, h6, h7, h8], receiver: h17, size: 1MiB, transport: uet}
  - incast: {senders: [h9, h10, h11, h12, h13, h14, h15, h16], receiver: h17, size: 1MiB, transport: %s}
variants:
  - {name: mixed, transport: uet, set: {transports.rocev2.cc: dcqcn}}
`
	uet := runOne(t, fmt.Sprintf(star, "uet"), 0)
	require.Positive(t, uet.ECN.MarkedPackets, "by default the port to h17 marks UET packets")
	off := runOne(t, fmt.Sprintf(star, "uet"), 0, "transports.uet.ecn_to_hosts=false")
	require.EqualValues(t, 16, off.Flows.Completed)
	require.Zero(t, off.ECN.MarkedPackets, "every port of a star faces a host")
	mixed := runOne(t, fmt.Sprintf(star, "rocev2"), 0, "transports.uet.ecn_to_hosts=false")
	require.EqualValues(t, 16, mixed.Flows.Completed)
	require.Positive(t, mixed.ECN.MarkedPackets, "RoCE packets are still marked")
	require.Positive(t, mixed.ECN.CNPs)
	t.Logf("star: %d marked with UET alone, 0 with ecn_to_hosts false; mixed: %d marked, %d CNPs",
		uet.ECN.MarkedPackets, mixed.ECN.MarkedPackets, mixed.ECN.CNPs)

	ft := runOne(t, uetPermutation(t, "oblivious"), 0, "transports.uet.ecn_to_hosts=false")
	require.EqualValues(t, 128, ft.Flows.Completed)
	require.Positive(t, ft.ECN.MarkedPackets, "ports between switches still mark")
}

// TestUETSLEEKSwitch: transports.uet.sleek. On lossy-link (one 20 MB UET flow over a link
// that loses 1% of frames, nothing trimmed; rto 100 us so that each timeout is short), SLEEK
// finds most losses from the receiver's out-of-order count, so fewer than half the losses
// wait for a timeout (seed 1: 42 lost, none); with sleek false every loss does (the timer
// queues one packet at a time, uet_loss.go; 62 timeouts for 42 losses, a timeout sometimes
// queueing a packet whose ACK is on its way), and the flow ends later (1,902 against 1,664 us).
func TestUETSLEEKSwitch(t *testing.T) {
	text, ok := scenarios.BundledYAML("lossy-link")
	require.True(t, ok)
	s := string(text)
	s = strings.Replace(s[:strings.Index(s, "variants:")], "seeds: [1, 2, 3, 4, 5]", "seed: 1", 1) +
		"variants:\n  - {name: UET 1%, transport: uet, set: {faults.0.loss: 0.01, transports.uet.rto: 100us}}\n"
	on := runOne(t, s, 0)
	off := runOne(t, s, 0, "transports.uet.sleek=false")
	for _, v := range []*results.Variant{on, off} {
		require.EqualValues(t, 1, v.Flows.Completed)
		require.Zero(t, v.TrimmedPackets)
		require.Positive(t, v.Drops.Total)
	}
	t.Logf("sleek: %d lost, %d resent, %d timeouts, %.0f us; without: %d lost, %d resent, %d timeouts, %.0f us",
		on.Drops.Total, on.RetransmittedPackets, on.Timeouts, *on.FCT.Max, off.Drops.Total, off.RetransmittedPackets, off.Timeouts, *off.FCT.Max)
	require.Less(t, on.Timeouts, on.Drops.Total/2, "SLEEK finds most losses")
	require.GreaterOrEqual(t, off.Timeouts, off.Drops.Total, "without SLEEK every loss waits for a timeout")
	require.Greater(t, *off.FCT.Max, *on.FCT.Max)
}

// TestExplainSaysWhatIsOff: explain names UET's switches when they are off, and TIMELY's
// hpcc_ns3 rule.
func TestExplainSaysWhatIsOff(t *testing.T) {
	text, err := Explain(load(t, uetIncast(t), "transports.uet.sleek=false", "transports.uet.ecn_to_hosts=false"))
	require.NoError(t, err)
	require.Contains(t, text, "no SLEEK")
	require.Contains(t, text, "no ECN marks on switch ports toward hosts")
	text, err = Explain(load(t, timelyStarScenario(2, sim.Millisecond, "rule: hpcc_ns3")))
	require.NoError(t, err)
	require.Contains(t, text, "the HPCC authors' ns-3 rule")
}
