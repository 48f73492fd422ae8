package topology

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// rocev2 is an untagged RoCE v2 (UDP/IPv4, destination port 4791) packet with the given BTH
// opcode and extension headers.
func rocev2(op uint8, reth, aeth bool, payload int32) Packet {
	p := Packet{EtherType: EtherTypeIPv4, Protocol: IPProtoUDP, DstPort: UDPPortRoCEv2, Payload: payload}
	*p.IB() = IBFields{Opcode: op, HasRETH: reth, HasAETH: aeth}
	return p
}

func TestSealFrameSizes(t *testing.T) {
	// Frame = Ethernet header + FCS [+ 802.1Q] + IPv4 + UDP + BTH [+ RETH | AETH | CNP pad]
	// + ICRC + payload, padded to the 64-byte minimum (docs/model.md section 1).
	const (
		eth  = EthernetHeader + FCS
		ip   = IPv4Header + UDPHeader
		ib   = BTHHeader + ICRC
		pmtu = 1024
	)
	tagged := func(p Packet) Packet { p.Tagged, p.PCP = true, 3; return p }
	tests := []struct {
		name  string
		p     Packet
		frame int32
		// wire is the figure the reference tables give (docs/model.md section 1);
		// 0 where the table has none.
		wire int64
	}{
		{"write first", rocev2(OpWriteFirst, true, false, pmtu), eth + ip + ib + RETHHeader + pmtu, 1122},
		{"write middle", rocev2(OpWriteMiddle, false, false, pmtu), eth + ip + ib + pmtu, 1106},
		{"write middle 802.1Q", tagged(rocev2(OpWriteMiddle, false, false, pmtu)), eth + VLANTag + ip + ib + pmtu, 1110},
		{"write middle pmtu 4096", rocev2(OpWriteMiddle, false, false, 4096), eth + ip + ib + 4096, 4178},
		{"write last, short", rocev2(OpWriteLast, false, false, 100), eth + ip + ib + 100, 0},
		{"write only, short", rocev2(OpWriteOnly, true, false, 8), eth + ip + ib + RETHHeader + 8, 0},
		{"write only, 1 byte", rocev2(OpWriteOnly, true, false, 1), eth + ip + ib + RETHHeader + 1, 0},
		{"write last, 1 byte, padded", rocev2(OpWriteLast, false, false, 1), MinFrame, 0}, // 63 bytes before padding
		{"ack", rocev2(OpAcknowledge, false, true, 0), eth + ip + ib + AETHHeader, 66 + WireOverhead},
		{"ack 802.1Q", tagged(rocev2(OpAcknowledge, false, true, 0)), eth + VLANTag + ip + ib + AETHHeader, 0},
		{"cnp", rocev2(OpCNP, false, false, 0), eth + ip + ib + CNPPad, 78 + WireOverhead},
		{"pfc pause (MAC control)", Packet{EtherType: EtherTypeMACControl}, MinFrame, 84},
		{"plain UDP, not RoCE", Packet{EtherType: EtherTypeIPv4, Protocol: IPProtoUDP, DstPort: 53, Payload: 100}, eth + ip + 100, 0},
		{"plain UDP, empty, padded", Packet{EtherType: EtherTypeIPv4, Protocol: IPProtoUDP, DstPort: 53}, MinFrame, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p
			p.Seal()
			require.Equal(t, tc.frame, p.Frame)
			require.GreaterOrEqual(t, p.Frame, int32(MinFrame))
			require.Equal(t, int64(tc.frame)+PreambleSFD+InterFrameGap, p.WireBytes())
			if tc.wire != 0 {
				require.Equal(t, tc.wire, p.WireBytes(), "reference table")
			}
		})
	}
}

func TestSealIsIdempotent(t *testing.T) {
	p := rocev2(OpWriteMiddle, false, false, 1024)
	p.Seal()
	first := p.Frame
	p.Seal()
	require.Equal(t, first, p.Frame)
	p.Payload = 0
	p.Seal()
	require.Equal(t, int32(MinFrame), p.Frame, "resealing after a header change recomputes (62 bytes, padded)")
}

