package experiment

import (
	"fmt"

	"github.com/fabricsim/fabricsim/pfc"
	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/switchmodel"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports"
)

// maxFrameWire is the largest frame any transport the scenario's traffic uses puts on the
// wire, preamble and IFG included: a RoCE WRITE first packet (it carries the RETH) of a full
// MTU.
func (f *fabric) maxFrameWire() int64 {
	var frame int64
	for _, t := range f.sc.Traffic {
		switch transport := trafficTransport(t); transport {
		case "rocev1":
			frame = max(frame, roceWireBytes(1, int64(f.sc.Transports.RoCEv1.MTU), true))
		case "iwarp":
			// A full TCP segment: the IP MTU plus Ethernet, FCS, preamble and IFG.
			frame = max(frame, transports.NewIWARPFrames(f.iwarpConfig(), 1<<30).SegmentWire(0))
		default:
			frame = max(frame, roceWireBytes(2, int64(f.sc.Transports.RoCEv2.MTU), true))
		}
	}
	return frame
}

// trafficTransport is the transport of a traffic item.
func trafficTransport(t scenarios.Traffic) string {
	switch {
	case t.Flow != nil:
		return t.Flow.Transport
	case t.Incast != nil:
		return t.Incast.Transport
	case t.Permutation != nil:
		return t.Permutation.Transport
	}
	return ""
}

// responseTime is how long a port of rate r takes to stop after a PAUSE arrives.
func responseTime(c *scenarios.PFCConfig, r sim.Rate) sim.Time {
	if c.ResponseTime.Auto {
		return pfc.ResponseTime(r)
	}
	return c.ResponseTime.Time
}

// pfcConfig sizes PFC on switch n: per port, the headroom its link needs (or the configured
// one), and XOFF/XON from what the buffer has left once every lossless port-class has its
// headroom, shared equally (or the configured ones). It records a warning when the sizes
// cannot all fit in the buffer, or when a configured headroom is below the need.
func (f *fabric) pfcConfig(n *topology.Node, c *scenarios.SwitchConfig) switchmodel.PFCConfig {
	p := &c.PFC
	if !p.Enabled {
		return switchmodel.PFCConfig{}
	}
	cfg := switchmodel.PFCConfig{Quanta: uint16(p.Quanta), Watchdog: p.Watchdog}
	for _, prio := range p.Priorities {
		cfg.Lossless[prio] = true
	}
	classes := int64(len(p.Priorities))
	frame := f.maxFrameWire()
	var reserved int64
	short, worst, worstNeed := 0, -1, int64(0) // ports whose configured headroom is below the need
	for i, port := range n.Ports {
		l := f.nw.Links[port.Link].Params
		response := responseTime(p, l.Rate)
		// Frames inside the switch's forwarding pipeline are not yet counted against XOFF:
		// the headroom must also hold what arrives during that latency.
		need := pfc.Headroom(l.Rate, l.Delay, frame, response)
		if c.Latency > 0 {
			need += l.Rate.BytesIn(c.Latency) + 1 // rounded up
		}
		cfg.Response = append(cfg.Response, response)
		h := need
		if !p.Headroom.Auto {
			h = p.Headroom.Bytes
			if h < need {
				short++
				if need > worstNeed {
					worst, worstNeed = i, need
				}
			}
		}
		cfg.Ports = append(cfg.Ports, pfc.Thresholds{Headroom: h})
		reserved += h * classes
	}
	if short > 0 {
		port := n.Ports[worst]
		l := f.nw.Links[port.Link].Params
		f.warnf("%s: headroom %dB is below the need on %d of its %d ports (port %d to %s needs %dB: %v, %v delay, %dB frames, response %v): expect headroom drops",
			n.Name, p.Headroom.Bytes, short, len(n.Ports), worst+1, f.nw.Nodes[port.Peer].Name, worstNeed,
			l.Rate, l.Delay, frame, responseTime(p, l.Rate))
	}
	shares := int64(len(n.Ports)) * classes
	xoff := (c.Buffer - reserved) / max(shares, 1)
	if !p.Xoff.Auto {
		xoff = p.Xoff.Bytes
	}
	xoff = max(xoff, 0)
	xon := max(xoff-2*frame, 0)
	if !p.Xon.Auto {
		xon = min(p.Xon.Bytes, xoff)
	}
	for i := range cfg.Ports {
		cfg.Ports[i].Xoff, cfg.Ports[i].Xon = xoff, xon
		if xoff+cfg.Ports[i].Headroom < frame {
			f.warnf("%s port %d: XOFF %dB + headroom %dB cannot hold one %dB frame: every lossless frame there will be dropped",
				n.Name, i+1, xoff, cfg.Ports[i].Headroom, frame)
			break
		}
	}
	if total := xoff*shares + reserved; total > c.Buffer {
		f.warnf("%s: XOFF + headroom of its %d lossless port-classes need %dB but the buffer is %dB: lossless frames may be dropped (as headroom drops) when the buffer is full",
			n.Name, shares, total, c.Buffer)
	}
	return cfg
}

func (f *fabric) warnf(format string, args ...any) {
	f.warnings = append(f.warnings, fmt.Sprintf(format, args...))
}
