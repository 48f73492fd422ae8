package experiment

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/results"
)

// trimIncast is a 4-to-1 incast of 1 MiB per sender at 100 Gb/s into a switch of 300 KB of
// buffer, RoCE v2 with IRN: PFC (variant 0), lossy (1), lossy with trimming (2), and
// go-back-N lossy with trimming (3).
const trimIncast = `
version: 1
name: trim-incast
seed: 1
stop: 50ms
topology:
  preset: star
  params: {hosts: 5, link: {rate: 100Gbps, delay: 1us}}
switch: {buffer: 300KB}
hosts: {priority: 3, jitter: 5ns}
transports:
  rocev2: {recovery: irn}
traffic:
  - incast: {senders: [h1, h2, h3, h4], receiver: h5, size: 1MiB}
variants:
  - {name: PFC, transport: rocev2, set: {switch.pfc.enabled: true}}
  - {name: lossy, transport: rocev2}
  - {name: trimming, transport: rocev2, set: {switch.trimming.enabled: true}}
  - {name: go-back-N trimming, transport: rocev2, set: {switch.trimming.enabled: true, transports.rocev2.recovery: go-back-n}}
`

func TestTrimmingTurnsLossIntoANotice(t *testing.T) {
	// Without PFC the incast overflows the buffer: IRN loses packets and finds some losses
	// only by a timeout. With trimming no packet is lost whole: each one the buffer cannot
	// take arrives as its headers, the responder NAKs its PSN, and the requester resends
	// that packet alone: resends = trimmed packets, no timeout, and the last flow ends
	// within 10% of PFC's.
	pfc := runOne(t, trimIncast, 0)
	lossy := runOne(t, trimIncast, 1)
	trim := runOne(t, trimIncast, 2)
	gbn := runOne(t, trimIncast, 3)
	for _, v := range []*results.Variant{pfc, lossy, trim, gbn} {
		t.Logf("%-18s done %d, FCT max %7.1f us, drops %5d, trimmed %5d, resent %5d, timeouts %2d, NAKs %5d",
			v.Name, v.Flows.Completed, *v.FCT.Max, v.Drops.Total, v.TrimmedPackets, v.RetransmittedPackets, v.Timeouts, v.NAKs)
		require.EqualValues(t, 4, v.Flows.Completed, v.Name)
	}
	require.Positive(t, lossy.Drops.Total)
	require.Positive(t, lossy.Timeouts)
	require.Zero(t, lossy.TrimmedPackets)

	require.Zero(t, trim.Drops.Total, "nothing lost whole")
	require.Positive(t, trim.TrimmedPackets)
	require.Equal(t, trim.TrimmedPackets, trim.RetransmittedPackets, "each trimmed packet resent once, nothing else")
	require.Zero(t, trim.Timeouts)
	require.Less(t, *trim.FCT.Max, 1.1**pfc.FCT.Max)

	// Go-back-N takes a trim as a gap (one NAK per gap, IBA C9-114): no loss either, but
	// every trim goes back, and a trimmed resend inside a gap waits for the timeout.
	require.Zero(t, gbn.Drops.Total)
	require.Positive(t, gbn.TrimmedPackets)
	require.Greater(t, gbn.RetransmittedPackets, gbn.TrimmedPackets)
}

// TestTsharkShowsTrimmedPackets: trimmed packets are on the receiver's link as RoCE v2
// WRITE packets without payload: 58 bytes of headers (Ethernet 14, IPv4 20, UDP 8, BTH 12,
// ICRC 4; the capture holds no FCS) padded to 60, in DSCP CS7 (56), decoded by tshark
// without complaint, as many as the switch trimmed; the responder's NAKs for them flag the
// trimmed PSN behind the AETH.
func TestTsharkShowsTrimmedPackets(t *testing.T) {
	dir := t.TempDir()
	v, err := RunCapture(load(t, trimIncast).Scenario(2), nil, Capture{Links: []string{"h5-sw"}, Dir: dir})
	require.NoError(t, err)
	file := filepath.Join(dir, "trimming-h5-sw.pcap")
	require.Zero(t, count(t, file, problems), "frames Wireshark finds wrong")
	require.Zero(t, count(t, file, "udp.port == 4791 && !infiniband"), "RoCE v2 frames not decoded")
	writes := "infiniband.bth.opcode >= 6 && infiniband.bth.opcode <= 11"
	trimmed := count(t, file, writes+" && frame.len == 60")
	require.EqualValues(t, v.TrimmedPackets, trimmed)
	require.Equal(t, trimmed, count(t, file, writes+" && frame.len == 60 && ip.dsfield.dscp == 56"))
	require.Positive(t, count(t, file, writes+" && frame.len > 1000"), "whole packets too")
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	flagged := 0
	for _, f := range pcapFrames(t, b) {
		if len(f) == 66 && binary.BigEndian.Uint16(f[12:]) == 0x0800 {
			ip := f[14:]
			require.Equal(t, icrcV2(ip[:len(ip)-4]), binary.LittleEndian.Uint32(ip[len(ip)-4:]))
			if ip[28+12+4] == 1 { // IRNSACK's reserved byte: the PSN behind it was trimmed
				flagged++
			}
		}
	}
	require.Positive(t, flagged)
}
