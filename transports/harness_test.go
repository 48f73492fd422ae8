package transports_test

import (
	"math/big"
	"testing"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports"
	"github.com/stretchr/testify/require"
)

// The expected values of these tests come from arithmetic on the header sizes of
// topology/headers.go and the link parameters below, never from a previous run.

const (
	lineRate = 100 * sim.Gbps
	linkDly  = 1 * sim.Microsecond
	mtu      = 1024
)

// roceFrameBase is a RoCE v2 frame with neither RETH, AETH nor payload: Ethernet header,
// IPv4, UDP, BTH, ICRC and FCS (docs/model.md section 1).
const roceFrameBase = topology.EthernetHeader + topology.IPv4Header + topology.UDPHeader +
	topology.BTHHeader + topology.ICRC + topology.FCS

// ackFrame is an ACK or NAK frame: the base plus an AETH, padded to the minimum frame.
const ackFrame = max(roceFrameBase+topology.AETHHeader, topology.MinFrame)

// ackWire is what an ACK occupies on the wire.
const ackWire = ackFrame + topology.PreambleSFD + topology.InterFrameGap

// dataFrame is the frame of a WRITE packet carrying payload bytes, with a RETH or not.
func dataFrame(payload int64, reth bool) int64 {
	f := roceFrameBase + payload
	if reth {
		f += topology.RETHHeader
	}
	return max(f, topology.MinFrame)
}

func dataWire(payload int64, reth bool) int64 {
	return dataFrame(payload, reth) + topology.PreambleSFD + topology.InterFrameGap
}

// tx is the serialization time of bytes at rate r, ceil(bytes x 8 / r) in picoseconds,
// computed in big integers independently of sim.Rate.TxTime.
func tx(bytes int64, r sim.Rate) sim.Time {
	num := new(big.Int).Mul(big.NewInt(bytes*8), big.NewInt(int64(sim.Second)))
	q, m := new(big.Int).QuoRem(num, big.NewInt(int64(r)), new(big.Int))
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return sim.Time(q.Int64())
}

// message is how a WRITE of size bytes is cut into packets of at most mtu payload bytes.
type message struct {
	size    int64
	n       int
	payload []int64
	wire    []int64 // wire bytes of each packet; the first carries the RETH
}

func segment(size int64, mtu int) message {
	n := int((size + int64(mtu) - 1) / int64(mtu))
	if n == 0 {
		n = 1 // an empty WRITE is one WRITE Only packet without payload
	}
	m := message{size: size, n: n}
	for i := 0; i < n; i++ {
		pl := int64(mtu)
		if i == n-1 {
			pl = size - int64(n-1)*int64(mtu)
		}
		m.payload = append(m.payload, pl)
		m.wire = append(m.wire, dataWire(pl, i == 0))
	}
	return m
}

// txs is the serialization time of each packet of m at rate r.
func (m message) txs(r sim.Rate) []sim.Time {
	out := make([]sim.Time, m.n)
	for i, w := range m.wire {
		out[i] = tx(w, r)
	}
	return out
}

// backToBack is when each frame starts if they leave one after another from start.
func backToBack(start sim.Time, txs []sim.Time) []sim.Time {
	out := make([]sim.Time, len(txs))
	t := start
	for i, d := range txs {
		out[i] = t
		t += d
	}
	return out
}

func sum(ts []sim.Time) sim.Time {
	var s sim.Time
	for _, t := range ts {
		s += t
	}
	return s
}

// arrival is what a tap saw of one frame reaching a host.
type arrival struct {
	at       sim.Time
	dropped  bool // the tap dropped it instead of handing it to the NIC
	flow     int32
	kind     topology.Kind
	psn      uint32
	opcode   uint8
	reth     bool
	aeth     bool
	ackReq   bool
	payload  int32
	frame    int32
	dmaLen   uint32
	syndrome uint8
	msn      uint32
	sentAt   sim.Time
	prio     uint8
	dscp     uint8
	src, dst topology.NodeID
	srcIP    topology.IPv4
	dstIP    topology.IPv4
	srcPort  uint16
	dstPort  uint16
	protocol uint8
	destQP   uint32
	// delivered is every flow's Delivered right after the NIC took (or the tap dropped) the frame.
	delivered []int64
}

