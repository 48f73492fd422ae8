package scenarios

import (
	"fmt"
	"slices"

	"go.yaml.in/yaml/v4"

	"github.com/fabricsim/fabricsim/sim"
)

// SwitchConfig configures a switch: the file's switch block, or a node's own (applied over
// the global one). Each field's key, default, limits and documentation are in its tags (see
// settings.go); the settings table of the package documentation is rendered from them.
type SwitchConfig struct {
	Buffer      int64    `yaml:"buffer" default:"32MB" gt:"0" eg:"32MB" model:"BufferBytes" doc:"the shared packet buffer in bytes (a typical shared buffer of 100G-generation datacenter ASICs)"`
	BufferAlpha float64  `yaml:"buffer_alpha" default:"1" gt:"0" eg:"1" means:"a queue may hold alpha x the free buffer" model:"Alpha" doc:"the dynamic-threshold alpha (Choudhury and Hahne, 1998): a queue may hold alpha x the free buffer; SONiC's Mellanox profiles use 1"`
	Scheduler   string   `yaml:"scheduler" default:"strict" oneof:"strict,dwrr" what:"scheduler" doc:"strict priority, or deficit weighted round robin over weights"`
	Weights     []int    `yaml:"weights" doc:"the 8 DWRR weights, one per priority, each >= 1; required with dwrr, rejected with strict"`
	Latency     sim.Time `yaml:"latency" default:"0" model:"Latency" doc:"the forwarding latency added to each packet"`
	// LoadBalancing is how the switch chooses among equal-cost ports; FlowletGap goes with
	// flowlet.
	LoadBalancing string     `yaml:"load_balancing" default:"ecmp" oneof:"ecmp,spray,flowlet,adaptive" what:"load-balancing scheme" doc:"how a switch chooses among equal-cost ports: ecmp hashes the 5-tuple (one path per flow); spray draws a port per packet uniformly at random; flowlet (LetFlow, NSDI 2017) keeps a flow on its port while its packets are less than flowlet_gap apart and draws a new one after a longer gap; adaptive sends each packet to the port that will have sent what it holds soonest (per-packet adaptive routing). spray and adaptive reorder a flow's packets: RoCE v2 with recovery irn takes them out of order, go-back-N answers each gap with a NAK and a resend, TCP counts duplicate ACKs"`
	FlowletGap    sim.Time   `yaml:"flowlet_gap" default:"0" model:"FlowletGap" doc:"with load_balancing: flowlet, the idle gap after which a flow may move (FLARE, CCR 2007: longer than the largest delay difference between the paths, or the flowlet's packets arrive out of order); required with flowlet, rejected with the others"`
	PFC           PFCConfig  `yaml:"pfc"`
	ECN           ECNConfig  `yaml:"ecn"`
	Trimming      TrimConfig `yaml:"trimming"`
}

// TrimConfig configures packet trimming (NDP, SIGCOMM 2017; the Ultra Ethernet transport):
// switch.trimming.
type TrimConfig struct {
	Enabled   bool       `yaml:"enabled" default:"false" doc:"a trimmable data packet (RoCE v2's; iWARP's TCP segments are not) that a lossy queue cannot take whole is cut to its headers, which go on in the trim class; the responder NAKs the trimmed PSN at once, and the requester resends it (IRN: that PSN alone; go-back-N: from it). Counted as trimmed_packets, not as drops"`
	Threshold SizeOrAuto `yaml:"threshold" default:"auto" gt:"0" doc:"the queue depth above which data packets are trimmed; auto: only those the queue would drop (the buffer or its dynamic threshold full)"`
	Priority  int        `yaml:"priority" default:"7" min:"0" max:"7" means:"a traffic class" doc:"the class the trimmed headers travel in, to every later hop; NDP serves headers ahead of data, so the highest; it must not be a lossless (PFC) class"`
	Reserve   SizeOrAuto `yaml:"reserve" default:"auto" gt:"0" doc:"the part of the shared buffer kept for trimmed headers, so that a buffer full of data still takes the headers of what it trims (NDP and uet-htsim keep headers in a queue of their own); headers beyond it are buffer drops; auto: 1/16 of the buffer, a choice: a little more than the headers of a whole buffer of MTU-1024 RoCE v2 frames trimmed (62 of their 1,086 bytes)"`
}

