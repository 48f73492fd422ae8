package switchmodel

import (
	"fmt"
	"sort"
	"testing"

	"github.com/fabricsim/fabricsim/pfc"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/stretchr/testify/require"
)

// bigBuffer never limits admission.
var bigBuffer = Config{BufferBytes: 1 << 30, Alpha: 8}

func star(t *testing.T, n int, link topology.LinkParams) *topology.Network {
	nw, err := topology.Star(n, link)
	require.NoError(t, err)
	return nw
}

// twoLinks is h1 -in- sw -out- h2, with its own parameters on each link.
func twoLinks(t *testing.T, in, out topology.LinkParams) *topology.Network {
	nw := topology.NewNetwork()
	s := topology.Subnet{Base: 10 << 24, Bits: 24}
	h1, err := nw.AddHost("h1", s, 0)
	require.NoError(t, err)
	sw, err := nw.AddSwitch("sw", 2)
	require.NoError(t, err)
	h2, err := nw.AddHost("h2", s, 0)
	require.NoError(t, err)
	_, err = nw.Connect(h1, sw, in)
	require.NoError(t, err)
	_, err = nw.Connect(sw, h2, out)
	require.NoError(t, err)
	return nw
}

func TestStoreAndForwardTiming(t *testing.T) {
	fast := topology.LinkParams{Rate: 100 * sim.Gbps, Delay: 500 * sim.Nanosecond}
	slow := topology.LinkParams{Rate: 25 * sim.Gbps, Delay: 200 * sim.Nanosecond}
	long := topology.LinkParams{Rate: 100 * sim.Gbps, Delay: 5 * sim.Microsecond}
	tests := []struct {
		name     string
		in, out  topology.LinkParams
		latency  sim.Time
		payloads []int32
	}{
		{"one frame, same links", fast, fast, 0, []int32{1024}},
		{"one frame, forwarding latency", fast, fast, 300 * sim.Nanosecond, []int32{1024}},
		{"one frame, long latency", fast, fast, 2 * sim.Microsecond, []int32{4096}},
		{"one frame, slower egress", fast, slow, 0, []int32{1024}},
		{"one frame, slower ingress", slow, long, 100 * sim.Nanosecond, []int32{256}},
		{"train, same links", fast, fast, 0, []int32{1024, 1024, 1024, 1024}},
		{"train into a slower egress queues", fast, slow, 150 * sim.Nanosecond, []int32{1024, 64, 4096, 1024, 512}},
		{"train from a slower ingress", slow, fast, 50 * sim.Nanosecond, []int32{1024, 64, 4096}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := bigBuffer
			cfg.Latency = tc.latency
			f := build(t, twoLinks(t, tc.in, tc.out), cfg)
			h1, h2, sw := f.id(t, "h1"), f.id(t, "h2"), f.sw[f.id(t, "sw")]
			require.Equal(t, tc.latency, sw.Latency())

			// Store and forward: a frame can leave the switch only after its last bit is in
			// and the forwarding latency has passed, and only when the egress is free.
			var want, in []sim.Time
			var start, egressFree sim.Time
			for i, pl := range tc.payloads {
				p := f.data(h1, h2, 0, uint32(i), pl)
				require.Equal(t, rocev2Frame(pl), p.Frame)
				txIn, txOut := tx(t, p.Frame, tc.in.Rate), tx(t, p.Frame, tc.out.Rate)
				done := f.send(start, p)
				require.Equal(t, start+txIn, done)
				in = append(in, start+txIn+tc.in.Delay)
				ready := start + txIn + tc.in.Delay + tc.latency
				egressStart := max(ready, egressFree)
				egressFree = egressStart + txOut
				want = append(want, egressFree+tc.out.Delay)
				start = done
			}
			if n := len(tc.payloads); n == 1 && tc.in == tc.out {
				// The brief's closed form: 2 x TxTime + 2 x delay (+ latency).
				require.Equal(t, 2*tx(t, rocev2Frame(tc.payloads[0]), tc.in.Rate)+2*tc.in.Delay+tc.latency, want[0])
			}
			if tc.latency > 0 {
				// Halfway through the forwarding latency of the first frame, the frames that
				// have fully arrived and not yet served their latency are in transit.
				mid := in[0] + tc.latency/2
				var transit int64
				for _, a := range in {
					if a <= mid && mid < a+tc.latency {
						transit++
					}
				}
				f.eng.Run(mid)
				require.Equal(t, transit, sw.InTransit(topology.KindData))
			}
			f.eng.Run(sim.Never)
			var at []sim.Time
			for _, g := range f.hosts[h2].got {
				at = append(at, g.at)
			}
			require.Equal(t, want, at)
			for i, g := range f.hosts[h2].got {
				require.Equal(t, uint32(i), g.psn, "FIFO within a class")
			}
			require.Equal(t, int64(len(tc.payloads)), sw.Forwarded)
			require.Zero(t, sw.InTransit(topology.KindData))
			f.checkBooks(t)
		})
	}
}

