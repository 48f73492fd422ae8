package pfc

import (
	"fmt"

	"github.com/fabricsim/fabricsim/sim"
)

// Auto, as a configured size in a Sizing, asks Size to work the size out.
const Auto int64 = -1

// Sizing is what PFC sizing needs to know of one switch: its buffer, its lossless classes,
// the largest frame, its forwarding latency, its ports, and the configured sizes.
type Sizing struct {
	// Switch names the switch, for warnings.
	Switch string
	// Buffer is the shared packet buffer, in bytes.
	Buffer int64
	// Classes is the number of lossless classes.
	Classes int
	// MaxFrameWire is the largest frame any sender may put on a wire, preamble and IFG
	// included.
	MaxFrameWire int64
	// Latency is the switch's forwarding latency.
	Latency sim.Time
	// Ports are the switch's ports, by index.
	Ports []SizingPort
	// Xoff, Xon and Headroom are the configured sizes in bytes, or Auto.
	Xoff, Xon, Headroom int64
	// Dynamic asks for a dynamic XOFF (DynamicXoff) of factor Alpha, with XON XonOffset
	// bytes below it (DynamicXon), in bytes or Auto; Xoff and Xon are then not used.
	Dynamic   bool
	Alpha     float64
	XonOffset int64
}

// Shared is the shared buffer a dynamic XOFF divides: the buffer less the headroom of every
// lossless port-class (th, as Size returns them), none below zero.
func (s *Sizing) Shared(th []Thresholds) int64 {
	shared := s.Buffer
	for _, t := range th {
		shared -= t.Headroom * int64(s.Classes)
	}
	return max(shared, 0)
}

// Offset is the XON offset of a dynamic XOFF: the configured one, or two largest frames, the
// hysteresis xon: auto gives a static XOFF.
func (s *Sizing) Offset() int64 {
	if s.XonOffset != Auto {
		return s.XonOffset
	}
	return 2 * s.MaxFrameWire
}

// SizingPort is one port of a switch as PFC sizing sees it: its link, and the sender at the
// other end, which the port pauses.
type SizingPort struct {
	// Peer names the node at the other end, for warnings.
	Peer string
	// Rate and Delay are the link's rate and one-way propagation delay.
	Rate  sim.Rate
	Delay sim.Time
	// Response is how long the sender takes to stop after a PAUSE arrives.
	Response sim.Time
	// Jitter is the most a frame of the sender may arrive late (zero for a switch).
	Jitter sim.Time
}

// WarningKind says what a Warning is about.
type WarningKind uint8

// Warning kinds.
const (
	// HeadroomShort: a configured headroom is below the need of some ports; the Warning
	// names the port with the largest need.
	HeadroomShort WarningKind = iota
	// FrameTooLarge: XOFF + headroom of a port cannot hold one largest frame.
	FrameTooLarge
	// BufferOvercommitted: XOFF + headroom of all lossless port-classes exceed the buffer.
	BufferOvercommitted
)

// Warning is a sizing the switch will drop lossless frames with: what it is about, the port
// concerned (an index into Sizing.Ports, or -1 for the whole switch), and the explanation.
type Warning struct {
	Kind WarningKind
	Port int
	Text string
}

// String is the explanation.
func (w Warning) String() string { return w.Text }

// Need is the headroom a lossless class needs on port i of the switch, term by term (see
// Headroom): the link's rate and delay, the largest frame, the sender's response time and
// jitter, the switch's forwarding latency, and one PAUSE per lossless class.
func (s *Sizing) Need(i int) HeadroomTerms {
	p := s.Ports[i]
	return Headroom(HeadroomLink{Rate: p.Rate, Delay: p.Delay, MaxFrameWire: s.MaxFrameWire,
		Response: p.Response, Latency: s.Latency, Jitter: p.Jitter, Classes: s.Classes})
}

// Size sizes PFC on a switch: per port, the headroom its link needs (Need) or the configured
// one, and XOFF from what the buffer has left once every lossless port-class has its headroom,
// shared equally, or the configured one; XON is two largest frames below XOFF, or the
// configured one capped at XOFF; with a dynamic XOFF, the thresholds of an empty buffer
// (alpha x Shared, less the offset). It returns the thresholds by port, and a warning when a
// configured headroom is below the need, when a port cannot hold one frame, or when the sizes
// cannot all fit in the buffer. It is a pure function of s.
func Size(s Sizing) ([]Thresholds, []Warning) {
	var warnings []Warning
	warn := func(kind WarningKind, port int, format string, args ...any) {
		warnings = append(warnings, Warning{Kind: kind, Port: port, Text: fmt.Sprintf(format, args...)})
	}
	ports := make([]Thresholds, 0, len(s.Ports))
	classes := int64(s.Classes)
	frame := s.MaxFrameWire
	var reserved int64
	short, worst := 0, -1 // ports whose configured headroom is below the need
	var worstNeed HeadroomTerms
	for i := range s.Ports {
		need := s.Need(i)
		h := need.Total()
		if s.Headroom != Auto {
			h = s.Headroom
			if h < need.Total() {
				short++
				if need.Total() > worstNeed.Total() {
					worst, worstNeed = i, need
				}
			}
		}
		ports = append(ports, Thresholds{Headroom: h})
		reserved += h * classes
	}
	if short > 0 {
		p := s.Ports[worst]
		warn(HeadroomShort, worst, "%s: headroom %dB is below the need on %d of its %d ports (port %d to %s, %v, %v delay, needs %v): expect headroom drops",
			s.Switch, s.Headroom, short, len(s.Ports), worst+1, p.Peer, p.Rate, p.Delay, worstNeed)
	}
	shares := int64(len(s.Ports)) * classes
	xoff := (s.Buffer - reserved) / max(shares, 1)
	if s.Xoff != Auto {
		xoff = s.Xoff
	}
	xoff = max(xoff, 0)
	xon := max(xoff-2*frame, 0)
	if s.Xon != Auto {
		xon = min(s.Xon, xoff)
	}
	if s.Dynamic {
		// The thresholds of an empty buffer, for reports: the datapath works them out as the
		// buffer fills.
		xoff = DynamicXoff(s.Alpha, s.Shared(ports))
		xon = DynamicXon(xoff, s.Offset())
	}
	for i := range ports {
		ports[i].Xoff, ports[i].Xon = xoff, xon
		if xoff+ports[i].Headroom < frame {
			warn(FrameTooLarge, i, "%s port %d: XOFF %dB + headroom %dB cannot hold one %dB frame: every lossless frame there will be dropped",
				s.Switch, i+1, xoff, ports[i].Headroom, frame)
			break
		}
	}
	if total := xoff*shares + reserved; total > s.Buffer && !s.Dynamic {
		warn(BufferOvercommitted, -1, "%s: XOFF + headroom of its %d lossless port-classes need %dB but the buffer is %dB: lossless frames may be dropped (as headroom drops) when the buffer is full",
			s.Switch, shares, total, s.Buffer)
	}
	return ports, warnings
}
