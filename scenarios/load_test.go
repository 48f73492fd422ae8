package scenarios

import (
	"github.com/fabricsim/fabricsim/ecn"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/pfc"
	"github.com/fabricsim/fabricsim/sim"
)

// starScenario is a small valid scenario; tests append fields or override them.
const starScenario = `version: 1
name: star-test
stop: 1ms
topology:
  preset: star
  params:
    hosts: 4
    link: {rate: 100Gbps, delay: 1us}
traffic:
  - flow: {src: h1, dst: h2, size: 1MB, transport: rocev2}
`

// explicitScenario is a small valid scenario with explicit nodes, links, a route and a fault.
const explicitScenario = `version: 1
name: explicit
topology:
  nodes:
    - {name: h1, type: host, subnet: 10.0.1.0/24}
    - {name: h2, type: host, subnet: 10.0.2.0/24, ip: 10.0.2.7}
    - {name: tor1, type: switch}
    - {name: tor2, type: switch}
    - {name: r1, type: switch, layer: 3}
  links:
    - {between: [h1, tor1], rate: 100Gbps, delay: 500ns}
    - {between: [h2, tor2], rate: 100Gbps, delay: 500ns}
    - {between: [tor1, r1], rate: 400Gbps, delay: 1us, loss: 0.001}
    - {between: [tor2, r1], rate: 400Gbps, delay: 1us}
  routes:
    - {at: r1, dst: 10.0.9.0/24, via: tor2}
traffic:
  - flow: {src: h1, dst: h2, size: 4MB}
faults:
  - {at: 2us, link: [tor1, r1], state: down}
  - {at: 0, link: [r1, tor2], drop_every: 256}
variants:
  - {name: a, transport: rocev2}
`

func overrides(t *testing.T, sets ...string) []Override {
	t.Helper()
	var os []Override
	for _, s := range sets {
		o, err := ParseOverride(s)
		require.NoError(t, err, s)
		os = append(os, o)
	}
	return os
}

func loadYAML(t *testing.T, text string, sets ...string) (*File, Problems, Problems) {
	t.Helper()
	return Load("test.yaml", []byte(text), overrides(t, sets...))
}

// findProblem returns the problem at path whose message contains msg.
func findProblem(ps Problems, path, msg string) (Problem, bool) {
	for _, p := range ps {
		if p.Path == path && strings.Contains(p.Msg, msg) {
			return p, true
		}
	}
	return Problem{}, false
}

func requireProblem(t *testing.T, ps Problems, path, msg string) Problem {
	t.Helper()
	p, ok := findProblem(ps, path, msg)
	require.Truef(t, ok, "want a problem at %q containing %q; got:\n%v", path, msg, ps)
	return p
}

func TestValidScenariosLoad(t *testing.T) {
	for name, text := range map[string]string{"star": starScenario, "explicit": explicitScenario} {
		f, errs, warns := loadYAML(t, text)
		require.Empty(t, errs, name)
		require.Empty(t, warns, name)
		require.NotNil(t, f, name)
	}
}

func TestDefaults(t *testing.T) {
	f, errs, _ := loadYAML(t, strings.Replace(starScenario, "stop: 1ms\n", "", 1))
	require.Empty(t, errs)
	require.Equal(t, []VariantInfo{{Name: "default"}}, f.Variants())
	sc := f.Scenario(0)
	require.Equal(t, "star-test", f.Name())
	require.Equal(t, uint64(1), sc.Seed)
	require.Equal(t, 100*sim.Millisecond, sc.Stop)
	require.Equal(t, "default", sc.Variant)
	require.Equal(t, SwitchConfig{
		Buffer: 32_000_000, BufferAlpha: 1, Scheduler: "strict", LoadBalancing: "ecmp",
		PFC: PFCConfig{Priorities: []int{3}, Xoff: XoffSize{SizeOrAuto: SizeOrAuto{Auto: true}}, Xon: SizeOrAuto{Auto: true}, Headroom: SizeOrAuto{Auto: true},
			Alpha: 1, XonOffset: SizeOrAuto{Auto: true},
			ResponseTime: DurationOrAuto{Auto: true}, Quanta: 0xFFFF, DeadlockDetection: sim.Millisecond},
		ECN:      ECNConfig{Kmin: 5000, Kmax: 200_000, Pmax: 0.01},
		Trimming: TrimConfig{Threshold: SizeOrAuto{Auto: true}, Priority: 7, Reserve: SizeOrAuto{Auto: true}},
	}, sc.Switch)
	require.Equal(t, HostConfig{Priority: 3, TTL: 64, CNPPriority: 6, PXN: true, PlaneSpread: "qp"}, sc.Hosts)
	require.Equal(t, RoCEConfig{MTU: 1024, CC: "none", Recovery: "go-back-n",
		RetransmitTimeout: 1_048_576 * sim.Nanosecond, RetryLimit: 7, AckInterval: 16, UDPSport: "random",
		IRN:   IRNConfig{RTOLow: 100 * sim.Microsecond, RTOHigh: 320 * sim.Microsecond, RTOLowPackets: 3, ReorderThreshold: 1, BDPCap: SizeOrAuto{Auto: true}},
		DCQCN: ecn.PaperParams(), DCQCNMode: "paper", HPCC: HPCCConfig{Eta: 0.95, MaxStage: 5},
		TIMELY: TIMELYConfig{Alpha: 0.875, Beta: 0.8, TLow: 0, THigh: 500 * sim.Microsecond,
			MinRTT: 20 * sim.Microsecond, HAIThreshold: 5, N: 5, MinRate: 100 * sim.Mbps, Rule: "paper"},
		Swift: SwiftConfig{BaseTarget: 25 * sim.Microsecond, H: sim.Microsecond, FSRange: 100 * sim.Microsecond,
			FSMinCwnd: 0.1, FSMaxCwnd: 256, AI: 1, Beta: 0.8, MaxMDF: 0.5, MinCwnd: 0.001, MaxCwnd: 256,
			RetxResetThreshold: 3, EndpointTarget: 100 * sim.Microsecond},
		DCTCP: DCTCPConfig{G: 1.0 / 16, InitCwnd: 10}, NSCC: NSCCConfig{QAGate: 3}}, sc.Transports.RoCEv2)
	require.Zero(t, sc.SampleInterval, "auto: the sampler follows the active period")
	require.Equal(t, Topology{Preset: "star", Params: PresetParams{Hosts: 4,
		Link: LinkSpec{Rate: 100 * sim.Gbps, Delay: sim.Microsecond}}, Pos: Pos{4, 3}}, sc.Topology)
	require.Len(t, sc.Traffic, 1)
	require.Equal(t, Traffic{Kind: "flow", Pos: Pos{9, 5}, Flow: &Flow{Src: "h1", Dst: "h2", Size: 1_000_000,
		Transport: "rocev2", Priority: 3, Pos: Pos{9, 11}}, Label: "flow 0"}, sc.Traffic[0])
}