func TestPoolBooks(t *testing.T) {
	tests := []struct {
		name             string
		take             [NumKinds]int
		deliver, drop    [NumKinds]int
		wantInNetworkSum int64
	}{
		{"empty", [NumKinds]int{}, [NumKinds]int{}, [NumKinds]int{}, 0},
		{"all delivered", [NumKinds]int{KindData: 5}, [NumKinds]int{KindData: 5}, [NumKinds]int{}, 0},
		{"mixed", [NumKinds]int{KindData: 10, KindAck: 4, KindCNP: 2, KindPause: 3},
			[NumKinds]int{KindData: 6, KindAck: 1}, [NumKinds]int{KindData: 2, KindPause: 3}, 2 + 3 + 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var pl Pool
			held := map[Kind][]*Packet{}
			for k := Kind(0); k < NumKinds; k++ {
				for i := 0; i < tc.take[k]; i++ {
					p := pl.Get(k)
					require.Equal(t, k, p.Kind)
					held[k] = append(held[k], p)
				}
			}
			for k := Kind(0); k < NumKinds; k++ {
				for i := 0; i < tc.deliver[k]; i++ {
					pl.Deliver(held[k][0])
					held[k] = held[k][1:]
				}
				for i := 0; i < tc.drop[k]; i++ {
					pl.Drop(held[k][0])
					held[k] = held[k][1:]
				}
			}
			var sum int64
			for k := Kind(0); k < NumKinds; k++ {
				require.Equal(t, int64(tc.take[k]), pl.Taken[k], k.String())
				require.Equal(t, int64(tc.deliver[k]), pl.Delivered[k], k.String())
				require.Equal(t, int64(tc.drop[k]), pl.Dropped[k], k.String())
				require.Equal(t, int64(len(held[k])), pl.InNetwork(k), k.String())
				require.Equal(t, pl.Taken[k], pl.Delivered[k]+pl.Dropped[k]+pl.InNetwork(k))
				sum += pl.InNetwork(k)
			}
			require.Equal(t, tc.wantInNetworkSum, sum)
		})
	}
}

func TestPoolRecyclesZeroed(t *testing.T) {
	var pl Pool
	p := pl.Get(KindData)
	*p = rocev2(OpWriteFirst, true, false, 1024)
	p.Kind, p.TTL, p.PSN, p.Routed = KindData, 64, 77, true
	p.Seal()
	pl.Drop(p)
	q := pl.Get(KindAck)
	require.Same(t, p, q, "a returned packet is reused, not reallocated")
	want := Packet{Kind: KindAck}
	require.Equal(t, want, *q, "a recycled packet comes back zeroed except for its kind")
	require.Equal(t, int64(1), pl.Taken[KindData])
	require.Equal(t, int64(1), pl.Taken[KindAck])
	require.Equal(t, int64(0), pl.InNetwork(KindData))
	require.Equal(t, int64(1), pl.InNetwork(KindAck))
}

func TestKindString(t *testing.T) {
	seen := map[string]bool{}
	for k := Kind(0); k < NumKinds; k++ {
		s := k.String()
		require.NotEmpty(t, s)
		require.False(t, seen[s], "duplicate kind name %q", s)
		seen[s] = true
	}
}

func TestINTHeaderCountsInTheFrame(t *testing.T) {
	var pl Pool
	p := pl.Get(KindData)
	p.EtherType, p.Protocol, p.DstPort = EtherTypeIPv4, IPProtoUDP, UDPPortRoCEv2
	p.Payload = 1024
	p.Seal()
	plain := p.Frame
	p.INT = pl.GetINT()
	p.Seal()
	require.Equal(t, plain+INTHeader, p.Frame)
	require.Equal(t, int64(1), pl.INTs)
	pl.Deliver(p)
	require.Zero(t, pl.INTs, "the record goes back with its packet")
	// Steady state: a get and a put of a packet with its record allocate nothing.
	allocs := testing.AllocsPerRun(100, func() {
		q := pl.Get(KindData)
		q.INT = pl.GetINT()
		pl.Drop(q)
	})
	require.Zero(t, allocs)
}
