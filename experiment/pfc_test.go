package experiment

// Acceptance tests of issue 3 (PFC). Every expected value is derived here from the model's
// sources as docs/model.md gives them: header sizes (section 1.1) through the topology
// constants, pause and headroom arithmetic (section 3), the incast, victim and deadlock
// closed forms (section 7).

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/internal/accuracy"
	"github.com/fabricsim/fabricsim/pfc"
	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/switchmodel"
	"github.com/fabricsim/fabricsim/topology"
)

// The PMTU every test here uses (the rocev2 default) and the wire bytes of a WRITE middle
// packet (payload + 82 bytes of RoCE v2 overhead, docs/model.md section 1).
const (
	pfcMTU        = 1024
	middleWire    = pfcMTU + roceV2Overhead
	largestWire   = pfcMTU + roceV2Overhead + topology.RETHHeader // WRITE first: carries the RETH
	wireExtra     = topology.PreambleSFD + topology.InterFrameGap // on the wire, not in the buffer
	middleFrame   = middleWire - wireExtra
	largestFrame  = largestWire - wireExtra
	pfcClass      = 3
	payloadOfWire = float64(pfcMTU) / float64(middleWire) // goodput fraction of a long WRITE
)

// messageWire is the wire bytes of one RDMA WRITE of size bytes: one packet per MTU, the
// first with a RETH, the last with the remainder.
func messageWire(size int64) int64 {
	n := (size + pfcMTU - 1) / pfcMTU
	last := size - (n-1)*pfcMTU
	if n == 1 {
		return last + roceV2Overhead + topology.RETHHeader
	}
	return largestWire + (n-2)*middleWire + last + roceV2Overhead
}

// messageFrames is the same message in frame bytes (what a switch buffer holds).
func messageFrames(size int64) int64 {
	n := (size + pfcMTU - 1) / pfcMTU
	return messageWire(size) - n*wireExtra
}

func gbps(bytes int64, d sim.Time) float64 { return float64(bytes) * 8 / d.Seconds() / 1e9 }

func pfcPort(v *results.Variant, node, peer string) *results.PFCPort {
	for i := range v.PFCPorts {
		if p := &v.PFCPorts[i]; p.Node == node && p.Peer == peer && p.Priority == pfcClass {
			return p
		}
	}
	return nil
}

func hostList(prefix string, from, to int) string {
	var hs []string
	for i := from; i <= to; i++ {
		hs = append(hs, fmt.Sprintf("%s%d", prefix, i))
	}
	return strings.Join(hs, ", ")
}

// ---------------------------------------------------------------------------------------
// 1. Incast 16-to-1 (docs/model.md section 7).

const incast16 = `
version: 1
name: incast-pfc
stop: 20ms
topology:
  preset: star
  params: {hosts: 17, link: {rate: 100Gbps, delay: 1us}}
switch:
  buffer: 4MB
  pfc: {enabled: true, priorities: [3]}
hosts: {priority: 3}
traffic:
  - incast: {senders: [%s], receiver: h17, size: 1MiB, transport: rocev2}
`

