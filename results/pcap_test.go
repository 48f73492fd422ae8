package results

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/header"
	"github.com/fabricsim/fabricsim/pfc"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

func TestEncodeRoCEv2WriteFirst(t *testing.T) {
	p := topology.Packet{EtherType: topology.EtherTypeIPv4, Protocol: topology.IPProtoUDP,
		SrcIP: 10<<24 | 1, DstIP: 10<<24 | 2, TTL: 64, DSCP: 24, ECN: topology.ECNECT0,
		SrcPort: 0xC123, DstPort: topology.UDPPortRoCEv2, PSN: 7, Payload: 1024, Src: 1, Dst: 2}
	*p.IB() = topology.IBFields{Opcode: topology.OpWriteFirst, HasRETH: true, DMALen: 4096, DestQP: 0x101}
	p.Seal()
	b := encode(&p)
	// The frame without its FCS: 1102 - 4 bytes.
	require.Len(t, b, int(p.Frame)-topology.FCS)
	require.Equal(t, uint16(topology.EtherTypeIPv4), binary.BigEndian.Uint16(b[12:]))
	ip := b[14:]
	require.Equal(t, byte(0x45), ip[0])
	require.Equal(t, byte(24<<2|topology.ECNECT0), ip[1], "DSCP and ECN")
	require.Equal(t, uint16(p.Frame-14-4), binary.BigEndian.Uint16(ip[2:]), "IPv4 total length")
	var sum uint32
	for i := 0; i < 20; i += 2 {
		sum += uint32(binary.BigEndian.Uint16(ip[i:]))
	}
	for sum > 0xffff {
		sum = sum&0xffff + sum>>16
	}
	require.Equal(t, uint32(0xffff), sum, "the IPv4 header checksum verifies")
	udp := ip[20:]
	require.Equal(t, uint16(topology.UDPPortRoCEv2), binary.BigEndian.Uint16(udp[2:]))
	require.Equal(t, uint16(p.Frame-14-4-20), binary.BigEndian.Uint16(udp[4:]), "UDP length")
	bth := udp[8:]
	require.Equal(t, byte(topology.OpWriteFirst), bth[0])
	require.Equal(t, uint32(0x101), binary.BigEndian.Uint32(bth[4:])&0xFFFFFF)
	require.Equal(t, uint32(7), binary.BigEndian.Uint32(bth[8:])&0xFFFFFF)
	require.Equal(t, uint32(4096), binary.BigEndian.Uint32(bth[12+12:]), "RETH DMA length")
}

func TestEncodeRoCEv1AndPFC(t *testing.T) {
	p := topology.Packet{EtherType: topology.EtherTypeRoCEv1, Tagged: true, PCP: 3, Payload: 1024}
	p.IB().Opcode = topology.OpWriteMiddle
	p.Seal()
	b := encode(&p)
	require.Len(t, b, int(p.Frame)-topology.FCS)
	require.Equal(t, uint16(0x8100), binary.BigEndian.Uint16(b[12:]))
	require.Equal(t, uint16(3<<13), binary.BigEndian.Uint16(b[14:]), "PCP 3")
	require.Equal(t, uint16(topology.EtherTypeRoCEv1), binary.BigEndian.Uint16(b[16:]))
	require.Equal(t, byte(0x60), b[18]&0xF0, "GRH version 6")
	require.Equal(t, byte(0x1B), b[18+6], "next header: BTH")

	var pause topology.Packet
	pfc.FillFrame(&pause, 3, 0xFFFF)
	b = encode(&pause)
	require.Len(t, b, 60, "a 64-byte frame without its FCS")
	require.Equal(t, []byte{0x01, 0x80, 0xC2, 0, 0, 1}, b[:6])
	require.Equal(t, uint16(0x8808), binary.BigEndian.Uint16(b[12:]))
	require.Equal(t, uint16(0x0101), binary.BigEndian.Uint16(b[14:]))
	require.Equal(t, uint16(1<<3), binary.BigEndian.Uint16(b[16:]), "class-enable vector")
	require.Equal(t, uint16(0xFFFF), binary.BigEndian.Uint16(b[18+2*3:]), "timer of class 3")
}

