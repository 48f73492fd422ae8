package experiment

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/topology"
)

// The expected values below come from the header sizes of topology/headers.go and the
// scenarios' link rates, never from an earlier run.

// uetWire is a full UET packet on the wire: its 4096 payload bytes and 122 more (Ethernet 14,
// IPv4 20, UDP 8, PDS RUD 12, SES standard 44, FCS 4, preamble 8, gap 12).
const uetWire = 4096 + topology.EthernetHeader + topology.IPv4Header + topology.UDPHeader +
	topology.PDSRUDHeader + topology.SESStandardHeader + topology.FCS + topology.WireOverhead

// bundledAs is the bundled scenario name with its variants replaced by variants.
func bundledAs(t *testing.T, name, variants string) string {
	t.Helper()
	text, ok := scenarios.BundledYAML(name)
	require.True(t, ok)
	s := string(text)
	return s[:strings.Index(s, "variants:")] + "variants:\n" + variants
}

// TestUETSpraysThePermutation: on the bundled fattree-ecmp (k = 4, 16 hosts each writing
// 10 MB to another, 100 Gb/s links; ECMP's slowest flow takes 3x its ideal), UET sprays every
// flow's packets by their entropy over the ECMP hashes, and with NSCC's ECN signal and REPS's
// recycling of unmarked entropies every flow ends within 10% of its ideal. Spraying reorders,
// and SLEEK's allowance keeps it from resending anything.
func TestUETSpraysThePermutation(t *testing.T) {
	// Alone, a flow takes its wire bytes at 100 Gb/s: 2442 packets, the last of 10e6 - 2441 x
	// 4096 = 1664 payload bytes.
	const size, rate = 10e6, 100e9
	npkts := (int64(size) + 4095) / 4096
	ideal := (size + float64(npkts)*(uetWire-4096)) * 8 / rate * 1e6 // us
	// uet-htsim's default ECN thresholds (main_uec.cpp: 20% and 80% of the network's BDP, in
	// packets rounded up), for the longest unloaded RTT: a full packet out over 6 hops of 1 us,
	// store and forward, and a 78-byte ACK (a 32-byte PDS ACK_CC) back.
	ack := int64(topology.EthernetHeader + topology.IPv4Header + topology.UDPHeader + topology.PDSAckCCHeader + topology.FCS + topology.WireOverhead)
	rtt := 12e-6 + 6*(uetWire+float64(ack))*8/rate
	bdpPkts := rtt * rate / 8 / uetWire
	kmin, kmax := int64(ceil(0.2*bdpPkts))*uetWire, int64(ceil(0.8*bdpPkts))*uetWire
	text := bundledAs(t, "fattree-ecmp", "  - {name: UET, transport: uet}\n")
	ecn := []string{"switch.ecn.enabled=true", fmt.Sprintf("switch.ecn.kmin=%dB", kmin), fmt.Sprintf("switch.ecn.kmax=%dB", kmax), "switch.ecn.pmax=1"}

	// REPS recycles the entropy each ACK echoes: with an ACK per packet it sees them all.
	v := runOne(t, text, 0, append(ecn, "transports.uet.ack_bytes=4096B")...)
	f := fcts(t, v)
	require.Len(t, f, 16)
	require.Zero(t, v.Drops.Total)
	require.Zero(t, v.RetransmittedPackets, "reordering alone resends nothing")
	t.Logf("UET, ECN %d..%d B, an ACK per packet: FCT %.0f..%.0f us (median %.0f), ideal %.0f us (%.3fx..%.3fx)",
		kmin, kmax, f[0], f[15], f[8], ideal, f[0]/ideal, f[15]/ideal)
	for _, fct := range f {
		require.GreaterOrEqual(t, fct, ideal, "no flow beats its own wire time")
		require.Less(t, fct, 1.1*ideal)
	}

	// For the record (docs/model.md section 13): uet-htsim's ACK per 16 KB returns one
	// entropy in four, without marks REPS cannot tell paths apart, and oblivious spraying
	// follows the 64 entropies' uneven hash shares.
	for _, c := range []struct {
		name string
		sets []string
	}{
		{"ECN, ACK per 16 KB", ecn[:len(ecn):len(ecn)]},
		{"ECN, ACK per 16 KB, 4096 entropies", append(ecn, "transports.uet.paths=4096")},
		{"no ECN, ACK per 16 KB", nil},
		{"oblivious, ECN, ACK per packet", append(ecn, "transports.uet.ack_bytes=4096B", "transports.uet.entropy=oblivious")},
	} {
		d := runOne(t, text, 0, c.sets...)
		g := fcts(t, d)
		require.Len(t, g, 16)
		require.Zero(t, d.Drops.Total)
		t.Logf("UET, %s: FCT %.0f..%.0f us (%.3fx..%.3fx)", c.name, g[0], g[15], g[0]/ideal, g[15]/ideal)
	}
}