func TestPFCIncastIsLosslessFairAndAtLineRate(t *testing.T) {
	const n, size = 16, 1 << 20
	c := 100 * sim.Gbps
	d := sim.Microsecond
	text := fmt.Sprintf(incast16, hostList("h", 1, n))

	// The receiver link is the bottleneck: it is busy from the first frame's arrival at the
	// switch (one serialization and one propagation) with all 16 messages back to back, and
	// the last frame then propagates once more: base latency = one frame time + 2d.
	base := c.TxTime(largestWire) + 2*d
	want := c.TxTime(n*messageWire(size)) + base
	line := c.Gbps() * payloadOfWire // receiver goodput at line rate
	share := line / n                // each sender's fair share, C/N x payload/wire

	// A snapshot while all 16 are active: half way through.
	f := build0(t, text)
	mid := want / 2
	f.runUntil(mid)
	var total int64
	for _, fl := range f.reg.Flows {
		require.Less(t, fl.Delivered, int64(size), "flow %d done before half time", fl.ID)
		total += fl.Delivered
	}
	// The receiver link has been delivering since its first bits arrived, at base.
	active := mid - base
	t.Logf("at %v: receiver %.3f Gb/s (line x payload/wire %.3f)", mid, gbps(total, active), line)
	require.InEpsilon(t, line, gbps(total, active), 0.01, "receiver goodput while all are active")
	lo, hi := share*2, 0.0
	for _, fl := range f.reg.Flows {
		g := gbps(fl.Delivered, active)
		lo, hi = min(lo, g), max(hi, g)
		require.InEpsilon(t, share, g, 0.10, "flow %d's share while all are active: %.3f Gb/s", fl.ID, g)
	}
	t.Logf("per-flow goodput at %v: %.3f..%.3f Gb/s, fair share %.3f", mid, lo, hi, share)
	f.runUntil(f.sc.Stop)
	require.NoError(t, f.audit())
	v := f.collect()

	require.EqualValues(t, n, v.Flows.Completed)
	require.Zero(t, v.Drops.Total, "PFC with auto headroom loses nothing: %+v", v.Drops.ByReason)
	require.Zero(t, v.RetransmittedPackets)
	last := 0.0
	lo, hi = share*2, 0.0
	for _, fl := range v.PerFlow {
		last = max(last, *fl.FinishUS)
		// Over its whole life each flow got its fair share too.
		g := float64(size) * 8 / (*fl.FCTUS * 1e3)
		lo, hi = min(lo, g), max(hi, g)
		require.InEpsilon(t, share, g, 0.10, "flow %d: FCT %.1f us", fl.ID, *fl.FCTUS)
	}
	t.Logf("per-flow goodput over the FCT %.3f..%.3f Gb/s, fair share %.3f; %d pause frames", lo, hi, share, v.PFC.PauseFrames)
	t.Logf("last byte at %.2f us, arithmetic %.2f us", last, want.Microseconds())
	require.InEpsilon(t, want.Microseconds(), last, 0.02, "last byte vs the arithmetic completion time")
	accurate(t, "PFC", "16 x 1 MiB incast into one 100 Gb/s port, PFC: last byte", want.Microseconds(), last, "us", 0.02,
		accuracy.ClosedForm, "16 messages' wire bytes at line rate + one frame + 2 delays")
	for i := 1; i <= n; i++ {
		h := fmt.Sprintf("h%d", i)
		sw := pfcPort(v, "sw", h)
		require.NotNil(t, sw, "no PFC activity on sw's port to %s", h)
		require.Positive(t, sw.PausesSent, "sw paused %s", h)
		nic := pfcPort(v, h, "sw")
		require.NotNil(t, nic, "%s was never paused", h)
		require.Positive(t, nic.PausedUS, "%s was paused", h)
	}
	require.Positive(t, v.PFC.PauseFrames)
}

func TestIncastWithoutPFCDropsAndRetransmits(t *testing.T) {
	const n = 16
	v := runOne(t, fmt.Sprintf(incast16, hostList("h", 1, n)), 0, "switch.pfc.enabled=false", "switch.buffer=1MB")
	t.Logf("drops %+v, retransmitted %d, completed %d", v.Drops.ByReason, v.RetransmittedPackets, v.Flows.Completed)
	require.Positive(t, v.Drops.ByReason.Buffer)
	require.Zero(t, v.Drops.ByReason.Headroom, "no lossless class: no headroom drops")
	require.Positive(t, v.RetransmittedPackets)
	require.Zero(t, v.PFC.PauseFrames)
}

const syncBurst = `
version: 1
name: burst
stop: 1ms
topology:
  preset: star
  params: {hosts: %d, link: {rate: 100Gbps, delay: 1us}}
switch: {buffer: %dB, buffer_alpha: 1000}
traffic:
  - incast: {senders: [%s], receiver: h%d, size: %dB, transport: rocev2}
`

func TestSynchronizedBurstDropsMatchClosedForm(t *testing.T) {
	// N senders blast S bytes at line rate at once into one port with a static limit of B
	// bytes (alpha = 1000 makes the dynamic threshold the whole free buffer): the queue grows
	// at (N-1)C for S/C, so dropped = max(0, (N-1)S - B). The buffer holds frames, so S is
	// the frame bytes of one burst.
	tests := []struct {
		n      int
		size   int64
		buffer int64
	}{
		{8, 64 << 10, 200_000}, // docs/model.md section 7: 48% of the burst lost
		{4, 64 << 10, 256_000}, // lossless: B >= (N-1)S
		{16, 32 << 10, 300_000},
	}
	c := 100 * sim.Gbps
	d := sim.Microsecond
	for _, tc := range tests {
		t.Run(fmt.Sprintf("N=%d S=%d B=%d", tc.n, tc.size, tc.buffer), func(t *testing.T) {
			s := messageFrames(tc.size)
			want := max(0, int64(tc.n-1)*s-tc.buffer)
			// Count the drops of the first transmission only: stop once the last burst frame
			// has reached the switch, before any go-back-N retransmission can. The first one
			// needs a drop, the queue ahead of the next frame to drain (B/C) and four more hops.
			stop := c.TxTime(messageWire(tc.size)) + d + sim.Microsecond
			require.Less(t, stop, c.TxTime(tc.buffer)+4*d, "stop before any retransmission arrives")
			text := fmt.Sprintf(syncBurst, tc.n+1, tc.buffer, hostList("h", 1, tc.n), tc.n+1, tc.size)
			v := runOne(t, text, 0, fmt.Sprintf("stop=%dns", int64(stop/sim.Nanosecond)+1))
			require.Zero(t, v.RetransmittedPackets, "no retransmission before the stop")
			// Every frame but the first carries no RETH; the first of each burst arrives at an
			// empty queue, so each drop is a middle frame.
			dropped := v.Drops.ByReason.Buffer * middleFrame
			t.Logf("dropped %d frames = %d bytes, closed form %d", v.Drops.ByReason.Buffer, dropped, want)
			require.Equal(t, v.Drops.ByReason.Buffer, v.Drops.Total)
			require.InDelta(t, want, dropped, float64(tc.n*largestFrame), "within N MTUs")
			if want > 0 {
				accurate(t, "Buffers and drops", fmt.Sprintf("synchronized burst, N=%d x %d B into a %d B buffer: bytes dropped", tc.n, tc.size, tc.buffer),
					float64(want), float64(dropped), "B", float64(tc.n*largestFrame)/float64(want),
					accuracy.ClosedForm, "max(0, (N-1)S - B), within N frames (docs/model.md section 7)")
			}
		})
	}
}