func TestExplicitResolution(t *testing.T) {
	f, errs, _ := loadYAML(t, explicitScenario)
	require.Empty(t, errs)
	sc := f.Scenario(0)
	require.Equal(t, "a", sc.Variant)
	require.Equal(t, "rocev2", sc.Transport)
	require.Len(t, sc.Topology.Nodes, 5)
	h2 := sc.Topology.Nodes[1]
	require.Equal(t, "10.0.2.0/24", h2.Subnet.String())
	require.Equal(t, "10.0.2.7", h2.IP.String())
	require.False(t, sc.Topology.Nodes[0].IP.IsValid(), "no ip given: the builder assigns one")
	require.Equal(t, 2, sc.Topology.Nodes[2].Layer)
	require.Equal(t, 3, sc.Topology.Nodes[4].Layer)
	require.Equal(t, Link{Between: [2]string{"tor1", "r1"}, Rate: 400 * sim.Gbps, Delay: sim.Microsecond, Loss: 0.001, Pos: Pos{13, 7}}, sc.Topology.Links[2])
	require.Equal(t, "10.0.9.0/24", sc.Topology.Routes[0].Dst.String())
	require.Equal(t, "rocev2", sc.Traffic[0].Flow.Transport, "taken from the variant")
	require.Equal(t, Fault{At: 2 * sim.Microsecond, Link: [2]string{"tor1", "r1"}, State: "down", Pos: Pos{20, 5}}, sc.Faults[0])
	require.Equal(t, 256, sc.Faults[1].DropEvery)
	require.Equal(t, []string{"h1", "h2", "tor1", "tor2", "r1"}, NodeNames(sc.Topology))
	require.Equal(t, []string{"h1", "h2"}, HostNames(sc.Topology))
}

func TestNodeOverrides(t *testing.T) {
	f, errs, _ := loadYAML(t, explicitScenario,
		"switch.buffer=4MB",
		"topology.nodes.4.switch={scheduler: dwrr, weights: [1,1,1,2,1,1,1,1]}",
		"topology.nodes.0.hosts={priority: 5}",
		// h2 -> h1 takes the global priority, h1 -> h2 takes h1's.
		"traffic=[{flow: {src: h2, dst: h1, size: 1MB}}, {flow: {src: h1, dst: h2, size: 1MB}}]",
	)
	require.Empty(t, errs)
	sc := f.Scenario(0)
	r1 := sc.Topology.Nodes[4].Switch
	require.NotNil(t, r1)
	require.Equal(t, int64(4_000_000), r1.Buffer, "a node's block applies over the global switch block")
	require.Equal(t, "dwrr", r1.Scheduler)
	require.Nil(t, sc.Topology.Nodes[2].Switch)
	require.Equal(t, 5, sc.Topology.Nodes[0].Hosts.Priority)
	require.Equal(t, 64, sc.Topology.Nodes[0].Hosts.TTL)
	require.Equal(t, 3, sc.Traffic[0].Flow.Priority)
	require.Equal(t, 5, sc.Traffic[1].Flow.Priority)
}

func TestContractExamples(t *testing.T) {
	data, err := os.ReadFile("testdata/contract.yaml")
	require.NoError(t, err)
	f, errs, warns := Load("contract.yaml", data, nil)
	require.Empty(t, errs)
	require.Empty(t, warns)
	require.Equal(t, []VariantInfo{{"a", "rocev2"}, {"b", "rocev2"}}, f.Variants())
	require.Equal(t, int64(4_000_000), f.Scenario(0).Switch.Buffer)
	require.Equal(t, int64(1_000_000), f.Scenario(1).Switch.Buffer)

	data, err = os.ReadFile("testdata/contract-bad.yaml")
	require.NoError(t, err)
	f, errs, _ = Load("contract-bad.yaml", data, nil)
	require.Nil(t, f)
	out := errs.Error()
	require.Contains(t, out, `contract-bad.yaml:9:18: topology.params.link.rate: rate "100" has no unit`)
	require.Contains(t, out, `contract-bad.yaml:11:3: switch.bufer: unknown field "bufer" in switch (did you mean "buffer"?)`)
	require.Contains(t, out, `contract-bad.yaml:13:26: traffic.0.flow.dst: unknown host "nowhere"`)
	require.Len(t, errs, 3)
}

func TestPositions(t *testing.T) {
	text := `version: 1
name: pos
topology:
  preset: star
  params:
    hosts: 2
    link: {rate: 10, delay: 1us}
switch:
  sheduler: strict
traffic:
  - flow: {src: h1, dst: h3, size: 1MB, transport: rocev2}
  - flow:
      src: h2
      dst: h1
      size: 0
      transport: rocev2
`
	_, errs, _ := Load("pos.yaml", []byte(text), nil)
	want := []Problem{
		{File: "pos.yaml", Line: 7, Column: 18, Path: "topology.params.link.rate"},
		{File: "pos.yaml", Line: 9, Column: 3, Path: "switch.sheduler"},
		{File: "pos.yaml", Line: 11, Column: 26, Path: "traffic.0.flow.dst"},
		{File: "pos.yaml", Line: 15, Column: 13, Path: "traffic.1.flow.size"},
	}
	require.Len(t, errs, len(want), "%v", errs)
	for i, w := range want {
		got := errs[i]
		got.Msg = ""
		require.Equal(t, w, got, "problem %d: %v", i, errs[i])
	}
	require.Equal(t, `pos.yaml:9:3: switch.sheduler: unknown field "sheduler" in switch (did you mean "scheduler"?)`, errs[1].Error())
	require.Equal(t, `pos.yaml:15:13: traffic.1.flow.size: size must be > 0, e.g. 1MB`, errs[3].Error())
}

func TestDCQCNNotificationPointFields(t *testing.T) {
	// Bad values name the file, line and field, and what is allowed.
	bad := starScenario + "transports:\n  rocev2:\n    cc: dcqcn\n    dcqcn: {np: sometimes, cnp_pacing: nic}\n"
	_, errs, _ := Load("np.yaml", []byte(bad), nil)
	require.Len(t, errs, 2, "%v", errs)
	require.Equal(t, `np.yaml:14:17: transports.rocev2.dcqcn.np: unknown notification point rule "sometimes" (allowed: window, paper, immediate-only)`, errs[0].Error())
	require.Equal(t, `np.yaml:14:40: transports.rocev2.dcqcn.cnp_pacing: unknown CNP pacing "nic" (allowed: flow, port)`, errs[1].Error())

	// Defaults: the authors' window rule and per-flow pacing in paper mode, immediate-only
	// and per-port pacing in nvidia mode (as NVIDIA documents its NICs); each settable over
	// the mode's default.
	for _, tc := range []struct {
		sets []string
		np   ecn.NPRule
		port bool
	}{
		{nil, ecn.NPWindow, false},
		{[]string{"transports.rocev2.dcqcn.mode=nvidia"}, ecn.NPImmediateOnly, true},
		{[]string{"transports.rocev2.dcqcn={mode: nvidia, np: window}"}, ecn.NPWindow, true},
		{[]string{"transports.rocev2.dcqcn.np=paper"}, ecn.NPPaper, false},
		{[]string{"transports.rocev2.dcqcn={mode: nvidia, cnp_pacing: flow, np: immediate-only}"}, ecn.NPImmediateOnly, false},
		{[]string{"transports.rocev2.dcqcn={mode: paper, cnp_pacing: port}"}, ecn.NPWindow, true},
		{[]string{"transports.rocev2.dcqcn.np=immediate-only"}, ecn.NPImmediateOnly, false},
	} {
		f, errs, _ := loadYAML(t, starScenario, tc.sets...)
		require.Empty(t, errs, "%v", tc.sets)
		p := f.Scenario(0).Transports.RoCEv2.DCQCN
		require.Equal(t, tc.np, p.NP, "%v", tc.sets)
		require.Equal(t, tc.port, p.PortPacing, "%v", tc.sets)
	}
}