type tapKey struct {
	flow int32
	kind topology.Kind
	psn  uint32
}

// tap sits between a wire and a NIC: it records every frame and drops those drop chooses.
// seen is how many frames of the same flow, kind and PSN arrived before this one.
type tap struct {
	pool *topology.Pool
	reg  *transports.Registry
	next topology.Receiver
	drop func(a arrival, seen int) bool
	// mark, when set, marks the ECN-capable frames it chooses CE (congestion experienced).
	mark func(a arrival, seen int) bool
	seen map[tapKey]int
	got  []arrival
}

func (t *tap) Receive(now sim.Time, p *topology.Packet, port int) {
	ib := p.IB()
	a := arrival{at: now, flow: p.Flow, kind: p.Kind, psn: p.PSN, opcode: ib.Opcode, reth: ib.HasRETH,
		aeth: ib.HasAETH, ackReq: ib.AckReq, payload: p.Payload, frame: p.Frame, dmaLen: ib.DMALen,
		syndrome: ib.Syndrome, msn: ib.MSN, sentAt: p.SentAt, prio: p.Priority, dscp: p.DSCP,
		src: p.Src, dst: p.Dst, srcIP: p.SrcIP, dstIP: p.DstIP, srcPort: p.SrcPort, dstPort: p.DstPort,
		protocol: p.Protocol, destQP: ib.DestQP}
	if p.DstPort == topology.UDPPortUET || p.SrcPort == topology.UDPPortUET {
		// A UET frame: its extension region holds UET's fields, not the BTH's.
		u := p.UET()
		a.opcode, a.ackReq, a.dmaLen = u.Opcode, u.AckReq, u.DMALen
		a.reth, a.aeth, a.syndrome, a.msn, a.destQP = false, false, 0, 0, 0
	}
	k := tapKey{p.Flow, p.Kind, p.PSN}
	seen := t.seen[k]
	t.seen[k]++
	if t.mark != nil && p.ECN != topology.ECNNotECT && t.mark(a, seen) {
		p.ECN = topology.ECNCE
	}
	if t.drop != nil && t.drop(a, seen) {
		a.dropped = true
		t.pool.Drop(p)
	} else {
		t.next.Receive(now, p, port)
	}
	for _, f := range t.reg.Flows {
		a.delivered = append(a.delivered, f.Delivered)
	}
	t.got = append(t.got, a)
}

// of returns the recorded frames of kind k (of any flow when flow < 0).
func (t *tap) of(k topology.Kind, flow int32) []arrival {
	var out []arrival
	for _, a := range t.got {
		if a.kind == k && (flow < 0 || a.flow == flow) {
			out = append(out, a)
		}
	}
	return out
}

// harness is two hosts joined by one full-duplex link, each with a NIC, and a tap in front
// of each NIC.
type harness struct {
	t          *testing.T
	eng        *sim.Engine
	pool       *topology.Pool
	nw         *topology.Network
	reg        *transports.Registry
	h1, h2     topology.NodeID
	nic1, nic2 *transports.NIC
	w12, w21   *topology.Wire
	at1, at2   *tap // frames arriving at h1 and at h2
	doneAt     []sim.Time
}