func ceil(x float64) float64 {
	if n := float64(int64(x)); n < x {
		return n + 1
	}
	return x
}

// uetIncast is the bundled incast-pfc (16 senders of 1 MiB into one 100 Gb/s port, 4 MB of
// buffer): UET without PFC, with trimming (variant 0), and RoCE v2 with PFC (variant 1).
func uetIncast(t *testing.T) string {
	return bundledAs(t, "incast-pfc", "  - {name: UET trimming, transport: uet, set: {switch.pfc.enabled: false, switch.trimming.enabled: true}}\n"+
		"  - {name: RoCEv2 + PFC, transport: rocev2}\n")
}

// TestUETIncastWithoutPFC: 16-to-1 without PFC, trimming on: no packet is lost whole, every
// flow completes, and the last ends within 10% of RoCE v2 + PFC's last; no sooner than the
// receiver's port can take 16 MiB of UET packets. With 1 MB of buffer the switch trims, and
// each trimmed packet is NACKed (or, if a copy is in, SACKed) and resent.
func TestUETIncastWithoutPFC(t *testing.T) {
	text := uetIncast(t)
	pfc := runOne(t, text, 1)
	require.EqualValues(t, 16, pfc.Flows.Completed)
	// 16 x 1 MiB in packets of 4096: 256 each, all full.
	floor := 16 * 1048576 / 4096 * float64(uetWire) * 8 / 100e9 * 1e6 // us
	for _, c := range []struct {
		name string
		sets []string
		trim bool
	}{
		{"4MB", nil, false},
		{"1MB", []string{"switch.buffer=1MB", "transports.uet.ack_bytes=4096B"}, true},
		{"1MB, ACK per 16 KB", []string{"switch.buffer=1MB"}, true},
	} {
		v := runOne(t, text, 0, c.sets...)
		require.Zero(t, v.Drops.Total, c.name)
		require.EqualValues(t, 16, v.Flows.Completed, c.name)
		t.Logf("%s: last %.0f us (RoCE v2 + PFC %.0f us, %.3fx; floor %.0f us), %d trimmed, %d NACKs, %d resent, %d timeouts",
			c.name, *v.FCT.Max, *pfc.FCT.Max, *v.FCT.Max / *pfc.FCT.Max, floor, v.TrimmedPackets, v.NAKs, v.RetransmittedPackets, v.Timeouts)
		require.GreaterOrEqual(t, *v.FCT.Max, floor, c.name)
		var naks int64
		for _, fl := range v.PerFlow {
			naks += fl.NAKs
		}
		require.Equal(t, v.NAKs, naks, "NACKs are per flow too")
		if !c.trim {
			require.Zero(t, v.TrimmedPackets)
			require.Less(t, *v.FCT.Max, 1.1**pfc.FCT.Max, c.name)
			continue
		}
		require.Positive(t, v.TrimmedPackets, c.name)
		require.LessOrEqual(t, v.NAKs, v.TrimmedPackets, "a trimmed packet draws a NACK unless a copy is in")
		require.GreaterOrEqual(t, v.RetransmittedPackets, v.NAKs, "every NACKed packet is resent")
		if c.sets[len(c.sets)-1] == "transports.uet.ack_bytes=4096B" {
			require.Zero(t, v.Timeouts, c.name)
			require.Less(t, *v.FCT.Max, 1.1**pfc.FCT.Max, c.name)
		}
	}
}