// burst hands frames of the given priorities from h1 to h2 to the switch all at once, at
// time 0, as if they had arrived together on port 0; frame i has PSN i.
func burst(f *fabric, sw *Switch, src, dst topology.NodeID, prios []uint8, payload func(i int) int32) {
	for i, pr := range prios {
		sw.Receive(0, f.data(src, dst, pr, uint32(i), payload(i)), 0)
	}
}

func TestStrictPriority(t *testing.T) {
	alternate := func(a, b uint8, n int) []uint8 {
		var out []uint8
		for i := 0; i < n; i++ {
			out = append(out, a, b)
		}
		return out
	}
	tests := []struct {
		name  string
		prios []uint8
	}{
		{"1 then 5, alternating", alternate(1, 5, 20)},
		{"5 then 1, alternating", alternate(5, 1, 20)},
		{"three classes", []uint8{0, 3, 7, 3, 0, 7, 0, 0, 3, 7, 7, 3}},
		{"one class", []uint8{2, 2, 2, 2}},
	}
	link := topology.LinkParams{Rate: 100 * sim.Gbps, Delay: 1 * sim.Microsecond}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := build(t, star(t, 2, link), bigBuffer)
			h1, h2 := f.id(t, "h1"), f.id(t, "h2")
			sw := f.sw[f.id(t, "sw")]
			burst(f, sw, h1, h2, tc.prios, func(int) int32 { return 1024 })

			// The first frame goes into service at once; when it finishes the rest leave
			// highest priority first, FIFO within a priority.
			type fr struct {
				prio uint8
				psn  uint32
			}
			var rest []fr
			for i, pr := range tc.prios[1:] {
				rest = append(rest, fr{pr, uint32(i + 1)})
			}
			sort.SliceStable(rest, func(i, j int) bool { return rest[i].prio > rest[j].prio })
			want := append([]fr{{tc.prios[0], 0}}, rest...)

			f.eng.Run(sim.Never)
			var order []fr
			txTime := tx(t, rocev2Frame(1024), link.Rate)
			for i, g := range f.hosts[h2].got {
				order = append(order, fr{g.priority, g.psn})
				require.Equal(t, sim.Time(i+1)*txTime+link.Delay, g.at, "back to back")
			}
			require.Equal(t, want, order)
			f.checkBooks(t)
		})
	}
}

