package experiment

import (
	"fmt"

	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/switchmodel"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports"
)

// roceConfig is the queue-pair configuration of a RoCE transport ("rocev1" or "rocev2").
func (f *fabric) roceConfig(transport string) transports.RoCEConfig {
	cfg, version := f.sc.Transports.RoCEv2, 2
	if transport == "rocev1" {
		cfg, version = f.sc.Transports.RoCEv1, 1
	}
	rc := transports.RoCEConfig{Version: version, GoBack0: cfg.Recovery == "go-back-0",
		CNPPriority: uint8(f.sc.Hosts.CNPPriority)}
	switch cfg.UDPSport {
	case "qpn":
		rc.SourcePort = transports.SourcePortQPN
	case "per_packet":
		rc.SourcePort = transports.SourcePortPerPacket
	}
	_ = copySettings(&rc, cfg) // cannot fail: build checks settingsReachModels first
	if cfg.Recovery == "irn" {
		rc.IRN = &transports.IRNParams{}
		_ = copySettings(rc.IRN, cfg.IRN) // cannot fail, as above
		if c := cfg.IRN.BDPCap; !c.Auto {
			rc.IRN.BDPCapBytes = c.Bytes
		}
	}
	if model, ok := makeCC(roceCCs, &cfg, cfg.CC); ok {
		rc.CC = model
	}
	return rc
}

// makeCC is the congestion control a scenario's cc value names, made by its entry in ccs
// from the transport's block, and false for a value without one (RoCE's none).
func makeCC[B, M any](ccs map[string]func(*B) (M, any), block *B, name string) (M, bool) {
	scheme, ok := ccs[name]
	if !ok {
		var none M
		return none, false
	}
	model, settings := scheme(block)
	if settings != nil {
		_ = copySettings(model, settings) // cannot fail: build checks settingsReachModels first
	}
	return model, true
}

// roceCCs makes the parameters of each RoCE congestion control a scenario names (cc; none
// has none) from its block: the model with what the block does not copy set, and the block
// whose tagged fields copySettings copies into it (nil: none). settingsReachModels checks
// every pair. A new congestion control is one entry here.
var roceCCs = map[string]func(c *scenarios.RoCEConfig) (model transports.RoCECC, settings any){
	"dcqcn": func(c *scenarios.RoCEConfig) (transports.RoCECC, any) {
		p := transports.DCQCNParams(c.DCQCN)
		return &p, nil
	},
	"hpcc": func(c *scenarios.RoCEConfig) (transports.RoCECC, any) { return &transports.HPCCParams{}, c.HPCC },
	"timely": func(c *scenarios.RoCEConfig) (transports.RoCECC, any) {
		p := &transports.TIMELYParams{}
		if c.TIMELY.Rule == "hpcc_ns3" {
			p.Rule = transports.TIMELYHPCCNS3
		}
		return p, c.TIMELY
	},
	"swift": func(c *scenarios.RoCEConfig) (transports.RoCECC, any) { return &transports.SwiftParams{}, c.Swift },
	"dctcp": func(c *scenarios.RoCEConfig) (transports.RoCECC, any) { return &transports.DCTCPParams{}, c.DCTCP },
	"nscc":  func(c *scenarios.RoCEConfig) (transports.RoCECC, any) { return &transports.NSCCParams{}, c.NSCC },
}

// iwarpConfig is the connection configuration of the iwarp transport.
func (f *fabric) iwarpConfig() transports.IWARPConfig {
	c := f.sc.Transports.IWARP
	var ic transports.IWARPConfig
	_ = copySettings(&ic, c) // cannot fail: build checks settingsReachModels first
	if c.TCPSport == "index" {
		ic.SourcePort = transports.SourcePortQPN
	}
	switch c.ECN {
	case "classic":
		ic.ECN = transports.ECNClassic
	case "dctcp":
		ic.ECN = transports.ECNDCTCP
	}
	if model, ok := makeCC(iwarpCCs, &c, c.CC); ok {
		ic.CC = model
	}
	return ic
}