// ---------------------------------------------------------------------------------------
// 2. A fast sender into a slow bottleneck: PFC makes it lossless at the bottleneck's rate.

const fastIntoSlow = `
version: 1
name: fast-into-slow
stop: 20ms
topology:
  preset: dumbbell
  params: {left: 1, right: 1, host_link: {rate: 100Gbps, delay: 1us}, bottleneck: {rate: 40Gbps, delay: 1us}}
switch:
  buffer: 1MB
  pfc: {enabled: true, priorities: [3]}
traffic:
  - flow: {src: l1, dst: r1, size: 4MB, transport: rocev2}
`

func TestPFCFastSenderIntoSlowBottleneckIsLosslessAtBottleneckRate(t *testing.T) {
	v := runOne(t, fastIntoSlow, 0)
	require.EqualValues(t, 1, v.Flows.Completed)
	require.Zero(t, v.Drops.Total, "%+v", v.Drops.ByReason)
	require.Zero(t, v.RetransmittedPackets)
	// The 4 MB outgrow the 1 MB buffer's XOFF: swl must have paused l1, and l1 obeyed.
	sw := pfcPort(v, "swl", "l1")
	require.NotNil(t, sw)
	require.Positive(t, sw.PausesSent)
	nic := pfcPort(v, "l1", "swl")
	require.NotNil(t, nic)
	require.Positive(t, nic.PausedUS)
	fl := v.PerFlow[0]
	got := float64(fl.SizeBytes) * 8 / (*fl.FCTUS * 1e3)
	want := 40 * payloadOfWire
	t.Logf("goodput %.3f Gb/s, 40G x payload/wire %.3f, %d pauses, l1 paused %.1f us", got, want, sw.PausesSent, nic.PausedUS)
	accurate(t, "PFC", "100 Gb/s sender into a 40 Gb/s bottleneck, PFC: goodput", want, got, "Gb/s", 0.01,
		accuracy.ClosedForm, "bottleneck rate x payload / wire bytes")
}

// ---------------------------------------------------------------------------------------
// 3. Headroom (docs/model.md section 3).

// bytesAt is what rate r carries in t, rounded up (headroom must not fall short).
func bytesAt(r sim.Rate, t sim.Time) int64 {
	num := int64(r) * int64(t) // bit/s x ps: fits in int64 for the rates and times used here
	den := int64(8 * sim.Second)
	return (num + den - 1) / den
}

// headroomWorst is the worst case of what arrives after XOFF is crossed: the section 2.2
// sum (the frame on the reverse wire, the PAUSE, both cable trips, the response, the frame
// the sender finishes: MTU_R + 84 B + C x (2d + t_resp) + MTU_S) plus the frame that
// crossed XOFF, admitted whole, and one more PFC frame per other lossless class, which may
// be queued ahead of the PAUSE.
func headroomWorst(c sim.Rate, d sim.Time, mtu int64, resp sim.Time, classes int) int64 {
	const pauseWire = 64 + topology.PreambleSFD + topology.InterFrameGap
	return 3*mtu + pauseWire*int64(classes) + bytesAt(c, 2*d+resp)
}

// The IEEE 802.3 annex 31B response bound at 100 Gb/s: 394 quanta of 512 bit times.
var ieee100GResponse = sim.Time(394*512) * (sim.Second / sim.Time(100*sim.Gbps))