func TestDWRRByteShares(t *testing.T) {
	tests := []struct {
		name    string
		weights map[uint8]int // priority -> weight, for the backlogged classes
		payload map[uint8]int32
	}{
		{"1:3, different frame sizes", map[uint8]int{0: 1, 1: 3}, map[uint8]int32{0: 1024, 1: 256}},
		{"3:1, different frame sizes", map[uint8]int{0: 3, 1: 1}, map[uint8]int32{0: 1024, 1: 256}},
		{"1:1, jumbo against small", map[uint8]int{2: 1, 6: 1}, map[uint8]int32{2: 4096, 6: 100}},
		{"1:2:4", map[uint8]int{0: 1, 3: 2, 7: 4}, map[uint8]int32{0: 1024, 3: 1024, 7: 1024}},
		{"5:2", map[uint8]int{4: 5, 5: 2}, map[uint8]int32{4: 512, 5: 2000}},
	}
	link := topology.LinkParams{Rate: 100 * sim.Gbps, Delay: 1 * sim.Microsecond}
	const rounds = 200 // rounds of the scheduler the backlog lasts, at least
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := bigBuffer
			cfg.Scheduler = DWRR
			for i := range cfg.Weights {
				cfg.Weights[i] = 1
			}
			wsum := 0
			for pr, w := range tc.weights {
				cfg.Weights[pr] = w
				wsum += w
			}
			f := build(t, star(t, 2, link), cfg)
			h1, h2 := f.id(t, "h1"), f.id(t, "h2")
			sw := f.sw[f.id(t, "sw")]

			// Enough frames in each class to stay backlogged for `rounds` rounds: a class
			// of weight w earns w x quantum bytes a round.
			total := map[uint8]int{}
			var prios []uint8
			for pr, w := range tc.weights {
				total[pr] = rounds*w*DWRRQuantum/int(rocev2Frame(tc.payload[pr])) + 1
			}
			for more := true; more; {
				more = false
				for pr := uint8(0); pr < NumPriorities; pr++ {
					if total[pr] > 0 {
						prios = append(prios, pr)
						total[pr]--
						more = true
					}
				}
			}
			count := map[uint8]int{}
			for _, pr := range prios {
				count[pr]++
			}
			burst(f, sw, h1, h2, prios, func(i int) int32 { return tc.payload[prios[i]] })
			f.eng.Run(sim.Never)

			// Shares while every class is backlogged: up to the departure that empties the
			// first queue.
			bytes := map[uint8]int64{}
			seen := map[uint8]int{}
			var all int64
			for _, g := range f.hosts[h2].got {
				bytes[g.priority] += int64(g.frame)
				all += int64(g.frame)
				seen[g.priority]++
				if seen[g.priority] == count[g.priority] {
					break
				}
			}
			for pr, w := range tc.weights {
				share := float64(bytes[pr]) / float64(all)
				want := float64(w) / float64(wsum)
				require.InEpsilon(t, want, share, 0.03, "priority %d: %d of %d bytes", pr, bytes[pr], all)
			}
			require.Len(t, f.hosts[h2].got, len(prios))
			f.checkBooks(t)
		})
	}
}

func TestDynamicThresholdAdmission(t *testing.T) {
	link := topology.LinkParams{Rate: 100 * sim.Gbps, Delay: 1 * sim.Microsecond}
	tests := []struct {
		name    string
		buffer  int64
		alpha   float64
		payload int32
		n       int
	}{
		{"alpha 1", 20_000, 1, 1024, 40},
		{"alpha 1, buffer exactly fits 2 x 5 frames", 2 * 5 * int64(rocev2Frame(1024)), 1, 1024, 40},
		{"alpha 1, just below", 2*5*int64(rocev2Frame(1024)) - 1, 1, 1024, 40},
		{"alpha 1, small frames", 50_000, 1, 64, 1000},
		{"alpha 2", 20_000, 2, 1024, 40},
		{"alpha 0.5", 20_000, 0.5, 1024, 40},
		{"alpha large: the buffer itself limits", 20_000, 1000, 1024, 40},
		{"burst fits", 1 << 20, 1, 1024, 40},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := build(t, star(t, 3, link), Config{BufferBytes: tc.buffer, Alpha: tc.alpha})
			h1, h2, h3 := f.id(t, "h1"), f.id(t, "h2"), f.id(t, "h3")
			sw := f.sw[f.id(t, "sw")]
			s := int64(rocev2Frame(tc.payload))
			B := tc.buffer
			require.LessOrEqual(t, float64(s), tc.alpha*float64(B), "the first frame must fit")

			// The first frame goes into service at once and leaves the buffer. The k-th
			// queued frame is admitted iff the queue then, k x s, is at most alpha x the free
			// buffer before it, B - (k-1) x s (the k-1 queued), and the frame fits at all.
			fits := func(k int64) bool {
				return float64(k*s) <= tc.alpha*float64(B-(k-1)*s) && s <= B-(k-1)*s
			}
			var queued int64
			for queued < int64(tc.n-1) && fits(queued+1) {
				queued++
			}
			admitted := queued + 1

			prios := make([]uint8, tc.n)
			burst(f, sw, h1, h2, prios, func(int) int32 { return tc.payload })
			out := sw.Ports[f.nw.Nodes[h2].Ports[0].PeerPort]
			require.Equal(t, int(queued), out.Queued())
			require.Equal(t, queued*s, out.Queues[0].Bytes)
			require.Equal(t, queued*s, sw.BufferUsed)
			require.Equal(t, int64(tc.n)-admitted, sw.Drops[DropBuffer])
			require.Equal(t, admitted, sw.Forwarded)
			// One queue q admitted against the free buffer before its last frame obeys
			// q <= alpha x (B - q + s), so it holds at most alpha/(1+alpha) x (B + s).
			require.LessOrEqual(t, float64(out.Queues[0].Bytes), tc.alpha/(1+tc.alpha)*float64(B+s)+1e-9)

			// Another port's empty queue still gets in if the frame fits the free buffer.
			free := B - sw.BufferUsed
			sw.Receive(0, f.data(h1, h3, 0, 9999, tc.payload), 0)
			otherIn := s <= free && float64(s) <= tc.alpha*float64(free)
			dropped := int64(tc.n) - admitted
			if !otherIn {
				dropped++
			}
			require.Equal(t, dropped, sw.Drops[DropBuffer])
			// Buffer drops are counted at the egress port they were bound for.
			other := sw.Ports[f.nw.Nodes[h3].Ports[0].PeerPort]
			require.Equal(t, int64(tc.n)-admitted, out.Drops[DropBuffer], "at the port to h2")
			require.Equal(t, dropped-(int64(tc.n)-admitted), other.Drops[DropBuffer], "at the port to h3")

			f.eng.Run(sim.Never)
			got := f.hosts[h2].got
			require.Len(t, got, int(admitted))
			for i, g := range got {
				require.Equal(t, uint32(i), g.psn, "the first frames are the ones admitted")
			}
			if otherIn {
				require.Len(t, f.hosts[h3].got, 1)
			}
			require.Equal(t, dropped, f.pool.Dropped[topology.KindData])
			f.checkBooks(t)
		})
	}
}

