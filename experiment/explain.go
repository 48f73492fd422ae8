package experiment

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fabricsim/fabricsim/ecn"
	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// Explain says in plain words what a scenario file will simulate: the fabric, the traffic,
// the variants and what to look for (the file's description).
func Explain(file *scenarios.File) (string, error) {
	var b strings.Builder
	first := file.Scenario(0)
	fmt.Fprintf(&b, "Scenario %s (seed %d, simulated time up to %v)\n", first.Name, first.Seed, first.Stop)
	if d := strings.TrimSpace(first.Description); d != "" {
		fmt.Fprintf(&b, "\n%s\n", indent(d))
	}
	infos := file.Variants()
	for i, info := range infos {
		sc := file.Scenario(i)
		f, err := build(sc)
		if err != nil {
			return "", fmt.Errorf("variant %q: %w", info.Name, err)
		}
		if len(infos) > 1 {
			fmt.Fprintf(&b, "\nVariant %q", info.Name)
			if info.Transport != "" {
				fmt.Fprintf(&b, " (transport %s)", info.Transport)
			}
			b.WriteString(":\n")
		} else {
			b.WriteString("\n")
		}
		f.describe(&b)
	}
	return b.String(), nil
}

func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }

func (f *fabric) describe(b *strings.Builder) {
	nw, sc := f.nw, f.sc
	hosts, routers, bridges := 0, 0, 0
	for i := range nw.Nodes {
		switch n := &nw.Nodes[i]; {
		case n.Type == topology.Host:
			hosts++
		case n.Router():
			routers++
		default:
			bridges++
		}
	}
	kind := sc.Topology.Preset
	if kind == "" {
		kind = "explicit"
	}
	fmt.Fprintf(b, "  Fabric: %s topology, %d hosts, %d layer-2 and %d layer-3 switches, %d links.\n",
		kind, hosts, bridges, routers, len(nw.Links))
	if p := sc.Topology.Params; sc.Topology.Preset == "rail" {
		servers := p.Stripes * p.ServersPerStripe
		fmt.Fprintf(b, "  AI cluster: %d servers of %d GPUs in %d stripe(s), each GPU with its own NIC on its rail (%d rails), %d plane(s).\n",
			servers, p.GPUsPerServer, p.Stripes, p.GPUsPerServer, p.Planes)
		down := float64(p.ServersPerStripe) * float64(p.NICLink.Rate)
		up := float64(p.Spines) * float64(p.FabricLink.Rate)
		fmt.Fprintf(b, "  A rail leaf has %d x %v down and %d x %v up: oversubscription %.3g:1 for traffic between stripes or rails.\n",
			p.ServersPerStripe, p.NICLink.Rate, p.Spines, p.FabricLink.Rate, down/up)
		if p.ScaleUp != nil {
			fmt.Fprintf(b, "  Scale-up: %d domain(s) of %d server(s), each GPU linked to its scale-up switch at %v, %v (lossless on every class); PXN %s.\n",
				servers/p.ServersPerScaleup, p.ServersPerScaleup, p.ScaleUp.Rate, p.ScaleUp.Delay, onOff(sc.Hosts.PXN))
		} else {
			fmt.Fprintf(b, "  Scale-up: none (PCIe-only servers): GPUs meet over the fabric only.\n")
		}
	}
	if sc.Topology.Params.Planes > 1 {
		fmt.Fprintf(b, "  Planes: %d; a host spreads over them by %s (hosts.plane_spread).\n", sc.Topology.Params.Planes, sc.Hosts.PlaneSpread)
	}
	fmt.Fprintf(b, "  Switches: %s shared buffer (dynamic threshold alpha %g), %s scheduling, PFC %s, ECN %s.\n",
		bytesText(sc.Switch.Buffer), sc.Switch.BufferAlpha, sc.Switch.Scheduler, onOff(sc.Switch.PFC.Enabled), onOff(sc.Switch.ECN.Enabled))
	var total int64
	unroutable, qps := 0, 0
	for _, fl := range f.reg.Flows {
		total += fl.Size
		if fl.Persistent {
			qps++
		}
		if fl.Status.String() == "unroutable" {
			unroutable++
		}
	}
	if qps == 0 {
		fmt.Fprintf(b, "  Traffic: %d flows carrying %s in all.\n", len(f.reg.Flows), bytesText(total))
	} else {
		fmt.Fprintf(b, "  Traffic: %d flows carrying %s in all, and %d queue pairs that carry the collectives' messages.\n",
			len(f.reg.Flows)-qps, bytesText(total), qps)
	}
	if unroutable > 0 {
		fmt.Fprintf(b, "  %d flows cannot be routed and will be reported as unroutable.\n", unroutable)
	}
	for _, j := range f.jobs.Jobs() {
		c := j.Collective()
		if c.Steps != nil {
			r := j.Result(0)
			fmt.Fprintf(b, "  Job %s: %d collectives read from %d Chakra traces (%s first) over %d hosts, %d channel(s), one after another, each rank sending once its compute before it has passed; ideal %.2f us for the whole job. Look at the jobs table and jobs.csv: each collective's time against its ideal.\n",
				c.Label, len(c.Steps), len(c.Traces), c.Traces[0], len(j.Ranks()), c.Channels, *r.JobIdealUS)
			continue
		}
		size := bytesText(c.Size) + " per rank"
		if c.Chunk > 0 {
			size += " in chunks of " + bytesText(c.Chunk)
		}
		fmt.Fprintf(b, "  Job %s: %s %s of %s over %d hosts, %d iteration(s) %v apart, %d channel(s): %d messages in %d steps an iteration, each sent once the messages bringing its data have arrived, as work requests on a queue pair per channel and pair of ranks kept for the job's life; ideal %.2f us an iteration. Look at the jobs table: time against ideal, busbw, the slowest step.\n",
			c.Label, c.Algorithm, c.Op, size, len(j.Ranks()), c.Iterations, c.Compute, c.Channels, j.M(0), j.Plan(0).Steps, j.Result(0).IdealUS)
	}
	if p := &sc.Switch.PFC; p.Enabled {
		xon := p.Xon.String()
		if p.Xoff.Dynamic {
			xon = fmt.Sprintf("%v below it (xon_offset)", p.XonOffset)
			if p.XonOffset.Auto {
				xon = "two largest frames below it (xon_offset auto)"
			}
			fmt.Fprintf(b, "  PFC dynamic XOFF: a port-class pauses its sender when it holds more than %g x the free shared buffer (the buffer less every port-class's headroom and the frames held outside headroom), and resumes once at or below that less the XON offset.\n", p.Alpha)
		}
		fmt.Fprintf(b, "  PFC: lossless classes %v; XOFF %v, XON %v, headroom %v, response time %v; deadlock detection %v, watchdog %v.\n",
			p.Priorities, p.Xoff, xon, p.Headroom, p.ResponseTime, offIfZero(p.DeadlockDetection), offIfZero(p.Watchdog))
		for _, sw := range f.switches {
			if len(sw.Ports) > 0 && len(p.Priorities) > 0 {
				in := sw.Ports[0].Ingress[p.Priorities[0]]
				empty := ""
				if p.Xoff.Dynamic {
					empty = " with the buffer empty"
				}
				fmt.Fprintf(b, "    e.g. %s port 1: XOFF %dB, XON %dB%s, headroom %dB.\n", sw.Name, in.Xoff, in.Xon, empty, in.Headroom)
				break
			}
		}
	}
	if e := &sc.Switch.ECN; e.Enabled {
		fmt.Fprintf(b, "  ECN: marking from Kmin %dB to Kmax %dB, Pmax %g.\n", e.Kmin, e.Kmax, e.Pmax)
	}
	used := map[string]bool{}
	for _, fl := range f.reg.Flows {
		used[fl.Transport] = true
	}
	for _, t := range []struct {
		name string
		cfg  scenarios.RoCEConfig
	}{{"rocev2", sc.Transports.RoCEv2}, {"rocev1", sc.Transports.RoCEv1}} {
		if !used[t.name] {
			continue
		}
		r := t.cfg
		cc := r.CC
		if cc == "dcqcn" {
			cc = "DCQCN (" + r.DCQCNMode + " parameters; " + npRule(r.DCQCN) + ")"
		}
		if cc == "timely" {
			tm := r.TIMELY
			delta := "10Mbps per 10Gbps of line rate"
			if tm.Delta > 0 {
				delta = tm.Delta.String()
			}
			cc = fmt.Sprintf("TIMELY (RTT of one packet per round trip: below T_low %v add delta %s, above T_high %v cut by beta %v x (1 - T_high/RTT), between follow the RTT gradient over minRTT %v with EWMA alpha %v; %d x delta after %d falling RTTs; floor %v)",
				tm.TLow, delta, tm.THigh, tm.Beta, tm.MinRTT, tm.Alpha, tm.N, tm.HAIThreshold, tm.MinRate)
			if tm.Rule == "hpcc_ns3" {
				cc = fmt.Sprintf("TIMELY, the HPCC authors' ns-3 rule (RTT of one packet per round trip, no update on the first: below T_low %v or on a falling gradient add delta %s, %d x delta after %d increases in a row; above T_high %v cut by beta %v x (1 - T_high/RTT), between by beta x the RTT gradient over minRTT %v with EWMA alpha %v; floor %v)",
					tm.TLow, delta, tm.N, tm.HAIThreshold, tm.THigh, tm.Beta, tm.MinRTT, tm.Alpha, tm.MinRate)
			}
		}
		if cc == "swift" {
			sw := r.Swift
			cc = fmt.Sprintf("Swift (a window of packets held to a target delay per ACK: target base %v + %v per switch on the route + up to %v of flow scaling as the window falls from %v to %v packets; below it add %v packet per RTT, above it cut by beta %v x (delay - target)/delay, at most %v, once per RTT; a loss cuts by %v, %d timeouts in a row drop the window to %v packets; below one packet, one packet every RTT/cwnd)",
				sw.BaseTarget, sw.H, sw.FSRange, sw.FSMaxCwnd, sw.FSMinCwnd, sw.AI, sw.Beta, sw.MaxMDF, sw.MaxMDF, sw.RetxResetThreshold, sw.MinCwnd)
		}
		if cc == "dctcp" {
			cc = fmt.Sprintf("DCTCP (a window of packets from %d, slow start then one packet per RTT; each ACK echoes the ECN marks of what it acknowledges, and an echo cuts the window by alpha/2 once per window, alpha the moving average, gain %v, of the echoed fraction; a NAK halves the flight, a timeout restarts from one packet)",
				r.DCTCP.InitCwnd, r.DCTCP.G)
		}
		if cc == "nscc" {
			target := "the flow's unloaded RTT"
			if r.NSCC.TargetQDelay > 0 {
				target = r.NSCC.TargetQDelay.String()
			}
			cc = fmt.Sprintf("NSCC, the Ultra Ethernet transport's window (bytes, from 1.5 BDP; each ACK's ECN echo and RTT sample against a target queueing delay of %s: grow below it, cut on an echo above it; quick adapt gate 2^%d; an ACK per packet)",
				target, r.NSCC.QAGate)
		}
		recovery := fmt.Sprintf("%s recovery, retransmit timeout %v", r.Recovery, r.RetransmitTimeout)
		if r.Recovery == "irn" {
			bdp := "the path's round trip"
			if !r.IRN.BDPCap.Auto {
				bdp = fmt.Sprintf("%dB", r.IRN.BDPCap.Bytes)
			}
			recovery = fmt.Sprintf("IRN recovery (selective repeat; at most %s of packets in flight; RTO_low %v below %d packets in flight, else RTO_high %v)",
				bdp, r.IRN.RTOLow, r.IRN.RTOLowPackets, r.IRN.RTOHigh)
		}
		fmt.Fprintf(b, "  %s: MTU %d, congestion control %s, %s, retry limit %d.\n",
			t.name, r.MTU, cc, recovery, r.RetryLimit)
	}
	if used["iwarp"] {
		w := sc.Transports.IWARP
		fmt.Fprintf(b, "  iwarp: IP MTU %d, TCP %s with SACK %v, ECN %s, initial window %d segments, RTO min %v, NIC delay %v per packet, MPA markers %v, timestamps %v.\n",
			w.MTU, w.CC, w.SACK, w.ECN, w.InitCwnd, w.MinRTO, w.NICDelay, w.Markers, w.Timestamps)
	}
	if used["uet"] {
		u := sc.Transports.UET
		rto := "15us + 6 x a full switch queue's drain time"
		if u.RTO > 0 {
			rto = u.RTO.String()
		}
		nscc := fmt.Sprintf("NSCC window (ECN marks and queueing delay; quick adapt gate 2^%d)", u.QAGate)
		const rccc = "RCCC credit (the receiving NIC grants each flow 4 MTUs of credit in turn at 0.99 of its line rate, after a speculative 1.5 BDP)"
		sw := u.Swift
		swift := fmt.Sprintf("Swift window (RTT samples against a %v base target + %v per hop, an ACK per packet)", sw.BaseTarget, sw.H)
		cc, described := map[string]string{"nscc": nscc, "rccc": rccc, "nscc+rccc": nscc + " and " + rccc, "swift": swift}[u.CC]
		if !described {
			cc = u.CC // a scheme not described here is named
		}
		var off string
		if !u.SLEEK {
			off += ", no SLEEK (a loss not trimmed waits for the RTO)"
		}
		if !u.ECNToHosts {
			off += ", no ECN marks on switch ports toward hosts"
		}
		fmt.Fprintf(b, "  uet: reliable unordered delivery over UDP port 4793, MTU %d, %s, %s entropy over %d values, an ACK per %d bytes, ACKs and NACKs in class %d, RTO %s%s.\n",
			u.MTU, cc, u.Entropy, u.Paths, u.AckBytes, u.AckPriority, rto, off)
	}
	if len(sc.Faults) > 0 {
		fmt.Fprintf(b, "  Faults: %d scheduled.\n", len(sc.Faults))
	}
	for _, w := range f.warnings {
		fmt.Fprintf(b, "  Note: %s.\n", w)
	}
}