func TestHeadroomAutoIsTheWorstCase(t *testing.T) {
	c := 100 * sim.Gbps
	d := 500 * sim.Nanosecond // 100 m of fibre at 5 ns/m
	// IP MTU 1500 with 802.1Q: 1500 + 14 + 4 + 4 + 8 + 12 = 1542 bytes on the wire.
	const mtu1500 = 1500 + topology.EthernetHeader + topology.VLANTag + topology.FCS + wireExtra
	require.EqualValues(t, 1542, mtu1500)
	require.EqualValues(t, 25216, bytesAt(c, ieee100GResponse), "394 quanta at 100G")
	for _, resp := range []sim.Time{0, ieee100GResponse, pfc.PauseDuration(60, c), 1500 * sim.Nanosecond} {
		got := pfc.Headroom(pfc.HeadroomLink{Rate: c, Delay: d, MaxFrameWire: mtu1500, Response: resp, Classes: 1})
		require.Equal(t, headroomWorst(c, d, mtu1500, resp, 1), got.Total(), "response %v", resp)
	}
	// Section 2.3's ideal-simulator row (15,668 B) and IEEE-response row (40,884 B), each with
	// the frame that crosses XOFF (1,542 B) on top.
	require.EqualValues(t, 15668+1542, headroomWorst(c, d, mtu1500, 0, 1), "section 2.3, ideal simulator")
	require.EqualValues(t, 40884+1542, headroomWorst(c, d, mtu1500, ieee100GResponse, 1), "section 2.3, IEEE response")

	// In a fabric: every port of the switch gets the formula's headroom for its own link, with
	// the simulator's largest frame (a full RoCE v2 WRITE First) and the configured response.
	text := `
version: 1
name: headroom
topology:
  nodes:
    - {name: sw, type: switch}
    - {name: a, type: host, subnet: 10.0.0.0/24}
    - {name: b, type: host, subnet: 10.0.0.0/24}
  links:
    - {between: [a, sw], rate: 100Gbps, delay: 500ns}
    - {between: [b, sw], rate: 40Gbps, delay: 2us}
switch: {pfc: {enabled: true, priorities: [3, 4]}}
traffic:
  - flow: {src: a, dst: b, size: 1MB, transport: rocev2}
`
	for _, tc := range []struct {
		set  string
		resp func(sim.Rate) sim.Time
	}{
		{"switch.pfc.response_time=auto", func(r sim.Rate) sim.Time {
			if r == 40*sim.Gbps {
				return pfc.PauseDuration(118, r) // annex 31B at 40G
			}
			return ieee100GResponse
		}},
		{"switch.pfc.response_time=0", func(sim.Rate) sim.Time { return 0 }},
		{"switch.pfc.response_time=1500ns", func(sim.Rate) sim.Time { return 1500 * sim.Nanosecond }},
	} {
		f := build0(t, text, tc.set)
		require.Empty(t, f.warnings)
		sw := f.switches[0]
		links := map[string]struct {
			r sim.Rate
			d sim.Time
		}{"a": {c, d}, "b": {40 * sim.Gbps, 2 * sim.Microsecond}}
		for _, pt := range sw.Ports {
			l := links[f.nw.Nodes[pt.Wire.To].Name]
			want := headroomWorst(l.r, l.d, largestWire, tc.resp(l.r), 2)
			for _, class := range []int{3, 4} {
				require.Equal(t, want, pt.Ingress[class].Headroom, "%s: port to %s, class %d", tc.set, f.nw.Nodes[pt.Wire.To].Name, class)
			}
		}
	}
}

// overshoot is an 8-to-1 incast at 100 Gb/s over 100 m (500 ns) of fibre into a 10 Gb/s
// receiver: each sender's ingress fills at almost line rate (it drains at 10/8 Gb/s), so the
// overshoot above XOFF is what arrives after the PAUSE.
const overshoot = `
version: 1
name: overshoot
stop: 300us
topology:
  nodes:
    - {name: sw, type: switch}
    - {name: r, type: host, subnet: 10.0.0.0/24}
%s
  links:
    - {between: [r, sw], rate: 10Gbps, delay: 500ns}
%s
switch:
  buffer: 4MB
  pfc: {enabled: true, priorities: [3], xoff: 20KB}
traffic:
  - incast: {senders: [%s], receiver: r, size: 1MB, transport: rocev2}
`

func overshootScenario(n int) string {
	var nodes, links []string
	for i := 1; i <= n; i++ {
		nodes = append(nodes, fmt.Sprintf("    - {name: s%d, type: host, subnet: 10.0.0.0/24}", i))
		links = append(links, fmt.Sprintf("    - {between: [s%d, sw], rate: 100Gbps, delay: 500ns}", i))
	}
	return fmt.Sprintf(overshoot, strings.Join(nodes, "\n"), strings.Join(links, "\n"), hostList("s", 1, n))
}

