package experiment

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/internal/accuracy"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// RoCE v1 per-packet overhead from the standards: Ethernet 14 + 802.1Q 4 (its PCP carries the
// priority) + GRH 40 + BTH 12 + ICRC 4 + FCS 4, plus preamble/SFD and IFG on the wire.
const roceV1Overhead = topology.EthernetHeader + topology.VLANTag + topology.GRHHeader + topology.BTHHeader +
	topology.ICRC + topology.FCS + topology.PreambleSFD + topology.InterFrameGap

func TestRoCEFrameSizes(t *testing.T) {
	require.EqualValues(t, 98, roceV1Overhead, "docs/model.md section 1: 1122 - 1024")
	require.EqualValues(t, 1024+roceV1Overhead, frames.RoCEWireBytes(1, 1024, false))
	require.EqualValues(t, 1024+roceV1Overhead+topology.RETHHeader, frames.RoCEWireBytes(1, 1024, true))
	require.EqualValues(t, 1106, frames.RoCEWireBytes(2, 1024, false))
	require.EqualValues(t, 4178, frames.RoCEWireBytes(2, 4096, false))
}

const oneLink = `
version: 1
name: goodput
stop: 50ms
topology:
  preset: star
  params: {hosts: 2, link: {rate: 100Gbps, delay: 1us}}
transports:
  rocev1: {mtu: %d}
  rocev2: {mtu: %d}
traffic:
  - flow: {src: h1, dst: h2, size: 100MB, transport: %s}
`

func TestLongFlowGoodputIsLineRateTimesPayloadOverWire(t *testing.T) {
	for _, c := range []struct {
		transport string
		mtu       int64
		overhead  int64
	}{
		{"rocev1", 1024, roceV1Overhead},
		{"rocev2", 1024, roceV2Overhead},
		{"rocev2", 4096, roceV2Overhead},
	} {
		t.Run(fmt.Sprintf("%s-%d", c.transport, c.mtu), func(t *testing.T) {
			v := runOne(t, fmt.Sprintf(oneLink, c.mtu, c.mtu, c.transport), 0)
			fl := v.PerFlow[0]
			require.Equal(t, "completed", fl.Status)
			goodput := float64(fl.SizeBytes*8) / (*fl.FCTUS * 1e-6) / 1e9
			want := 100 * float64(c.mtu) / float64(c.mtu+c.overhead)
			require.InEpsilon(t, want, goodput, 0.002, "within 0.2%% of line rate x payload/wire")
			accurate(t, "Links and frames", fmt.Sprintf("%s MTU %d, 100 MB over one 100 Gb/s link: goodput", c.transport, c.mtu), want, goodput, "Gb/s", 0.002,
				accuracy.ClosedForm, "line rate x payload / wire bytes")
		})
	}
}

func TestRoCEv1CannotCrossARouter(t *testing.T) {
	rack := func(dst, transport string) string {
		return fmt.Sprintf(leafSpine, fmt.Sprintf("  - flow: {src: h1, dst: %s, size: 64KiB, transport: %s}", dst, transport))
	}
	v := runOne(t, rack("h9", "rocev1"), 0)
	fl := v.PerFlow[0]
	require.Equal(t, "unroutable", fl.Status)
	require.Contains(t, fl.Reason, "leaf1", "the reason names the router")
	require.Contains(t, fl.Reason, "10.0.1.0/24")
	require.Contains(t, fl.Reason, "10.0.2.0/24")
	require.Zero(t, fl.DeliveredBytes)
	require.Zero(t, v.PacketHops, "nothing is sent for it")
	require.EqualValues(t, 1, v.Flows.Unroutable)

	// Inside one rack (one L2 domain) it works; RoCE v2 works in both cases.
	for _, c := range [][2]string{{"h2", "rocev1"}, {"h2", "rocev2"}, {"h9", "rocev2"}} {
		v := runOne(t, rack(c[0], c[1]), 0)
		require.Equal(t, "completed", v.PerFlow[0].Status, "%s to %s", c[1], c[0])
	}
}

const dropEvery256 = `
version: 1
name: livelock
stop: 5ms
topology:
  preset: star
  params: {hosts: 2, link: {rate: 100Gbps, delay: 1us}}
transports:
  rocev2: {recovery: %s}
traffic:
  - flow: {src: h1, dst: h2, size: 4MB, transport: rocev2}
faults:
  - {at: 0, link: [h1, sw], drop_every: 256}
`

