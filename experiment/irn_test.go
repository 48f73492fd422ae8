package experiment

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// irnLossy is one RoCE v2 flow across two 100 Gb/s hops whose first loses data frames at
// random (the lossyForward fabric), under IRN with the given BDP cap.
const irnLossy = `
version: 1
name: irn-loss
seed: %[1]d
stop: 1s
topology:
  preset: star
  params: {hosts: 2, link: {rate: 100Gbps, delay: 1us}}
transports:
  rocev2: {recovery: irn, irn: {bdp_cap: %[2]s}}
  rocev1: {recovery: irn, irn: {bdp_cap: %[2]s}}
traffic:
  - flow: {src: h1, dst: h2, size: %[3]s, transport: %[5]s}
faults:
  - {at: 0, link: [h1, sw], loss: %[4]g}
`

// TestIRNUnderRandomLossLosesOnlyWhatIsLost (RoCE v2, and v1 with its own overhead): with
// selective repeat each packet costs 1/(1-p) transmissions on average (a retransmission is
// lost with probability p too), and nothing else while the BDP cap leaves room to keep
// sending during recovery, so goodput is
// line x payload/wire x (1-p). The cap here, 16 MB, covers RTO_high (320 us x 100 Gb/s =
// 4 MB), the longest a lost retransmission holds the cumulative acknowledgement back. The
// same loss costs go-back-N a round trip of packets per loss (renewal-reward, as in
// TestGoBackNUnderRandomLossMatchesRenewalReward): IRN must beat that by the gap the formulas
// predict.
func TestIRNUnderRandomLossLosesOnlyWhatIsLost(t *testing.T) {
	rate := 100 * sim.Gbps
	tx := rate.TxTime(1024 + roceV2Overhead)
	rtt := 2*(tx+sim.Microsecond) + 2*(rate.TxTime(86)+sim.Microsecond)
	w := float64(rtt) / float64(tx)
	for _, c := range []struct {
		transport string
		p         float64
		overhead  int64
	}{{"rocev2", 1e-3, roceV2Overhead}, {"rocev2", 1e-2, roceV2Overhead}, {"rocev1", 1e-2, roceV1Overhead}} {
		line := 100 * 1024.0 / float64(1024+c.overhead)
		p := c.p
		t.Run(fmt.Sprintf("%s,p=%g", c.transport, p), func(t *testing.T) {
			v := runOne(t, fmt.Sprintf(irnLossy, 1, "16MB", "200MB", c.p, c.transport), 0)
			fl := v.PerFlow[0]
			require.Equal(t, "completed", fl.Status)
			goodput := float64(fl.SizeBytes*8) / (*fl.FCTUS * 1e-6) / 1e9
			want := line * (1 - p)
			r := float64(1048576*sim.Nanosecond) / float64(tx)
			gbn := line * (1 - p) / (1 + p*(w+p*r))
			t.Logf("IRN %.2f Gb/s, line x payload/wire x (1-p) %.2f; go-back-N's closed form %.2f; %d resent, %d NAKs, %d timeouts",
				goodput, want, gbn, fl.RetransmittedPackets, fl.NAKs, fl.Timeouts)
			require.InEpsilon(t, want, goodput, 0.05)
			require.Greater(t, goodput, gbn+(want-gbn)/2, "IRN closes most of go-back-N's gap")
			// Each resend is a lost packet: about p/(1-p) of the packets, and never a round
			// trip's worth per loss as go-back-N sends.
			pkts := float64(fl.SizeBytes) / 1024
			require.Less(t, float64(fl.RetransmittedPackets), 1.5*pkts*p/(1-p)+10)
		})
	}
}

