// Package pfc is IEEE 802.1Qbb priority flow control as pure state machines: the pause
// frame's arithmetic, the per (ingress port, priority) XOFF/XON accounting that decides when
// to pause and resume the upstream sender, the per (egress port, priority) pause state of the
// sender, headroom and XOFF/XON sizing (Size), and the deadlock detector's cycle search.
// Nothing here schedules events; the switch and the NIC drive these machines and act on what
// they return.
package pfc

import (
	"fmt"

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
	// SFD and inter-frame gap (672 bit times; IEEE 802.3 clauses 3 and 4).
	FrameWireBytes = 64 + 8 + 12
	// NumPriorities is the number of classes a PFC frame addresses.
	NumPriorities = topology.NumPriorities
)

// MinRefreshBytes is the closest two PAUSE frames of one class are sent, in bytes at the
// line rate: four PFC frame times, so that refreshes take at most a quarter of the link.
const MinRefreshBytes = 4 * FrameWireBytes

// RefreshLead is the longest a PAUSE may wait in its port at rate r before it goes out: the
// largest frame (maxFrameWire bytes on the wire), already started, which a PAUSE cannot
// pre-empt, and one PFC frame of each of the other lossless classes queued ahead of it.
func RefreshLead(r sim.Rate, maxFrameWire int64, classes int) sim.Time {
	return r.TxTime(maxFrameWire) + sim.Time(max(classes, 1)-1)*r.TxTime(FrameWireBytes)
}

// RefreshInterval is how soon after a PAUSE of quanta at rate r the port sends it again while
// its condition lasts: at half the pause time, but early enough that the refresh reaches the
// sender before that pause runs out even if the refresh waits lead (RefreshLead) in its port
// and the PAUSE before it went at once. The link delay, the PAUSE's serialization and the
// sender's response time are the same for both frames, so they cancel: the sender's pause is
// unbroken when the refresh arrives within the pause time of the PAUSE before it (IEEE
// 802.1Qbb reloads the class's timer with each frame). It is at least MinRefreshBytes at the
// line rate when quanta >= MinQuanta of the same frame and classes; a storm's refresh, with
// no lead, is half the pause time.
func RefreshInterval(quanta uint16, r sim.Rate, lead sim.Time) sim.Time {
	d := PauseDuration(quanta, r)
	return min(d/2, d-lead)
}

// MinQuanta is the shortest pause a switch can keep unbroken by refreshes, in quanta, when
// its largest frame is maxFrameWire bytes on the wire and it has classes lossless classes:
// the pause time must cover the refresh's longest wait in its port (RefreshLead) and the
// closest refreshes may come (MinRefreshBytes). Pause time, frames and refreshes all scale
// with the bit time, so the bound is the same at every link rate.
func MinQuanta(maxFrameWire int64, classes int) int {
	bits := 8 * (maxFrameWire + int64(max(classes, 1)-1)*FrameWireBytes + MinRefreshBytes)
	return int((bits + QuantumBits - 1) / QuantumBits)
}

// PauseDuration is how long quanta pause quanta last at rate r: quanta x 512 bit times.
func PauseDuration(quanta uint16, r sim.Rate) sim.Time {
	return r.TxTime(int64(quanta) * QuantumBits / 8)
}

// ResponseQuanta is the most a port may take, in pause quanta, to stop sending after it has
// received a PAUSE, by link speed: IEEE 802.3 annex 31B as tabulated in Cisco Press,
// "Congestion Management in Ethernet Storage Networks", ch. 7:
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

// HeadroomLink is what the headroom of one lossless (ingress port, priority) depends on.
type HeadroomLink struct {
	// Rate and Delay are the link's rate and one-way propagation delay.
	Rate  sim.Rate
	Delay sim.Time
	// MaxFrameWire is the largest frame either end may send, preamble and IFG included.
	MaxFrameWire int64
	// Response is how long the upstream sender takes to stop after a PAUSE arrives.
	Response sim.Time
	// Latency is the receiving switch's forwarding latency: frames inside its pipeline are
	// not yet counted against XOFF.
	Latency sim.Time
	// Jitter is the most a frame from the upstream sender may arrive late (a host's
	// hosts.jitter, capped at one minimum frame time), so frames may bunch by that much.
	Jitter sim.Time
	// Classes is the number of lossless classes: a PAUSE may queue behind one PFC frame of
	// each other lossless class.
	Classes int
}