func TestGoBack0LivelocksWhereGoBackNProgresses(t *testing.T) {
	// Guo et al. (SIGCOMM 2016, section 4.1): with every 256th packet dropped, go-back-0 loses
	// one of the first 256 packets of every attempt at a 4 MB (4096-packet) message, so it
	// never finishes although the link stays busy.
	v := runOne(t, fmt.Sprintf(dropEvery256, "go-back-0"), 0)
	fl := v.PerFlow[0]
	require.Equal(t, "incomplete", fl.Status)
	require.Less(t, fl.DeliveredBytes, int64(256*1024), "no attempt gets past its first 256 packets")
	require.Greater(t, linkUtilization(t, v, "h1", "sw"), 0.9, "while the link stays busy")

	// Go-back-N resends only from the lost packet: each drop costs the packets sent before
	// its NAK is back, W of them, so goodput is 255/(256+W) of the line-rate share
	// (docs/model.md sections 5 and 7). W = the round trip in packet times: the lost packet's
	// successor crosses two hops (2 x (tx + 1us)), the NAK comes back (2 x (tx_ack + 1us)).
	g := runOne(t, fmt.Sprintf(dropEvery256, "go-back-n"), 0)
	gf := g.PerFlow[0]
	require.Equal(t, "completed", gf.Status)
	rate := 100 * sim.Gbps
	tx := rate.TxTime(1024 + roceV2Overhead)
	rtt := 2*(tx+sim.Microsecond) + 2*(rate.TxTime(86)+sim.Microsecond)
	w := float64(rtt) / float64(tx)
	want := 100 * 1024.0 / (1024 + roceV2Overhead) * 255 / (256 + w)
	goodput := float64(gf.SizeBytes*8) / (*gf.FCTUS * 1e-6) / 1e9
	t.Logf("go-back-N goodput %.2f Gb/s, closed form %.2f (W = %.1f); go-back-0 delivered %d bytes, link busy %.3f", goodput, want, w, fl.DeliveredBytes, linkUtilization(t, v, "h1", "sw"))
	require.InEpsilon(t, want, goodput, 0.10, "go-back-N under 1/256 deterministic loss, W = %.1f", w)
}

const lossyForward = `
version: 1
name: gbn-loss
seed: %d
stop: 60s
topology:
  preset: star
  params: {hosts: 2, link: {rate: 100Gbps, delay: 1us}}
transports:
  rocev2: {retransmit_timeout: %s}
traffic:
  - flow: {src: h1, dst: h2, size: %s, transport: rocev2}
faults:
  - {at: 0, link: [h1, sw], loss: %g}
`

// TestGoBackNUnderRandomLossMatchesRenewalReward checks RoCE v2's go-back-N against the
// renewal-reward closed form of docs/model.md sections 5 and 7, eta = (1-p)/(1 + p(W + pi R)): W
// packets are resent per loss (the round trip in packet times), and a loss whose
// retransmission is lost too (pi = p, losses on the data direction only) costs a whole
// retransmit timeout, R packet times. Timeouts are rare events, so each case runs long
// enough for the timeout term to be averaged over many of them, or is one where that term is
// small; p = 1e-3 and 1e-2 with a 67.1 ms timeout are not here: the timeout term dominates
// there, and averaging it over enough timeouts takes minutes of simulation.
func TestGoBackNUnderRandomLossMatchesRenewalReward(t *testing.T) {
	rate := 100 * sim.Gbps
	tx := rate.TxTime(1024 + roceV2Overhead)
	// The round trip, as in the drop_every test: the lost packet's successor crosses two
	// hops, the NAK comes back over two.
	rtt := 2*(tx+sim.Microsecond) + 2*(rate.TxTime(86)+sim.Microsecond)
	w := float64(rtt) / float64(tx)
	for _, c := range []struct {
		p    float64
		rto  sim.Time
		size string
	}{
		{1e-4, 1048576 * sim.Nanosecond, "100MB"},
		{1e-4, 67108864 * sim.Nanosecond, "100MB"},
		{1e-3, 1048576 * sim.Nanosecond, "200MB"},
		{1e-2, 1048576 * sim.Nanosecond, "800MB"}, // ~80 timeouts: the term's spread ~5%
	} {
		t.Run(fmt.Sprintf("p=%g,rto=%v", c.p, c.rto), func(t *testing.T) {
			v := runOne(t, fmt.Sprintf(lossyForward, 1, c.rto, c.size, c.p), 0)
			fl := v.PerFlow[0]
			require.Equal(t, "completed", fl.Status)
			r := float64(c.rto) / float64(tx)
			eta := (1 - c.p) / (1 + c.p*(w+c.p*r))
			want := 100 * 1024.0 / (1024 + roceV2Overhead) * eta
			goodput := float64(fl.SizeBytes*8) / (*fl.FCTUS * 1e-6) / 1e9
			t.Logf("goodput %.2f Gb/s, closed form %.2f (W %.1f, R %.0f)", goodput, want, w, r)
			accurate(t, "Loss recovery", fmt.Sprintf("RoCE v2 go-back-N, loss %g, timeout %v, 100 Gb/s: goodput", c.p, c.rto), want, goodput, "Gb/s", 0.10,
				accuracy.ClosedForm, "renewal reward (1-p)/(1 + p(W + p R)) (docs/model.md sections 5, 7)")
		})
	}
}
