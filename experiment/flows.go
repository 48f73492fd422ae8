package experiment

import (
	"fmt"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports"
)

// roceConfig is the queue-pair configuration of a RoCE transport ("rocev1" or "rocev2").
func (f *fabric) roceConfig(transport string) transports.RoCEConfig {
	cfg, version := f.sc.Transports.RoCEv2, 2
	if transport == "rocev1" {
		cfg, version = f.sc.Transports.RoCEv1, 1
	}
	rc := transports.RoCEConfig{Version: version, GoBack0: cfg.Recovery == "go-back-0", MTU: cfg.MTU,
		RetransmitTimeout: cfg.RetransmitTimeout, RetryLimit: cfg.RetryLimit, AckInterval: cfg.AckInterval,
		CNPPriority: uint8(f.sc.Hosts.CNPPriority)}
	if cfg.CC == "dcqcn" {
		p := cfg.DCQCN
		rc.DCQCN = &p
	}
	return rc
}

// addFlows registers every flow, decides which can be routed, computes each one's ideal FCT
// and schedules the starts.
func (f *fabric) addFlows() error {
	flows, err := f.expandTraffic()
	if err != nil {
		return err
	}
	configs := map[string]transports.RoCEConfig{"rocev1": f.roceConfig("rocev1"), "rocev2": f.roceConfig("rocev2")}
	warnedCC := false
	loops := 0
	for _, fl := range flows {
		i := f.reg.Add(fl)
		rc, ok := configs[fl.Transport]
		if !ok {
			return fmt.Errorf("flow %d: transport %q is not supported yet", fl.ID, fl.Transport)
		}
		if rc.DCQCN != nil && !warnedCC && !f.ecnAnywhere() {
			warnedCC = true
			f.warnf("transports.rocev2.cc is dcqcn but no switch marks ECN (switch.ecn.enabled: false): DCQCN will never slow a flow")
		}
		src, dst := f.nics[fl.Src], f.nics[fl.Dst]
		s, d := &f.nw.Nodes[fl.Src], &f.nw.Nodes[fl.Dst]
		cross := !s.Subnet.Contains(d.IP) || s.Subnet != d.Subnet
		f.reg.StartRoCE(i, src, dst, cross, rc)
		if rc.Version == 1 && cross {
			f.reg.MarkUnroutable(i, f.roceV1Unroutable(fl))
			f.ideal = append(f.ideal, 0)
			continue
		}
		hops, loop, err := f.routes.Path(fl.Src, fl.Dst, f.reg.Hash(i), 4*len(f.nw.Nodes)+256)
		switch {
		case err != nil:
			f.reg.MarkUnroutable(i, err.Error())
			f.ideal = append(f.ideal, 0)
			continue
		case loop:
			loops++
			f.ideal = append(f.ideal, 0)
			continue
		}
		f.ideal = append(f.ideal, f.idealFCT(fl, hops, rc))
	}
	if loops > 0 {
		f.warnings = append(f.warnings, fmt.Sprintf("%d flow(s) follow a routing loop; their packets end when the IP TTL runs out", loops))
	}
	return nil
}

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

// idealFCT is the flow's completion time alone on the empty fabric, along its path: each
// packet is serialized at every hop after it has fully arrived (store and forward), behind
// the previous packet, then propagates; the source is paced at the flow's rate if it has one.
// The recurrence leave_i(k) = max(arrive_i(k), leave_i(k-1)) + tx_i(k) is exact for this
// model. Middle packets are all alike, so once one of them advances every hop by the same
// period, every later one does too (by induction on the recurrence): the run of middle
// packets is then skipped in one step, which makes the cost independent of the flow size.
func (f *fabric) idealFCT(fl *transports.Flow, hops []topology.Hop, rc transports.RoCEConfig) sim.Time {
	mtu := rc.MTU
	type hop struct {
		rate    sim.Rate
		delay   sim.Time
		latency sim.Time // forwarding latency of the node the hop leaves from
	}
	hs := make([]hop, len(hops))
	for i, h := range hops {
		l := f.nw.Links[f.nw.Nodes[h.Node].Ports[h.Port].Link]
		hs[i] = hop{rate: l.Params.Rate, delay: l.Params.Delay}
		if i > 0 {
			hs[i].latency = f.switchLatency(h.Node)
		}
	}
	npkts := (fl.Size + int64(mtu) - 1) / int64(mtu)
	if npkts == 0 {
		npkts = 1
	}
	leave := make([]sim.Time, len(hs))
	prev := make([]sim.Time, len(hs))
	var paced, arrive sim.Time
	step := func(wire int64) {
		copy(prev, leave)
		t := max(paced, leave[0])
		for i := range hs {
			if i > 0 {
				t = max(arrive+hs[i].latency, leave[i])
			}
			leave[i] = t + hs[i].rate.TxTime(wire)
			arrive = leave[i] + hs[i].delay
		}
		if fl.Rate > 0 {
			paced = leave[0] - hs[0].rate.TxTime(wire) + fl.Rate.TxTime(wire)
		}
	}
	middle := roceWireBytes(rc.Version, int64(mtu), false)
	for k := int64(0); k < npkts; k++ {
		switch {
		case k == 0:
			step(roceWireBytes(rc.Version, min(int64(mtu), fl.Size), true))
		case k == npkts-1:
			step(roceWireBytes(rc.Version, fl.Size-k*int64(mtu), false))
		default:
			step(middle)
			if period, steady := uniformAdvance(prev, leave); steady && k < npkts-2 {
				skip := sim.Time(npkts - 2 - k) // middle packets left, each one period later
				for i := range leave {
					leave[i] += skip * period
				}
				arrive += skip * period
				paced += skip * period
				k = npkts - 2
			}
		}
	}
	return arrive
}

// uniformAdvance reports whether every hop moved on by the same time from prev to cur.
func uniformAdvance(prev, cur []sim.Time) (sim.Time, bool) {
	d := cur[0] - prev[0]
	for i := range cur {
		if cur[i]-prev[i] != d {
			return 0, false
		}
	}
	return d, true
}

func (f *fabric) switchLatency(n topology.NodeID) sim.Time {
	for _, sw := range f.switches {
		if sw.ID == n {
			return sw.Latency()
		}
	}
	return 0
}

// roceWireBytes is the wire size of a RoCE WRITE packet with this payload, built the way the
// requester builds it: first packets carry a RETH; RoCE v1 has a GRH and an 802.1Q tag where
// RoCE v2 has IPv4 and UDP.
func roceWireBytes(version int, payload int64, first bool) int64 {
	p := topology.Packet{EtherType: topology.EtherTypeIPv4, Protocol: topology.IPProtoUDP,
		DstPort: topology.UDPPortRoCEv2, HasRETH: first, Payload: int32(payload)}
	if version == 1 {
		p = topology.Packet{EtherType: topology.EtherTypeRoCEv1, Tagged: true, HasRETH: first, Payload: int32(payload)}
	}
	p.Seal()
	return p.WireBytes()
}

// roceV2WireBytes is roceWireBytes for RoCE v2.
func roceV2WireBytes(payload int64, first bool) int64 { return roceWireBytes(2, payload, first) }