func leafSpine(t *testing.T, leaves, spines, hosts int, routing string) *topology.Network {
	link := topology.LinkParams{Rate: 100 * sim.Gbps, Delay: 500 * sim.Nanosecond}
	nw, err := topology.LeafSpine(leaves, spines, hosts, link, link, routing)
	require.NoError(t, err)
	return nw
}

// routerOnAStick is h1 (10.0.1.0/24) and h2 (10.0.2.0/24) on layer-2 switch sw, with
// router r hanging off sw.
func routerOnAStick(t *testing.T) *topology.Network {
	link := topology.LinkParams{Rate: 100 * sim.Gbps, Delay: 500 * sim.Nanosecond}
	nw := topology.NewNetwork()
	sw, _ := nw.AddSwitch("sw", 2)
	r, _ := nw.AddSwitch("r", 3)
	for i, base := range []topology.IPv4{10<<24 | 1<<8, 10<<24 | 2<<8} {
		h, err := nw.AddHost(fmt.Sprintf("h%d", i+1), topology.Subnet{Base: base, Bits: 24}, 0)
		require.NoError(t, err)
		_, err = nw.Connect(h, sw, link)
		require.NoError(t, err)
	}
	_, err := nw.Connect(sw, r, link)
	require.NoError(t, err)
	return nw
}

