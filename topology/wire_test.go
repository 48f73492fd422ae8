package topology

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/stretchr/testify/require"
)

type arrival struct {
	at   sim.Time
	port int
	kind Kind
	psn  uint32
}

// sink records what a wire delivers and returns the packets to the pool.
type sink struct {
	pool *Pool
	got  []arrival
}

func (s *sink) Receive(now sim.Time, p *Packet, port int) {
	s.got = append(s.got, arrival{now, port, p.Kind, p.PSN})
	s.pool.Deliver(p)
}

type call func(now sim.Time)

func (f call) Handle(now sim.Time, _ int, _ any) { f(now) }

// serialization is ceil(bytes x 8 / rate) in picoseconds, computed independently of sim.
func serialization(bytes int64, r sim.Rate) sim.Time {
	num := new(big.Int).Mul(big.NewInt(bytes*8), big.NewInt(int64(sim.Second)))
	q, m := new(big.Int).QuoRem(num, big.NewInt(int64(r)), new(big.Int))
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return sim.Time(q.Int64())
}

func newTestWire(p LinkParams) (*sim.Engine, *Pool, *Wire, *sink) {
	eng := sim.NewEngine()
	pool := &Pool{}
	w := NewWire(eng, pool, 1, 2, 0, 3, p, rand.New(rand.NewPCG(7, 7)))
	s := &sink{pool: pool}
	w.Attach(s)
	return eng, pool, w, s
}

func dataPacket(pool *Pool, psn uint32, payload int32) *Packet {
	p := pool.Get(KindData)
	p.EtherType, p.Protocol, p.DstPort, p.IB().Opcode = EtherTypeIPv4, IPProtoUDP, UDPPortRoCEv2, OpWriteMiddle
	p.Payload, p.PSN = payload, psn
	p.Seal()
	return p
}

func ackPacket(pool *Pool, psn uint32) *Packet {
	p := pool.Get(KindAck)
	p.EtherType, p.Protocol, p.DstPort, p.IB().Opcode, p.IB().HasAETH = EtherTypeIPv4, IPProtoUDP, UDPPortRoCEv2, OpAcknowledge, true
	p.PSN = psn
	p.Seal()
	return p
}

func TestWireTiming(t *testing.T) {
	tests := []struct {
		name    string
		rate    sim.Rate
		delay   sim.Time
		payload []int32 // frames sent back to back from start
		start   sim.Time
	}{
		{"100G one frame", 100 * sim.Gbps, 1 * sim.Microsecond, []int32{1024}, 0},
		{"25G train", 25 * sim.Gbps, 300 * sim.Nanosecond, []int32{1024, 0, 4096, 100}, 5 * sim.Microsecond},
		{"40G zero delay", 40 * sim.Gbps, 0, []int32{1, 2, 3}, 0},
		{"3G inexact rate rounds up", 3 * sim.Gbps, 7, []int32{1024, 17}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			eng, pool, w, s := newTestWire(LinkParams{Rate: tc.rate, Delay: tc.delay})
			now := tc.start
			var want []arrival
			var bytes int64
			var busy sim.Time
			for i, pl := range tc.payload {
				p := dataPacket(pool, uint32(i), pl)
				wire := int64(p.Frame) + PreambleSFD + InterFrameGap
				tx := serialization(wire, tc.rate)
				require.Equal(t, tx, w.TxTime(p))
				done := w.Send(now, p)
				require.Equal(t, now+tx, done, "Send returns when the last bit is out")
				want = append(want, arrival{now + tx + tc.delay, 3, KindData, uint32(i)})
				bytes += wire
				busy += tx
				now = done
			}
			require.Equal(t, int64(len(tc.payload)), w.InFlight(KindData))
			eng.Run(sim.Never)
			require.Equal(t, want, s.got, "each frame arrives TxTime + delay after it starts")
			require.Equal(t, int64(len(tc.payload)), w.Packets())
			require.Equal(t, bytes, w.Bytes())
			require.Equal(t, busy, w.BusyTime())
			require.Zero(t, w.InFlight(KindData))
			require.Zero(t, w.LostRandom+w.LostDown)
			require.Equal(t, int64(len(tc.payload)), pool.Delivered[KindData])
		})
	}
}

