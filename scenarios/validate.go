package scenarios

import (
	"fmt"
	"github.com/fabricsim/fabricsim/ecn"
	"math"
	"net/netip"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/fabricsim/fabricsim/sim"
)

// Defaults. Each is documented, with its source, in doc.go and on the schema field.
const (
	defaultSeed        = 1
	defaultStop        = 100 * sim.Millisecond
	defaultBuffer      = 32_000_000
	defaultBufferAlpha = 1.0
	defaultPriority    = 3
	defaultTTL         = 64
	defaultCNPPriority = 6 // NVIDIA CNP_802P_PRIO
	defaultRoCEMTU     = 1024
	// defaultRTO is the IB local ACK timeout 4.096us x 2^8 (QP timeout attribute 8).
	defaultRTO         = 4096 * sim.Nanosecond << 8
	defaultRetryLimit  = 7
	defaultAckInterval = 16
	defaultKmin        = 5_000
	maxFlowSize        = 1_000_000_000_000 // 1TB: under 2^32 packets even at the smallest path MTU, 256
	maxSamples         = 100_000           // time-series samples per run: bounds memory
	defaultKmax        = 200_000
	defaultPmax        = 0.01
	defaultIWARPMTU    = 1500
	defaultMinRTO      = sim.Millisecond
	defaultInitCwnd    = 10
	defaultNICDelay    = sim.Microsecond
	// defaultDelayedAck is Linux's 40 ms delayed-ACK minimum scaled by 1/1000, as min_rto's
	// 1 ms is RFC 6298's 1 s (RFC 1122 4.2.3.2 allows up to 500 ms; RFC 5681 4.2 asks for an
	// ACK at least every second full-sized segment, which the receiver also does).
	defaultDelayedAck = 40 * sim.Microsecond
	defaultRetries    = 15 // Linux net.ipv4.tcp_retries2
	defaultRcvWindow  = 4_000_000
	minIWARPMTU       = 576     // RFC 791: every IPv4 host takes 576-byte datagrams
	maxIWARPMTU       = 9216    // the largest jumbo frame datacenter switches carry
	maxRcvWindow      = 1 << 30 // RFC 7323: window scale 14
)