func TestTTL(t *testing.T) {
	ls3 := func(t *testing.T) *topology.Network { return leafSpine(t, 2, 1, 2, topology.RoutingL3) }
	ls2 := func(t *testing.T) *topology.Network { return leafSpine(t, 2, 1, 2, topology.RoutingL2) }
	tests := []struct {
		name     string
		nw       func(t *testing.T) *topology.Network
		src, dst string
		ttl      uint8
	}{
		{"l3 across racks", ls3, "h1", "h3", 64},
		{"l3 across racks, just enough", ls3, "h1", "h4", 4},
		{"l3 across racks, runs out at the last router", ls3, "h1", "h3", 3},
		{"l3 across racks, runs out at the first router", ls3, "h1", "h3", 1},
		{"l3 in a rack: bridged, not routed", ls3, "h1", "h2", 1},
		{"l2 across racks: bridged", ls2, "h1", "h3", 1},
		{"router on a stick: only the router counts", routerOnAStick, "h1", "h2", 64},
		{"router on a stick, TTL 1", routerOnAStick, "h2", "h1", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := build(t, tc.nw(t), bigBuffer)
			src, dst := f.id(t, tc.src), f.id(t, tc.dst)
			p := f.data(src, dst, 0, 1, 1024)
			p.TTL = tc.ttl
			cross := p.CrossSubnet

			// The routers that decrement are the layer-3 switches on the path, and only
			// for a cross-subnet packet.
			hops, loop, err := f.routes.Path(src, dst, p.Hash, 16)
			require.NoError(t, err)
			require.False(t, loop)
			var routers []topology.NodeID
			for _, h := range hops {
				if cross && f.nw.Nodes[h.Node].Router() {
					routers = append(routers, h.Node)
				}
			}
			f.send(0, p)
			f.eng.Run(sim.Never)

			drops := map[topology.NodeID]int64{}
			for id, sw := range f.sw {
				if n := sw.Drops[DropTTL]; n > 0 {
					drops[id] = n
				}
				require.Zero(t, sw.Drops[DropBuffer]+sw.Drops[DropUnroutable])
			}
			got := f.hosts[dst].got
			if int(tc.ttl) > len(routers) {
				require.Len(t, got, 1)
				require.Equal(t, tc.ttl-uint8(len(routers)), got[0].ttl)
				require.Equal(t, len(routers) > 0, got[0].routed)
				require.Empty(t, drops)
			} else {
				// RFC 791: the router that would take TTL to zero discards the datagram.
				require.Empty(t, got)
				require.Equal(t, map[topology.NodeID]int64{routers[tc.ttl-1]: 1}, drops)
				require.Equal(t, int64(1), f.pool.Dropped[topology.KindData])
			}
			f.checkBooks(t)
		})
	}
}

func TestDropUnroutable(t *testing.T) {
	link := topology.LinkParams{Rate: 100 * sim.Gbps, Delay: 500 * sim.Nanosecond}
	t.Run("cross-subnet with no router", func(t *testing.T) {
		nw := topology.NewNetwork()
		sw, _ := nw.AddSwitch("sw", 2)
		for i, base := range []topology.IPv4{10<<24 | 1<<8, 10<<24 | 2<<8} {
			h, err := nw.AddHost(fmt.Sprintf("h%d", i+1), topology.Subnet{Base: base, Bits: 24}, 0)
			require.NoError(t, err)
			_, err = nw.Connect(h, sw, link)
			require.NoError(t, err)
		}
		f := build(t, nw, bigBuffer)
		h1, h2 := f.id(t, "h1"), f.id(t, "h2")
		for i := 0; i < 3; i++ {
			p := f.data(h1, h2, 0, uint32(i), 1024)
			require.True(t, p.CrossSubnet)
			sw := f.sw[f.id(t, "sw")]
			sw.Receive(0, p, 0)
		}
		f.eng.Run(sim.Never)
		require.Equal(t, int64(3), f.sw[f.id(t, "sw")].Drops[DropUnroutable])
		require.Empty(t, f.hosts[h2].got)
		require.Equal(t, int64(3), f.pool.Dropped[topology.KindData])
		f.checkBooks(t)
	})
	t.Run("destination not connected", func(t *testing.T) {
		nw := star(t, 2, link)
		_, err := nw.AddHost("lonely", topology.Subnet{Base: 10 << 24, Bits: 16}, 0)
		require.NoError(t, err)
		f := build(t, nw, bigBuffer)
		sw := f.sw[f.id(t, "sw")]
		sw.Receive(0, f.data(f.id(t, "h1"), f.id(t, "lonely"), 0, 1, 100), 0)
		sw.Receive(0, f.data(f.id(t, "h1"), f.id(t, "h2"), 0, 2, 100), 0)
		f.eng.Run(sim.Never)
		require.Equal(t, int64(1), sw.Drops[DropUnroutable])
		require.Equal(t, int64(1), sw.Ports[0].Drops[DropUnroutable], "counted at the port it arrived on")
		require.Zero(t, sw.Ports[1].Drops[DropUnroutable])
		require.Len(t, f.hosts[f.id(t, "h2")].got, 1)
		require.Equal(t, int64(1), sw.Forwarded)
		f.checkBooks(t)
	})
}