func TestPFCOvershootStaysWithinSection22Bounds(t *testing.T) {
	const n = 8
	c := 100 * sim.Gbps
	d := 500 * sim.Nanosecond
	for _, tc := range []struct {
		set  string
		resp sim.Time
	}{
		{"switch.pfc.response_time=auto", ieee100GResponse},
		{"switch.pfc.response_time=0", 0},
		{"switch.pfc.response_time=1us", sim.Microsecond},
	} {
		t.Run(tc.set, func(t *testing.T) {
			v := runOne(t, overshootScenario(n), 0, tc.set)
			require.Zero(t, v.Drops.Total, "%+v", v.Drops.ByReason)
			h := headroomWorst(c, d, largestWire, tc.resp, 1)
			// Section 2.3: when the sender streams back to back, at least C x (2d + t_resp)
			// + 84 B arrive after XOFF is crossed; less one frame for packet granularity and
			// for the ingress draining meanwhile (at 10/8 Gb/s here, under 1% of it).
			low := bytesAt(c, 2*d+tc.resp) + pfc.FrameWireBytes - largestFrame
			for i := 1; i <= n; i++ {
				p := pfcPort(v, "sw", fmt.Sprintf("s%d", i))
				require.NotNil(t, p, "s%d was never paused", i)
				require.Positive(t, p.PausesSent)
				require.Equal(t, h, p.HeadroomBytes)
				require.EqualValues(t, 20_000, p.XoffBytes)
				over := p.IngressMaxBytes - p.XoffBytes
				if i == 1 {
					t.Logf("%s: overshoot %d bytes in [%d, %d]", tc.set, over, low, h)
				}
				require.GreaterOrEqual(t, over, low, "s%d: overshoot", i)
				require.LessOrEqual(t, over, h, "s%d: overshoot", i)
			}
		})
	}
}

func TestHeadroomBelowNeedDropsAsHeadroomAndWarns(t *testing.T) {
	// 4 KB is well below the 2.2 need of a 100 Gb/s, 500 ns port; the senders' frames in
	// flight after the PAUSE overflow it.
	const set = "switch.pfc.headroom=4KB"
	text := overshootScenario(8)
	need := headroomWorst(100*sim.Gbps, 500*sim.Nanosecond, largestWire, ieee100GResponse, 1)
	require.Greater(t, need, int64(4000))
	warnings, err := Check(load(t, text, set))
	require.NoError(t, err)
	found := false
	for _, w := range warnings {
		found = found || (strings.Contains(w, "headroom") && strings.Contains(w, fmt.Sprint(need)))
	}
	require.True(t, found, "validate warns that the headroom is below the need of %d bytes: %q", need, warnings)
	ok, err := Check(load(t, text))
	require.NoError(t, err)
	require.Empty(t, ok, "auto headroom: nothing to warn about")

	v := runOne(t, text, 0, set)
	t.Logf("drops %+v, retransmitted %d", v.Drops.ByReason, v.RetransmittedPackets)
	require.Positive(t, v.Drops.ByReason.Headroom)
	require.Zero(t, v.Drops.ByReason.Buffer, "a lossless class never counts buffer drops")
	require.Equal(t, v.Drops.ByReason.Headroom, v.Drops.Total)
	require.NotEmpty(t, v.Warnings)
	found = false
	for _, w := range v.Warnings {
		found = found || strings.Contains(w, "headroom")
	}
	require.True(t, found, "the results explain the headroom drops: %q", v.Warnings)
}

// ---------------------------------------------------------------------------------------
// 4. The victim flow (docs/model.md section 7).

const victim = `
version: 1
name: victim
stop: %s
topology:
  nodes:
    - {name: SA, type: switch}
    - {name: SB, type: switch}
    - {name: A1, type: host, subnet: 10.0.0.0/24}
    - {name: A2, type: host, subnet: 10.0.0.0/24}
    - {name: R, type: host, subnet: 10.0.0.0/24}
    - {name: V, type: host, subnet: 10.0.0.0/24}
%s
  links:
    - {between: [SA, SB], rate: 100Gbps, delay: 1us}
    - {between: [A1, SA], rate: 100Gbps, delay: 1us}
    - {between: [A2, SA], rate: 100Gbps, delay: 1us}
    - {between: [R, SB], rate: 100Gbps, delay: 1us}
    - {between: [V, SB], rate: 100Gbps, delay: 1us}
%s
switch:
  buffer: 4MB
  pfc: {enabled: true, priorities: [3]}
traffic:
  - flow: {src: A1, dst: R, size: 1GB, transport: rocev2}
  - flow: {src: A2, dst: V, size: 1GB, transport: rocev2}
%s
`

func victimScenario(n int, stop sim.Time) string {
	var nodes, links, flows []string
	for i := 1; i <= n; i++ {
		nodes = append(nodes, fmt.Sprintf("    - {name: L%d, type: host, subnet: 10.0.0.0/24}", i))
		links = append(links, fmt.Sprintf("    - {between: [L%d, SB], rate: 100Gbps, delay: 1us}", i))
		flows = append(flows, fmt.Sprintf("  - flow: {src: L%d, dst: R, size: 1GB, transport: rocev2}", i))
	}
	return fmt.Sprintf(victim, fmt.Sprintf("%dus", int64(stop/sim.Microsecond)), strings.Join(nodes, "\n"),
		strings.Join(links, "\n"), strings.Join(flows, "\n"))
}

// victimRate is flow src's delivered goodput over the run, in Gb/s.
func victimRate(t *testing.T, v *results.Variant, src string) float64 {
	t.Helper()
	for _, fl := range v.PerFlow {
		if fl.Src == src {
			return float64(fl.DeliveredBytes) * 8 / (v.SimTimeUS * 1e3)
		}
	}
	require.FailNow(t, "no flow from "+src)
	return 0
}

