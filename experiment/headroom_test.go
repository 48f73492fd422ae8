package experiment

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/pfc"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// headroomCase is one point of the auto-headroom property: an N-to-1 incast through one
// switch, every link of the same rate and delay, the reverse direction of each sender's
// link idle or saturated by a long flow from a host of its own.
type headroomCase struct {
	rate      sim.Rate
	delay     sim.Time
	transport string
	mtu       int64
	reverse   bool
	senders   int
}

// largestWire is the case's largest frame on the wire, preamble and IFG included: a RoCE
// v2 WRITE First (it carries the RETH) of a full MTU, or an iWARP segment filling the IP
// MTU in an untagged Ethernet frame (its priority rides in the DSCP).
func (c headroomCase) largestWire() int64 {
	if c.transport == "iwarp" {
		return c.mtu + topology.EthernetHeader + topology.FCS + wireExtra
	}
	return c.mtu + roceV2Overhead + topology.RETHHeader
}

func (c headroomCase) String() string {
	rev := "idle"
	if c.reverse {
		rev = "saturated"
	}
	return fmt.Sprintf("%v/%v/%s-%d/reverse-%s/N=%d", c.rate, c.delay, c.transport, c.mtu, rev, c.senders)
}

// scenario is the case's YAML: XOFF at four largest frames, so every sender is paused again
// and again; the buffer large enough that only the headroom can run out; the senders' flows
// endless, the run long enough for each sender to push four times XOFF + headroom.
func (c headroomCase) scenario(xoff, headroom int64) string {
	var nodes, links, reverse []string
	link := fmt.Sprintf("rate: %s, delay: %s", c.rate, c.delay)
	add := func(name string) {
		nodes = append(nodes, fmt.Sprintf("    - {name: %s, type: host, subnet: 10.0.0.0/16}", name))
		links = append(links, fmt.Sprintf("    - {between: [%s, sw], %s}", name, link))
	}
	add("r")
	for i := 1; i <= c.senders; i++ {
		add(fmt.Sprintf("s%d", i))
		if c.reverse {
			add(fmt.Sprintf("y%d", i))
			reverse = append(reverse, fmt.Sprintf("  - flow: {src: y%d, dst: s%d, size: 1GB, transport: %s}", i, i, c.transport))
		}
	}
	// iWARP starts in slow start: allow it some round trips to reach line rate.
	warmup := 40 * (2*c.delay + c.rate.TxTime(c.largestWire()))
	stop := warmup + c.rate.TxTime(4*int64(c.senders)*(xoff+headroom))
	mtu := fmt.Sprintf("transports: {%s: {mtu: %d}}", c.transport, c.mtu)
	return fmt.Sprintf(`
version: 1
name: headroom-property
stop: %dps
topology:
  nodes:
    - {name: sw, type: switch}
%s
  links:
%s
switch:
  buffer: 1GB
  pfc: {enabled: true, priorities: [3], xoff: %dB}
%s
traffic:
  - incast: {senders: [%s], receiver: r, size: 1GB, transport: %s}
%s
`, int64(stop), strings.Join(nodes, "\n"), strings.Join(links, "\n"), xoff, mtu,
		hostList("s", 1, c.senders), c.transport, strings.Join(reverse, "\n"))
}