// PFCConfig configures priority flow control (IEEE 802.1Qbb): switch.pfc.
type PFCConfig struct {
	Enabled    bool       `yaml:"enabled" default:"false" doc:"makes the priorities lossless"`
	Priorities []int      `yaml:"priorities" default:"[3]" doc:"the lossless classes, 0..7 (the default is the class of hosts.priority)"`
	Xoff       XoffSize   `yaml:"xoff" default:"auto" gt:"0" doc:"per ingress port and class; auto: the buffer left after every lossless port-class's headroom, shared equally by them; dynamic: alpha x the free shared buffer (the buffer less every port-class's headroom and every frame held), as shared-buffer switches compute it (Broadcom, SONiC dynamic_th)"`
	Xon        SizeOrAuto `yaml:"xon" default:"auto" gt:"0" doc:"at most xoff; auto: xoff - 2 x the largest frame; with xoff: dynamic only auto, and xon_offset sets it"`
	Alpha      float64    `yaml:"alpha" default:"1" gt:"0" eg:"1" means:"a port-class pauses above alpha x the free shared buffer" doc:"with xoff: dynamic, the dynamic-threshold factor, 2^dynamic_th in SONiC's buffer profiles; 1 is SONiC's default_dynamic_th 0 (sonic-buildimage files/build_templates/buffers_config.j2) and the threshold 0 of its Broadcom pg_profile_lookup.ini"`
	XonOffset  SizeOrAuto `yaml:"xon_offset" default:"auto" gt:"0" doc:"with xoff: dynamic, XON is the XOFF of the moment less this (SAI's XON_OFFSET_TH, SONiC's xon_offset; 4608 B in SONiC's Broadcom Trident3 profiles); auto: 2 x the largest frame, the hysteresis of xon: auto"`
	Headroom   SizeOrAuto `yaml:"headroom" default:"auto" gt:"0" doc:"auto: the worst case after XOFF is crossed: 3 x the largest frame (the one crossing XOFF, one on the reverse wire, the one the sender finishes) + 84 B per lossless class (the PAUSE and those queued ahead of it) + rate x (2 x delay + response time + forwarding latency + host jitter); see pfc.HeadroomTerms"`
	Watchdog   sim.Time   `yaml:"watchdog" default:"0" doc:"a queue paused this long without a break is flushed (watchdog drops); 0 is off"`
	// ResponseTime is how long a port takes to stop sending after a PAUSE arrives.
	ResponseTime DurationOrAuto `yaml:"response_time" default:"auto" doc:"how long a port takes to stop sending after a PAUSE arrives; auto: the IEEE 802.3 annex 31B bound for the link's speed (60/80/118/394/905 quanta at 10/25/40/100/400G)"`
	Quanta       int            `yaml:"quanta" default:"65535" min:"1" max:"65535" means:"pause quanta of 512 bit times" doc:"the pause time of each PAUSE sent; while the class stays above XON it is refreshed at half the pause time, or sooner, so that a refresh that waits behind the largest frame still arrives before the pause runs out; quanta too short for that are refused (with RoCE v2 MTU 1024 the shortest is 23)"`
	// DeadlockDetection is how long a cycle of paused, non-empty queues must make no progress
	// to be reported as a deadlock.
	DeadlockDetection sim.Time `yaml:"deadlock_detection" default:"1ms" zero:"off" min:"1us" means:"a look every that long at every queue" doc:"how long a cycle of paused, non-empty queues must make no progress to be reported as a deadlock"`
}

// ECNConfig configures RED-style ECN marking on egress queues, at dequeue, of ECN-capable
// frames (RoCE v2 data; iWARP data when transports.iwarp.ecn is classic or dctcp): no mark up
// to kmin, a probability rising linearly to pmax at kmax, always above: switch.ecn.
type ECNConfig struct {
	Enabled bool    `yaml:"enabled" default:"false" doc:"marks ECN-capable frames CE on egress"`
	Kmin    int64   `yaml:"kmin" default:"5KB" doc:"no mark below this queue (DCQCN, SIGCOMM'15); at most kmax"`
	Kmax    int64   `yaml:"kmax" default:"200KB" gt:"0" eg:"200KB" doc:"every frame marked above this queue (DCQCN, SIGCOMM'15)"`
	Pmax    float64 `yaml:"pmax" default:"0.01" unit:"probability" doc:"the marking probability at kmax (DCQCN, SIGCOMM'15)"`
}

var _ = hooksFor(nil, switchBefore, switchAfter)
var _ = hooksFor(nil, nil, pfcAfter)
var _ = hooksFor(nil, nil, ecnAfter)

// switchBefore copies the lists of the base, so that a node's block does not share them with
// the global one; weights go with the block that chooses the scheduler.
func switchBefore(r *resolver, n *yaml.Node, _ string, c *SwitchConfig) {
	c.Weights = slices.Clone(c.Weights)
	c.PFC.Priorities = slices.Clone(c.PFC.Priorities)
	if mapValue(n, "scheduler") != nil {
		c.Weights = nil
	}
}