func linkUtilization(t *testing.T, v *results.Variant, from, to string) float64 {
	t.Helper()
	for _, l := range v.Links {
		if l.From == from && l.To == to {
			return l.Utilization
		}
	}
	require.FailNow(t, "no link "+from+"->"+to)
	return 0
}

// The victim topology with n = 3 local senders, greedy flows, no CC, 2 ms of 100 Gb/s.
const victimN = 3

var victimStop = 2 * sim.Millisecond

func logVictim(t *testing.T, v *results.Variant) {
	t.Logf("F1 %.2f, F2 %.2f, L1 %.2f, L2 %.2f, L3 %.2f Gb/s; SA->SB utilization %.3f; drops %+v; pauses %d",
		victimRate(t, v, "A1"), victimRate(t, v, "A2"), victimRate(t, v, "L1"), victimRate(t, v, "L2"),
		victimRate(t, v, "L3"), linkUtilization(t, v, "SA", "SB"), v.Drops.ByReason, v.PFC.PauseFrames)
}

func TestPFCVictimFlowGetsTheCongestedShare(t *testing.T) {
	const n = victimN
	c := 100 * sim.Gbps
	v := runOne(t, victimScenario(n, victimStop), 0)
	logVictim(t, v)
	require.InDelta(t, victimStop.Microseconds(), v.SimTimeUS, 1e-6, "greedy flows: the run lasts to the stop")
	// SB->R is shared by n+1 ingress ports, so F1 ~ Li ~ C/(n+1); SA's egress FIFO to SB
	// holds F1 and F2 about 1:1, so the victim F2 gets C/(n+1) too, though its own path
	// (A2 -> SA -> SB -> V) is otherwise idle, and SA->SB carries only 2C/(n+1).
	share := c.Gbps() / (n + 1) * payloadOfWire
	t.Logf("C/(n+1) x payload/wire = %.2f Gb/s", share)
	require.Zero(t, v.Drops.Total)
	require.InEpsilon(t, share, victimRate(t, v, "A2"), 0.20, "the victim gets about C/(n+1)")
	require.InEpsilon(t, share, victimRate(t, v, "A1"), 0.20, "F1 gets its share of SB->R")
	for i := 1; i <= n; i++ {
		require.InEpsilon(t, share, victimRate(t, v, fmt.Sprintf("L%d", i)), 0.20, "L%d gets its share of SB->R", i)
	}
	require.InEpsilon(t, 2.0/(n+1), linkUtilization(t, v, "SA", "SB"), 0.20, "SA->SB carries 2C/(n+1)")
	// The pause spread hop by hop: SB paused SA, and SA paused the victim's own sender.
	sb := pfcPort(v, "SB", "SA")
	require.NotNil(t, sb)
	require.Positive(t, sb.PausesSent)
	sa := pfcPort(v, "SA", "A2")
	require.NotNil(t, sa)
	require.Positive(t, sa.PausesSent)
	nic := pfcPort(v, "A2", "SA")
	require.NotNil(t, nic, "A2's NIC was paused")
	require.Positive(t, nic.PausedUS)
}

func TestVictimFlowWithoutPFCIsNotHeldBack(t *testing.T) {
	v := runOne(t, victimScenario(victimN, victimStop), 0, "switch.pfc.enabled=false")
	logVictim(t, v)
	// Without PFC nothing spreads: no pause anywhere, so SA's port to SB is never held back
	// and runs at line rate (F1 and F2 offer 2C to it).
	require.Zero(t, v.PFC.PauseFrames)
	require.Empty(t, v.PFCPorts)
	require.Positive(t, v.Drops.ByReason.Buffer)
	require.InDelta(t, 1.0, linkUtilization(t, v, "SA", "SB"), 0.01, "SA->SB is busy all the time")

	// What the victim gets instead is set by drop-tail at SA, where A1 and A2 each offer C:
	// without congestion control both flows lose about half their frames there, and
	// go-back-N turns that into little goodput. The max-min share C n/(n+1) needs a sender
	// that backs off (DCQCN); without one the lesson is only that nothing pauses A2.
}

// ---------------------------------------------------------------------------------------
// 5. Routing-loop deadlock (docs/model.md section 7, [HotNets16]).

// routingLoop is h1 -> r1 <-> r2 -> h2 with a static route at r2 sending h2's subnet back to
// r1: h1's packets circle until their TTL runs out. The injector stops for good when h1's
// link goes down at 6 ms (the deadlock, if any, has formed by then: about 3 ms at 20 Gb/s).
const routingLoop = `
version: 1
name: pfc-deadlock
stop: 20ms
` + loopTopology + `switch:
  buffer: 4MB
  pfc: {enabled: true, priorities: [3]}
traffic:
  - flow: {src: h1, dst: h2, size: 1GB, transport: rocev2, rate: 20Gbps}
faults:
  - {at: 6ms, link: [h1, r1], state: down}
`