// TestAutoHeadroomNeverDrops is the property of auto headroom: for rates of 10 to 400 Gb/s,
// cables of 100 ns to 5 us, RoCE v2 at MTU 1024 and 4096 and iWARP at 1500 and 9000, the
// reverse direction idle and saturated, incasts of 2 and 16: no lossless frame is dropped,
// and no port's measured overshoot above XOFF exceeds its headroom. The headroom expected
// is the worst case computed here term by term (headroomWorst), with the IEEE 802.3 annex
// 31B response time of the link's speed.
func TestAutoHeadroomNeverDrops(t *testing.T) {
	slow(t, "240 runs")
	response := map[sim.Rate]uint16{10 * sim.Gbps: 60, 25 * sim.Gbps: 80, 40 * sim.Gbps: 118, 100 * sim.Gbps: 394, 400 * sim.Gbps: 905}
	var cases []headroomCase
	for _, rate := range []sim.Rate{10 * sim.Gbps, 25 * sim.Gbps, 40 * sim.Gbps, 100 * sim.Gbps, 400 * sim.Gbps} {
		for _, delay := range []sim.Time{100 * sim.Nanosecond, sim.Microsecond, 5 * sim.Microsecond} {
			for _, tm := range []struct {
				transport string
				mtu       int64
			}{{"rocev2", 1024}, {"rocev2", 4096}, {"iwarp", 1500}, {"iwarp", 9000}} {
				for _, reverse := range []bool{false, true} {
					for _, n := range []int{2, 16} {
						cases = append(cases, headroomCase{rate, delay, tm.transport, tm.mtu, reverse, n})
					}
				}
			}
		}
	}
	worst := 0.0
	for _, c := range cases {
		frame := c.largestWire()
		resp := pfc.PauseDuration(response[c.rate], c.rate)
		want := headroomWorst(c.rate, c.delay, frame, resp, 1)
		xoff := 4 * frame
		v := runOne(t, c.scenario(xoff, want), 0)
		require.Zero(t, v.Drops.Total, "%v: %+v", c, v.Drops.ByReason)
		paused := false
		for i := range v.PFCPorts {
			p := &v.PFCPorts[i]
			if p.Node != "sw" {
				continue // a NIC's sending side: paused, never pausing
			}
			require.Equal(t, want, p.HeadroomBytes, "%v: %s port to %s", c, p.Node, p.Peer)
			over := p.IngressMaxBytes - p.XoffBytes
			require.LessOrEqual(t, over, p.HeadroomBytes, "%v: overshoot at %s from %s", c, p.Node, p.Peer)
			paused = paused || p.PausesSent > 0
			worst = max(worst, float64(over)/float64(want))
		}
		require.True(t, paused, "%v: no port ever paused its sender: the case tests nothing", c)
	}
	t.Logf("%d cases; the largest overshoot is %.1f%% of the auto headroom", len(cases), 100*worst)
}

// TestAutoHeadroomLeafSpinePermutationIsLossless is the fabric where the old auto headroom
// (two frames, not three) dropped lossless frames: a 128-host leaf-spine (16 leaves of 8
// hosts, 8 spines, 100 Gb/s, 1 us links, MTU 4096) with a permutation of endless RoCE v2
// flows and XOFF 61,440 B / XON 49,152 B. Every port-class's overshoot, at hosts' and
// spines' ports alike, stays within its headroom, and nothing is lost or retransmitted.
func TestAutoHeadroomLeafSpinePermutationIsLossless(t *testing.T) {
	const text = `
version: 1
name: headroom-leafspine
stop: 1500us
topology:
  preset: leafspine
  params:
    leaves: 16
    spines: 8
    hosts_per_leaf: 8
    host_link: {rate: 100Gbps, delay: 1us}
    fabric_link: {rate: 100Gbps, delay: 1us}
    routing: l3
transports: {rocev2: {mtu: 4096}}
switch:
  pfc: {enabled: true, priorities: [3], xoff: 61440B, xon: 49152B}
traffic:
  - permutation: {size: 1GB, transport: rocev2}
`
	v := runOne(t, text, 0)
	require.Zero(t, v.Drops.Total, "%+v", v.Drops.ByReason)
	require.Zero(t, v.RetransmittedPackets)
	frame := int64(4096 + roceV2Overhead + topology.RETHHeader)
	want := headroomWorst(100*sim.Gbps, sim.Microsecond, frame, pfc.ResponseTime(100*sim.Gbps), 1)
	paused := 0
	for i := range v.PFCPorts {
		p := &v.PFCPorts[i]
		if p.HeadroomBytes == 0 {
			continue // a NIC's sending side
		}
		require.Equal(t, want, p.HeadroomBytes)
		require.LessOrEqual(t, p.IngressMaxBytes-p.XoffBytes, p.HeadroomBytes, "%s from %s", p.Node, p.Peer)
		if p.PausesSent > 0 {
			paused++
		}
	}
	require.Positive(t, paused, "the permutation congests some ports")
}
