package experiment

import (
	"fmt"

	"github.com/fabricsim/fabricsim/pfc"
	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/switchmodel"
	"github.com/fabricsim/fabricsim/topology"
)

// maxFrameWire is the largest frame the scenario's traffic puts on the wire, preamble and
// IFG included (scenarios.Scenario.MaxFrameWire).
func (f *fabric) maxFrameWire() int64 { return f.sc.MaxFrameWire() }

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
	if n.Role != topology.RoleFabric {
		if f.lossless == nil {
			f.lossless = losslessConfig(&f.sc.Switch)
		}
		return f.lossless
	}
	return &f.sc.Switch
}

// losslessConfig is the config of a scale-up switch or of a NIC behind a PCIe hop, made from
// the switch block c: every class lossless, as NVLink's and PCIe's credit-based flow control
// lose nothing (modelled as PFC on all eight classes, sized auto, with no watchdog; pfcConfig
// adds the headroom to the buffer), no ECN marking, no trimming, ECMP, no forwarding latency
// (the links' delays hold it); the buffer is c's.
func losslessConfig(c *scenarios.SwitchConfig) *scenarios.SwitchConfig {
	l := *c
	l.PFC.Enabled, l.PFC.Watchdog = true, 0
	l.PFC.Priorities = []int{0, 1, 2, 3, 4, 5, 6, 7}
	auto := scenarios.SizeOrAuto{Auto: true}
	l.PFC.Xoff, l.PFC.Xon, l.PFC.Headroom, l.PFC.XonOffset = scenarios.XoffSize{SizeOrAuto: auto}, auto, auto, auto
	l.ECN.Enabled, l.Trimming.Enabled = false, false
	l.LoadBalancing, l.Latency = "ecmp", 0
	return &l
}

// hostConfigOf is the host block that applies to host n: its own, or the global one.
func (f *fabric) hostConfigOf(n *topology.Node) scenarios.HostConfig {
	if nc := f.nodeCfg[n.Name]; nc != nil && nc.Hosts != nil {
		return *nc.Hosts
	}
	return f.sc.Hosts
}

// sizingPort is port i of switch n as PFC sizing sees it: its link, and the response time
// and jitter of the sender upstream (a NIC takes the global PFC block's response time, a
// switch its own; a host's jitter is capped by the wire).
func (f *fabric) sizingPort(n *topology.Node, i int) pfc.SizingPort {
	port := n.Ports[i]
	l := f.nw.Links[port.Link].Params
	peer := &f.nw.Nodes[port.Peer]
	sp := pfc.SizingPort{Peer: peer.Name, Rate: l.Rate, Delay: l.Delay}
	if peer.Type == topology.Switch {
		sp.Response = responseTime(&f.switchConfigOf(peer).PFC, l.Rate)
	} else {
		sp.Response = responseTime(&f.sc.Switch.PFC, l.Rate)
		// The wire caps a host's jitter at one minimum frame time (topology.Wire.SetJitter).
		sp.Jitter = min(f.hostConfigOf(peer).Jitter, l.Rate.TxTime(topology.MinFrame+topology.WireOverhead))
	}
	return sp
}

// sizeOrAuto is a configured size for pfc.Size.
func sizeOrAuto(s scenarios.SizeOrAuto) int64 {
	if s.Auto {
		return pfc.Auto
	}
	return s.Bytes
}

// pfcConfig is the PFC configuration of switch n, whose block is c: its lossless classes,
// its response time per port, and the thresholds pfc.Size works out from what this
// gathers; the warnings of the sizing go to the run's warnings.
func (f *fabric) pfcConfig(n *topology.Node, c *scenarios.SwitchConfig) switchmodel.PFCConfig {
	p := &c.PFC
	if !p.Enabled {
		return switchmodel.PFCConfig{}
	}
	cfg := switchmodel.PFCConfig{Quanta: uint16(p.Quanta), Watchdog: p.Watchdog, MaxFrameWire: f.maxFrameWire()}
	for _, prio := range p.Priorities {
		cfg.Lossless[prio] = true
	}
	in := pfc.Sizing{Switch: n.Name, Buffer: c.Buffer, Classes: len(p.Priorities), MaxFrameWire: f.maxFrameWire(),
		Latency: c.Latency, Xoff: sizeOrAuto(p.Xoff.SizeOrAuto), Xon: sizeOrAuto(p.Xon), Headroom: sizeOrAuto(p.Headroom),
		Dynamic: p.Xoff.Dynamic, Alpha: p.Alpha, XonOffset: sizeOrAuto(p.XonOffset)}
	for i, port := range n.Ports {
		in.Ports = append(in.Ports, f.sizingPort(n, i))
		cfg.Response = append(cfg.Response, responseTime(p, f.nw.Links[port.Link].Params.Rate))
	}
	if n.Role != topology.RoleFabric {
		// Credit-based flow control (NVLink's, PCIe's) loses nothing and needs no headroom:
		// PFC emulates it here, so the headroom of every port-class comes on top of the
		// buffer, and XOFF shares the switch block's buffer as on a fabric switch.
		for i := range in.Ports {
			in.Buffer += in.Need(i).Total() * int64(in.Classes)
		}
	}
	thresholds, warnings := pfc.Size(in)
	cfg.Ports = thresholds
	if in.Dynamic {
		cfg.Dynamic, cfg.Alpha, cfg.Shared, cfg.XonOffset = true, p.Alpha, in.Shared(thresholds), in.Offset()
	}
	for _, w := range warnings {
		f.warnings = append(f.warnings, w.Text)
	}
	return cfg
}

func (f *fabric) warnf(format string, args ...any) {
	f.warnings = append(f.warnings, fmt.Sprintf(format, args...))
}