// iwarpCCs makes the parameters of each TCP congestion control a scenario names
// (transports.iwarp.cc) from its block, as roceCCs does RoCE's. A new congestion control is
// one entry here.
var iwarpCCs = map[string]func(c *scenarios.IWARPConfig) (model transports.TCPCC, settings any){
	"newreno": func(*scenarios.IWARPConfig) (transports.TCPCC, any) { return &transports.NewReno{}, nil },
}

// uetConfig is the configuration of the uet transport's flows.
func (f *fabric) uetConfig() transports.UETConfig {
	c := f.sc.Transports.UET
	uc := transports.UETConfig{Trimming: f.sc.Switch.Trimming.Enabled, QueueBytes: f.deepestQueue()}
	_ = copySettings(&uc, c) // cannot fail: build checks settingsReachModels first
	if c.Entropy == "oblivious" {
		uc.Entropy = transports.EntropyOblivious
	}
	if model, ok := makeCC(uetCCs, &c, c.CC); ok {
		uc.CC = model
	}
	return uc
}

// uetCCs makes the parameters of each UET congestion control a scenario names (cc) from its
// block, as roceCCs does RoCE's. A new congestion control is one entry here.
var uetCCs = map[string]func(c *scenarios.UETConfig) (model transports.UETCC, settings any){
	"nscc": func(*scenarios.UETConfig) (transports.UETCC, any) { return &transports.UETNSCC{}, nil },
	"rccc": func(*scenarios.UETConfig) (transports.UETCC, any) { return &transports.RCCC{}, nil },
	"nscc+rccc": func(*scenarios.UETConfig) (transports.UETCC, any) {
		return &transports.RCCC{Window: &transports.UETNSCC{}}, nil
	},
	"swift": func(c *scenarios.UETConfig) (transports.UETCC, any) { return &transports.SwiftParams{}, c.Swift },
}

// deepestQueue is the deepest queue a switch port may hold, bytes: the trimming threshold
// when switch.trimming sets one, else the dynamic threshold's limit for one queue alone,
// alpha / (1 + alpha) of the buffer (Choudhury and Hahne). uet-htsim's RTO rule counts six of
// its drain times at the sender's line rate (transports.UETDefaultRTO); its queues are one BDP
// with trimming and five without, fabricsim's switches share a buffer.
func (f *fabric) deepestQueue() int64 {
	sw := f.sc.Switch
	q := int64(float64(sw.Buffer) * sw.BufferAlpha / (1 + sw.BufferAlpha))
	if t := sw.Trimming; t.Enabled && !t.Threshold.Auto {
		q = min(q, t.Threshold.Bytes)
	}
	return q
}

// addFlows registers every flow, decides which can be routed, computes each one's ideal FCT
// and schedules the starts; a collective's messages that wait for others are registered
// only, and started when their collective releases them (startFlow, collective.go).
func (f *fabric) addFlows() error {
	flows, err := f.expandTraffic()
	if err != nil {
		return err
	}
	f.starter = flowStarter{configs: map[string]transports.RoCEConfig{"rocev1": f.roceConfig("rocev1"), "rocev2": f.roceConfig("rocev2")},
		ic: f.iwarpConfig(), uc: f.uetConfig()}
	f.ideal = make([]sim.Time, len(flows))
	for _, fl := range flows {
		f.reg.Add(fl)
	}
	for i := range flows {
		if err := f.startFlow(int32(i)); err != nil {
			return err
		}
	}
	f.setUETPaths()
	f.warnShortTimeouts()
	if f.starter.loops > 0 {
		f.warnings = append(f.warnings, fmt.Sprintf("%d flow(s) follow a routing loop; their packets end when the IP TTL runs out", f.starter.loops))
		f.starter.loops = 0
	}
	if len(f.jobs.Jobs()) > 0 {
		f.reg.OnMessage = f.jobs.Delivered
		f.jobs.Start()
	}
	return nil
}