func TestPcapFileLayout(t *testing.T) {
	var buf bytes.Buffer
	w := NewPcapWriter(&buf, nil)
	p := topology.Packet{EtherType: topology.EtherTypeIPv4, Protocol: topology.IPProtoUDP,
		DstPort: topology.UDPPortRoCEv2}
	*p.IB() = topology.IBFields{Opcode: topology.OpAcknowledge, HasAETH: true}
	p.Seal()
	w.Frame(1500*sim.Nanosecond+1*sim.Second, nil, &p)
	require.NoError(t, w.Close())
	b := buf.Bytes()
	require.Equal(t, uint32(0xa1b23c4d), binary.LittleEndian.Uint32(b), "nanosecond pcap magic")
	require.Equal(t, uint32(1), binary.LittleEndian.Uint32(b[20:]), "Ethernet")
	rec := b[24:]
	require.Equal(t, uint32(1), binary.LittleEndian.Uint32(rec[0:]), "seconds")
	require.Equal(t, uint32(1500), binary.LittleEndian.Uint32(rec[4:]), "nanoseconds")
	require.Equal(t, uint32(p.Frame-4), binary.LittleEndian.Uint32(rec[8:]))
	require.Len(t, rec[16:], int(p.Frame-4))
	require.EqualValues(t, 1, w.Frames)
}

// encode is EncodeFrame with the end hosts' addresses.
func encode(p *topology.Packet) []byte {
	dst, src := HostMACs(p)
	return EncodeFrame(nil, p, dst, src)
}

func TestPureACKIsPaddedAfterTheDatagram(t *testing.T) {
	p := topology.Packet{EtherType: topology.EtherTypeIPv4, Protocol: topology.IPProtoTCP,
		SrcIP: 10<<24 | 1, DstIP: 10<<24 | 2, TTL: 64, IPID: 7, SrcPort: 18515, DstPort: 50000}
	*p.TCP() = topology.TCPFields{Seq: 1, AckNum: 1000, Flags: topology.TCPFlagACK}
	p.Seal()
	require.EqualValues(t, topology.MinFrame, p.Frame)
	b := encode(&p)
	ip := header.IPv4(b[header.EthernetSize:])
	require.EqualValues(t, 40, ip.TotalLength(), "IP counts no Ethernet padding")
	require.EqualValues(t, 7, ip.ID())
	require.Equal(t, uint16(0xFFFF), header.Checksum(ip[:header.IPv4MinimumSize], 0), "the IPv4 checksum verifies")
	seg := ip[header.IPv4MinimumSize:ip.TotalLength()]
	ph := header.PseudoHeaderChecksum(topology.IPProtoTCP, ip.SourceAddress(), ip.DestinationAddress(), uint16(len(seg)))
	require.Equal(t, uint16(0xFFFF), header.Checksum(seg, ph), "the TCP checksum verifies")
	require.Equal(t, make([]byte, 6), []byte(b[header.EthernetSize+40:]), "zero padding to 60 bytes")
}

func TestICRCSurvivesCEAndTTL(t *testing.T) {
	p := topology.Packet{EtherType: topology.EtherTypeIPv4, Protocol: topology.IPProtoUDP,
		SrcIP: 10<<24 | 1, DstIP: 10<<24 | 2, TTL: 64, DSCP: 24, ECN: topology.ECNECT0,
		DstPort: topology.UDPPortRoCEv2, PSN: 3, Payload: 1024}
	p.IB().Opcode = topology.OpWriteMiddle
	p.Seal()
	a := encode(&p)
	p.ECN, p.TTL = topology.ECNCE, 61
	c := encode(&p)
	require.NotEqual(t, a[14+1], c[14+1], "the TOS changed")
	require.Equal(t, a[len(a)-4:], c[len(c)-4:], "the ICRC did not")
	p.PSN++
	require.NotEqual(t, a[len(a)-4:], encode(&p)[len(a)-4:], "an invariant field changes it")
}

func TestPcapWriterDoesNotAllocatePerFrame(t *testing.T) {
	w := NewPcapWriter(io.Discard, nil)
	roce := topology.Packet{EtherType: topology.EtherTypeIPv4, Protocol: topology.IPProtoUDP,
		DstPort: topology.UDPPortRoCEv2, Payload: 1024}
	roce.IB().Opcode = topology.OpWriteMiddle
	roce.Seal()
	fpdu := topology.Packet{EtherType: topology.EtherTypeIPv4, Protocol: topology.IPProtoTCP, Payload: 1404}
	*fpdu.TCP() = topology.TCPFields{Flags: topology.TCPFlagACK, Timestamps: true, MPA: topology.MPAFPDU, DDPTagged: true,
		MPAMarkers: 3, MPAStream: 1000}
	fpdu.Seal()
	allocs := testing.AllocsPerRun(100, func() {
		w.Frame(0, nil, &roce)
		w.Frame(0, nil, &fpdu)
	})
	require.Zero(t, allocs)
}