// TestIRNBDPCapIsThePathsRoundTrip: on the two-hop star the auto cap is the packets a round
// trip holds: a full packet out over two hops (store and forward), an 86-byte ACK back over
// two, divided by a full packet's time at 100 Gb/s, rounded up.
func TestIRNBDPCapIsThePathsRoundTrip(t *testing.T) {
	f := build0(t, fmt.Sprintf(irnLossy, 1, "auto", "1MB", 0.0, "rocev2"))
	rate := 100 * sim.Gbps
	full := frames.RoCEWireBytes(2, 1024, false)
	ack := frames.RoCEAckWireBytes(2)
	require.EqualValues(t, 86, ack, "Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + AETH 4 + ICRC 4 + FCS 4 + 20 on the wire")
	rtt := 2*(rate.TxTime(full)+sim.Microsecond) + 2*(rate.TxTime(ack)+sim.Microsecond)
	want := int((rtt+rate.TxTime(full)-1)/rate.TxTime(full)) + 16 - 1 // ack_interval 16
	fl := f.reg.Flows[0]
	hops, _, err := f.routes.Path(fl.Src, fl.Dst, f.reg.Hash(0), f.pathLimit())
	require.NoError(t, err)
	got := f.roceConfig("rocev2").BDPCap(f.path(fl, 0, hops), 0)
	require.Equal(t, got, f.reg.BDPCapOf(0), "what the flow was given at its start (Registry.SetPath)")
	t.Logf("round trip %v, cap %d packets", rtt, got)
	require.Equal(t, want, got)
	require.Equal(t, 48+15, got, "4.19 us / 88.48 ns = 47.4, rounded up, and 15 more for the ACK every 16 packets")
}

// irnIncast is a 16-to-1 incast of 1 MB messages into a 100 Gb/s port with a 1 MB shared
// buffer, PFC off.
const irnIncast = `
version: 1
name: irn-incast
stop: 100ms
topology:
  preset: star
  params: {hosts: 17, link: {rate: 100Gbps, delay: 1us}}
switch:
  buffer: 1MB
transports:
  rocev2: {recovery: irn}
traffic:
  - incast: {receiver: h17, senders: [h1, h2, h3, h4, h5, h6, h7, h8, h9, h10, h11, h12, h13, h14, h15, h16], size: 1MB, transport: rocev2}
`

// TestIRNIncastWithoutPFCCompletes: without PFC the incast overflows the port's share of the
// buffer, and IRN must still finish every flow, with each loss resent about once (no
// go-back-N avalanche) and few timeouts: at most the flows' tails, where no later packet
// reveals a loss (two per flow allowed). The port can finish no sooner than the 16 MB at
// 100 Gb/s x 1024/1106 (1.3825 ms) and, with losses resent once,
// should finish within a few RTO_high of that.
func TestIRNIncastWithoutPFCCompletes(t *testing.T) {
	v := runOne(t, irnIncast, 0)
	require.EqualValues(t, 16, v.Flows.Completed)
	resent, timeouts := v.RetransmittedPackets, v.Timeouts
	drops := v.Drops.Total
	t.Logf("%d drops, %d resent, %d timeouts; FCT p50 %.0f us, max %.0f us", drops, resent, timeouts, *v.FCT.P50, *v.FCT.Max)
	require.Positive(t, drops, "the incast must overflow the buffer, or recovery is not tested")
	require.LessOrEqual(t, resent, 2*drops, "selective repeat resends what was lost, not a window per loss")
	require.LessOrEqual(t, timeouts, int64(2*16))
	floor := 16 * 1e6 * 1106 / 1024 * 8 / 100e9 * 1e6 // 1 MB = 10^6 bytes
	require.Greater(t, *v.FCT.Max, floor)
	require.Less(t, *v.FCT.Max, floor+4*320, "within four RTO_high of the line-rate floor")
}

// TestIRNNAKCarriesTheRevealingPSN: an IRN NAK is an ACK-sized frame plus the 4-byte
// selectively acknowledged PSN behind the AETH.
func TestIRNNAKCarriesTheRevealingPSN(t *testing.T) {
	var p topology.Packet
	p.EtherType, p.Protocol, p.DstPort = topology.EtherTypeIPv4, topology.IPProtoUDP, topology.UDPPortRoCEv2
	p.IB().HasAETH = true
	p.Seal()
	plain := p.WireBytes()
	p.IB().HasSACK = true
	p.Seal()
	require.Equal(t, plain+topology.IRNSACK, p.WireBytes())
}