// trimBelowAFrame warns when switch.trimming's threshold is below one full frame of the
// scenario's traffic (MaxFrameWire): a queue holding a single packet then trims every data
// packet that comes, and the run measures trimming, not the fabric.
func (r *resolver) trimBelowAFrame() {
	t := r.sc.Switch.Trimming
	if !t.Enabled || t.Threshold.Auto || t.Threshold.Bytes <= 0 {
		return
	}
	if frame := r.sc.MaxFrameWire(); t.Threshold.Bytes < frame {
		r.warnf("switch.trimming.threshold", "threshold %d bytes is below one full frame of this traffic (%d bytes on the wire): a queue holding a single packet trims every data packet that comes, so the run measures trimming, not the fabric; give at least %dB", t.Threshold.Bytes, frame, frame)
	}
}

// switchAfter checks the scheduler and its weights together, the flowlet gap with the load
// balancing, and the trim class against the lossless ones.
func switchAfter(r *resolver, path string, c *SwitchConfig, given map[string]bool) {
	if c.Trimming.Enabled && c.PFC.Enabled && slices.Contains(c.PFC.Priorities, c.Trimming.Priority) {
		r.errf(path+".trimming.priority", "class %d is lossless (switch.pfc.priorities %v): trimmed headers must not wait on a pause; choose a lossy class", c.Trimming.Priority, c.PFC.Priorities)
	}
	switch {
	case c.LoadBalancing == "flowlet" && c.FlowletGap <= 0:
		r.errf(path+".load_balancing", "flowlet needs flowlet_gap, the idle gap after which a flow may take another port: a duration above 0, longer than the largest delay difference between the paths (e.g. flowlet_gap: 50us)")
	case c.LoadBalancing != "flowlet" && given["flowlet_gap"]:
		r.errf(path+".flowlet_gap", "flowlet_gap goes with load_balancing: flowlet; this switch's load balancing is %s", c.LoadBalancing)
	}
	for i, w := range c.Weights {
		if given["weights"] && w <= 0 {
			r.errf(fmt.Sprintf("%s.weights.%d", path, i), "a DWRR weight must be a whole number >= 1, got %d", w)
		}
	}
	if !given["scheduler"] && !given["weights"] {
		return
	}
	switch {
	case c.Scheduler == "dwrr" && !given["weights"]:
		r.errf(path+".scheduler", "dwrr needs weights: 8 whole numbers, one per priority, e.g. weights: [1, 1, 1, 1, 1, 1, 1, 1]")
	case c.Scheduler == "dwrr" && len(c.Weights) != 8:
		r.errf(path+".weights", "dwrr needs 8 weights, one per priority; got %d", len(c.Weights))
	case c.Scheduler == "strict" && given["weights"]:
		r.errf(path+".weights", "weights go with scheduler: dwrr; strict priority takes none")
	}
}

// pfcAfter checks the lossless classes, and xon against xoff.
func pfcAfter(r *resolver, path string, c *PFCConfig, given map[string]bool) {
	if given["priorities"] {
		if len(c.Priorities) == 0 {
			r.errf(path+".priorities", "priorities needs at least one class (0..7), e.g. priorities: [3]")
		}
		seen := map[int]bool{}
		for i, p := range c.Priorities {
			pp := fmt.Sprintf("%s.priorities.%d", path, i)
			switch {
			case p < 0 || p > 7:
				r.errf(pp, "a priority is 0..7, got %d", p)
			case seen[p]:
				r.errf(pp, "priority %d is listed twice", p)
			}
			seen[p] = true
		}
	}
	switch {
	case c.Xoff.Dynamic && given["xon"] && !c.Xon.Auto:
		r.errf(path+".xon", "with xoff: dynamic, XON follows XOFF: set xon_offset (how far below the XOFF of the moment a paused port-class resumes), not xon")
	case !c.Xoff.Dynamic && given["xon_offset"]:
		r.errf(path+".xon_offset", "xon_offset goes with xoff: dynamic; with a static xoff, set xon")
	case !c.Xoff.Dynamic && given["alpha"]:
		r.errf(path+".alpha", "alpha goes with xoff: dynamic (a port-class pauses above alpha x the free shared buffer); this xoff is %v", c.Xoff)
	}
	if (given["xoff"] || given["xon"]) && !c.Xoff.Dynamic && !c.Xoff.Auto && !c.Xon.Auto && c.Xon.Bytes > c.Xoff.Bytes {
		r.errf(path+".xon", "xon (%d bytes) must not exceed xoff (%d bytes): a paused queue resumes below xon", c.Xon.Bytes, c.Xoff.Bytes)
	}
}

// ecnAfter checks kmin against kmax.
func ecnAfter(r *resolver, path string, c *ECNConfig, given map[string]bool) {
	if (given["kmin"] || given["kmax"]) && c.Kmin > c.Kmax {
		r.errf(path+".kmin", "kmin (%d bytes) must not exceed kmax (%d bytes)", c.Kmin, c.Kmax)
	}
}