func TestECMPFailover(t *testing.T) {
	tests := []struct {
		name string
		down []int // spines whose link from leaf1 is down
	}{
		{"all up", nil},
		{"one of two down", []int{1}},
		{"other one down", []int{2}},
		{"all down: lost on the dead link", []int{1, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := build(t, leafSpine(t, 2, 2, 1, topology.RoutingL3), bigBuffer)
			h1, h2 := f.id(t, "h1"), f.id(t, "h2")
			for _, s := range tc.down {
				f.wire(t, "leaf1", fmt.Sprintf("spine%d", s)).SetUp(false)
			}
			const n = 64
			now := sim.Time(0)
			for i := 0; i < n; i++ {
				now = f.send(now, f.data(h1, h2, 0, uint32(i), 1024))
			}
			f.eng.Run(sim.Never)
			var carried, lost int64
			for s := 1; s <= 2; s++ {
				w := f.wire(t, "leaf1", fmt.Sprintf("spine%d", s))
				if !w.Up() && len(tc.down) < 2 {
					require.Zero(t, w.Packets(), "spine%d is down: nothing is sent its way", s)
				}
				if len(tc.down) == 0 {
					require.Positive(t, w.Packets(), "ECMP uses spine%d", s)
				}
				carried += w.Packets()
				lost += w.LostDown
			}
			require.Equal(t, int64(n), carried)
			if len(tc.down) == 2 {
				require.Equal(t, int64(n), lost)
				require.Empty(t, f.hosts[h2].got)
			} else {
				require.Zero(t, lost)
				require.Len(t, f.hosts[h2].got, n)
			}
			f.checkBooks(t)
		})
	}
}

type at func(now sim.Time)

func (f at) Handle(now sim.Time, _ int, _ any) { f(now) }

func TestDWRREmptyQueueLosesDeficit(t *testing.T) {
	// Shreedhar and Varghese: a queue found empty has its deficit reset, so credit left
	// over from a small frame does not let it send a burst when it refills.
	link := topology.LinkParams{Rate: 100 * sim.Gbps, Delay: 1 * sim.Microsecond}
	cfg := bigBuffer
	cfg.Scheduler = DWRR
	for i := range cfg.Weights {
		cfg.Weights[i] = 1
	}
	f := build(t, star(t, 2, link), cfg)
	h1, h2 := f.id(t, "h1"), f.id(t, "h2")
	sw := f.sw[f.id(t, "sw")]
	// A big frame is under one quantum but two of them are more than the quantum plus what
	// a small frame leaves behind.
	big := DWRRQuantum - 100 - rocev2Frame(0)
	small := int32(10)
	require.Less(t, 2*rocev2Frame(big), DWRRQuantum+(DWRRQuantum-rocev2Frame(small)))
	require.Greater(t, 2*rocev2Frame(big), int32(DWRRQuantum))
	sw.Receive(0, f.data(h1, h2, 0, 0, small), 0) // queue 0: one small frame, then empty
	for i := 0; i < 50; i++ {
		sw.Receive(0, f.data(h1, h2, 1, uint32(100+i), big), 0) // queue 1: backlogged
	}
	refill := 1 * sim.Microsecond
	require.Less(t, refill, 50*tx(t, rocev2Frame(big), link.Rate)/2, "queue 1 is still backlogged")
	f.eng.At(refill, at(func(now sim.Time) {
		for i := 0; i < 4; i++ {
			sw.Receive(now, f.data(h1, h2, 0, uint32(1+i), big), 0)
		}
	}), 0, nil)
	f.eng.Run(sim.Never)
	got := f.hosts[h2].got
	require.Len(t, got, 55)
	require.Equal(t, uint8(0), got[0].priority)
	for i := 2; i < len(got); i++ {
		if got[i].priority == 0 && got[i-1].priority == 0 {
			t.Fatalf("queue 0 sent two frames in one visit (departures %d and %d): its old deficit carried over", i-1, i)
		}
	}
	f.checkBooks(t)
}