// npRule says how the DCQCN notification point answers CE marks.
func npRule(p ecn.Params) string {
	per := "per flow"
	if p.PortPacing {
		per = "per NIC port (all the flows a host receives share one pacer)"
	}
	n := p.CNPInterval
	switch p.NP {
	case ecn.NPImmediateOnly:
		return fmt.Sprintf("notification point immediate-only: a CNP for a mark if none went out in the last %v, marks in between forgotten; CNPs paced %s", n, per)
	case ecn.NPWindow:
		return fmt.Sprintf("notification point window rule (the DCQCN authors' code): a timer started by the first packet ticks every %v, and each tick sends one CNP if a packet was marked since the last; CNPs paced %s", n, per)
	}
	return fmt.Sprintf("notification point SIGCOMM'15 rule: a CNP at once for a mark if none went out in the last %v, then one at the end of every %v window that saw a mark; CNPs paced %s", n, n, per)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// bytesText formats a byte count with a decimal unit, as scenario files write sizes.
func bytesText(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.4gGB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.4gMB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.4gKB", float64(n)/1e3)
	}
	return fmt.Sprintf("%dB", n)
}

// Check builds every variant of a file without running it and returns what the build warns
// about (PFC sizing, routing loops), each warning once, with the variants it concerns when
// not all of them. An error is a scenario the loader accepted but the fabric cannot be built
// from.
func Check(file *scenarios.File) (warnings []string, err error) {
	var order []string
	where := map[string][]string{}
	infos := file.Variants()
	for i, info := range infos {
		f, err := build(file.Scenario(i))
		var be *BuildError
		if errors.As(err, &be) {
			return nil, be // it names the variant, after the file, line and column
		}
		if err != nil {
			return nil, fmt.Errorf("variant %q: %w", info.Name, err)
		}
		for _, w := range f.warnings {
			if where[w] == nil {
				order = append(order, w)
			}
			if vs := where[w]; len(vs) == 0 || vs[len(vs)-1] != info.Name {
				where[w] = append(vs, info.Name)
			}
		}
	}
	for _, w := range order {
		if vs := where[w]; len(infos) > 1 && len(vs) < len(infos) {
			w = fmt.Sprintf("%s (variants: %s)", w, strings.Join(vs, ", "))
		}
		warnings = append(warnings, w)
	}
	return warnings, nil
}

func offIfZero(t sim.Time) string {
	if t == 0 {
		return "off"
	}
	return t.String()
}