func TestWireRandomLoss(t *testing.T) {
	tests := []struct {
		name string
		loss float64
	}{{"none", 0}, {"all", 1}, {"half", 0.5}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			eng, pool, w, s := newTestWire(LinkParams{Rate: 100 * sim.Gbps, Delay: sim.Microsecond, Loss: tc.loss})
			const n = 2000
			now := sim.Time(0)
			for i := 0; i < n; i++ {
				var p *Packet
				if i%2 == 0 {
					p = dataPacket(pool, uint32(i), 1024)
				} else {
					p = ackPacket(pool, uint32(i))
				}
				now = w.Send(now, p)
			}
			eng.Run(sim.Never)
			require.Equal(t, int64(n), w.Packets(), "lost frames still occupy the wire")
			require.Equal(t, int64(n), int64(len(s.got))+w.LostRandom)
			require.Zero(t, w.LostDown)
			switch tc.loss {
			case 0:
				require.Zero(t, w.LostRandom)
			case 1:
				require.Equal(t, int64(n), w.LostRandom)
				require.Empty(t, s.got)
			default:
				// Binomial(2000, 0.5): sd = sqrt(500) ~ 22.4; 5 sd either side.
				require.InDelta(t, n*tc.loss, float64(w.LostRandom), 5*22.4)
			}
			for k := Kind(0); k < NumKinds; k++ {
				require.Zero(t, w.InFlight(k))
				require.Zero(t, pool.InNetwork(k))
			}
			require.Equal(t, w.LostRandom, pool.Dropped[KindData]+pool.Dropped[KindAck])
		})
	}
}

func TestWireDropEvery(t *testing.T) {
	for _, every := range []int64{1, 4, 5} {
		t.Run(fmt.Sprint(every), func(t *testing.T) {
			eng, pool, w, s := newTestWire(LinkParams{Rate: 100 * sim.Gbps, Delay: sim.Microsecond})
			w.SetDropEvery(every)
			const n = 20
			now := sim.Time(0)
			for i := 1; i <= n; i++ {
				now = w.Send(now, dataPacket(pool, uint32(i), 1024))
				now = w.Send(now, ackPacket(pool, uint32(i)))
			}
			eng.Run(sim.Never)
			var data, acks []uint32
			for _, a := range s.got {
				if a.kind == KindData {
					data = append(data, a.psn)
				} else {
					acks = append(acks, a.psn)
				}
			}
			var wantData, wantAcks []uint32
			for i := 1; i <= n; i++ {
				if int64(i)%every != 0 {
					wantData = append(wantData, uint32(i))
				}
				wantAcks = append(wantAcks, uint32(i))
			}
			require.Equal(t, wantData, data, "exactly every %d-th data frame is lost", every)
			require.Equal(t, wantAcks, acks, "ACKs are never lost")
			require.Equal(t, int64(n)/every, w.LostRandom)
			require.Equal(t, int64(n)/every, pool.Dropped[KindData])
			require.Zero(t, pool.Dropped[KindAck])

			// Off again: nothing more is lost, and the count restarts when re-enabled.
			w.SetDropEvery(0)
			for i := 0; i < 10; i++ {
				now = w.Send(now, dataPacket(pool, 100, 1024))
			}
			eng.Run(sim.Never)
			require.Equal(t, int64(n)/every, w.LostRandom)
			before := len(s.got)
			w.SetDropEvery(every)
			for i := int64(1); i <= every; i++ {
				now = w.Send(now, dataPacket(pool, uint32(1000+i), 1024))
			}
			eng.Run(sim.Never)
			require.Equal(t, int64(n)/every+1, w.LostRandom, "the %d-th frame after re-enabling is lost", every)
			require.Len(t, s.got, before+int(every)-1)
			if every > 1 {
				require.Equal(t, uint32(1001), s.got[before].psn)
			}
		})
	}
}

// linkChange sets the link up or down at a time.
type linkChange struct {
	at sim.Time
	up bool
}

