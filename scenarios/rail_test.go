package scenarios

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
)

// railScenario is a rail preset of 2 servers of 2 GPUs with the given extra params lines.
func railScenario(params string) string {
	return `version: 1
name: rail
stop: 1ms
topology:
  preset: rail
  params:
    servers_per_stripe: 2
    gpus_per_server: 2
    spines: 1
    nic_link: {rate: 400Gbps, delay: 1us}
    fabric_link: {rate: 400Gbps, delay: 1us}
` + params + `traffic:
  - flow: {src: s1g1, dst: s2g2, size: 1MB, transport: rocev2}
`
}

func TestRailDefaultsAndNames(t *testing.T) {
	f, errs, _ := loadYAML(t, railScenario("    scaleup: {}\n"))
	require.Empty(t, errs)
	sc := f.Scenario(0)
	p := sc.Topology.Params
	require.Equal(t, 1, p.Stripes)
	require.Equal(t, 1, p.ServersPerScaleup)
	require.Equal(t, 1, p.Planes)
	require.Nil(t, p.PCIe, "no pcie block: no PCIe hop")
	// NVLink 4: 18 links x 50 GB/s = 900 GB/s both ways together, 450 GB/s = 3.6 Tb/s each way.
	require.Equal(t, sim.Rate(18*50e9/2*8), p.ScaleUp.Rate)
	require.Equal(t, 936250*sim.Picosecond, p.ScaleUp.Delay)
	require.True(t, sc.Hosts.PXN, "hosts.pxn is on by default, as in NCCL since 2.12")
	names := NodeNames(sc.Topology)
	for _, n := range []string{"leaf1r1", "leaf1r2", "spine1", "nv1", "nv2", "s1g1", "s1g2", "s2g1", "s2g2"} {
		require.Contains(t, names, n)
	}
	require.Equal(t, []string{"s1g1", "s1g2", "s2g1", "s2g2"}, HostNames(sc.Topology))

	f, errs, _ = loadYAML(t, railScenario(""))
	require.Empty(t, errs)
	require.Nil(t, f.Scenario(0).Topology.Params.ScaleUp, "no scaleup block: no scale-up domain")
	require.NotContains(t, NodeNames(f.Scenario(0).Topology), "nv1")

	f, errs, _ = loadYAML(t, railScenario("    planes: 2\n    pcie: {rate: 504Gbps, delay: 100ns}\n"))
	require.Empty(t, errs)
	names = NodeNames(f.Scenario(0).Topology)
	require.Contains(t, names, "p2leaf1r2")
	require.Contains(t, names, "p1spine1")
	require.Contains(t, names, "s2g2nic")
}

func TestRailBadParams(t *testing.T) {
	for _, c := range []struct{ params, path, msg string }{
		{"    planes: 0\n", "topology.params.planes", "planes must be 1.."},
		{"    stripes: 0\n", "topology.params.stripes", "stripes must be 1.."},
		{"    servers_per_scaleup: 3\n    scaleup: {}\n", "topology.params.servers_per_scaleup", "do not divide into scale-up domains of 3 servers"},
		{"    servers_per_scaleup: 2\n", "topology.params.servers_per_scaleup", "needs a scale-up domain: add scaleup: {}"},
		{"    scaleup: {rate: 0}\n", "topology.params.scaleup.rate", "a link rate must be > 0"},
		{"    pcie: {delay: 1us}\n", "topology.params.pcie.rate", "a link needs a rate"},
		{"    hosts_per_leaf: 2\n", "topology.params.hosts_per_leaf", "rail has no param \"hosts_per_leaf\""},
	} {
		_, errs, _ := loadYAML(t, railScenario(c.params))
		p := requireProblem(t, errs, c.path, c.msg)
		require.Contains(t, p.Error(), "test.yaml:", "the message names the file and line")
	}
	for _, field := range []string{"servers_per_stripe", "gpus_per_server", "spines"} {
		text := strings.Replace(railScenario(""), "    "+field+": ", "    "+field+": 0 #", 1)
		_, errs, _ := loadYAML(t, text)
		requireProblem(t, errs, "topology.params."+field, field+" must be 1..")
	}
	_, errs, _ := loadYAML(t, strings.Replace(railScenario(""), "    servers_per_stripe: 2\n", "", 1))
	requireProblem(t, errs, "topology.params.servers_per_stripe", "needs param")
	_, errs, _ = loadYAML(t, railScenario(""), "hosts.plane_spread=spray")
	requireProblem(t, errs, "hosts.plane_spread", "qp")
	_, errs, _ = loadYAML(t, strings.Replace(railScenario(""), "dst: s2g2", "dst: s3g1", 1))
	requireProblem(t, errs, "traffic.0.flow.dst", "s<S>g<G>")
}