func TestECMPDoesNotPolarize(t *testing.T) {
	// In a fat tree, an edge switch picks the aggregation switch and that one picks the
	// core by the same flow hash; without a per-switch salt both picks would be the same
	// function of the hash and a pod's flows would reach only k/2 of the (k/2)^2 cores.
	const k = 4
	link := topology.LinkParams{Rate: 100 * sim.Gbps, Delay: 500 * sim.Nanosecond}
	nw, err := topology.FatTree(k, link, topology.RoutingL3)
	require.NoError(t, err)
	f := build(t, nw, bigBuffer)
	h1, far := f.id(t, "h1"), f.id(t, fmt.Sprintf("h%d", k*k*k/4))
	const n = 4096 // 1024 source ports (flows), four frames each
	now := sim.Time(0)
	for i := 0; i < n; i++ {
		now = f.send(now, f.data(h1, far, 0, uint32(i), 64))
	}
	f.eng.Run(sim.Never)
	require.Len(t, f.hosts[far].got, n)
	cores := (k / 2) * (k / 2)
	for c := 1; c <= cores; c++ {
		name := fmt.Sprintf("core%d", c)
		var carried int64
		for _, p := range nw.Nodes[f.id(t, name)].Ports {
			carried += f.wires[[2]topology.NodeID{f.id(t, name), p.Peer}].Packets()
		}
		require.InDelta(t, n/cores, carried, 0.2*n/float64(cores), "%s", name)
	}
	f.checkBooks(t)
}

func TestNewRefusesAConfigItCannotRun(t *testing.T) {
	nw, err := topology.Star(2, topology.LinkParams{Rate: 100 * sim.Gbps})
	require.NoError(t, err)
	routes, err := topology.ComputeRoutes(nw, nil)
	require.NoError(t, err)
	good := Config{BufferBytes: 1 << 20, Alpha: 1}
	lossless := good
	lossless.PFC.Lossless[3] = true
	lossless.PFC.Ports = []pfc.Thresholds{{Xoff: 1000, Xon: 500}, {Xoff: 1000, Xon: 500}}
	sw, ok := nw.Lookup("sw")
	require.True(t, ok)
	for _, tc := range []struct {
		mutate func(c *Config)
		want   string
	}{
		{func(c *Config) { c.BufferBytes = 0 }, "buffer 0 bytes"},
		{func(c *Config) { c.Alpha = 0 }, "dynamic threshold factor 0"},
		{func(c *Config) { c.Latency = -1 }, "forwarding latency"},
		{func(c *Config) { c.Scheduler = DWRR; c.Weights = [NumPriorities]int{1, 1, 1, 0, 1, 1, 1, 1} }, "DWRR weight of priority 3 is 0"},
		{func(c *Config) { c.PFC.Ports = c.PFC.Ports[:1] }, "PFC thresholds for 1 ports"},
		{func(c *Config) { c.PFC.Ports = []pfc.Thresholds{{Xoff: 1000, Xon: 2000}, {}} }, "port 1: PFC XOFF 1000, XON 2000"},
		{func(c *Config) { c.PFC.Response = []sim.Time{0, -1} }, "port 2: PFC response time"},
		// 8 x (1122 + 4 x 84) bit times need 23 quanta (pfc.MinQuanta).
		{func(c *Config) { c.PFC.Quanta, c.PFC.MaxFrameWire = 22, 1122 }, "PFC quanta 22: a refresh cannot reach the sender before so short a pause runs out (frames of 1122 bytes, 1 lossless classes): at least 23"},
		{func(c *Config) { c.PFC.MaxFrameWire = -1 }, "PFC largest frame -1 bytes"},
	} {
		cfg := lossless
		cfg.PFC.Ports = append([]pfc.Thresholds(nil), lossless.PFC.Ports...)
		tc.mutate(&cfg)
		_, err := New(sim.NewEngine(), &topology.Pool{}, nw, routes, sw, cfg)
		require.ErrorContains(t, err, tc.want)
	}
	_, err = New(sim.NewEngine(), &topology.Pool{}, nw, routes, sw, lossless)
	require.NoError(t, err)
	_, err = New(sim.NewEngine(), &topology.Pool{}, nw, routes, sw, good)
	require.NoError(t, err)
}