// loopTopology is the routing loop's fabric: h1 -> r1 <-> r2 -> h2, and r2's static route
// for h2's subnet back to r1.
const loopTopology = `topology:
  nodes:
    - {name: h1, type: host, subnet: 10.0.1.0/24}
    - {name: h2, type: host, subnet: 10.0.2.0/24}
    - {name: r1, type: switch, layer: 3}
    - {name: r2, type: switch, layer: 3}
  links:
    - {between: [h1, r1], rate: 100Gbps, delay: 1us}
    - {between: [r1, r2], rate: 100Gbps, delay: 1us}
    - {between: [r2, h2], rate: 100Gbps, delay: 1us}
  routes:
    - {at: r2, dst: 10.0.2.0/24, via: r1}   # r1 -> r2 -> r1 -> ...: a routing loop
hosts: {ttl: 16}
`

// loopPort is router a's port towards router b, and its name.
func loopPort(t testing.TB, f *fabric, a, b string) (*switchmodel.Port, string) {
	t.Helper()
	ida, _ := f.nw.Lookup(a)
	idb, _ := f.nw.Lookup(b)
	for _, sw := range f.switches {
		if sw.ID != ida {
			continue
		}
		for _, pt := range sw.Ports {
			if pt.Wire.To == idb {
				return pt, f.nw.PortName(ida, pt.Index)
			}
		}
	}
	require.FailNow(t, "no port from "+a+" to "+b)
	return nil, ""
}

// loopRun is what the two loop queues (r1 towards r2, r2 towards r1) did after the injector
// stopped: their class-3 bytes and sent-frame counters then and at the end of the run.
type loopRun struct {
	v                    *results.Variant
	names                [2]string
	atStop, atEnd        [2]int64
	servedStop, servedAt [2]int64
	paused               [2]bool
}

func runLoop(t *testing.T, r sim.Rate, sets ...string) loopRun {
	t.Helper()
	f0 := build0(t, routingLoop, sets...)
	injectorStops := f0.sc.Faults[0].At
	// With nothing injected, every frame in the loop dies within TTL hops, each behind at
	// most a full buffer: the loop drains within TTL x (B/C + d + one frame).
	ttl := sim.Time(f0.sc.Hosts.TTL)
	c := 100 * sim.Gbps
	drain := ttl * (c.TxTime(f0.sc.Switch.Buffer) + sim.Microsecond + c.TxTime(largestWire))
	end := injectorStops + drain + sim.Millisecond
	sets = append(sets, fmt.Sprintf("traffic.0.flow.rate=%dMbps", int64(r/sim.Mbps)),
		fmt.Sprintf("stop=%dus", int64(end/sim.Microsecond)))

	var lr loopRun
	f := build0(t, routingLoop, sets...)
	var ports [2]*switchmodel.Port
	ports[0], lr.names[0] = loopPort(t, f, "r1", "r2")
	ports[1], lr.names[1] = loopPort(t, f, "r2", "r1")
	f.runUntil(injectorStops + sim.Microsecond) // the last frame h1 sent has arrived
	for i, pt := range ports {
		lr.atStop[i], lr.servedStop[i] = pt.Queues[pfcClass].Bytes, int64(pt.Queues[pfcClass].Served)
	}
	f.runUntil(f.sc.Stop)
	for i, pt := range ports {
		lr.atEnd[i], lr.servedAt[i] = pt.Queues[pfcClass].Bytes, int64(pt.Queues[pfcClass].Served)
		lr.paused[i] = pt.Pause.Paused(f.run.Now(), pfcClass)
	}
	require.NoError(t, f.audit())
	lr.v = f.collect()
	// An ordinary run of the scenario reports the same.
	v := runOne(t, routingLoop, 0, sets...)
	require.Equal(t, lr.v.Deadlocks, v.Deadlocks)
	require.Equal(t, lr.v.Drops, v.Drops)
	return lr
}

