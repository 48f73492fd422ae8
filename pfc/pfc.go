// Package pfc is IEEE 802.1Qbb priority flow control as pure state machines: the pause
// frame's arithmetic, the per (ingress port, priority) XOFF/XON accounting that decides when
// to pause and resume the upstream sender, the per (egress port, priority) pause state of the
// sender, headroom sizing, and the deadlock detector's cycle search. Nothing here schedules
// events; the switch and the NIC drive these machines and act on what they return.
package pfc

import (
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// Frame constants (IEEE 802.1Qbb clause 36; IEEE 802.3 annex 31D).
const (
	// Opcode is the MAC Control opcode of a priority-based flow control frame.
	Opcode = 0x0101
	// QuantumBits is the length of one pause quantum in bit times.
	QuantumBits = 512
	// MaxQuanta is the largest pause a frame can ask for.
	MaxQuanta = 0xFFFF
	// FrameWireBytes is a PFC frame on the wire: the 64-byte minimum frame plus preamble,
	// SFD and inter-frame gap (672 bit times; physics references 2.1).
	FrameWireBytes = 64 + 8 + 12
	// NumPriorities is the number of classes a PFC frame addresses.
	NumPriorities = 8
)

// PauseDuration is how long quanta pause quanta last at rate r: quanta x 512 bit times.
func PauseDuration(quanta uint16, r sim.Rate) sim.Time {
	return r.TxTime(int64(quanta) * QuantumBits / 8)
}

// ResponseQuanta is the most a port may take, in pause quanta, to stop sending after it has
// received a PAUSE, by link speed: IEEE 802.3 annex 31B as tabulated in Cisco Press,
// "Congestion Management in Ethernet Storage Networks", ch. 7 (physics references 2.1):
// 60 quanta at 10G, 80 at 25G, 118 at 40G, 394 at 100G, 905 at 400G. A speed between two
// rows takes the faster row's value, so the bound stays conservative.
var ResponseQuanta = []struct {
	Rate   sim.Rate
	Quanta uint16
}{
	{10 * sim.Gbps, 60},
	{25 * sim.Gbps, 80},
	{40 * sim.Gbps, 118},
	{100 * sim.Gbps, 394},
	{400 * sim.Gbps, 905},
}

// ResponseTime is the IEEE 802.3 annex 31B response bound for a link of rate r.
func ResponseTime(r sim.Rate) sim.Time {
	for _, row := range ResponseQuanta {
		if r <= row.Rate {
			return PauseDuration(row.Quanta, r)
		}
	}
	last := ResponseQuanta[len(ResponseQuanta)-1]
	return PauseDuration(last.Quanta, r)
}

// Headroom is the buffer a lossless (ingress port, priority) needs above XOFF so that nothing
// is lost after it sends PAUSE (physics references 2.2): the frame the receiver is already
// sending when it decides (PAUSE cannot pre-empt it), the PAUSE frame itself, the PAUSE's
// trip to the sender, the sender's response time, the frame the sender has started, and the
// bits already on the wire coming back:
//
//	H = MTU_R + 84 B + C·d + C·t_resp + MTU_S + C·d
//
// where maxFrameWire is the largest frame on the wire, preamble and IFG included.
func Headroom(r sim.Rate, delay sim.Time, maxFrameWire int64, response sim.Time) int64 {
	return 2*maxFrameWire + FrameWireBytes + bytesIn(r, 2*delay) + bytesIn(r, response)
}

// bytesIn is what rate r carries in time t, rounded up: headroom must not fall short.
func bytesIn(r sim.Rate, t sim.Time) int64 {
	n := r.BytesIn(t)
	if r.TxTime(n) < t {
		n++
	}
	return n
}

// FillFrame makes p a PFC frame pausing class c for quanta (0 resumes it): EtherType 0x8808,
// opcode 0x0101, the class-enable vector with bit c set and timer c, padded to 64 bytes.
func FillFrame(p *topology.Packet, c int, quanta uint16) {
	p.EtherType = topology.EtherTypeMACControl
	p.PauseEnable = 1 << c
	p.PauseQuanta[c] = quanta
	p.Priority = uint8(c)
	p.Seal()
}