// flowStarter is what starting flows keeps: the transports' configurations, the warnings
// given once, and the flows found to follow a routing loop.
type flowStarter struct {
	configs             map[string]transports.RoCEConfig
	ic                  transports.IWARPConfig
	uc                  transports.UETConfig
	warnedCC, warnedECN bool
	loops               int
	// uets are the UET flows started before the first event, with their paths: NSCC scales
	// by the longest unloaded RTT among them (setUETPaths); uetNetwork is that longest once
	// known, for the UET flows a collective starts later.
	uets       []uetFlow
	uetNetwork sim.Time
	uetsSet    bool
}

// uetFlow is a UET flow and its path.
type uetFlow struct {
	i    int32
	path transports.Path
}

// setUETPaths gives the UET flows started so far their paths, with the network's longest
// unloaded RTT: NSCC scales by it (uet-htsim main_uec.cpp's network_max_unloaded_rtt), here
// the longest among the UET flows' paths.
func (f *fabric) setUETPaths() {
	st := &f.starter
	for _, u := range st.uets {
		st.uetNetwork = max(st.uetNetwork, st.uc.RTT(u.path))
	}
	for _, u := range st.uets {
		f.setUETPath(u)
	}
	st.uets, st.uetsSet = nil, true
}

func (f *fabric) setUETPath(u uetFlow) {
	u.path.NetworkRTT = f.starter.uetNetwork
	f.reg.SetPath(u.i, u.path)
}

// startFlow sets up flow i's endpoints, which start it at its Start, decides whether it can
// be routed and computes its ideal FCT.
func (f *fabric) startFlow(i int32) error {
	fl := f.reg.Flows[i]
	st := &f.starter
	ic := st.ic
	src, dst := f.nicFor(fl.Src, fl.Dst, i), f.nicFor(fl.Dst, fl.Src, i)
	s, d := &f.nw.Nodes[fl.Src], &f.nw.Nodes[fl.Dst]
	cross := !s.Subnet.Contains(d.IP) || s.Subnet != d.Subnet
	iwarp, uet := fl.Transport == "iwarp", fl.Transport == "uet"
	var rc transports.RoCEConfig
	if uet {
		// UET runs over UDP/IP: it crosses routers like RoCE v2.
		if err := f.reg.StartUET(i, src, dst, cross, st.uc); err != nil {
			return nil // it ended failed, its reason says why
		}
	} else if iwarp {
		if ic.ECN != transports.ECNOff && !st.warnedECN && !f.ecnAnywhere() {
			st.warnedECN = true
			f.warnf("transports.iwarp.ecn is %s but no switch marks ECN (switch.ecn.enabled: false): only losses will slow iWARP flows", f.sc.Transports.IWARP.ECN)
		}
		// iWARP is TCP/IP: it crosses routers like RoCE v2.
		if err := f.reg.StartIWARP(i, src, dst, cross, ic); err != nil {
			return nil // it ended failed, its reason says why
		}
	} else {
		var ok bool
		rc, ok = st.configs[fl.Transport]
		if !ok {
			return fmt.Errorf("flow %d: transport %q is not supported yet", fl.ID, fl.Transport)
		}
		if _, dcqcn := rc.CC.(*transports.DCQCNParams); dcqcn && !st.warnedCC && !f.ecnAnywhere() {
			st.warnedCC = true
			f.warnf("transports.rocev2.cc is dcqcn but no switch marks ECN (switch.ecn.enabled: false): DCQCN will never slow a flow")
		}
		if err := f.reg.StartRoCE(i, src, dst, cross, rc); err != nil {
			return nil // it ended failed, its reason says why
		}
		if rc.Version == 1 && cross {
			f.reg.MarkUnroutable(i, f.roceV1Unroutable(fl))
			return nil
		}
	}
	hops, loop, err := f.routes.PathPXN(fl.Src, fl.Dst, f.reg.Hash(i), f.pathLimit(), f.pxnOf(i))
	switch {
	case err != nil:
		f.reg.MarkUnroutable(i, err.Error())
		return nil
	case loop:
		st.loops++
		return nil
	}
	path := f.path(fl, i, hops)
	switch {
	case uet:
		f.ideal[i] = st.uc.IdealFCT(path, fl.Size, fl.Rate)
		u := uetFlow{i, path} // its RTTs, its RTO, what its congestion control reads
		if st.uetsSet {
			f.setUETPath(u) // a collective's message, started after the others
		} else {
			st.uets = append(st.uets, u)
		}
	case iwarp:
		f.ideal[i] = ic.IdealFCT(path, fl.Size, fl.Rate)
	default:
		f.ideal[i] = rc.IdealFCT(path, fl.Size, fl.Rate)
		f.reg.SetPath(i, path) // IRN's BDP cap, HPCC's base RTT, Swift's hops
	}
	return nil
}