func TestWireDown(t *testing.T) {
	const rate, delay = 100 * sim.Gbps, 2 * sim.Microsecond
	tx := serialization(1086+WireOverhead, rate)
	tests := []struct {
		name     string
		send     sim.Time
		changes  []linkChange
		lostDown int64
	}{
		{"stays up", 0, nil, 0},
		{"down while serializing", 0, []linkChange{{tx / 2, false}}, 1},
		{"down while propagating", 0, []linkChange{{tx + delay/2, false}}, 1},
		{"down and up again before arrival", 0, []linkChange{{tx, false}, {tx + delay/2, true}}, 1},
		{"down after both arrived", 0, []linkChange{{2*tx + delay + 1, false}}, 0},
		{"sent while down", 10, []linkChange{{0, false}}, 1},
		{"sent while down, up before it would arrive", 10, []linkChange{{0, false}, {20, true}}, 1},
		{"sent after the link came back", 30, []linkChange{{0, false}, {20, true}}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			eng, pool, w, s := newTestWire(LinkParams{Rate: rate, Delay: delay})
			for _, c := range tc.changes {
				up := c.up
				eng.At(c.at, call(func(sim.Time) { w.SetUp(up) }), 0, nil)
			}
			eng.At(tc.send, call(func(now sim.Time) {
				w.Send(now, dataPacket(pool, 1, 1024))
				w.Send(now+tx, ackPacket(pool, 1))
			}), 0, nil)
			eng.Run(sim.Never)
			require.Equal(t, 2*tc.lostDown, w.LostDown, "both frames share the fate")
			require.Zero(t, w.LostRandom)
			require.Len(t, s.got, int(2-2*tc.lostDown))
			require.Equal(t, int64(2), w.Packets())
			for k := Kind(0); k < NumKinds; k++ {
				require.Zero(t, w.InFlight(k), k.String())
				require.Zero(t, pool.InNetwork(k), k.String())
			}
		})
	}
}

func TestWireInFlightByKind(t *testing.T) {
	eng, pool, w, s := newTestWire(LinkParams{Rate: 10 * sim.Gbps, Delay: 10 * sim.Microsecond})
	now := sim.Time(0)
	want := [NumKinds]int64{}
	for i := 0; i < 7; i++ {
		now = w.Send(now, dataPacket(pool, uint32(i), 512))
		want[KindData]++
		if i%2 == 0 {
			now = w.Send(now, ackPacket(pool, uint32(i)))
			want[KindAck]++
		}
	}
	p := pool.Get(KindPause)
	p.EtherType = EtherTypeMACControl
	p.Seal()
	w.Send(now, p)
	want[KindPause]++
	require.Equal(t, want, inFlight(w))
	// Halfway: the first frames have arrived, later ones are still on the wire.
	eng.Run(10*sim.Microsecond + now/2)
	var arrived [NumKinds]int64
	for _, a := range s.got {
		arrived[a.kind]++
	}
	require.NotZero(t, len(s.got))
	require.Less(t, len(s.got), 12)
	for k := Kind(0); k < NumKinds; k++ {
		require.Equal(t, want[k]-arrived[k], w.InFlight(k), k.String())
	}
	eng.Run(sim.Never)
	require.Equal(t, [NumKinds]int64{}, inFlight(w))
	require.Len(t, s.got, 12)
}

func TestWireJitterKeepsOrderAndBounds(t *testing.T) {
	eng := sim.NewEngine()
	pool := &Pool{}
	p := LinkParams{Rate: 100 * sim.Gbps, Delay: sim.Microsecond}
	w := NewWire(eng, pool, 0, 1, 0, 0, p, sim.Stream(1, "jitter"))
	rec := &arrivals{}
	w.Attach(rec)
	// The cap is one minimum frame on the wire: 84 bytes at 100 Gb/s = 6.72 ns.
	require.Equal(t, sim.Time(6720), w.SetJitter(sim.Microsecond))
	var sent []sim.Time
	now := sim.Time(0)
	for i := 0; i < 1000; i++ {
		pk := pool.Get(KindData)
		pk.Payload = int32(i % 3 * 500) // 64- to 1042-byte frames
		pk.PSN = uint32(i)
		pk.Seal()
		sent = append(sent, now)
		now = w.Send(now, pk)
	}
	eng.Run(sim.Never)
	require.Len(t, rec.at, 1000)
	for i, at := range rec.at {
		require.Equal(t, uint32(i), rec.psn[i], "frames keep their order")
		base := sent[i] + w.TxTime(&Packet{Frame: int32(rec.frame[i])}) + p.Delay
		require.GreaterOrEqual(t, at, base)
		require.Less(t, at, base+6720, "at most the jitter late")
		if i > 0 {
			require.GreaterOrEqual(t, at, rec.at[i-1])
		}
	}
}

type arrivals struct {
	at    []sim.Time
	psn   []uint32
	frame []int32
}

func (a *arrivals) Receive(now sim.Time, p *Packet, _ int) {
	a.at, a.psn, a.frame = append(a.at, now), append(a.psn, p.PSN), append(a.frame, p.Frame)
}

// inFlight is w.InFlight of every kind.
func inFlight(w *Wire) (n [NumKinds]int64) {
	for k := range n {
		n[k] = w.InFlight(Kind(k))
	}
	return n
}