// HeadroomTerms is the worst case of the bytes that can still arrive at a lossless
// (ingress port, priority) once its count has first gone above XOFF, term by term. The
// sequence is IEEE 802.1Qbb's (its annex on buffer requirements) as Cisco Press, "Congestion
// Management in Ethernet Storage Networks", ch. 7, figure 7-2 itemises it: D-Max-Frame-Len,
// D-Pause, D-Cable, D-Resp, D-Max-No-Drop-Frame-Len, D-Cable (D-Intf, the PHY and MAC
// latency of real hardware, is zero in this model). To those the simulator's own admission
// adds the frame that crosses XOFF: a switch counts a frame whole when its last bit arrives,
// so the count may already be one frame above XOFF when the PAUSE is decided; SONiC's
// Mellanox headroom calculation (sonic-swss cfgmgr/buffer_headroom_mellanox.lua) adds one
// lossless MTU for the same reason.
type HeadroomTerms struct {
	// Trigger: the frame that took the count above XOFF, admitted whole.
	Trigger int64
	// Reverse: the frame the receiver has just started on the reverse direction; the
	// PAUSE cannot pre-empt it (D-Max-Frame-Len).
	Reverse int64
	// Pause: the 84-byte PAUSE itself (D-Pause), plus one PFC frame of each other lossless
	// class that may be queued ahead of it.
	Pause int64
	// Cable: the rate times the delay of both trips, the PAUSE going up and the last bits
	// coming down (2 x D-Cable).
	Cable int64
	// Response: the rate times the sender's response time (D-Resp).
	Response int64
	// Sender: the frame the sender has started when it stops; it cannot be aborted
	// (D-Max-No-Drop-Frame-Len).
	Sender int64
	// Latency: the rate times the forwarding latency of the receiving switch.
	Latency int64
	// Jitter: the rate times the sender's jitter.
	Jitter int64
}

// Headroom is the worst case of what arrives after XOFF on l, term by term (see
// HeadroomTerms). Times are converted to bytes at the link rate, rounded up.
func Headroom(l HeadroomLink) HeadroomTerms {
	return HeadroomTerms{
		Trigger:  l.MaxFrameWire,
		Reverse:  l.MaxFrameWire,
		Pause:    FrameWireBytes * int64(max(l.Classes, 1)),
		Cable:    bytesIn(l.Rate, 2*l.Delay),
		Response: bytesIn(l.Rate, l.Response),
		Sender:   l.MaxFrameWire,
		Latency:  bytesIn(l.Rate, l.Latency),
		Jitter:   bytesIn(l.Rate, l.Jitter),
	}
}

// Total is the headroom: the sum of the terms.
func (h HeadroomTerms) Total() int64 {
	return h.Trigger + h.Reverse + h.Pause + h.Cable + h.Response + h.Sender + h.Latency + h.Jitter
}

// String is the arithmetic, for warnings and explanations.
func (h HeadroomTerms) String() string {
	s := fmt.Sprintf("%dB = %dB frame crossing XOFF + %dB frame on the reverse wire + %dB PAUSE + %dB cable both ways + %dB response + %dB frame the sender finishes",
		h.Total(), h.Trigger, h.Reverse, h.Pause, h.Cable, h.Response, h.Sender)
	if h.Latency > 0 {
		s += fmt.Sprintf(" + %dB forwarding latency", h.Latency)
	}
	if h.Jitter > 0 {
		s += fmt.Sprintf(" + %dB jitter", h.Jitter)
	}
	return s
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
	p.Pause().Enable = 1 << c
	p.Pause().Quanta[c] = quanta
	p.Priority = uint8(c)
	p.Seal()
}