// pathLimit bounds a path walk: longer means a routing loop.
func (f *fabric) pathLimit() int { return 4*len(f.nw.Nodes) + 256 }

// roceV1Unroutable says why a RoCE v1 flow between subnets cannot run: it would need a router,
// and RoCE v1 frames carry no IP header for a router to route by.
func (f *fabric) roceV1Unroutable(fl *transports.Flow) string {
	s, d := &f.nw.Nodes[fl.Src], &f.nw.Nodes[fl.Dst]
	ipHash := topology.FlowHash(s.IP, d.IP, topology.IPProtoUDP, 0, topology.UDPPortRoCEv2)
	where := "a layer-3 switch"
	if r := f.routes.FirstRouter(fl.Src, fl.Dst, ipHash); r >= 0 {
		where = "layer-3 switch " + f.nw.Nodes[r].Name
	}
	return fmt.Sprintf("RoCE v1 cannot cross a router: %s (%v) and %s (%v) are in different subnets, joined only through %s, and RoCE v1 frames (EtherType 0x8915) carry no IP header to route by",
		s.Name, s.Subnet, d.Name, d.Subnet, where)
}

// path is flow i's path description for its transport: hops, the route out, as
// transports.PathHop, and the route of its acknowledgements back, when known.
func (f *fabric) path(fl *transports.Flow, i int32, hops []topology.Hop) transports.Path {
	p := transports.Path{Fwd: f.pathHops(hops)}
	ackHash, _ := f.reg.AckHash(i)
	if back, loop, err := f.routes.PathPXN(fl.Dst, fl.Src, ackHash, f.pathLimit(), f.pxnOf(i)); err == nil && !loop {
		p.Back = f.pathHops(back)
	}
	return p
}

// pathHops is a route's hops as the transports' ideal times see them (transports.PathHop).
func (f *fabric) pathHops(hops []topology.Hop) []transports.PathHop {
	hs := make([]transports.PathHop, len(hops))
	for i, h := range hops {
		l := f.nw.Links[f.nw.Nodes[h.Node].Ports[h.Port].Link]
		hs[i] = transports.PathHop{Rate: l.Params.Rate, Delay: l.Params.Delay}
		if i > 0 {
			hs[i].Latency = f.switchLatency(h.Node)
		}
	}
	return hs
}

func (f *fabric) switchLatency(n topology.NodeID) sim.Time {
	if sw := f.switchByID(n); sw != nil {
		return sw.Latency()
	}
	return 0
}

// switchByID is the switch of node n, or nil when n is a host.
func (f *fabric) switchByID(n topology.NodeID) *switchmodel.Switch {
	for _, sw := range f.switches {
		if sw.ID == n {
			return sw
		}
	}
	return nil
}
