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

// switchConfigOf is the switch block that applies to switch n: its own, or the global one.
func (f *fabric) switchConfigOf(n *topology.Node) *scenarios.SwitchConfig {
	if nc := f.nodeCfg[n.Name]; nc != nil && nc.Switch != nil {
		return nc.Switch
	}
	return &f.sc.Switch
}

// hostConfigOf is the host block that applies to host n: its own, or the global one.
func (f *fabric) hostConfigOf(n *topology.Node) scenarios.HostConfig {
	if nc := f.nodeCfg[n.Name]; nc != nil && nc.Hosts != nil {
		return *nc.Hosts
	}
	return f.sc.Hosts
}

// headroomNeed is the headroom a lossless class needs on port i of switch n, whose block
// is c, term by term: the link's rate and delay, the largest frame, the response time of the
// sender upstream (a NIC takes the global PFC block's, a switch its own), the switch's own
// forwarding latency, and the jitter of a host upstream.
func (f *fabric) headroomNeed(n *topology.Node, i int, c *scenarios.SwitchConfig, frame int64) pfc.HeadroomTerms {
	port := n.Ports[i]
	l := f.nw.Links[port.Link].Params
	peer := &f.nw.Nodes[port.Peer]
	link := pfc.HeadroomLink{Rate: l.Rate, Delay: l.Delay, MaxFrameWire: frame, Latency: c.Latency,
		Classes: len(c.PFC.Priorities)}
	if peer.Type == topology.Switch {
		link.Response = responseTime(&f.switchConfigOf(peer).PFC, l.Rate)
	} else {
		link.Response = responseTime(&f.sc.Switch.PFC, l.Rate)
		// The wire caps a host's jitter at one minimum frame time (topology.Wire.SetJitter).
		link.Jitter = min(f.hostConfigOf(peer).Jitter, l.Rate.TxTime(topology.MinFrame+topology.WireOverhead))
	}
	return pfc.Headroom(link)
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
	short, worst := 0, -1 // ports whose configured headroom is below the need
	var worstNeed pfc.HeadroomTerms
	for i, port := range n.Ports {
		l := f.nw.Links[port.Link].Params
		need := f.headroomNeed(n, i, c, frame)
		cfg.Response = append(cfg.Response, responseTime(p, l.Rate))
		h := need.Total()
		if !p.Headroom.Auto {
			h = p.Headroom.Bytes
			if h < need.Total() {
				short++
				if need.Total() > worstNeed.Total() {
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
		f.warnf("%s: headroom %dB is below the need on %d of its %d ports (port %d to %s, %v, %v delay, needs %v): expect headroom drops",
			n.Name, p.Headroom.Bytes, short, len(n.Ports), worst+1, f.nw.Nodes[port.Peer].Name, l.Rate, l.Delay, worstNeed)
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