func TestRailSizeIsBounded(t *testing.T) {
	_, errs, _ := loadYAML(t, railScenario(fmt.Sprintf("    stripes: %d\n", maxNodes)))
	require.NotEmpty(t, errs)
}

func TestPlanesOnLeafSpine(t *testing.T) {
	scenario := func(planes int) string {
		return strings.Replace(starScenario, "  preset: star\n  params:\n    hosts: 4\n    link: {rate: 100Gbps, delay: 1us}\n",
			fmt.Sprintf("  preset: leafspine\n  params: {leaves: 2, spines: 1, hosts_per_leaf: 2, planes: %d, host_link: {rate: 100Gbps}, fabric_link: {rate: 100Gbps}}\n", planes), 1)
	}
	f, errs, _ := loadYAML(t, scenario(2))
	require.Empty(t, errs)
	names := NodeNames(f.Scenario(0).Topology)
	require.Equal(t, []string{"p1leaf1", "p1leaf2", "p1spine1", "p2leaf1", "p2leaf2", "p2spine1", "h1", "h2", "h3", "h4"}, names)
	require.Len(t, TopologyLinks(f.Scenario(0).Topology), 2*(4+2))

	_, errs, _ = loadYAML(t, scenario(0))
	requireProblem(t, errs, "topology.params.planes", "planes must be 1..")
}

// serversScenario is an explicit server of two GPUs with scale-up switch nv1; SERVERS is the
// servers list and EXTRA more links.
const serversScenario = `version: 1
name: servers
stop: 1ms
topology:
  nodes:
    - {name: leaf1, type: switch, layer: 3}
    - {name: nv1, type: switch, layer: 3}
    - {name: g1, type: host, subnet: 10.0.1.0/24}
    - {name: g2, type: host, subnet: 10.0.1.0/24}
  links:
    - {between: [g1, leaf1], rate: 400Gbps}
    - {between: [g2, leaf1], rate: 400Gbps}
    - {between: [g1, nv1], rate: 3600Gbps}
%s  servers:
%s
traffic:
  - flow: {src: g1, dst: g2, size: 1MB, transport: rocev2}
`