func TestRoutingLoopDeadlocksAboveNBOverTTL(t *testing.T) {
	// A loop of n = 2 routers on links of B = 100 Gb/s with an initial TTL of 16: each packet
	// crosses each loop link about TTL/n times, so the loop is oversubscribed, and PFC
	// deadlocks it, iff the injection rate r > r_d = n B / TTL = 12.5 Gb/s.
	const n, ttl = 2, 16
	b := 100 * sim.Gbps
	rd := sim.Rate(n) * b / ttl
	require.Equal(t, 12500*sim.Mbps, rd)

	t.Run("above", func(t *testing.T) {
		lr := runLoop(t, rd*8/5) // 1.6 r_d = 20 Gb/s
		v := lr.v
		t.Logf("deadlocks %+v; loop queues %v bytes when the injector stopped, %v at the end (%.0f us); drops %+v",
			v.Deadlocks, lr.atStop, lr.atEnd, v.SimTimeUS, v.Drops.ByReason)
		require.Len(t, v.Deadlocks, 1, "one deadlock, reported once")
		require.Len(t, v.Deadlocks[0].Cycle, 2)
		require.ElementsMatch(t, lr.names[:], v.Deadlocks[0].Cycle, "the cycle is the loop's two ports")
		for i := range lr.names {
			require.Positive(t, lr.atStop[i], "%s holds frames when the injector stops", lr.names[i])
			require.Equal(t, lr.atStop[i], lr.atEnd[i], "%s: nothing moves after the injector stopped", lr.names[i])
			require.Equal(t, lr.servedStop[i], lr.servedAt[i], "%s sent nothing since", lr.names[i])
			require.True(t, lr.paused[i], "%s is still paused", lr.names[i])
		}
		require.Zero(t, v.Drops.ByReason.Watchdog)
		require.Zero(t, v.Drops.ByReason.Headroom)
		require.Zero(t, v.Drops.ByReason.Buffer)
	})
	for _, tc := range []struct {
		name string
		r    sim.Rate
		sets []string
	}{
		{"below", rd * 2 / 5, nil},                                   // 0.4 r_d = 5 Gb/s
		{"just below", rd * 4 / 5, nil},                              // 0.8 r_d = 10 Gb/s
		{"no pfc", rd * 8 / 5, []string{"switch.pfc.enabled=false"}}, // lossy: drops, no deadlock
	} {
		t.Run(tc.name, func(t *testing.T) {
			lr := runLoop(t, tc.r, tc.sets...)
			v := lr.v
			t.Logf("deadlocks %+v; loop queues %v bytes when the injector stopped, %v at the end; drops %+v, pauses %d",
				v.Deadlocks, lr.atStop, lr.atEnd, v.Drops.ByReason, v.PFC.PauseFrames)
			require.Empty(t, v.Deadlocks)
			require.Positive(t, v.Drops.ByReason.TTL, "the looping packets die of TTL")
			for i := range lr.names {
				require.Zero(t, lr.atEnd[i], "%s drained once the injector stopped", lr.names[i])
				require.False(t, lr.paused[i], "%s is not paused", lr.names[i])
			}
		})
	}
	t.Run("watchdog", func(t *testing.T) {
		lr := runLoop(t, rd*8/5, "switch.pfc.watchdog=1ms")
		v := lr.v
		t.Logf("deadlocks %+v; loop queues %v bytes when the injector stopped, %v at the end; drops %+v",
			v.Deadlocks, lr.atStop, lr.atEnd, v.Drops.ByReason)
		require.Positive(t, v.Drops.ByReason.Watchdog, "the watchdog flushed the paused queues")
		for i := range lr.names {
			require.Zero(t, lr.atEnd[i], "%s: the deadlock is broken, the queue drained", lr.names[i])
			require.False(t, lr.paused[i], "%s is not paused", lr.names[i])
		}
	})
}

// TestDeadlockDetectorCountsAFrameBetweenTwoPauses: with a response time of 0, each PAUSE
// takes effect 1 ns after the previous one ended, and the port, woken at the end, starts one
// frame in that gap. A queue that sends a frame at every such boundary is making progress:
// the detector must not report the two ports as a deadlock because they look paused at
// every look. (PAUSE faults on r1:2 and r2:1, 1,000 quanta = 5.12 us at 100 Gb/s, every
// 5.121 us; the detector looks every 20 us. A PAUSE that arrives at the very picosecond the
// previous one ends continues it with no gap: a frame's arrival runs before the events the
// node scheduled for the same picosecond, topology.Wire's arrival keys, and a MAC cannot
// start a frame in no time.)
func TestDeadlockDetectorCountsAFrameBetweenTwoPauses(t *testing.T) {
	var faults strings.Builder
	for k := 0; k < 60; k++ {
		at := 100*sim.Microsecond + sim.Time(k)*5121*sim.Nanosecond
		for _, np := range [][2]string{{"r2", "1"}, {"r1", "2"}} {
			fmt.Fprintf(&faults, "  - {at: %dns, pause: {node: %s, port: %s, priority: 3, quanta: 1000}}\n",
				int64(at/sim.Nanosecond), np[0], np[1])
		}
	}
	text := `version: 1
name: pause-boundaries
seed: 1
stop: 500us
` + loopTopology + `switch:
  buffer: 16MB
  pfc: {enabled: true, priorities: [3], deadlock_detection: 20us, response_time: 0, xoff: 4MB, xon: 3MB, headroom: 200KB}
traffic:
  - flow: {src: h1, dst: h2, size: 100MB, rate: 20Gbps}
faults:
` + faults.String() + `variants:
  - {name: a, transport: rocev2}
`
	v := runOne(t, text, 0)
	require.GreaterOrEqual(t, v.PFC.PauseFrames, int64(120), "the injected pauses went out")
	require.Positive(t, v.PFC.PausedTimeUS)
	require.Empty(t, v.Deadlocks, "the loop's queues sent a frame at every pause boundary")
}