func newHarness(t *testing.T, link topology.LinkParams) *harness {
	t.Helper()
	nw := topology.NewNetwork()
	subnet := topology.Subnet{Base: 10 << 24, Bits: 24}
	h1, err := nw.AddHost("h1", subnet, 0)
	require.NoError(t, err)
	h2, err := nw.AddHost("h2", subnet, 0)
	require.NoError(t, err)
	_, err = nw.Connect(h1, h2, link)
	require.NoError(t, err)

	h := &harness{t: t, eng: sim.NewEngine(), pool: &topology.Pool{}, nw: nw, h1: h1, h2: h2}
	h.reg = transports.NewRegistry(h.eng, h.pool)
	h.reg.Done = func() { h.doneAt = append(h.doneAt, h.eng.Now()) }
	h.nic1 = transports.NewNIC(h.reg, nw, h1, 64)
	h.nic2 = transports.NewNIC(h.reg, nw, h2, 64)
	h.w12 = topology.NewWire(h.eng, h.pool, h1, h2, 0, 0, link, sim.Stream(1, "h1->h2"))
	h.w21 = topology.NewWire(h.eng, h.pool, h2, h1, 0, 0, link, sim.Stream(1, "h2->h1"))
	h.at1 = &tap{pool: h.pool, reg: h.reg, next: h.nic1, seen: map[tapKey]int{}}
	h.at2 = &tap{pool: h.pool, reg: h.reg, next: h.nic2, seen: map[tapKey]int{}}
	h.w12.Attach(h.at2)
	h.w21.Attach(h.at1)
	h.nic1.Wire = h.w12
	h.nic2.Wire = h.w21
	return h
}

func defaultLink() topology.LinkParams {
	return topology.LinkParams{Rate: lineRate, Delay: linkDly}
}

func defaultConfig() transports.RoCEConfig {
	return transports.RoCEConfig{MTU: mtu, RetransmitTimeout: 50 * sim.Microsecond, RetryLimit: 3, AckInterval: 4}
}

func (h *harness) nic(id topology.NodeID) *transports.NIC {
	if id == h.h1 {
		return h.nic1
	}
	return h.nic2
}

// add registers f and starts its queue pair.
func (h *harness) add(f *transports.Flow, cfg transports.RoCEConfig) int32 {
	if f.ID == 0 {
		f.ID = len(h.reg.Flows) + 1
	}
	if f.Transport == "" {
		f.Transport = "rocev2"
	}
	i := h.reg.Add(f)
	h.reg.StartRoCE(i, h.nic(f.Src), h.nic(f.Dst), false, cfg)
	return i
}

// run runs the engine until no event is left and checks the pool's books.
func (h *harness) run() {
	h.eng.Run(sim.Never)
	require.Zero(h.t, h.eng.Pending())
	for k := topology.Kind(0); k < topology.NumKinds; k++ {
		require.Zero(h.t, h.pool.InNetwork(k), "every %v frame taken was delivered or dropped", k)
	}
}

// ackArrival is when an ACK sent at t by an idle NIC reaches the other host.
func ackArrival(t sim.Time) sim.Time { return t + tx(ackWire, lineRate) + linkDly }

// psns lists the PSNs of frames.
func psns(as []arrival) []uint32 {
	out := make([]uint32, 0, len(as))
	for _, a := range as {
		out = append(out, a.psn)
	}
	return out
}

func times(as []arrival) []sim.Time {
	out := make([]sim.Time, 0, len(as))
	for _, a := range as {
		out = append(out, a.at)
	}
	return out
}

// TestHarnessArithmetic pins the frame arithmetic of the tests to the figures of
// docs/model.md section 1, which were derived by hand from the standards.
func TestHarnessArithmetic(t *testing.T) {
	require.Equal(t, int64(1106), dataWire(1024, false), "RoCE v2 PMTU 1024 WRITE Middle, IPv4 untagged")
	require.Equal(t, int64(1122), dataWire(1024, true), "WRITE First/Only carries the RETH")
	require.Equal(t, int64(4178), dataWire(4096, false))
	require.Equal(t, int64(66), int64(ackFrame), "an ACK frame is 66 B")
	require.Equal(t, sim.Time(88480), tx(1106, lineRate), "t_pkt = 88.48 ns at 100 Gb/s")
	require.Equal(t, sim.Time(1), tx(1, 8*sim.Tbps))
	require.Equal(t, sim.Time(2667), tx(1, 3*sim.Gbps), "rounded up")
}