func TestExplicitServers(t *testing.T) {
	ok := "    - {name: server1, gpus: [g1, g2], scaleup_domain: nv1}"
	f, errs, _ := loadYAML(t, fmt.Sprintf(serversScenario, "    - {between: [g2, nv1], rate: 3600Gbps}\n", ok))
	require.Empty(t, errs)
	require.Equal(t, []Server{{Name: "server1", GPUs: []string{"g1", "g2"}, ScaleupDomain: "nv1", Pos: f.Scenario(0).Topology.Servers[0].Pos}},
		f.Scenario(0).Topology.Servers)

	for _, c := range []struct{ extra, servers, path, msg string }{
		{"", ok, "topology.servers.0.gpus.1", `GPU "g2" has no link to its scale-up switch "nv1"`},
		{"    - {between: [g2, nv1], rate: 3600Gbps}\n    - {between: [g2, nv1], rate: 3600Gbps}\n", ok, "topology.links.4.between.0", "already has a link to its scale-up switch"},
		{"    - {between: [g2, nv1], rate: 3600Gbps}\n", "    - {name: server1, gpus: [g1, g3], scaleup_domain: nv1}", "topology.servers.0.gpus.1", `unknown node "g3"`},
		{"    - {between: [g2, nv1], rate: 3600Gbps}\n", "    - {name: server1, gpus: [g1, leaf1]}", "topology.servers.0.gpus.1", "a server's GPUs are hosts"},
		{"    - {between: [g2, nv1], rate: 3600Gbps}\n", "    - {name: server1, gpus: [g1, g2], scaleup_domain: g1}", "topology.servers.0.scaleup_domain", "the scale-up domain is a switch"},
		{"    - {between: [g2, nv1], rate: 3600Gbps}\n", "    - {name: a, gpus: [g1]}\n    - {name: a, gpus: [g1]}", "topology.servers.1.gpus.0", "already a GPU of topology.servers.0"},
		{"    - {between: [g2, nv1], rate: 3600Gbps}\n", "    - {name: a, gpus: [g1]}\n    - {name: a, gpus: [g2]}", "topology.servers.1.name", "already used"},
		{"    - {between: [g2, nv1], rate: 3600Gbps}\n", "    - {name: a, gpus: []}", "topology.servers.0.gpus", "a server needs gpus"},
		{"    - {between: [g2, nv1], rate: 3600Gbps}\n", "    - {name: a, gpus: [g1]}", "topology.links.3.between.0", `host "g2" already has a link`},
	} {
		_, errs, _ := loadYAML(t, fmt.Sprintf(serversScenario, c.extra, c.servers))
		requireProblem(t, errs, c.path, c.msg)
	}
	_, errs, _ = loadYAML(t, strings.Replace(railScenario(""), "traffic:", "  servers: [{name: a, gpus: [s1g1]}]\ntraffic:", 1))
	requireProblem(t, errs, "topology.servers", "servers go with explicit nodes and links")
}

func TestPlacement(t *testing.T) {
	text := func(hosts string) string {
		return strings.Replace(railScenario("    scaleup: {}\n"), "    servers_per_stripe: 2\n    gpus_per_server: 2\n",
			"    servers_per_stripe: 4\n    gpus_per_server: 4\n", 1) + "  - collective: {op: allreduce, hosts: " + hosts + ", size: 1MB, transport: rocev2}\n"
	}
	for _, c := range []struct {
		hosts string
		want  []string
	}{
		{"{count: 6, placement: packed}", []string{"s1g1", "s1g2", "s1g3", "s1g4", "s2g1", "s2g2"}},
		{"{count: 6, placement: spread}", []string{"s1g1", "s2g1", "s3g1", "s4g1", "s1g2", "s2g2"}},
		// 6 = 2 servers x 3 GPUs: GPUs 1-3 of servers 1 and 2, on rails 1-3 both.
		{"{count: 6, placement: rail_aligned}", []string{"s1g1", "s1g2", "s1g3", "s2g1", "s2g2", "s2g3"}},
		{"{count: 3, placement: rail_aligned}", []string{"s1g1", "s1g2", "s1g3"}},
	} {
		f, errs, _ := loadYAML(t, text(c.hosts))
		require.Empty(t, errs, c.hosts)
		require.Equal(t, c.want, f.Scenario(0).Traffic[1].Collective.Hosts, c.hosts)
	}
	for _, c := range []struct{ hosts, path, msg string }{
		{"{count: 7, placement: rail_aligned}", "traffic.1.collective.hosts.count", "does not fit rail-aligned"},
		{"{count: 17, placement: packed}", "traffic.1.collective.hosts.count", "more than the topology's 16 GPUs"},
		{"{count: 1, placement: packed}", "traffic.1.collective.hosts.count", "at least 2 GPUs"},
		{"{count: 4, placement: random}", "traffic.1.collective.hosts.placement", "packed"},
		{"{count: 4}", "traffic.1.collective.hosts", "a placement gives count and placement"},
	} {
		_, errs, _ := loadYAML(t, text(c.hosts))
		requireProblem(t, errs, c.path, c.msg)
	}
	_, errs, _ := loadYAML(t, starScenario+"  - collective: {op: allreduce, hosts: {count: 2, placement: packed}, size: 1MB, transport: rocev2}\n")
	requireProblem(t, errs, "traffic.1.collective.hosts", "a placement needs GPUs")
}