func TestSyntaxAndShapeErrors(t *testing.T) {
	cases := []struct {
		name, text string
		line       int
		msg        string
	}{
		{"empty", "", 0, "the file is empty"},
		{"comments only", "# nothing\n", 0, "no YAML document"},
		{"unclosed flow", "version: 1\nname: {a\n", 3, "did not find expected ',' or '}'"},
		{"tab", "version: 1\n\tname: x\n", 2, "tab character"},
		{"list", "- a\n- b\n", 1, "a scenario is a mapping of fields"},
		{"scalar", "hello\n", 1, "a scenario is a mapping of fields"},
		{"two documents", "version: 1\n---\nversion: 1\n", 0, "multiple"},
		{"alias", "version: &v 1\nname: *v\n", 2, "aliases"},
		{"merge", "a: &a {x: 1}\nb:\n  <<: {y: 2}\n", 3, "merge keys"},
		{"duplicate key", starScenario + "name: again\n", 11, `field "name" is given twice (first at line 2)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, errs, _ := Load("x.yaml", []byte(c.text), nil)
			require.Nil(t, f)
			require.NotEmpty(t, errs)
			var found bool
			for _, p := range errs {
				if strings.Contains(p.Msg, c.msg) {
					found = true
					require.Equal(t, c.line, p.Line, "%v", p)
					require.Equal(t, "x.yaml", p.File)
				}
			}
			require.True(t, found, "want %q in %v", c.msg, errs)
		})
	}
}

func TestAllProblemsAreCollected(t *testing.T) {
	_, errs, _ := loadYAML(t, `version: 2
name: Bad Name
stop: 5
topology: {preset: star, params: {hosts: 0, link: {rate: 0}}}
switch: {buffer: 1MB, scheduler: fifo, bufer: 2MB}
hosts: {priority: 8, ttl: 0}
traffic:
  - flow: {src: h1, dst: h1, size: 0, transport: tcp}
`)
	for _, w := range []struct{ path, msg string }{
		{"version", "version 2 is not supported"},
		{"name", "may hold only lower-case"},
		{"stop", "has no unit"},
		{"topology.params.hosts", "hosts must be 1.."},
		{"topology.params.link.rate", "a link rate must be > 0"},
		{"switch.scheduler", `unknown scheduler "fifo"`},
		{"switch.bufer", `did you mean "buffer"`},
		{"hosts.priority", "priority is 0..7, got 8"},
		{"hosts.ttl", "ttl is 1..255, got 0"},
		{"traffic.0.flow.size", "size must be > 0"},
		{"traffic.0.flow.transport", `unknown transport "tcp"`},
	} {
		requireProblem(t, errs, w.path, w.msg)
	}
}

func TestRules(t *testing.T) {
	cases := []struct {
		name, base string
		sets       []string
		path, msg  string
	}{
		// top level
		{"version missing", starScenario, []string{"version="}, "version", "want a whole number"},
		{"bad name", starScenario, []string{"name=Bad_Name"}, "name", "may hold only lower-case letters, digits and '-'"},
		{"stop zero", starScenario, []string{"stop=0"}, "stop", "stop must be > 0"},
		{"seed negative", starScenario, []string{"seed=-1"}, "seed", "want a whole number >= 0"},
		{"unknown top-level field", starScenario, []string{"trafic=[]"}, "trafic", `unknown field "trafic" at the top level (did you mean "traffic"?)`},
		{"no traffic", starScenario, []string{"traffic=[]"}, "traffic", "traffic is required"},
		// presets
		{"rate zero", starScenario, []string{"topology.params.link.rate=0"}, "topology.params.link.rate", "a link rate must be > 0"},
		{"rate below MinLinkRate", starScenario, []string{"topology.params.link.rate=29bps"}, "topology.params.link.rate", "a link rate must be at least 30bps (MinLinkRate)"},
		{"explicit rate below MinLinkRate", explicitScenario, []string{"topology.links.1.rate=1bps"}, "topology.links.1.rate", "at least 30bps (MinLinkRate)"},
		{"delay past MaxDuration", starScenario, []string{"topology.params.link.delay=1152921504606846977ps"}, "topology.params.link.delay", "at most 1152921504606846976 picoseconds: 2^60 ps"},
		{"timer past MaxDuration", starScenario, []string{"transports.rocev2.retransmit_timeout=9223372036854775807ps"}, "transports.rocev2.retransmit_timeout", "is too large (at most 1152921504606846976 picoseconds"},
		{"stop past MaxDuration", starScenario, []string{"stop=2000000s"}, "stop", "is too large"},
		{"rate bare", starScenario, []string{"topology.params.link.rate=100"}, "topology.params.link.rate", "has no unit"},
		{"rate missing", starScenario, []string{"topology.params.link={delay: 1us}"}, "topology.params.link.rate", "a link needs a rate"},
		{"delay negative", starScenario, []string{"topology.params.link.delay=-1us"}, "topology.params.link.delay", "negative"},
		{"loss above 1", starScenario, []string{"topology.params.link.loss=2"}, "topology.params.link.loss", "a number in [0,1]"},
		{"loss not a number", starScenario, []string{"topology.params.link.loss=1%"}, "topology.params.link.loss", `want a number, got "1%"`},
		{"hosts zero", starScenario, []string{"topology.params.hosts=0"}, "topology.params.hosts", "hosts must be 1..131072, got 0"},
		{"hosts huge", starScenario, []string{"topology.params.hosts=100000000"}, "topology.params.hosts", "hosts must be 1..131072"},
		{"param of another preset", starScenario, []string{"topology.params.leaves=2"}, "topology.params.leaves", `star has no param "leaves" (its params: hosts, link)`},
		{"param typo", starScenario, []string{"topology.params.hostz=2"}, "topology.params.hostz", `star has no param "hostz" (did you mean "hosts"?)`},
		{"leafspine has no hosts", starScenario, []string{"topology.preset=leafspine", "topology.params={hosts: 3, leaves: 2, spines: 1, hosts_per_leaf: 2, host_link: {rate: 1Gbps}, fabric_link: {rate: 1Gbps}}"},
			"topology.params.hosts", `leafspine has no param "hosts" (did you mean "hosts_per_leaf"?) (its params: leaves, spines, hosts_per_leaf, host_link, fabric_link, routing, planes)`},
		{"unknown preset", starScenario, []string{"topology.preset=strar"}, "topology.preset", `unknown preset "strar" (did you mean "star"?)`},
		{"missing param", starScenario, []string{"topology.params={hosts: 3}"}, "topology.params.link", `the star preset needs param "link"`},
		{"missing params", starScenario, []string{"topology={preset: star}"}, "topology.params", "the star preset needs params: hosts, link"},
		{"odd k", starScenario, []string{"topology={preset: fattree, params: {k: 3, link: {rate: 1Gbps}}}"}, "topology.params.k", "k must be even"},
		{"huge k", starScenario, []string{"topology={preset: fattree, params: {k: 1000, link: {rate: 1Gbps}}}"}, "topology.params.k", "at most k = 32 fits"},
		{"bad routing", starScenario, []string{"topology={preset: fattree, params: {k: 4, routing: l4, link: {rate: 1Gbps}}}"}, "topology.params.routing", `unknown routing "l4"`},
		{"no topology", starScenario, []string{"topology={}"}, "topology", "topology needs a preset"},
		{"preset and nodes", starScenario, []string{"topology.nodes=[{name: h1, type: host}]"}, "topology.preset", "either a preset or nodes and links, not both"},
		{"star has no router", starScenario, []string{"topology.routes=[{at: sw, dst: 10.0.9.0/24, via: h1}]"}, "topology.routes.0.at", `"sw" is a layer-2 switch`},
		// switch
		{"buffer zero", starScenario, []string{"switch.buffer=0"}, "switch.buffer", "buffer must be > 0"},
		{"buffer typo", starScenario, []string{"switch.bufer=1MB"}, "switch.bufer", `unknown field "bufer" in switch (did you mean "buffer"?)`},
		{"alpha zero", starScenario, []string{"switch.buffer_alpha=0"}, "switch.buffer_alpha", "buffer_alpha must be a number > 0"},
		{"unknown scheduler", starScenario, []string{"switch.scheduler=wfq"}, "switch.scheduler", `unknown scheduler "wfq" (allowed: strict, dwrr)`},
		{"dwrr without weights", starScenario, []string{"switch.scheduler=dwrr"}, "switch.scheduler", "dwrr needs weights"},
		{"dwrr with 3 weights", starScenario, []string{"switch.scheduler=dwrr", "switch.weights=[1,2,3]"}, "switch.weights", "dwrr needs 8 weights, one per priority; got 3"},
		{"strict with weights", starScenario, []string{"switch.weights=[1,1,1,1,1,1,1,1]"}, "switch.weights", "weights go with scheduler: dwrr"},
		{"zero weight", starScenario, []string{"switch.scheduler=dwrr", "switch.weights=[0,1,1,1,1,1,1,1]"}, "switch.weights.0", "a DWRR weight must be a whole number >= 1"},
		{"pfc priority 9", starScenario, []string{"switch.pfc.priorities=[9]"}, "switch.pfc.priorities.0", "a priority is 0..7, got 9"},
		{"pfc priority twice", starScenario, []string{"switch.pfc.priorities=[3,3]"}, "switch.pfc.priorities.1", "priority 3 is listed twice"},
		{"pfc no priorities", starScenario, []string{"switch.pfc.priorities=[]"}, "switch.pfc.priorities", "needs at least one class"},
		{"xon above xoff", starScenario, []string{"switch.pfc.xoff=10KB", "switch.pfc.xon=20KB"}, "switch.pfc.xon", "must not exceed xoff"},
		{"xoff bad", starScenario, []string{"switch.pfc.xoff=lots"}, "switch.pfc.xoff", "want auto, dynamic or a size"},
		{"kmin above kmax", starScenario, []string{"switch.ecn.kmin=300KB"}, "switch.ecn.kmin", "kmin (300000 bytes) must not exceed kmax (200000 bytes)"},
		{"pmax above 1", starScenario, []string{"switch.ecn.pmax=2"}, "switch.ecn.pmax", "pmax is a probability"},
		{"pfc enabled not a bool", starScenario, []string{"switch.pfc.enabled=maybe"}, "switch.pfc.enabled", `want true or false, got "maybe"`},
		// hosts and transports
		{"priority 8", starScenario, []string{"hosts.priority=8"}, "hosts.priority", "priority is 0..7"},
		{"ttl 0", starScenario, []string{"hosts.ttl=0"}, "hosts.ttl", "ttl is 1..255"},
		{"ttl 256", starScenario, []string{"hosts.ttl=256"}, "hosts.ttl", "ttl is 1..255"},
		{"mtu 1500", starScenario, []string{"transports.rocev2.mtu=1500"}, "transports.rocev2.mtu", "256, 512, 1024, 2048, 4096"},
		{"retry limit 8", starScenario, []string{"transports.rocev2.retry_limit=8"}, "transports.rocev2.retry_limit", "retry_limit is 0..7"},
		{"ack interval 0", starScenario, []string{"transports.rocev2.ack_interval=0"}, "transports.rocev2.ack_interval", "1..65536"},
		{"rto 0", starScenario, []string{"transports.rocev2.retransmit_timeout=0"}, "transports.rocev2.retransmit_timeout", "must be > 0"},
		{"rto typo", starScenario, []string{"transports.rocev2.retransmit_timout=1ms"}, "transports.rocev2.retransmit_timout", `did you mean "retransmit_timeout"?`},
		{"unknown cc", starScenario, []string{"transports.rocev2.cc=cubic"}, "transports.rocev2.cc", `unknown congestion control "cubic" (allowed: none, dcqcn, hpcc, timely, swift, dctcp, nscc)`},
		{"dctcp gain", starScenario, []string{"transports.rocev2.dctcp.g=0"}, "transports.rocev2.dctcp.g", "g is a number in (0,1] (the alpha gain), got 0"},
		{"dctcp window", starScenario, []string{"transports.rocev2.dctcp.init_cwnd=0"}, "transports.rocev2.dctcp.init_cwnd", "init_cwnd"},
		{"unknown recovery", starScenario, []string{"transports.rocev2.recovery=sack"}, "transports.rocev2.recovery", `unknown recovery "sack"`},
		{"unknown np rule", starScenario, []string{"transports.rocev2.dcqcn.np=immediate"}, "transports.rocev2.dcqcn.np",
			`unknown notification point rule "immediate" (did you mean "immediate-only"?) (allowed: window, paper, immediate-only)`},
		{"unknown cnp pacing", starScenario, []string{"transports.rocev2.dcqcn.cnp_pacing=host"}, "transports.rocev2.dcqcn.cnp_pacing",
			`unknown CNP pacing "host" (allowed: flow, port)`},
		// traffic
		{"unknown host", starScenario, []string{"traffic.0.flow.dst=h9"}, "traffic.0.flow.dst", `unknown host "h9" (this star has hosts h1..h4)`},
		{"leading zero host", starScenario, []string{"traffic.0.flow.dst=h02"}, "traffic.0.flow.dst", `unknown host "h02"`},
		{"flow to a switch", starScenario, []string{"traffic.0.flow.dst=sw"}, "traffic.0.flow.dst", `"sw" is a switch`},
		{"flow to itself", starScenario, []string{"traffic.0.flow.dst=h1"}, "traffic.0.flow.dst", "a flow runs between two different hosts"},
		{"flow without src", starScenario, []string{"traffic.0.flow.src="}, "traffic.0.flow.src", "src is required"},
		{"size zero", starScenario, []string{"traffic.0.flow.size=0"}, "traffic.0.flow.size", "size must be > 0"},
		{"size missing", starScenario, []string{"traffic.0.flow={src: h1, dst: h2, transport: rocev2}"}, "traffic.0.flow.size", "size is required"},
		{"flow priority 9", starScenario, []string{"traffic.0.flow.priority=9"}, "traffic.0.flow.priority", "priority is 0..7"},
		{"unknown transport", starScenario, []string{"traffic.0.flow.transport=roce"}, "traffic.0.flow.transport", `unknown transport "roce" (did you mean "rocev2"?`},
		{"no transport", starScenario, []string{"traffic.0.flow.transport="}, "traffic.0.flow", "no transport: give one here or in the variant"},
		{"two kinds", starScenario, []string{"traffic.0.incast={senders: [h1], receiver: h2, size: 1MB}"}, "traffic.0.incast", "a traffic item has one kind; this one has flow and incast"},
		{"kind typo", starScenario, []string{"traffic=[{flw: {src: h1}}]"}, "traffic.0.flw", `unknown traffic kind "flw" (did you mean "flow"?)`},
		{"empty item", starScenario, []string{"traffic=[{}]"}, "traffic.0", "a traffic item is one of flow, incast, permutation, poisson"},
		{"flow field typo", starScenario, []string{"traffic.0.flow.szie=1MB"}, "traffic.0.flow.szie", `unknown field "szie" in traffic.0.flow (did you mean "size"?)`},
		{"incast sender twice", starScenario, []string{"traffic=[{incast: {senders: [h1, h1], receiver: h2, size: 1MB, transport: rocev2}}]"}, "traffic.0.incast.senders.1", `sender "h1" is listed twice`},
		{"incast receiver sends", starScenario, []string{"traffic=[{incast: {senders: [h1, h2], receiver: h2, size: 1MB, transport: rocev2}}]"}, "traffic.0.incast.senders.1", `sender "h2" is the receiver`},
		{"incast no senders", starScenario, []string{"traffic=[{incast: {receiver: h2, size: 1MB, transport: rocev2}}]"}, "traffic.0.incast.senders", "senders is required"},
		{"incast senders scalar", starScenario, []string{"traffic=[{incast: {senders: h1, receiver: h2, size: 1MB, transport: rocev2}}]"}, "traffic.0.incast.senders", `want a list of names, e.g. [h1, h2], got "h1"`},
		{"permutation of one", starScenario, []string{"traffic=[{permutation: {hosts: [h1], size: 1MB, transport: rocev2}}]"}, "traffic.0.permutation.hosts", "at least 2 hosts"},
		{"permutation hosts word", starScenario, []string{"traffic=[{permutation: {hosts: some, size: 1MB, transport: rocev2}}]"}, "traffic.0.permutation.hosts", `want all, a list of host names or {count, placement}, got "some"`},
		{"permutation unknown host", starScenario, []string{"traffic=[{permutation: {hosts: [h1, x], size: 1MB, transport: rocev2}}]"}, "traffic.0.permutation.hosts.1", `unknown host "x"`},
		// faults
		{"fault on no link", starScenario, []string{"faults=[{link: [h1, h2], state: down}]"}, "faults.0.link", "no link joins h1 and h2"},
		{"fault unknown node", starScenario, []string{"faults=[{link: [h1, sw9], state: down}]"}, "faults.0.link.1", `unknown node "sw9"`},
		{"fault two settings", starScenario, []string{"faults=[{link: [h1, sw], state: down, loss: 0.1}]"}, "faults.0.loss", "this one sets state and loss"},
		{"fault no setting", starScenario, []string{"faults=[{link: [h1, sw]}]"}, "faults.0", "a fault sets one of state (up/down), loss, drop_every, pfc_storm or pause"},
		{"storm from a switch", starScenario, []string{"faults=[{at: 0, pfc_storm: {node: sw}}]"}, "faults.0.pfc_storm.node", `"sw" is a switch`},
		{"storm unknown host", starScenario, []string{"faults=[{at: 0, pfc_storm: {node: h9}}]"}, "faults.0.pfc_storm.node", `unknown host "h9"`},
		{"storm bad class", starScenario, []string{"faults=[{at: 0, pfc_storm: {node: h1, priority: 8}}]"}, "faults.0.pfc_storm.priority", "priority is a traffic class from 0 to 7; got 8"},
		{"storm until before at", starScenario, []string{"faults=[{at: 500us, until: 100us, pfc_storm: {node: h1}}]"}, "faults.0.until", "until 100us must be after at (500us)"},
		{"until on a loss", starScenario, []string{"faults=[{at: 0, until: 100us, link: [h1, sw], loss: 0.1}]"}, "faults.0.until", "until ends a pfc_storm"},
		{"storm with a link", starScenario, []string{"faults=[{at: 0, link: [h1, sw], pfc_storm: {node: h1}}]"}, "faults.0.link", "pfc_storm names its node inside its own block"},
		{"storm and pause", starScenario, []string{"faults=[{at: 0, pfc_storm: {node: h1}, pause: {node: h1, quanta: 1}}]"}, "faults.0.pause", "this one sets pfc_storm and pause"},
		{"pause no quanta", starScenario, []string{"faults=[{at: 0, pause: {node: h1}}]"}, "faults.0.pause.quanta", "pause.quanta is required"},
		{"pause big quanta", starScenario, []string{"faults=[{at: 0, pause: {node: h1, quanta: 70000}}]"}, "faults.0.pause.quanta", "quanta is 0 to 65535"},
		{"pause switch no port", starScenario, []string{"faults=[{at: 0, pause: {node: sw, quanta: 100}}]"}, "faults.0.pause.port", "pause.port is required for a switch"},
		{"pause port 0", starScenario, []string{"faults=[{at: 0, pause: {node: sw, port: 0, quanta: 100}}]"}, "faults.0.pause.port", "port counts from 1; got 0"},
		{"pause unknown node", starScenario, []string{"faults=[{at: 0, pause: {node: x, quanta: 100}}]"}, "faults.0.pause.node", `unknown node "x"`},
		{"storm field typo", starScenario, []string{"faults=[{at: 0, pfc_storm: {nod: h1}}]"}, "faults.0.pfc_storm.nod", `unknown field "nod"`},
		{"fault bad state", starScenario, []string{"faults=[{link: [h1, sw], state: off}]"}, "faults.0.state", `unknown state "off" (allowed: down, up)`},
		{"fault drop_every -1", starScenario, []string{"faults=[{link: [h1, sw], drop_every: -1}]"}, "faults.0.drop_every", "drop_every is a whole number"},
		{"fault loss 1.5", starScenario, []string{"faults=[{link: [sw, h1], loss: 1.5}]"}, "faults.0.loss", "loss is a probability"},
		{"fault three ends", starScenario, []string{"faults=[{link: [sw, h1, h2], state: down}]"}, "faults.0.link", "link names the two ends"},
		// explicit topologies
		{"duplicate node", explicitScenario, []string{"topology.nodes.1.name=h1"}, "topology.nodes.1.name", `node name "h1" is already used by topology.nodes.0`},
		{"bad node name", explicitScenario, []string{"topology.nodes.3.name=tor-2"}, "topology.nodes.3.name", `node name "tor-2": use letters`},
		{"bad node type", explicitScenario, []string{"topology.nodes.2.type=router"}, "topology.nodes.2.type", `unknown node type "router" (allowed: host, switch)`},
		{"host without subnet", explicitScenario, []string{"topology.nodes.0={name: h1, type: host}"}, "topology.nodes.0.subnet", "a host needs a subnet"},
		{"subnet with host bits", explicitScenario, []string{"topology.nodes.0.subnet=10.0.1.5/24"}, "topology.nodes.0.subnet", "did you mean 10.0.1.0/24?"},
		{"subnet garbage", explicitScenario, []string{"topology.nodes.0.subnet=rack1"}, "topology.nodes.0.subnet", "is not an IPv4 prefix"},
		{"ip outside subnet", explicitScenario, []string{"topology.nodes.1.ip=10.0.3.1"}, "topology.nodes.1.ip", "outside the host's subnet 10.0.2.0/24"},
		{"ip broadcast", explicitScenario, []string{"topology.nodes.1.ip=10.0.2.255"}, "topology.nodes.1.ip", "network or broadcast"},
		{"ip twice", explicitScenario, []string{"topology.nodes.0.subnet=10.0.2.0/24", "topology.nodes.0.ip=10.0.2.7"}, "topology.nodes.1.ip", "already used by topology.nodes.0"},
		{"layer 4", explicitScenario, []string{"topology.nodes.4.layer=4"}, "topology.nodes.4.layer", "layer is 2"},
		{"layer on a host", explicitScenario, []string{"topology.nodes.0.layer=3"}, "topology.nodes.0.layer", "layer is for switches"},
		{"switch with subnet", explicitScenario, []string{"topology.nodes.2.subnet=10.0.0.0/24"}, "topology.nodes.2.subnet", "a switch has no subnet"},
		{"switch block on a host", explicitScenario, []string{"topology.nodes.0.switch={buffer: 1MB}"}, "topology.nodes.0.switch", "a switch block belongs on a switch"},
		{"node switch block checked", explicitScenario, []string{"topology.nodes.2.switch={buffer: 0}"}, "topology.nodes.2.switch.buffer", "buffer must be > 0"},
		{"link to unknown node", explicitScenario, []string{"topology.links.0.between=[h1, tor9]"}, "topology.links.0.between.1", `unknown node "tor9" (did you mean "tor1"?)`},
		{"link to itself", explicitScenario, []string{"topology.links.2.between=[tor1, tor1]"}, "topology.links.2.between", "a link to itself"},
		{"link with one end", explicitScenario, []string{"topology.links.2.between=[tor1]"}, "topology.links.2.between", "got 1 names"},
		{"host with two links", explicitScenario, []string{"topology.links.2.between=[h1, r1]"}, "topology.links.2.between.0", `host "h1" already has a link (topology.links.0)`},
		{"host without link", explicitScenario, []string{"topology.links.0.between=[tor1, tor2]"}, "topology.nodes.0", `host "h1" has no link`},
		{"link rate missing", explicitScenario, []string{"topology.links.3={between: [tor2, r1]}"}, "topology.links.3.rate", "a link needs a rate"},
		{"no links", explicitScenario, []string{"topology.links=[]"}, "topology.links", "an explicit topology needs links"},
		{"route on layer 2", explicitScenario, []string{"topology.routes.0.at=tor1"}, "topology.routes.0.at", `"tor1" is a layer-2 switch`},
		{"route on a host", explicitScenario, []string{"topology.routes.0.at=h1"}, "topology.routes.0.at", `"h1" is a host`},
		{"route via non-neighbour", explicitScenario, []string{"topology.routes.0.via=h2"}, "topology.routes.0.via", `"h2" is not a neighbour of "r1"`},
		{"route via unknown", explicitScenario, []string{"topology.routes.0.via=r9"}, "topology.routes.0.via", `unknown node "r9" (did you mean "r1"?`},
		{"route dst host bits", explicitScenario, []string{"topology.routes.0.dst=10.0.9.1/24"}, "topology.routes.0.dst", "has host bits set"},
		{"params with nodes", explicitScenario, []string{"topology.params={hosts: 2}"}, "topology.params", "params go with a preset"},
		{"fault on missing link", explicitScenario, []string{"faults.0.link=[h1, r1]"}, "faults.0.link", "no link joins h1 and r1"},
		{"flow to unknown explicit host", explicitScenario, []string{"traffic.0.flow.dst=h3"}, "traffic.0.flow.dst", `unknown host "h3" (did you mean "h1"? hosts: h1, h2)`},
		// variants
		{"duplicate variant", explicitScenario, []string{"variants=[{name: a, transport: rocev2}, {name: a, transport: rocev2}]"}, "variants.1.name", `variant name "a" is already used by variants.0`},
		{"variant without name", explicitScenario, []string{"variants=[{transport: rocev2}]"}, "variants.0.name", "a variant needs a name"},
		{"variant sets name", explicitScenario, []string{"variants.0.set={name: x}"}, "variants.0.set.name", "a variant cannot set name"},
		{"variant set not a mapping", explicitScenario, []string{"variants.0.set=[a]"}, "variants.0.set", "set is a mapping of field paths to values"},
		{"variant field typo", explicitScenario, []string{"variants.0.transprot=rocev2"}, "variants.0.transprot", `did you mean "transport"?`},
		{"variants empty", explicitScenario, []string{"variants=[]"}, "variants", "variants is empty"},
		{"variant set on missing item", explicitScenario, []string{"variants.0.set={traffic.3.flow.size: 1MB}"}, "variants.0.set.traffic.3.flow.size", "there is no item 3"},
		{"variant without transport", explicitScenario, []string{"variants.0.transport="}, "traffic.0.flow", "no transport: give one here or in the variant"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, errs, _ := loadYAML(t, c.base, c.sets...)
			require.Nil(t, f)
			requireProblem(t, errs, c.path, c.msg)
		})
	}
}

func TestNotSupportedYet(t *testing.T) {
	cases := []struct {
		name      string
		sets      []string
		path, msg string
	}{
		{"rocev1 dcqcn", []string{"transports.rocev1={cc: dcqcn}"}, "transports.rocev1.cc", "RoCE v1 frames carry no IP header"},
		{"rocev1 hpcc", []string{"transports.rocev1={cc: hpcc}"}, "transports.rocev1.cc", "RoCE v2 (IP/UDP) packets only"},
		{"rocev1 dctcp", []string{"transports.rocev1={cc: dctcp}"}, "transports.rocev1.cc", "DCTCP cannot run over them"},
		{"rocev1 nscc", []string{"transports.rocev1={cc: nscc}"}, "transports.rocev1.cc", "NSCC cannot run over them"},
		{"rocev1 per-packet port", []string{"transports.rocev1={udp_sport: per_packet}"}, "transports.rocev1.udp_sport", "no UDP header"},
		{"flowlet without gap", []string{"switch.load_balancing=flowlet"}, "switch.load_balancing", "flowlet needs flowlet_gap"},
		{"gap without flowlet", []string{"switch.load_balancing=spray", "switch.flowlet_gap=50us"}, "switch.flowlet_gap", "goes with load_balancing: flowlet; this switch's load balancing is spray"},
		{"gap alone", []string{"switch.flowlet_gap=50us"}, "switch.flowlet_gap", "load balancing is ecmp"},
		{"unknown scheme", []string{"switch.load_balancing=conga"}, "switch.load_balancing", "ecmp"},
		{"trim class lossless", []string{"switch.pfc.enabled=true", "switch.trimming={enabled: true, priority: 3}"}, "switch.trimming.priority", "class 3 is lossless"},
		{"trim class out of range", []string{"switch.trimming={enabled: true, priority: 8}"}, "switch.trimming.priority", "7"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, errs, _ := loadYAML(t, starScenario, c.sets...)
			requireProblem(t, errs, c.path, c.msg)
		})
	}
	// Explicitly off is fine.
	_, errs, _ := loadYAML(t, starScenario, "switch.pfc.enabled=false", "switch.ecn.enabled=false")
	require.Empty(t, errs)
	for _, sets := range [][]string{{"switch.load_balancing=flowlet", "switch.flowlet_gap=50us"},
		{"switch.load_balancing=adaptive"}, {"transports.rocev2.udp_sport=per_packet"},
		{"switch.pfc.enabled=true", "switch.trimming={enabled: true, threshold: 100KB}"}} {
		_, errs, _ = loadYAML(t, starScenario, sets...)
		require.Empty(t, errs, "%v", sets)
	}
}

func TestDidYouMean(t *testing.T) {
	fields := []string{"buffer", "buffer_alpha", "scheduler", "weights", "latency", "pfc", "ecn"}
	for word, want := range map[string]string{
		"bufer": "buffer", "Buffer": "buffer", "buffer-alpha": "buffer_alpha", "sheduler": "scheduler",
		"wieghts": "weights", "latncy": "latency", "pcf": "pfc", "colour": "", "x": "", "ecnn": "ecn",
	} {
		require.Equal(t, want, suggest(word, fields), word)
	}
	require.Equal(t, 1, editDistance("bufer", "buffer"))
	require.Equal(t, 1, editDistance("delya", "delay"), "a transposition is one edit")
	require.Equal(t, 0, editDistance("", ""))
	require.Equal(t, 3, editDistance("abc", ""))
}

func TestProblemFormat(t *testing.T) {
	require.Equal(t, "a.yaml:3:5: switch.buffer: bad", Problem{File: "a.yaml", Line: 3, Column: 5, Path: "switch.buffer", Msg: "bad"}.Error())
	require.Equal(t, "--set: switch.buffer: bad", Problem{File: "--set", Path: "switch.buffer", Msg: "bad"}.Error())
	require.Equal(t, "a.yaml: empty", Problem{File: "a.yaml", Msg: "empty"}.Error())
	ps := Problems{{File: "a", Line: 2, Msg: "y"}, {File: "a", Line: 1, Msg: "x"}, {File: "a", Line: 2, Msg: "y"}}.normalize()
	require.Equal(t, Problems{{File: "a", Line: 1, Msg: "x"}, {File: "a", Line: 2, Msg: "y"}}, ps)
	require.Equal(t, "a:1: x\na:2: y", ps.Error())
	require.NoError(t, Problems(nil).Err())
	require.Error(t, ps.Err())
}

func TestParseOverride(t *testing.T) {
	o, err := ParseOverride("switch.pfc.priorities=[3,4]")
	require.NoError(t, err)
	require.Equal(t, Override{Path: "switch.pfc.priorities", Value: "[3,4]"}, o)
	require.Equal(t, "switch.pfc.priorities=[3,4]", o.String())
	o, err = ParseOverride("description=a=b")
	require.NoError(t, err)
	require.Equal(t, "a=b", o.Value, "the value is everything after the first '='")
	o, err = ParseOverride("description=")
	require.NoError(t, err)
	require.Equal(t, "", o.Value)
	for in, msg := range map[string]string{
		"novalue":            "want PATH=VALUE",
		"=1":                 "empty path",
		"a..b=1":             "empty segment",
		"a.b c=1":            "not a field name or list index",
		"a=[1,":              "not valid YAML",
		"a={x: &y 1, z: *y}": "aliases",
	} {
		_, err := ParseOverride(in)
		require.Error(t, err, in)
		require.Contains(t, err.Error(), msg, in)
	}
}

func TestOverrides(t *testing.T) {
	f, errs, _ := loadYAML(t, starScenario,
		"switch.buffer=4MB",                               // creates switch
		"traffic.0.flow.size=2MB",                         // list index
		"switch.pfc.watchdog=5us",                         // creates pfc inside the new switch
		"switch.pfc.priorities=[3,4]",                     // flow list value
		"topology.params.link={rate: 25Gbps, delay: 2us}", // mapping value
		"seed=7",
	)
	require.Empty(t, errs)
	sc := f.Scenario(0)
	require.Equal(t, int64(4_000_000), sc.Switch.Buffer)
	require.Equal(t, int64(2_000_000), sc.Traffic[0].Flow.Size)
	require.Equal(t, 5*sim.Microsecond, sc.Switch.PFC.Watchdog)
	require.Equal(t, []int{3, 4}, sc.Switch.PFC.Priorities)
	require.Equal(t, LinkSpec{Rate: 25 * sim.Gbps, Delay: 2 * sim.Microsecond}, sc.Topology.Params.Link)
	require.Equal(t, uint64(7), f.Seed())
	require.Equal(t, Pos{}, sc.Traffic[0].Flow.Pos.sub(Pos{10, 11}), "an item changed in place keeps its position")
	f.SetSeed(42)
	require.Equal(t, uint64(42), f.Seed())
	require.Equal(t, uint64(42), f.Scenario(0).Seed)

	// An empty field on the way becomes a mapping.
	_, errs, _ = loadYAML(t, starScenario+"switch:\n", "switch.buffer=1MB")
	require.Empty(t, errs)
}

func TestOverrideProblems(t *testing.T) {
	cases := []struct {
		set, path, msg string
	}{
		{"swich.buffer=1MB", "swich", `unknown field "swich" at the top level (did you mean "switch"?) (from --set swich.buffer=1MB)`},
		{"switch.bufer=1MB", "switch.bufer", `unknown field "bufer" in switch (did you mean "buffer"?)`},
		{"switch.buffer=100", "switch.buffer", `has no unit`},
		{"traffic.5.flow.size=1MB", "traffic.5.flow.size", "traffic has 1 items (indexes from 0); there is no item 5"},
		{"traffic.first.flow.size=1MB", "traffic.first.flow.size", "traffic is a list: address its items by index from 0"},
		{"name.x=1", "name.x", "name is a single value, not a mapping"},
		{"faults.0.loss=0.1", "faults.0.loss", `has no list "faults" to take item 0 of`},
		{"topology.params.hosts=many", "topology.params.hosts", `want a whole number, got "many"`},
	}
	for _, c := range cases {
		t.Run(c.set, func(t *testing.T) {
			f, errs, _ := loadYAML(t, starScenario, c.set)
			require.Nil(t, f)
			p := requireProblem(t, errs, c.path, c.msg)
			require.Equal(t, OverrideFile, p.File)
			require.Zero(t, p.Line)
			require.True(t, strings.HasPrefix(p.Error(), "--set: "+c.path+": "), p.Error())
		})
	}
	// A bad path given as a literal Override (not through ParseOverride) is caught too.
	_, errs, _ := Load("x.yaml", []byte(starScenario), []Override{{Path: "a..b", Value: "1"}})
	requireProblem(t, errs, "a..b", "empty segment")
}

func TestVariants(t *testing.T) {
	text := starScenario + `switch:
  buffer: 32MB
variants:
  - {name: deep, transport: rocev2}
  - {name: shallow, transport: rocev2, set: {switch.buffer: 1MB, traffic.0.flow.transport: rocev2}}
  - name: paced
    transport: rocev2
    set:
      traffic.0.flow.rate: 10Gbps
      hosts.priority: 5
`
	f, errs, _ := loadYAML(t, strings.Replace(text, ", transport: rocev2}\n", "}\n", 1), "switch.buffer=16MB")
	require.Empty(t, errs)
	require.Equal(t, []VariantInfo{{"deep", "rocev2"}, {"shallow", "rocev2"}, {"paced", "rocev2"}}, f.Variants())
	require.Equal(t, 1, f.VariantIndex("shallow"))
	require.Equal(t, -1, f.VariantIndex("nope"))
	require.Nil(t, f.Scenario(3))
	deep, shallow, paced := f.Scenario(0), f.Scenario(1), f.Scenario(2)
	require.Equal(t, int64(16_000_000), deep.Switch.Buffer, "--set changes the base")
	require.Equal(t, int64(1_000_000), shallow.Switch.Buffer, "a variant's set wins over --set")
	require.Equal(t, "rocev2", deep.Traffic[0].Flow.Transport, "from the variant")
	require.Equal(t, 10*sim.Gbps, paced.Traffic[0].Flow.Rate)
	require.Equal(t, sim.Rate(0), deep.Traffic[0].Flow.Rate)
	require.Equal(t, 5, paced.Traffic[0].Flow.Priority, "priority defaults from the variant's hosts.priority")
	require.Equal(t, 3, deep.Traffic[0].Flow.Priority)
	require.Equal(t, "paced", paced.Variant)
}

func TestVariantProblems(t *testing.T) {
	text := starScenario + `variants:
  - {name: a, transport: rocev2}
  - {name: b, transport: rocev2, set: {switch.bufer: 1MB}}
  - {name: c, transport: rocev2, set: {"switch.buffer": 0}}
`
	_, errs, _ := loadYAML(t, strings.Replace(text, "dst: h2", "dst: h7", 1))
	p := requireProblem(t, errs, "switch.bufer", `unknown field "bufer" in switch (did you mean "buffer"?)`)
	require.Equal(t, Problem{File: "test.yaml", Line: 13, Column: 47, Path: "switch.bufer", Msg: p.Msg}, p,
		"the position of the misspelt segment inside the set key")
	p = requireProblem(t, errs, "switch.buffer", "buffer must be > 0")
	require.Equal(t, 14, p.Line)
	require.Equal(t, 57, p.Column, "the position of the set value")
	p = requireProblem(t, errs, "traffic.0.flow.dst", `unknown host "h7"`)
	require.Equal(t, 10, p.Line)
	var n int
	for _, e := range errs {
		if e.Path == "traffic.0.flow.dst" {
			n++
		}
	}
	require.Equal(t, 1, n, "a problem found in every variant is reported once")
}

func TestWarnings(t *testing.T) {
	f, errs, warns := loadYAML(t, starScenario, "traffic.0.flow.start=2ms", "faults=[{at: 5ms, link: [h1, sw], state: down}]")
	require.Empty(t, errs)
	require.NotNil(t, f)
	requireProblem(t, warns, "traffic.0.flow.start", "at or after stop")
	requireProblem(t, warns, "faults.0.at", "the fault never happens")
}

func TestBundled(t *testing.T) {
	infos := Bundled()
	require.NotEmpty(t, infos)
	for i, info := range infos {
		if i > 0 {
			require.Less(t, infos[i-1].Name, info.Name)
		}
		require.NotEmpty(t, info.Summary, info.Name)
		require.NotContains(t, info.Summary, "\n")
		data, ok := BundledYAML(info.Name)
		require.True(t, ok)
		f, errs, warns := Load(info.Name+".yaml", data, nil)
		require.Empty(t, errs, info.Name)
		require.Empty(t, warns, info.Name)
		require.Equal(t, info.Name, f.Name(), "a bundled scenario's name is its file name")
	}
	_, ok := BundledYAML("../doc")
	require.False(t, ok)
	_, ok = BundledYAML("nope")
	require.False(t, ok)
	data, ok := BundledYAML("tradeoff")
	require.True(t, ok)
	f, _, _ := Load("tradeoff.yaml", data, nil)
	// A variant's set reaches its resolved scenario, and only that one.
	for i := range f.Variants() {
		sc := f.Scenario(i)
		require.Equal(t, strings.Contains(sc.Variant, "+ PFC"), sc.Switch.PFC.Enabled, sc.Variant)
		require.Equal(t, strings.Contains(sc.Variant, "DCQCN"), sc.Transports.RoCEv2.CC == "dcqcn", sc.Variant)
		want := int64(1_000_000)
		if sc.Variant == "RoCEv2 lossy 32MB" {
			want = 32_000_000
		}
		require.Equal(t, want, sc.Switch.Buffer, sc.Variant)
	}
}

func (p Pos) sub(q Pos) Pos { return Pos{p.Line - q.Line, p.Column - q.Column} }

func TestHPCCSettings(t *testing.T) {
	text := starScenario + `transports:
  rocev2:
    cc: hpcc
    hpcc: {eta: 1.5, max_stage: -1, ai: 0Mbps, base_rtt: 0s}
`
	_, errs, _ := loadYAML(t, text)
	for _, c := range []struct{ key, line string }{{"eta", "(0,1]"}, {"max_stage", "0..1000"}, {"ai", "> 0"}, {"base_rtt", "> 0"}} {
		p := requireProblem(t, errs, "transports.rocev2.hpcc."+c.key, "")
		require.Equal(t, 14, p.Line, "%s: the file line", c.key)
		t.Logf("%s", p)
	}
	// Valid: the defaults, and ACKs on every packet unless ack_interval is given.
	f, errs, _ := loadYAML(t, starScenario+"transports:\n  rocev2: {cc: hpcc}\n")
	require.Empty(t, errs)
	rc := f.Scenario(0).Transports.RoCEv2
	require.Equal(t, HPCCConfig{Eta: 0.95, MaxStage: 5}, rc.HPCC)
	require.Equal(t, 1, rc.AckInterval)
	f, errs, _ = loadYAML(t, starScenario+"transports:\n  rocev2: {cc: hpcc, ack_interval: 4, hpcc: {ai: 80Mbps, base_rtt: 6us}}\n")
	require.Empty(t, errs)
	rc = f.Scenario(0).Transports.RoCEv2
	require.Equal(t, 4, rc.AckInterval)
	require.Equal(t, HPCCConfig{Eta: 0.95, MaxStage: 5, AI: 80 * sim.Mbps, BaseRTT: 6 * sim.Microsecond}, rc.HPCC)
}

// TestMinLinkRateIsThePauseBound: MinLinkRate is the least rate whose longest PAUSE (65535
// quanta of 512 bit times) lasts at most sim.MaxDuration, and a link at it is accepted, with
// the error at the link's line and column below it.
func TestMinLinkRateIsThePauseBound(t *testing.T) {
	require.LessOrEqual(t, pfc.PauseDuration(pfc.MaxQuanta, MinLinkRate), sim.MaxDuration)
	require.Greater(t, pfc.PauseDuration(pfc.MaxQuanta, MinLinkRate-1), sim.MaxDuration)
	_, errs, _ := loadYAML(t, strings.Replace(starScenario, "rate: 100Gbps", "rate: 30bps", 1))
	require.Empty(t, errs)
	_, errs, _ = loadYAML(t, strings.Replace(starScenario, "rate: 100Gbps", "rate: 1bps", 1))
	require.Len(t, errs, 1)
	require.Contains(t, errs[0].Error(), "test.yaml:8:18: topology.params.link.rate: a link rate must be at least 30bps")
}

// TestAFileThatIsNoScenarioIsNotQuoted: a path to some other file that parses as YAML (a
// password file is a mapping of keys with colons, a line of text a plain value) is refused
// in one problem at 1:1 that quotes none of its text; a misspelt scenario still gets its
// per-field problems.
func TestAFileThatIsNoScenarioIsNotQuoted(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"root:$6$secrethash:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n", "not a scenario file: none of its 2 top-level keys is a scenario field or near one"},
		{`{"secretkey": "secretvalue"}`, "not a scenario file: its one top-level key is no scenario field or near one"},
		{"secret words in a text\n", "a scenario is a mapping of fields (version, name, topology, traffic, ...), not a single value or a text"},
	} {
		_, errs, _ := Load("x", []byte(c.text), nil)
		require.Len(t, errs, 1, c.text)
		require.Equal(t, "x:1:1: "+c.want+func() string {
			if strings.HasPrefix(c.want, "not a scenario") {
				return " (a scenario starts with version: 1, name, topology and traffic)"
			}
			return ""
		}(), errs[0].Error())
		require.NotContains(t, errs[0].Error(), "secret")
	}
	_, errs, _ := Load("x", []byte("verison: 1\nname: x\n"), nil)
	require.Contains(t, errs.Error(), `unknown field "verison" at the top level (did you mean "version"?)`)
}
