package experiment

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/internal/accuracy"
	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// RoCE v2 header bytes of a WRITE middle packet, from the standards (not from a run):
// Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4, plus preamble/SFD 8 and IFG 12 on
// the wire. The first packet adds a RETH of 16.
const roceV2Overhead = topology.EthernetHeader + topology.IPv4Header + topology.UDPHeader +
	topology.BTHHeader + topology.ICRC + topology.FCS + topology.PreambleSFD + topology.InterFrameGap

const twoHops = `
version: 1
name: two-hops
stop: 50ms
topology:
  preset: star
  params: {hosts: 2, link: {rate: 100Gbps, delay: 1us}}
traffic:
  - flow: {src: h1, dst: h2, size: 100MB, transport: rocev2}
`

func TestSingleFlowGoodputAndFCTMatchArithmetic(t *testing.T) {
	require.Equal(t, 82, roceV2Overhead, "docs/model.md section 1.1 gives 82 bytes of RoCE v2 overhead per packet")
	v := runOne(t, twoHops, 0)
	require.Len(t, v.PerFlow, 1)
	fl := v.PerFlow[0]
	require.Equal(t, "completed", fl.Status)

	const size, mtu = 100_000_000, 1024
	npkts := (size + mtu - 1) / mtu
	last := size - (npkts-1)*mtu
	first := int64(mtu + roceV2Overhead + topology.RETHHeader)
	middle := int64(mtu + roceV2Overhead)
	wire := first + int64(npkts-2)*middle + int64(last+roceV2Overhead)
	rate := 100 * sim.Gbps
	tx := rate.TxTime
	// Store and forward over two equal links: the switch starts forwarding the first packet
	// when it has fully arrived (tx(first) + 1us) and is busy from then on, because each later
	// packet arrives while the one before it is still leaving (the first is 16 RETH bytes
	// longer, and the switch never catches up). So the last bit leaves the switch all the
	// packets' serialization after that and arrives one more propagation delay later:
	// FCT = tx(first) + 1us + sum of tx + 1us.
	sum := tx(first) + sim.Time(npkts-2)*tx(middle) + tx(int64(last+roceV2Overhead))
	want := tx(first) + sim.Microsecond + sum + sim.Microsecond
	require.InDelta(t, want.Microseconds(), *fl.FCTUS, 1e-6, "FCT to the picosecond")
	accurate(t, "Links and frames", "RoCE v2 100 MB flow over two 100 Gb/s hops (1 us each): FCT", want.Microseconds(), *fl.FCTUS, "us", 1e-9,
		accuracy.ClosedForm, "store and forward of every packet's wire bytes (docs/model.md section 1)")
	// Per-packet serialization adds up to the serialization of all the bytes: 100 Gb/s is
	// exactly 80 ps a byte, so no rounding accumulates.
	require.Equal(t, rate.TxTime(wire), sum)

	goodput := float64(size*8) / (*fl.FCTUS * 1e-6) / 1e9
	ideal := 100 * float64(mtu) / float64(mtu+roceV2Overhead)
	require.InEpsilon(t, ideal, goodput, 0.01, "goodput vs line rate x payload/wire")
	require.InEpsilon(t, ideal, v.GoodputGbps, 0.01, "the results document's goodput_gbps")
	require.InDelta(t, 1.0, *fl.Slowdown, 0.01, "alone on the empty fabric, slowdown is 1")
	require.Zero(t, v.Drops.Total)
	require.Zero(t, v.RetransmittedPackets)
}