// TestTsharkDecodesIRNNAKs: the NAKs of an IRN flow under loss carry the selectively
// acknowledged PSN behind the AETH: 70-byte frames (an ACK's 66 plus 4; 66 in the capture,
// which holds no FCS), decoded as
// InfiniBand by tshark without complaint, with a valid ICRC over the extension, and the PSN in
// the extension above the cumulative one the AETH's PSN names.
func TestTsharkDecodesIRNNAKs(t *testing.T) {
	dir := t.TempDir()
	_, err := RunCapture(load(t, fmt.Sprintf(irnLossy, 1, "auto", "2MB", 0.01, "rocev2")).Scenario(0), nil, Capture{Links: []string{"h1-sw"}, Dir: dir})
	require.NoError(t, err)
	file := filepath.Join(dir, "default-h1-sw.pcap")
	require.Zero(t, count(t, file, problems), "frames Wireshark finds wrong")
	require.Zero(t, count(t, file, "udp.port == 4791 && !infiniband"), "RoCE v2 frames not decoded")
	naks := count(t, file, "infiniband.aeth.syndrome == 0x60")
	require.Positive(t, naks)
	require.Equal(t, naks, count(t, file, "infiniband.aeth.syndrome == 0x60 && frame.len == 66"))
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	checked := 0
	for _, f := range pcapFrames(t, b) {
		if len(f) != 66 || binary.BigEndian.Uint16(f[12:]) != 0x0800 {
			continue
		}
		ip := f[14:]
		require.Equal(t, icrcV2(ip[:len(ip)-4]), binary.LittleEndian.Uint32(ip[len(ip)-4:]))
		cum := binary.BigEndian.Uint32(ip[28+8:]) & 0xFFFFFF
		sacked := binary.BigEndian.Uint32(ip[28+12+4:]) & 0xFFFFFF
		require.Greater(t, sacked, cum)
		checked++
	}
	require.Equal(t, naks, checked)
	t.Logf("%d NAKs, each with its SACK'd PSN and a valid ICRC", naks)
}

// TestIRNCapBelowTheACKIntervalAsksForACKs: a BDP cap of 5000 B, 5 packets of 1,106 wire
// bytes (rounded up), under the responder's ACK interval of 16. The requester asks for an
// ACK (BTH AckReq) on the packet that fills the cap, so a loss-free flow runs in rounds of 5
// packets, each at most a round trip plus 5 packet times: out over two 100 Gb/s hops (88.48
// ns a packet, 1 us links), an 86-byte ACK back (6.88 ns a hop). Without the request no
// coalesced ACK would come until a timeout, every round.
func TestIRNCapBelowTheACKIntervalAsksForACKs(t *testing.T) {
	v := runOne(t, fmt.Sprintf(irnLossy, 1, "5000B", "1MB", 0.0, "rocev2"), 0)
	require.EqualValues(t, 1, v.Flows.Completed)
	require.Zero(t, v.PerFlow[0].Timeouts, "no round waits for a timeout")
	const capPkts = (5000 + 1105) / 1106
	pkt, ack := 88.48e-3, 6.88e-3 // us
	rtt := 2*(pkt+1) + 2*(ack+1)
	npkts := (1_000_000 + 1023) / 1024
	rounds := (npkts + capPkts - 1) / capPkts
	bound := float64(rounds) * (rtt + capPkts*pkt) * 1.02
	t.Logf("FCT %.1f us; %d rounds of at most %.2f us: %.1f us (+2%%)", *v.PerFlow[0].FCTUS, rounds, rtt+capPkts*pkt, bound)
	require.Less(t, *v.PerFlow[0].FCTUS, bound)
}