// captureIncastReceiver runs uetIncast's first variant with the overrides, capturing h17's
// link, and returns the results and the pcap file's path.
func captureIncastReceiver(t *testing.T, sets ...string) (*results.Variant, string) {
	t.Helper()
	dir := t.TempDir()
	v, err := RunCapture(load(t, uetIncast(t), sets...).Scenario(0), nil, Capture{Links: []string{"h17-sw"}, Dir: dir})
	require.NoError(t, err)
	matches, err := filepath.Glob(filepath.Join(dir, "*h17-sw.pcap"))
	require.NoError(t, err)
	require.Len(t, matches, 1)
	return v, matches[0]
}

// TestTsharkShowsUET: on the receiver's link UET frames are UDP to port 4793 that Wireshark
// decodes without complaint: data frames carry the PDS and SES headers and the payload (4152
// bytes of UDP payload, 4194-byte frames in the capture, which holds no FCS), trimmed ones
// the headers alone (98 bytes), in DSCP CS7, as many as the switch trimmed; ACKs are 74-byte
// frames, NACKs 58 bytes padded to 60, in the ACK class (CS7).
func TestTsharkShowsUET(t *testing.T) {
	v, file := captureIncastReceiver(t, "switch.buffer=1MB", "transports.uet.ack_bytes=4096B")
	hdr := topology.EthernetHeader + topology.IPv4Header + topology.UDPHeader
	uet := topology.PDSRUDHeader + topology.SESStandardHeader
	require.Zero(t, count(t, file, problems), "frames Wireshark finds wrong")
	require.Zero(t, count(t, file, "ip && !(udp.port == 4793)"), "every IP frame is UET")
	full := count(t, file, fmt.Sprintf("udp.dstport == 4793 && udp.length == %d && frame.len == %d", 8+uet+4096, hdr+uet+4096))
	require.EqualValues(t, 16*256, full-int(v.RetransmittedPackets-v.TrimmedPackets), "each packet whole once, besides the resends of packets not trimmed")
	trimmed := count(t, file, fmt.Sprintf("udp.dstport == 4793 && frame.len == %d", hdr+uet))
	require.EqualValues(t, v.TrimmedPackets, trimmed)
	require.Equal(t, trimmed, count(t, file, fmt.Sprintf("frame.len == %d && ip.dsfield.dscp == 56", hdr+uet)))
	acks := count(t, file, fmt.Sprintf("udp.dstport == 4793 && frame.len == %d && ip.dsfield.dscp == 56", hdr+topology.PDSAckCCHeader))
	require.Positive(t, acks)
	nacks := count(t, file, fmt.Sprintf("udp.dstport == 4793 && frame.len == %d && ip.dsfield.dscp == 56", topology.MinFrame-topology.FCS))
	require.EqualValues(t, v.NAKs, nacks)
}

// TestUETRunsRepeat: a UET run repeats byte for byte under one seed, sprays otherwise under
// another (REPS's and oblivious spraying's draws come from the flow's own stream).
func TestUETRunsRepeat(t *testing.T) {
	text := bundledAs(t, "fattree-ecmp", "  - {name: UET, transport: uet}\n")
	doc := func(sets ...string) string {
		v := runOne(t, text, 0, append(sets, "stop=400us")...)
		v.WallSeconds = 0
		b, err := json.Marshal([]results.Variant{*v})
		require.NoError(t, err)
		return string(b)
	}
	for _, e := range []string{"reps", "oblivious"} {
		a := doc("transports.uet.entropy=" + e)
		require.Equal(t, a, doc("transports.uet.entropy="+e), e)
		require.NotEqual(t, a, doc("transports.uet.entropy="+e, "seed=2"), e)
	}
}