func TestWireSizesAreByteExact(t *testing.T) {
	// A RoCE v2 WRITE middle packet of 1024 bytes is a 1086-byte Ethernet frame (physics
	// references 1.2), 1106 on the wire; an ACK is a 66-byte frame.
	p := topology.Packet{EtherType: topology.EtherTypeIPv4, Protocol: topology.IPProtoUDP,
		DstPort: topology.UDPPortRoCEv2, Payload: 1024}
	p.IB().Opcode = topology.OpWriteMiddle
	p.Seal()
	require.EqualValues(t, 1086, p.Frame)
	require.EqualValues(t, 1106, p.WireBytes())
	a := topology.Packet{EtherType: topology.EtherTypeIPv4, Protocol: topology.IPProtoUDP,
		DstPort: topology.UDPPortRoCEv2}
	*a.IB() = topology.IBFields{Opcode: topology.OpAcknowledge, HasAETH: true}
	a.Seal()
	require.EqualValues(t, 66, a.Frame)
	pause := topology.Packet{EtherType: topology.EtherTypeMACControl}
	pause.Seal()
	require.EqualValues(t, topology.MinFrame, pause.Frame, "short frames are padded to 64 bytes")
}

const incast = `
version: 1
name: incast-lossy
stop: 100ms
topology:
  preset: star
  params: {hosts: 5, link: {rate: 100Gbps, delay: 1us}}
switch: {buffer: 1MB}
traffic:
  - incast: {senders: [h1, h2, h3, h4], receiver: h5, size: 2MB, transport: rocev2}
`

func TestIncastWithoutFlowControlDropsAndRecovers(t *testing.T) {
	v := runOne(t, incast, 0)
	require.EqualValues(t, 4, v.Flows.Completed, "go-back-N recovers every flow")
	require.Positive(t, v.Drops.ByReason.Buffer)
	require.Positive(t, v.RetransmittedPackets)
	require.Equal(t, v.Drops.ByReason.Sum(), v.Drops.Total)
	for _, q := range v.Queues {
		// Dynamic threshold, alpha = 1: a queue q admitted against the free buffer before its
		// last frame s obeys q <= B - q + s, so it holds at most (B + s)/2.
		const buffer, frame = 1_000_000, 1024 + topology.EthernetHeader + topology.IPv4Header + topology.UDPHeader +
			topology.BTHHeader + topology.RETHHeader + topology.ICRC + topology.FCS
		require.LessOrEqual(t, q.MaxBytes, int64((buffer+frame)/2), "queue %s:%d", q.Node, q.Port)
	}
}

const leafSpine = `
version: 1
name: ecmp
stop: 20ms
topology:
  preset: leafspine
  params:
    leaves: 2
    spines: 4
    hosts_per_leaf: 8
    host_link: {rate: 100Gbps, delay: 1us}
    fabric_link: {rate: 400Gbps, delay: 1us}
    routing: l3
traffic:
%s
`

func TestLeafSpineL3SpreadsFlowsOverAllSpines(t *testing.T) {
	// 64 flows from every host of rack 1 to every host of rack 2, each of the same size, so
	// the data packets a leaf sends to a spine count the flows hashed onto it.
	var items []string
	const size = 16 * 1024
	for s := 1; s <= 8; s++ {
		for d := 9; d <= 16; d++ {
			items = append(items, fmt.Sprintf("  - flow: {src: h%d, dst: h%d, size: 16KiB, transport: rocev2}", s, d))
		}
	}
	v := runOne(t, fmt.Sprintf(leafSpine, strings.Join(items, "\n")), 0)
	require.EqualValues(t, 64, v.Flows.Completed)
	for _, fl := range v.PerFlow {
		require.EqualValues(t, size, fl.DeliveredBytes)
	}
	require.Zero(t, v.Drops.Total)
	perFlow := int64(size / 1024)
	total := int64(0)
	for s := 1; s <= 4; s++ {
		var pkts int64
		for _, l := range v.Links {
			if l.From == "leaf1" && l.To == fmt.Sprintf("spine%d", s) {
				pkts = l.Packets
			}
		}
		flows := pkts / perFlow
		require.Positive(t, flows, "spine%d carries no flow", s)
		require.LessOrEqual(t, flows, int64(2*64/4), "spine%d carries more than twice its share", s)
		total += flows
	}
	require.EqualValues(t, 64, total, "every flow crosses exactly one spine, with no retransmissions")
}