// The allowed values of the enumerated fields, in the order messages list them.
var (
	transportNames = []string{"rocev2", "rocev1", "iwarp"}
	schedulerNames = []string{"strict", "dwrr"}
	ccNames        = []string{"none", "dcqcn"}
	dcqcnModes     = []string{"paper", "nvidia"}
	hyperNames     = []string{"linear", "constant"}
	npRules        = []string{"paper", "immediate-only"}
	cnpPacings     = []string{"flow", "port"}
	recoveryNames  = []string{"go-back-n", "go-back-0"}
	iwarpCCNames   = []string{"newreno"}
	iwarpECNNames  = []string{"none", "classic", "dctcp"}
	routingNames   = []string{"l3", "l2"}
	stateNames     = []string{"down", "up"}
	nodeTypes      = []string{"host", "switch"}
	roceMTUs       = []int{256, 512, 1024, 2048, 4096}

	nameRE     = regexp.MustCompile(`^[a-z0-9-]+$`)
	nodeNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.]*$`)
)

func defaultSwitch() SwitchConfig {
	return SwitchConfig{
		Buffer:      defaultBuffer,
		BufferAlpha: defaultBufferAlpha,
		Scheduler:   "strict",
		PFC: PFCConfig{
			Priorities: []int{defaultPriority},
			Xoff:       SizeOrAuto{Auto: true},
			Xon:        SizeOrAuto{Auto: true},
			Headroom:   SizeOrAuto{Auto: true},

			ResponseTime:      DurationOrAuto{Auto: true},
			Quanta:            0xFFFF,
			DeadlockDetection: sim.Millisecond,
		},
		ECN: ECNConfig{Kmin: defaultKmin, Kmax: defaultKmax, Pmax: defaultPmax},
	}
}

func defaultRoCE() RoCEConfig {
	return RoCEConfig{
		MTU: defaultRoCEMTU, CC: "none", Recovery: "go-back-n",
		RetransmitTimeout: defaultRTO, RetryLimit: defaultRetryLimit, AckInterval: defaultAckInterval,
		DCQCN: ecn.PaperParams(), DCQCNMode: "paper",
	}
}

// resolver turns one variant's raw file into a Scenario, reporting every problem.
type resolver struct {
	l       *loader
	ix      *index
	failed  map[string]bool
	variant variantSpec
	sc      *Scenario
	topo    *topoInfo // nil when the topology is unusable: names are then not checked
}

// resolve decodes and validates the tree of one variant.
func (l *loader) resolve(tree *yaml.Node, v variantSpec) *Scenario {
	ix := buildIndex(tree)
	var raw rawFile
	failed := l.decode(tree, ix, &raw)
	r := &resolver{l: l, ix: ix, failed: failed, variant: v}
	return r.scenario(&raw)
}

// suppressed reports whether path, or a field it lies in, failed to decode.
func (r *resolver) suppressed(path string) bool {
	for q := path; ; q = parentPath(q) {
		if r.failed[q] {
			return true
		}
		if q == "" {
			return false
		}
	}
}

// errf reports a problem at the value of path (or its nearest ancestor in the file).
func (r *resolver) errf(path, format string, args ...any) {
	if r.suppressed(path) {
		return
	}
	r.l.errs = append(r.l.errs, r.l.problem(r.ix.at(path), path, fmt.Sprintf(format, args...)))
}

// warnf reports a warning at the value of path.
func (r *resolver) warnf(path, format string, args ...any) {
	if r.suppressed(path) {
		return
	}
	r.l.warns = append(r.l.warns, r.l.problem(r.ix.at(path), path, fmt.Sprintf(format, args...)))
}

// oneOf checks that v is one of allowed and reports it otherwise.
func (r *resolver) oneOf(path, what, v string, allowed []string) bool {
	if slices.Contains(allowed, v) {
		return true
	}
	if v == "" {
		r.errf(path, "%s is required (one of %s)", what, listOf(allowed))
	} else {
		r.errf(path, "unknown %s %q%s (allowed: %s)", what, v, didYouMean(v, allowed), listOf(allowed))
	}
	return false
}

func (r *resolver) scenario(raw *rawFile) *Scenario {
	sc := &Scenario{
		File: r.l.file, Version: 1, Seed: defaultSeed, Stop: defaultStop,
		Variant: r.variant.name, Transport: r.variant.transport,
		Description: raw.Description,
	}
	r.sc = sc
	switch {
	case raw.Version == nil:
		r.errf("version", "version is required; write version: 1")
	case *raw.Version != 1:
		r.errf("version", "version %d is not supported; this fabricsim reads version 1", *raw.Version)
	}
	switch {
	case raw.Name == nil || *raw.Name == "":
		r.errf("name", "name is required: lower-case letters, digits and '-', e.g. name: incast-pfc")
	case !nameRE.MatchString(*raw.Name):
		r.errf("name", "name %q may hold only lower-case letters, digits and '-', e.g. incast-pfc", *raw.Name)
	default:
		sc.Name = *raw.Name
	}
	if raw.Seed != nil {
		sc.Seed = *raw.Seed
	}
	if raw.Stop != nil {
		sc.Stop = sim.Time(*raw.Stop)
		if sc.Stop <= 0 {
			r.errf("stop", "stop must be > 0, e.g. stop: 10ms")
		}
	}
	sc.SampleInterval = max(sc.Stop/500, sim.Nanosecond)
	if raw.Sample != nil {
		sc.SampleInterval = sim.Time(*raw.Sample)
		switch {
		case sc.SampleInterval <= 0:
			r.errf("sample_interval", "sample_interval must be > 0, e.g. sample_interval: 10us")
		case sc.Stop/sc.SampleInterval > maxSamples:
			r.errf("sample_interval", "sample_interval %v takes more than %d samples over stop %v; use at least %v",
				sc.SampleInterval, maxSamples, sc.Stop, sc.Stop/maxSamples)
		}
	}
	sc.Switch = r.switchConfig(defaultSwitch(), raw.Switch, "switch")
	sc.Hosts = r.hostConfig(HostConfig{Priority: defaultPriority, TTL: defaultTTL, CNPPriority: defaultCNPPriority}, raw.Hosts, "hosts")
	sc.Transports = r.transports(raw.Transports)
	r.topology(raw.Topology)
	if v := r.variant; v.index >= 0 && v.transport != "" {
		r.transport(fmt.Sprintf("variants.%d.transport", v.index), v.transport)
	}
	r.traffic(raw.Traffic)
	r.faults(raw.Faults)
	return sc
}

// ---- switch, hosts, transports ----

// switchConfig applies a switch block to base (the defaults, or the global config for a
// node's own block), checking each field it sets.
func (r *resolver) switchConfig(base SwitchConfig, raw *rawSwitch, path string) SwitchConfig {
	c := base
	c.Weights = slices.Clone(base.Weights)
	c.PFC.Priorities = slices.Clone(base.PFC.Priorities)
	if raw == nil {
		return c
	}
	if raw.Buffer != nil {
		c.Buffer = int64(*raw.Buffer)
		if c.Buffer <= 0 {
			r.errf(path+".buffer", "buffer must be > 0, e.g. buffer: 32MB")
		}
	}
	if raw.BufferAlpha != nil {
		c.BufferAlpha = *raw.BufferAlpha
		if !(c.BufferAlpha > 0) || math.IsInf(c.BufferAlpha, 0) {
			r.errf(path+".buffer_alpha", "buffer_alpha must be a number > 0 (a queue may hold alpha x the free buffer; 1 is typical)")
		}
	}
	if raw.Scheduler != nil {
		c.Scheduler = *raw.Scheduler
		r.oneOf(path+".scheduler", "scheduler", c.Scheduler, schedulerNames)
		c.Weights = nil // weights go with the block that chooses the scheduler
	}
	hasWeights := r.ix.has(path + ".weights")
	if hasWeights {
		c.Weights = raw.Weights
		for i, w := range raw.Weights {
			if w <= 0 {
				r.errf(fmt.Sprintf("%s.weights.%d", path, i), "a DWRR weight must be a whole number >= 1, got %d", w)
			}
		}
	}
	if raw.Scheduler != nil || hasWeights {
		switch {
		case c.Scheduler == "dwrr" && !hasWeights:
			r.errf(path+".scheduler", "dwrr needs weights: 8 whole numbers, one per priority, e.g. weights: [1, 1, 1, 1, 1, 1, 1, 1]")
		case c.Scheduler == "dwrr" && len(c.Weights) != 8:
			r.errf(path+".weights", "dwrr needs 8 weights, one per priority; got %d", len(c.Weights))
		case c.Scheduler == "strict" && hasWeights:
			r.errf(path+".weights", "weights go with scheduler: dwrr; strict priority takes none")
		}
	}
	if raw.Latency != nil {
		c.Latency = sim.Time(*raw.Latency)
	}
	if raw.PFC != nil {
		r.pfc(&c.PFC, raw.PFC, path+".pfc")
	}
	if raw.ECN != nil {
		r.ecn(&c.ECN, raw.ECN, path+".ecn")
	}
	return c
}

func (r *resolver) pfc(c *PFCConfig, raw *rawPFC, path string) {
	if raw.Enabled != nil {
		c.Enabled = *raw.Enabled
	}
	if r.ix.has(path + ".priorities") {
		c.Priorities = raw.Priorities
		if len(raw.Priorities) == 0 {
			r.errf(path+".priorities", "priorities needs at least one class (0..7), e.g. priorities: [3]")
		}
		seen := map[int]bool{}
		for i, p := range raw.Priorities {
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
	for _, f := range []struct {
		name string
		raw  *SizeOrAuto
		dst  *SizeOrAuto
	}{{"xoff", raw.Xoff, &c.Xoff}, {"xon", raw.Xon, &c.Xon}, {"headroom", raw.Headroom, &c.Headroom}} {
		if f.raw != nil {
			*f.dst = *f.raw
			if !f.raw.Auto && f.raw.Bytes <= 0 {
				r.errf(path+"."+f.name, "%s must be auto or a size > 0", f.name)
			}
		}
	}
	if (raw.Xoff != nil || raw.Xon != nil) && !c.Xoff.Auto && !c.Xon.Auto && c.Xon.Bytes > c.Xoff.Bytes {
		r.errf(path+".xon", "xon (%d bytes) must not exceed xoff (%d bytes): a paused queue resumes below xon", c.Xon.Bytes, c.Xoff.Bytes)
	}
	if raw.Watchdog != nil {
		c.Watchdog = sim.Time(*raw.Watchdog)
	}
	if raw.Response != nil {
		c.ResponseTime = *raw.Response
	}
	if raw.Quanta != nil {
		c.Quanta = *raw.Quanta
		if c.Quanta < 1 || c.Quanta > 0xFFFF {
			r.errf(path+".quanta", "quanta is 1..65535 (pause quanta of 512 bit times), got %d", c.Quanta)
		}
	}
	if raw.Deadlock != nil {
		c.DeadlockDetection = sim.Time(*raw.Deadlock)
		if c.DeadlockDetection != 0 && c.DeadlockDetection < sim.Microsecond {
			r.errf(path+".deadlock_detection", "deadlock_detection is 0 (off) or at least 1us (a look every that long at every queue), got %v", c.DeadlockDetection)
		}
	}
}

func (r *resolver) ecn(c *ECNConfig, raw *rawECN, path string) {
	if raw.Enabled != nil {
		c.Enabled = *raw.Enabled
	}
	if raw.Kmin != nil {
		c.Kmin = int64(*raw.Kmin)
	}
	if raw.Kmax != nil {
		c.Kmax = int64(*raw.Kmax)
		if c.Kmax <= 0 {
			r.errf(path+".kmax", "kmax must be > 0, e.g. kmax: 200KB")
		}
	}
	if (raw.Kmin != nil || raw.Kmax != nil) && c.Kmin > c.Kmax {
		r.errf(path+".kmin", "kmin (%d bytes) must not exceed kmax (%d bytes)", c.Kmin, c.Kmax)
	}
	if raw.Pmax != nil {
		c.Pmax = *raw.Pmax
		r.probability(path+".pmax", "pmax", c.Pmax)
	}
}

func (r *resolver) probability(path, what string, p float64) {
	if !(p >= 0 && p <= 1) {
		r.errf(path, "%s is a probability: a number in [0,1], got %v", what, p)
	}
}

func (r *resolver) hostConfig(base HostConfig, raw *rawHosts, path string) HostConfig {
	c := base
	if raw == nil {
		return c
	}
	if raw.Priority != nil {
		c.Priority = *raw.Priority
		r.priority(path+".priority", c.Priority)
	}
	if raw.TTL != nil {
		c.TTL = *raw.TTL
		if c.TTL < 1 || c.TTL > 255 {
			r.errf(path+".ttl", "ttl is 1..255, got %d", c.TTL)
		}
	}
	if raw.CNPPriority != nil {
		c.CNPPriority = *raw.CNPPriority
		r.priority(path+".cnp_priority", c.CNPPriority)
	}
	if raw.Jitter != nil {
		c.Jitter = sim.Time(*raw.Jitter)
		if c.Jitter < 0 || c.Jitter > sim.Microsecond {
			r.errf(path+".jitter", "jitter is 0..1us (a random extra delay per frame, kept below one minimum frame time), got %v", c.Jitter)
		}
	}
	return c
}

func (r *resolver) priority(path string, p int) {
	if p < 0 || p > 7 {
		r.errf(path, "priority is 0..7, got %d", p)
	}
}

func (r *resolver) transports(raw *rawTransports) Transports {
	t := Transports{
		RoCEv2: defaultRoCE(),
		RoCEv1: defaultRoCE(),
		IWARP:  defaultIWARP(),
	}
	if raw == nil {
		return t
	}
	if raw.RoCEv2 != nil {
		r.roce(&t.RoCEv2, raw.RoCEv2, "transports.rocev2")
	}
	if raw.RoCEv1 != nil {
		r.roce(&t.RoCEv1, raw.RoCEv1, "transports.rocev1")
		if t.RoCEv1.CC == "dcqcn" {
			r.errf("transports.rocev1.cc", "RoCE v1 frames carry no IP header, so no ECN field: DCQCN cannot run over them; use cc: none")
		}
	}
	if raw.IWARP != nil {
		r.iwarp(&t.IWARP, raw.IWARP, "transports.iwarp")
	}
	return t
}

func defaultIWARP() IWARPConfig {
	return IWARPConfig{
		MTU: defaultIWARPMTU, CC: "newreno", MinRTO: defaultMinRTO, RTOInit: defaultMinRTO,
		MaxRTO: 60 * defaultMinRTO, Retries: defaultRetries, InitCwnd: defaultInitCwnd,
		NICDelay: defaultNICDelay, SACK: true, DelayedAck: defaultDelayedAck, ECN: "none",
		ReceiveWindow: defaultRcvWindow,
	}
}

// iwarp resolves the transports.iwarp block. rto_init and max_rto follow min_rto unless given.
func (r *resolver) iwarp(c *IWARPConfig, raw *rawIWARP, path string) {
	if raw.MTU != nil {
		c.MTU = *raw.MTU
		if c.MTU < minIWARPMTU || c.MTU > maxIWARPMTU {
			r.errf(path+".mtu", "an iWARP MTU is an IPv4 MTU from %d to %d bytes, e.g. 1500 or 9000; got %d", minIWARPMTU, maxIWARPMTU, c.MTU)
		}
	}
	if raw.CC != nil {
		c.CC = *raw.CC
		r.oneOf(path+".cc", "congestion control", c.CC, iwarpCCNames)
	}
	if raw.ECN != nil {
		c.ECN = *raw.ECN
		r.oneOf(path+".ecn", "ECN mode", c.ECN, iwarpECNNames)
	}
	r.durations(path, "1ms", []durationField{
		{"min_rto", raw.MinRTO, &c.MinRTO, false},
		{"nic_delay", raw.NICDelay, &c.NICDelay, true},
		{"delayed_ack", raw.DelayedAck, &c.DelayedAck, true},
	})
	c.RTOInit, c.MaxRTO = c.MinRTO, 60*c.MinRTO
	if raw.RTOInit != nil {
		c.RTOInit = sim.Time(*raw.RTOInit)
		if c.RTOInit < c.MinRTO {
			r.errf(path+".rto_init", "rto_init (%v) must not be below min_rto (%v)", c.RTOInit, c.MinRTO)
		}
	}
	if raw.MaxRTO != nil {
		c.MaxRTO = sim.Time(*raw.MaxRTO)
		if c.MaxRTO < max(c.MinRTO, c.RTOInit) {
			r.errf(path+".max_rto", "max_rto (%v) must not be below min_rto or rto_init (%v)", c.MaxRTO, max(c.MinRTO, c.RTOInit))
		}
	} else {
		c.MaxRTO = max(c.MaxRTO, c.RTOInit)
	}
	if raw.Retries != nil {
		c.Retries = *raw.Retries
		if c.Retries < 1 || c.Retries > 255 {
			r.errf(path+".retries", "retries is the number of timeouts in a row before TCP gives up, 1..255; got %d", c.Retries)
		}
	}
	if raw.InitCwnd != nil {
		c.InitCwnd = *raw.InitCwnd
		if c.InitCwnd < 1 || c.InitCwnd > 1000 {
			r.errf(path+".init_cwnd", "init_cwnd is in segments, 1..1000 (RFC 6928: 10); got %d", c.InitCwnd)
		}
	}
	for _, b := range []struct {
		raw *bool
		dst *bool
	}{{raw.Markers, &c.Markers}, {raw.Timestamps, &c.Timestamps}, {raw.SACK, &c.SACK}, {raw.Handshake, &c.Handshake}} {
		if b.raw != nil {
			*b.dst = *b.raw
		}
	}
	if raw.ReceiveWindow != nil {
		c.ReceiveWindow = int64(*raw.ReceiveWindow)
		if c.ReceiveWindow < 2*int64(c.MTU) || c.ReceiveWindow > maxRcvWindow {
			r.errf(path+".receive_window", "receive_window is from 2 x mtu (%d bytes) to 1GiB (RFC 7323 window scale 14); got %d bytes", 2*c.MTU, c.ReceiveWindow)
		}
	}
}

func (r *resolver) roce(c *RoCEConfig, raw *rawRoCE, path string) {
	if raw.MTU != nil {
		c.MTU = *raw.MTU
		if !slices.Contains(roceMTUs, c.MTU) {
			r.errf(path+".mtu", "a RoCE MTU is one of the InfiniBand path MTUs 256, 512, 1024, 2048, 4096; got %d", c.MTU)
		}
	}
	if raw.CC != nil {
		c.CC = *raw.CC
		r.oneOf(path+".cc", "congestion control", c.CC, ccNames)
	}
	if raw.DCQCN != nil {
		r.dcqcn(c, raw.DCQCN, path+".dcqcn")
	}
	if raw.Recovery != nil {
		c.Recovery = *raw.Recovery
		r.oneOf(path+".recovery", "recovery", c.Recovery, recoveryNames)
	}
	if raw.RetransmitTimeout != nil {
		c.RetransmitTimeout = sim.Time(*raw.RetransmitTimeout)
		if c.RetransmitTimeout <= 0 {
			r.errf(path+".retransmit_timeout", "retransmit_timeout must be > 0, e.g. 1ms")
		}
	}
	if raw.RetryLimit != nil {
		c.RetryLimit = *raw.RetryLimit
		if c.RetryLimit < 0 || c.RetryLimit > 7 {
			r.errf(path+".retry_limit", "retry_limit is 0..7 (the InfiniBand retry count has 3 bits), got %d", c.RetryLimit)
		}
	}
	if raw.AckInterval != nil {
		c.AckInterval = *raw.AckInterval
		if c.AckInterval < 1 || c.AckInterval > 1<<16 {
			r.errf(path+".ack_interval", "ack_interval is the number of packets per ACK, 1..65536; got %d", c.AckInterval)
		}
	}
}

// durationField is a duration field of a block: its name, its value as written (nil if
// absent), where it goes, and whether 0 is allowed.
type durationField struct {
	name string
	raw  *Duration
	dst  *sim.Time
	zero bool
}

// durations resolves the duration fields given under path: each must be > 0 (or >= 0 where
// 0 is allowed); example is a typical value for the message.
func (r *resolver) durations(path, example string, fields []durationField) {
	for _, d := range fields {
		if d.raw == nil {
			continue
		}
		*d.dst = sim.Time(*d.raw)
		switch {
		case *d.dst < 0 && d.zero:
			r.errf(path+"."+d.name, "%s must be >= 0, e.g. %s", d.name, example)
		case *d.dst < 0 || (*d.dst == 0 && !d.zero):
			r.errf(path+"."+d.name, "%s must be > 0, e.g. %s", d.name, example)
		}
	}
}

// dcqcn resolves a dcqcn block: the mode's defaults, then each field given.
func (r *resolver) dcqcn(c *RoCEConfig, raw *rawDCQCN, path string) {
	if raw.Mode != nil {
		c.DCQCNMode = *raw.Mode
		if r.oneOf(path+".mode", "DCQCN mode", c.DCQCNMode, dcqcnModes) && c.DCQCNMode == "nvidia" {
			c.DCQCN = ecn.NVIDIAParams()
		} else {
			c.DCQCN = ecn.PaperParams()
		}
	}
	p := &c.DCQCN
	if raw.G != nil {
		p.G = *raw.G
		if p.G <= 0 || p.G > 1 {
			r.errf(path+".g", "g is the alpha gain, in (0,1], e.g. 0.00390625 (1/256); got %g", p.G)
		}
	}
	if raw.AlphaInit != nil {
		p.AlphaInit = *raw.AlphaInit
		r.probability(path+".alpha_init", "alpha_init", p.AlphaInit)
	}
	r.durations(path, "55us", []durationField{
		{"alpha_period", raw.AlphaPeriod, &p.AlphaPeriod, false},
		{"rate_timer", raw.RateTimer, &p.RateTimer, false},
		{"decrease_period", raw.DecreasePeriod, &p.DecreasePeriod, true},
		{"cnp_interval", raw.CNPInterval, &p.CNPInterval, true},
	})
	if raw.ByteCounter != nil {
		p.ByteCounter = int64(*raw.ByteCounter) // 0 turns the byte counter off
	}
	if raw.F != nil {
		p.F = *raw.F
		if p.F < 0 {
			r.errf(path+".f", "f (fast-recovery stages) is >= 0, got %d", p.F)
		}
	}
	for _, rt := range []struct {
		name string
		raw  *Rate
		dst  *sim.Rate
	}{{"rai", raw.RAI, &p.RAI}, {"rhai", raw.RHAI, &p.RHAI}, {"min_rate", raw.MinRate, &p.MinRate}} {
		if rt.raw != nil {
			*rt.dst = sim.Rate(*rt.raw)
		}
	}
	if raw.Hyper != nil && r.oneOf(path+".hyper", "hyper increase", *raw.Hyper, hyperNames) {
		p.HyperLinear = *raw.Hyper == "linear"
	}
	if raw.AlphaOnCNP != nil {
		p.AlphaOnCNP = *raw.AlphaOnCNP
	}
	if raw.NP != nil && r.oneOf(path+".np", "notification point rule", *raw.NP, npRules) {
		p.NP = ecn.NPPaper
		if *raw.NP == "immediate-only" {
			p.NP = ecn.NPImmediateOnly
		}
	}
	if raw.CNPPacing != nil && r.oneOf(path+".cnp_pacing", "CNP pacing", *raw.CNPPacing, cnpPacings) {
		p.PortPacing = *raw.CNPPacing == "port"
	}
}

// transport checks a transport name written at path.
func (r *resolver) transport(path, t string) {
	r.oneOf(path, "transport", t, transportNames)
}

// ---- topology ----

func (r *resolver) topology(raw *rawTopology) {
	const what = "a preset (star, dumbbell, leafspine, fattree) with params, or nodes and links"
	if raw == nil {
		r.errf("topology", "topology is required: %s", what)
		return
	}
	t := &r.sc.Topology
	explicit := r.ix.has("topology.nodes") || r.ix.has("topology.links")
	switch {
	case raw.Preset != nil && explicit:
		r.errf("topology.preset", "give either a preset or nodes and links, not both")
		return
	case raw.Preset == nil && !explicit:
		if r.ix.has("topology.params") {
			r.errf("topology", "params need a preset: add preset: star, dumbbell, leafspine or fattree")
		} else {
			r.errf("topology", "topology needs %s", what)
		}
		return
	}
	ok := true
	if raw.Preset != nil {
		ok = r.preset(raw)
	} else {
		if r.ix.has("topology.params") {
			r.errf("topology.params", "params go with a preset; an explicit topology gives each link its rate and delay")
		}
		ok = r.explicit(raw)
	}
	if ok {
		r.topo = newTopoInfo(t)
		r.routes(raw.Routes)
	}
}

// preset resolves a preset and its params; it reports whether the result is usable.
func (r *resolver) preset(raw *rawTopology) bool {
	t := &r.sc.Topology
	name := *raw.Preset
	params, known := presetParams[name]
	if !known {
		r.oneOf("topology.preset", "preset", name, presetOrder)
		return false
	}
	t.Preset = name
	if raw.Params == nil {
		r.errf("topology.params", "the %s preset needs params: %s", name, listOf(params))
		return false
	}
	// Params of other presets are known fields of rawParams, so the decoder accepts them.
	if pn := r.ix.byPath["topology.params"]; pn != nil && pn.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(pn.Content); i += 2 {
			k := pn.Content[i].Value
			if !slices.Contains(params, k) && slices.Contains(fieldNames(reflect.TypeOf(rawParams{})), k) {
				r.errf("topology.params."+k, "%s", paramProblem(name, k))
			}
		}
	}
	p := &t.Params
	ok := true
	count := func(field string, v *int, min int) int {
		if v == nil {
			r.errf("topology.params."+field, "the %s preset needs param %q", name, field)
			ok = false
			return 0
		}
		if *v < min || *v > maxNodes {
			r.errf("topology.params."+field, "%s must be %d..%d, got %d", field, min, maxNodes, *v)
			ok = false
			return 0
		}
		return *v
	}
	link := func(field string, v *rawLinkSpec) LinkSpec {
		if v == nil {
			r.errf("topology.params."+field, "the %s preset needs param %q, e.g. %s: {rate: 100Gbps, delay: 1us}", name, field, field)
			ok = false
			return LinkSpec{}
		}
		return r.linkSpec("topology.params."+field, v.Rate, v.Delay, v.Loss)
	}
	routing := func() {
		p.Routing = "l3"
		if raw.Params.Routing != nil {
			p.Routing = *raw.Params.Routing
			if !r.oneOf("topology.params.routing", "routing", p.Routing, routingNames) {
				p.Routing = "l3"
			}
		}
	}
	switch name {
	case "star":
		p.Hosts = count("hosts", raw.Params.Hosts, 1)
		p.Link = link("link", raw.Params.Link)
	case "dumbbell":
		p.Left = count("left", raw.Params.Left, 1)
		p.Right = count("right", raw.Params.Right, 1)
		p.HostLink = link("host_link", raw.Params.HostLink)
		p.Bottleneck = link("bottleneck", raw.Params.Bottleneck)
	case "leafspine":
		p.Leaves = count("leaves", raw.Params.Leaves, 1)
		p.Spines = count("spines", raw.Params.Spines, 1)
		p.HostsPerLeaf = count("hosts_per_leaf", raw.Params.HostsPerLeaf, 1)
		p.HostLink = link("host_link", raw.Params.HostLink)
		p.FabricLink = link("fabric_link", raw.Params.FabricLink)
		routing()
		if ok && int64(p.Leaves)*int64(p.HostsPerLeaf)+int64(p.Leaves+p.Spines) > maxNodes {
			r.errf("topology.params", "this leafspine has %d nodes; at most %d are allowed", int64(p.Leaves)*int64(p.HostsPerLeaf)+int64(p.Leaves+p.Spines), maxNodes)
			ok = false
		}
	case "fattree":
		p.K = count("k", raw.Params.K, 2)
		p.Link = link("link", raw.Params.Link)
		routing()
		switch {
		case !ok:
		case p.K%2 != 0:
			r.errf("topology.params.k", "k must be even (a k-ary fat-tree has k/2 edge and k/2 aggregation switches per pod), got %d", p.K)
			ok = false
		case p.K > 80: // k^3/4 hosts + 5k^2/4 switches; k = 80 gives 136000 nodes
			r.errf("topology.params.k", "k = %d makes %d hosts; at most k = 80 is allowed", p.K, int64(p.K)*int64(p.K)*int64(p.K)/4)
			ok = false
		}
	}
	if ok && name != "leafspine" && name != "fattree" {
		if total := p.Hosts + p.Left + p.Right; total+2 > maxNodes {
			r.errf("topology.params", "this %s has %d hosts; at most %d nodes are allowed", name, total, maxNodes)
			ok = false
		}
	}
	return ok
}

// linkSpec resolves a link's rate, delay and loss at path.
func (r *resolver) linkSpec(path string, rate *Rate, delay *Duration, loss *float64) LinkSpec {
	var s LinkSpec
	if rate == nil {
		r.errf(path+".rate", "a link needs a rate, e.g. rate: 100Gbps")
	} else {
		s.Rate = sim.Rate(*rate)
		if s.Rate <= 0 {
			r.errf(path+".rate", "a link rate must be > 0, e.g. 100Gbps")
		}
	}
	if delay != nil {
		s.Delay = sim.Time(*delay)
	}
	if loss != nil {
		s.Loss = *loss
		r.probability(path+".loss", "loss", s.Loss)
	}
	return s
}

// explicit resolves explicit nodes and links; it reports whether the result is usable.
func (r *resolver) explicit(raw *rawTopology) bool {
	t := &r.sc.Topology
	ok := true
	byName := map[string]int{}
	ips := map[netip.Addr]int{}
	if len(raw.Nodes) == 0 {
		r.errf("topology.nodes", "an explicit topology needs nodes, e.g. - {name: h1, type: host, subnet: 10.0.1.0/24}")
		return false
	}
	if len(raw.Nodes) > maxNodes {
		r.errf("topology.nodes", "%d nodes; at most %d are allowed", len(raw.Nodes), maxNodes)
		return false
	}
	for i, rn := range raw.Nodes {
		path := fmt.Sprintf("topology.nodes.%d", i)
		n := Node{Name: rn.Name, Type: rn.Type, Pos: r.pos(path)}
		switch {
		case rn.Name == "":
			r.errf(path+".name", "a node needs a name")
			ok = false
		case !nodeNameRE.MatchString(rn.Name):
			r.errf(path+".name", "node name %q: use letters, digits, '_' and '.', starting with a letter ('-' and ':' are taken by --pcap A-B and NODE:PORT)", rn.Name)
			ok = false
		default:
			if j, dup := byName[rn.Name]; dup {
				r.errf(path+".name", "node name %q is already used by topology.nodes.%d", rn.Name, j)
				ok = false
			} else {
				byName[rn.Name] = i
			}
		}
		switch rn.Type {
		case "host":
			r.hostNode(&n, rn, path, ips)
		case "switch":
			n.Layer = 2
			if rn.Layer != nil {
				n.Layer = *rn.Layer
				if n.Layer != 2 && n.Layer != 3 {
					r.errf(path+".layer", "layer is 2 (bridges within a subnet) or 3 (routes between subnets), got %d", n.Layer)
				}
			}
			if rn.Subnet != nil {
				r.errf(path+".subnet", "a switch has no subnet; give each host its subnet")
			}
			if rn.IP != nil {
				r.errf(path+".ip", "a switch has no ip; its interfaces are addressed by the builder")
			}
			if rn.Hosts != nil {
				r.errf(path+".hosts", "a hosts block belongs on a host; a switch takes a switch block")
			}
			if rn.Switch != nil {
				c := r.switchConfig(r.sc.Switch, rn.Switch, path+".switch")
				n.Switch = &c
			}
		default:
			r.oneOf(path+".type", "node type", rn.Type, nodeTypes)
			ok = false
		}
		t.Nodes = append(t.Nodes, n)
	}
	if len(raw.Links) == 0 {
		r.errf("topology.links", "an explicit topology needs links, e.g. - {between: [h1, sw1], rate: 100Gbps, delay: 1us}")
		return false
	}
	hostLink := map[string]int{}
	for i, rl := range raw.Links {
		path := fmt.Sprintf("topology.links.%d", i)
		l := Link{Pos: r.pos(path)}
		spec := r.linkSpec(path, rl.Rate, rl.Delay, rl.Loss)
		l.Rate, l.Delay, l.Loss = spec.Rate, spec.Delay, spec.Loss
		if len(rl.Between) != 2 {
			r.errf(path+".between", "between names the two nodes a link joins, e.g. between: [h1, sw1]; got %d names", len(rl.Between))
			ok = false
			t.Links = append(t.Links, l)
			continue
		}
		l.Between = [2]string{rl.Between[0], rl.Between[1]}
		for e, name := range l.Between {
			j, known := byName[name]
			ep := fmt.Sprintf("%s.between.%d", path, e)
			switch {
			case !known:
				r.errf(ep, "unknown node %q%s", name, didYouMean(name, keys(byName)))
				ok = false
			case raw.Nodes[j].Type == "host":
				if prev, dup := hostLink[name]; dup {
					r.errf(ep, "host %q already has a link (topology.links.%d); a host has one NIC port", name, prev)
				} else {
					hostLink[name] = i
				}
			}
		}
		if l.Between[0] == l.Between[1] {
			r.errf(path+".between", "a link to itself (%s to %s); a link joins two different nodes", l.Between[0], l.Between[1])
		}
		t.Links = append(t.Links, l)
	}
	for i, rn := range raw.Nodes {
		if _, linked := hostLink[rn.Name]; rn.Type == "host" && rn.Name != "" && !linked {
			if j := byName[rn.Name]; j == i {
				r.errf(fmt.Sprintf("topology.nodes.%d", i), "host %q has no link", rn.Name)
			}
		}
	}
	return ok
}

// hostNode resolves the host-only fields of an explicit node.
func (r *resolver) hostNode(n *Node, rn rawNode, path string, ips map[netip.Addr]int) {
	if rn.Layer != nil {
		r.errf(path+".layer", "layer is for switches; a host has none")
	}
	if rn.Switch != nil {
		r.errf(path+".switch", "a switch block belongs on a switch; a host takes a hosts block")
	}
	if rn.Hosts != nil {
		c := r.hostConfig(r.sc.Hosts, rn.Hosts, path+".hosts")
		n.Hosts = &c
	}
	if rn.Subnet == nil {
		r.errf(path+".subnet", "a host needs a subnet, e.g. subnet: 10.0.1.0/24")
	} else if p, ok := r.prefix(path+".subnet", *rn.Subnet); ok {
		n.Subnet = p
	}
	if rn.IP == nil {
		return
	}
	ip, err := netip.ParseAddr(strings.TrimSpace(*rn.IP))
	switch {
	case err != nil || !ip.Is4():
		r.errf(path+".ip", "ip %q is not an IPv4 address such as 10.0.1.5", *rn.IP)
		return
	case n.Subnet.IsValid() && !n.Subnet.Contains(ip):
		r.errf(path+".ip", "ip %s is outside the host's subnet %s", ip, n.Subnet)
	case n.Subnet.IsValid() && n.Subnet.Bits() < 31 && (ip == n.Subnet.Addr() || ip == lastAddr(n.Subnet)):
		r.errf(path+".ip", "ip %s is the network or broadcast address of %s", ip, n.Subnet)
	}
	if j, dup := ips[ip]; dup {
		r.errf(path+".ip", "ip %s is already used by topology.nodes.%d", ip, j)
	} else {
		ips[ip] = indexOfNode(path)
	}
	n.IP = ip
}

// indexOfNode extracts N from "topology.nodes.N".
func indexOfNode(path string) int {
	var i int
	fmt.Sscanf(strings.TrimPrefix(path, "topology.nodes."), "%d", &i)
	return i
}

// lastAddr is the highest address of an IPv4 prefix (its broadcast address).
func lastAddr(p netip.Prefix) netip.Addr {
	a := p.Addr().As4()
	v := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
	v |= uint32(1)<<(32-p.Bits()) - 1
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// prefix parses an IPv4 prefix written without host bits.
func (r *resolver) prefix(path, s string) (netip.Prefix, bool) {
	p, err := netip.ParsePrefix(strings.TrimSpace(s))
	switch {
	case err != nil || !p.Addr().Is4():
		r.errf(path, "%q is not an IPv4 prefix such as 10.0.1.0/24", s)
		return netip.Prefix{}, false
	case p.Masked() != p:
		r.errf(path, "%s has host bits set; did you mean %s?", p, p.Masked())
		return netip.Prefix{}, false
	}
	return p, true
}

func (r *resolver) routes(raw []rawRoute) {
	t := &r.sc.Topology
	for i, rr := range raw {
		path := fmt.Sprintf("topology.routes.%d", i)
		rt := Route{At: rr.At, Via: rr.Via, Pos: r.pos(path)}
		if rr.At == "" {
			r.errf(path+".at", "a route needs at: the layer-3 switch it is installed on")
		} else if typ, layer, ok := r.topo.lookup(rr.At); !ok {
			r.errf(path+".at", "unknown node %q (%s)", rr.At, r.topo.nodesHint(rr.At))
		} else if typ != "switch" {
			r.errf(path+".at", "%q is a host; routes are installed on layer-3 switches", rr.At)
		} else if layer != 3 {
			r.errf(path+".at", "%q is a layer-2 switch; routes are installed on layer-3 switches", rr.At)
		}
		if rr.Dst == "" {
			r.errf(path+".dst", "a route needs dst: the prefix it matches, e.g. dst: 10.0.9.0/24")
		} else if p, ok := r.prefix(path+".dst", rr.Dst); ok {
			rt.Dst = p
		}
		if rr.Via == "" {
			r.errf(path+".via", "a route needs via: the neighbour packets are sent to")
		} else if _, _, ok := r.topo.lookup(rr.Via); !ok {
			r.errf(path+".via", "unknown node %q (%s)", rr.Via, r.topo.nodesHint(rr.Via))
		} else if rr.At != "" && !r.topo.linked(rr.At, rr.Via) {
			r.errf(path+".via", "%q is not a neighbour of %q (no link joins them)", rr.Via, rr.At)
		}
		t.Routes = append(t.Routes, rt)
	}
}

// ---- traffic and faults ----

// pos is the position of path's value in the file, or zero for --set values.
func (r *resolver) pos(path string) Pos {
	n := r.ix.byPath[path]
	if n == nil || n.Line <= 0 {
		return Pos{}
	}
	return Pos{Line: n.Line, Column: n.Column}
}

// host checks that name, at path, is a host of the topology.
func (r *resolver) host(path, field, name string) bool {
	if name == "" {
		r.errf(path, "%s is required: a host name", field)
		return false
	}
	if r.topo == nil {
		return true
	}
	typ, _, ok := r.topo.lookup(name)
	switch {
	case !ok:
		r.errf(path, "unknown host %q (%s)", name, r.topo.hostsHint(name))
		return false
	case typ != "host":
		r.errf(path, "%q is a switch; traffic runs between hosts", name)
		return false
	}
	return true
}

// hostPriority is the hosts.priority of the named host: its own hosts block's, else the global.
func (r *resolver) hostPriority(name string) int {
	if r.topo != nil && r.topo.nodes != nil {
		if n := r.topo.nodes[name]; n != nil && n.Hosts != nil {
			return n.Hosts.Priority
		}
	}
	return r.sc.Hosts.Priority
}

// common resolves the fields every traffic kind has.
type common struct {
	size      int64
	start     sim.Time
	transport string
	priority  int
	rate      sim.Rate
}

func (r *resolver) common(path string, size *Size, start *Duration, transport string, priority *int, rate *Rate, defPriority int) common {
	var c common
	if size == nil {
		r.errf(path+".size", "size is required, e.g. size: 1MB")
	} else if c.size = int64(*size); c.size <= 0 {
		r.errf(path+".size", "size must be > 0, e.g. 1MB")
	} else if c.size > maxFlowSize {
		r.errf(path+".size", "size %d bytes is more than a flow may carry (at most 1TB: a RoCE message of up to 2^32 packets)", c.size)
	}
	if start != nil {
		c.start = sim.Time(*start)
		if c.start >= r.sc.Stop {
			r.warnf(path+".start", "starts at %v, at or after stop (%v); it will not run", c.start, r.sc.Stop)
		}
	}
	switch {
	case transport != "":
		c.transport = transport
		r.transport(path+".transport", transport)
	case r.variant.transport != "":
		c.transport = r.variant.transport
	default:
		r.errf(path, "no transport: give one here or in the variant")
	}
	c.priority = defPriority
	if priority != nil {
		c.priority = *priority
		r.priority(path+".priority", c.priority)
	}
	if rate != nil {
		c.rate = sim.Rate(*rate)
	}
	return c
}

var trafficKinds = []string{"flow", "incast", "permutation", "poisson"}

// kindNeeds says what an empty traffic item of each kind lacks.
var kindNeeds = map[string]string{
	"flow":        "src, dst and size, e.g. {src: h1, dst: h2, size: 1MB}",
	"incast":      "senders, receiver and size, e.g. {senders: [h1, h2], receiver: h3, size: 1MB}",
	"permutation": "a size, e.g. {hosts: all, size: 1MB}",
	"poisson":     "hosts, load, workload and count",
}

func (r *resolver) traffic(raw []rawTraffic) {
	if len(raw) == 0 {
		r.errf("traffic", "traffic is required: a list of flow, incast or permutation items")
		return
	}
	for i, it := range raw {
		path := fmt.Sprintf("traffic.%d", i)
		var kinds []string
		for _, k := range trafficKinds {
			if r.ix.has(path + "." + k) {
				kinds = append(kinds, k)
			}
		}
		switch {
		case len(kinds) == 0:
			// A non-empty mapping has unknown keys and anything else the wrong type: the
			// decoder has reported those.
			if n := r.ix.byPath[path]; n != nil && (isNull(n) || n.Kind == yaml.MappingNode && len(n.Content) == 0) {
				r.errf(path, "a traffic item is one of %s, e.g. - flow: {src: h1, dst: h2, size: 1MB}", listOf(trafficKinds))
			}
			continue
		case len(kinds) > 1:
			r.errf(path+"."+kinds[1], "a traffic item has one kind; this one has %s and %s", kinds[0], kinds[1])
			continue
		}
		item := Traffic{Kind: kinds[0], Pos: r.pos(path)}
		kp := path + "." + kinds[0]
		switch {
		case it.Flow != nil:
			item.Flow = r.flow(kp, it.Flow)
		case it.Incast != nil:
			item.Incast = r.incast(kp, it.Incast)
		case it.Permutation != nil:
			item.Permutation = r.permutation(kp, it.Permutation)
		case it.Poisson != nil:
			r.errf(kp, "poisson traffic is not supported yet; use flow, incast or permutation")
		default:
			r.errf(kp, "%s is empty; it needs %s", kinds[0], kindNeeds[kinds[0]])
		}
		r.sc.Traffic = append(r.sc.Traffic, item)
	}
}

func (r *resolver) flow(path string, f *rawFlow) *Flow {
	okSrc := r.host(path+".src", "src", f.Src)
	okDst := r.host(path+".dst", "dst", f.Dst)
	if okSrc && okDst && f.Src == f.Dst {
		r.errf(path+".dst", "dst is src (%s); a flow runs between two different hosts", f.Src)
	}
	c := r.common(path, f.Size, f.Start, f.Transport, f.Priority, f.Rate, r.hostPriority(f.Src))
	return &Flow{Src: f.Src, Dst: f.Dst, Size: c.size, Start: c.start, Transport: c.transport,
		Priority: c.priority, Rate: c.rate, Pos: r.pos(path)}
}

func (r *resolver) incast(path string, in *rawIncast) *Incast {
	if len(in.Senders) == 0 {
		r.errf(path+".senders", "senders is required: a list of hosts, e.g. senders: [h1, h2, h3]")
	}
	seen := map[string]int{}
	for i, s := range in.Senders {
		sp := fmt.Sprintf("%s.senders.%d", path, i)
		if j, dup := seen[s]; dup {
			r.errf(sp, "sender %q is listed twice (also senders.%d)", s, j)
			continue
		}
		seen[s] = i
		if r.host(sp, "a sender", s) && s == in.Receiver {
			r.errf(sp, "sender %q is the receiver", s)
		}
	}
	r.host(path+".receiver", "receiver", in.Receiver)
	c := r.common(path, in.Size, in.Start, in.Transport, in.Priority, in.Rate, r.sc.Hosts.Priority)
	return &Incast{Senders: in.Senders, Receiver: in.Receiver, Size: c.size, Start: c.start,
		Transport: c.transport, Priority: c.priority, Rate: c.rate, Pos: r.pos(path)}
}

func (r *resolver) permutation(path string, pm *rawPermutation) *Permutation {
	p := &Permutation{Pos: r.pos(path)}
	if pm.Hosts != nil && !pm.Hosts.All {
		p.Hosts = pm.Hosts.Names
		if len(p.Hosts) < 2 {
			r.errf(path+".hosts", "a permutation needs at least 2 hosts (or hosts: all)")
		}
		seen := map[string]int{}
		for i, h := range p.Hosts {
			hp := fmt.Sprintf("%s.hosts.%d", path, i)
			if j, dup := seen[h]; dup {
				r.errf(hp, "host %q is listed twice (also hosts.%d)", h, j)
				continue
			}
			seen[h] = i
			r.host(hp, "a host", h)
		}
	} else if r.topo != nil && r.topo.hostCount() < 2 {
		r.errf(path, "a permutation needs at least 2 hosts; the topology has %d", r.topo.hostCount())
	}
	c := r.common(path, pm.Size, pm.Start, pm.Transport, pm.Priority, pm.Rate, r.sc.Hosts.Priority)
	p.Size, p.Start, p.Transport, p.Priority, p.Rate = c.size, c.start, c.transport, c.priority, c.rate
	return p
}

func (r *resolver) faults(raw []rawFault) {
	for i, rf := range raw {
		path := fmt.Sprintf("faults.%d", i)
		f := Fault{Pos: r.pos(path)}
		if rf.At != nil {
			f.At = sim.Time(*rf.At)
			if f.At >= r.sc.Stop {
				r.warnf(path+".at", "at %v is at or after stop (%v); the fault never happens", f.At, r.sc.Stop)
			}
		}
		var set []string
		if rf.State != nil {
			set = append(set, "state")
			f.State = *rf.State
			r.oneOf(path+".state", "state", f.State, stateNames)
		}
		if rf.Loss != nil {
			set = append(set, "loss")
			v := *rf.Loss
			f.Loss = &v
			r.probability(path+".loss", "loss", v)
		}
		if rf.DropEvery != nil {
			set = append(set, "drop_every")
			f.DropEvery = *rf.DropEvery
			if f.DropEvery < 0 {
				r.errf(path+".drop_every", "drop_every is a whole number: n >= 1 drops every n-th data packet, 0 stops dropping; got %d", f.DropEvery)
			}
		}
		if rf.PFCStorm != nil {
			set = append(set, "pfc_storm")
			f.PFCStorm = r.pfcStorm(path+".pfc_storm", rf.PFCStorm)
		}
		if rf.Pause != nil {
			set = append(set, "pause")
			f.Pause = r.pauseFault(path+".pause", rf.Pause)
		}
		switch len(set) {
		case 0:
			r.errf(path, "a fault sets one of state (up/down), loss, drop_every, pfc_storm or pause")
		case 1:
		default:
			r.errf(path+"."+set[1], "a fault sets one of state, loss, drop_every, pfc_storm or pause; this one sets %s", strings.Join(set, " and "))
		}
		onLink := len(set) > 0 && set[0] != "pfc_storm" && set[0] != "pause"
		switch {
		case onLink:
			r.faultLink(path, rf.Link, &f)
		case rf.Link != nil && len(set) > 0:
			r.errf(path+".link", "%s names its node inside its own block; link is for state, loss and drop_every", set[0])
		}
		if rf.Until != nil {
			f.Until = sim.Time(*rf.Until)
			switch {
			case f.PFCStorm == nil:
				r.errf(path+".until", "until ends a pfc_storm; for the other faults add a second fault at that time (e.g. loss: 0, state: up)")
			case f.Until <= f.At:
				r.errf(path+".until", "until %v must be after at (%v)", f.Until, f.At)
			}
		}
		r.sc.Faults = append(r.sc.Faults, f)
	}
}

// faultLink checks the link a state, loss or drop_every fault acts on.
func (r *resolver) faultLink(path string, link []string, f *Fault) {
	if len(link) != 2 {
		r.errf(path+".link", "link names the two ends of an existing link, e.g. link: [tor1, r1]")
		return
	}
	f.Link = [2]string{link[0], link[1]}
	known := true
	for e, name := range f.Link {
		if r.topo == nil {
			continue
		}
		if _, _, ok := r.topo.lookup(name); !ok {
			r.errf(fmt.Sprintf("%s.link.%d", path, e), "unknown node %q (%s)", name, r.topo.nodesHint(name))
			known = false
		}
	}
	if known && r.topo != nil && !r.topo.linked(f.Link[0], f.Link[1]) {
		r.errf(path+".link", "no link joins %s and %s", f.Link[0], f.Link[1])
	}
}

// pfcClass resolves the priority of a PFC fault: 0..7, default the node's hosts.priority. It
// warns when the class is not lossless, since a switch ignores PFC frames for a class
// without PFC (IEEE 802.1Qbb: PFC is enabled per priority).
func (r *resolver) pfcClass(path, node string, prio *int) int {
	c := r.hostPriority(node)
	if prio != nil {
		c = *prio
		if c < 0 || c > 7 {
			r.errf(path, "priority is a traffic class from 0 to 7; got %d", c)
		}
	}
	if p := &r.sc.Switch.PFC; !p.Enabled || !slices.Contains(p.Priorities, c) {
		r.warnf(path, "class %d is not lossless (switch.pfc.enabled with priorities %v): switches ignore PFC frames for it", c, p.Priorities)
	}
	return c
}

func (r *resolver) pfcStorm(path string, raw *rawPFCStorm) *PFCStorm {
	s := &PFCStorm{Node: raw.Node}
	if !r.host(path+".node", "pfc_storm.node", raw.Node) {
		return s
	}
	s.Priority = r.pfcClass(path+".priority", raw.Node, raw.Priority)
	return s
}

func (r *resolver) pauseFault(path string, raw *rawPause) *PauseFault {
	p := &PauseFault{Node: raw.Node, Port: 1}
	if raw.Node == "" {
		r.errf(path+".node", "pause.node is required: the node that sends the PFC frame")
		return p
	}
	if r.topo != nil {
		typ, _, ok := r.topo.lookup(raw.Node)
		if !ok {
			r.errf(path+".node", "unknown node %q (%s)", raw.Node, r.topo.nodesHint(raw.Node))
			return p
		}
		if typ == "switch" && raw.Port == nil {
			r.errf(path+".port", "pause.port is required for a switch: the port (from 1) the PFC frame leaves by")
		}
	}
	if raw.Port != nil {
		p.Port = *raw.Port
		if p.Port < 1 {
			r.errf(path+".port", "port counts from 1; got %d", p.Port)
		}
	}
	p.Priority = r.pfcClass(path+".priority", raw.Node, raw.Priority)
	switch {
	case raw.Quanta == nil:
		r.errf(path+".quanta", "pause.quanta is required: 0 to 65535 quanta of 512 bit times (0 resumes)")
	case *raw.Quanta < 0 || *raw.Quanta > 0xFFFF:
		r.errf(path+".quanta", "quanta is 0 to 65535 (512 bit times each); got %d", *raw.Quanta)
	default:
		p.Quanta = *raw.Quanta
	}
	return p
}

// keys returns the keys of m, sorted.
func keys(m map[string]int) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