func TestLeafSpineRoutersDecrementTTL(t *testing.T) {
	// Cross-rack: leaf, spine and leaf each route, so a TTL of 3 is the least that arrives
	// (RFC 791: a router discards a datagram whose TTL reaches zero).
	flow := "  - flow: {src: h1, dst: h9, size: 4KiB, transport: rocev2}"
	ok := runOne(t, fmt.Sprintf(leafSpine, flow), 0, "hosts.ttl=4")
	require.EqualValues(t, 1, ok.Flows.Completed)
	dead := runOne(t, fmt.Sprintf(leafSpine, flow), 0, "hosts.ttl=3", "transports.rocev2.retry_limit=1")
	require.EqualValues(t, 1, dead.Flows.Failed)
	require.Positive(t, dead.Drops.ByReason.TTL)
	// Inside one rack the leaf bridges: no TTL is spent.
	local := runOne(t, fmt.Sprintf(leafSpine, "  - flow: {src: h1, dst: h2, size: 4KiB, transport: rocev2}"), 0, "hosts.ttl=1")
	require.EqualValues(t, 1, local.Flows.Completed)
}

const lossy = `
version: 1
name: lossy
seed: 7
stop: 50ms
topology:
  preset: star
  params: {hosts: 2, link: {rate: 100Gbps, delay: 1us, loss: 0.001}}
traffic:
  - flow: {src: h1, dst: h2, size: 4MB, transport: rocev2}
`

func TestSameSeedSameResultsOtherSeedDiffers(t *testing.T) {
	a, b := runOne(t, lossy, 0), runOne(t, lossy, 0)
	a.WallSeconds, b.WallSeconds = 0, 0
	require.Equal(t, a, b)
	c := runOne(t, lossy, 0, "seed=8")
	require.Positive(t, a.Drops.ByReason.RandomLoss)
	require.NotEqual(t, a.PerFlow, c.PerFlow, "seed 8 loses other packets, so the flow ends at another time")
}

func TestPacketBooksBalanceWhenStoppedMidFlight(t *testing.T) {
	// Stop while the incast is in full swing: queues hold packets, wires carry them.
	f := build0(t, incast, "stop=200us")
	f.runUntil(f.sc.Stop)
	require.NoError(t, f.audit())
	var inNet int64
	for k := topology.Kind(0); k < topology.NumKinds; k++ {
		inNet += f.pools[0].InNetwork(k)
	}
	require.Positive(t, inNet, "packets are in flight at stop")
	require.Positive(t, f.pools[0].Taken[topology.KindAck], "control packets are counted too")
}

func TestJitterBreaksLockStepAtDropTail(t *testing.T) {
	// Four identical senders start together into one drop-tail queue. In lock step, the
	// same sender's frame always takes the slot a departure frees, so one flow finishes far
	// ahead of the others: a phase effect (Floyd and Jacobson, 1992), not physics. A few ns
	// of random delay per frame (hosts.jitter) make the senders symmetric again, and
	// symmetric senders finish together.
	spread := func(v *results.Variant) float64 {
		lo, hi := *v.PerFlow[0].FCTUS, *v.PerFlow[0].FCTUS
		for _, f := range v.PerFlow {
			lo, hi = min(lo, *f.FCTUS), max(hi, *f.FCTUS)
		}
		return hi / lo
	}
	lockstep := runOne(t, incast, 0)
	jittered := runOne(t, incast, 0, "hosts.jitter=5ns")
	require.EqualValues(t, 4, lockstep.Flows.Completed)
	require.EqualValues(t, 4, jittered.Flows.Completed)
	t.Logf("FCT max/min: %.2f in lock step, %.2f with jitter", spread(lockstep), spread(jittered))
	require.Greater(t, spread(lockstep), 2.0)
	require.Less(t, spread(jittered), 1.5)
}
