package scenarios

import (
	"strings"
	"testing"

	"github.com/fabricsim/fabricsim/collective"
	"github.com/stretchr/testify/require"
)

// railBase is a rail cluster of 2 servers of 4 GPUs with scale-up domains.
const railBase = `version: 1
name: ai
stop: 1ms
topology: {preset: rail, params: {servers_per_stripe: 2, gpus_per_server: 4, spines: 2, nic_link: {rate: 400Gbps, delay: 1us}, fabric_link: {rate: 400Gbps, delay: 1us}, scaleup: {}}}
traffic:
  - collective: {ITEM}
variants:
  - {name: v, transport: rocev2}
`

// explicitNoServers is an explicit topology of three hosts on one switch, no servers.
const explicitNoServers = `version: 1
name: flat
stop: 1ms
topology:
  nodes: [{name: h1, type: host, subnet: 10.0.1.0/24}, {name: h2, type: host, subnet: 10.0.1.0/24}, {name: h3, type: host, subnet: 10.0.1.0/24}, {name: sw, type: switch}]
  links: [{between: [h1, sw], rate: 100Gbps, delay: 1us}, {between: [h2, sw], rate: 100Gbps, delay: 1us}, {between: [h3, sw], rate: 100Gbps, delay: 1us}]
variants:
  - {name: v, transport: rocev2}
traffic:
  - collective: {ITEM}
`

// TestMoEFieldsChecked: skew, moe and algorithm hierarchical are checked, each problem at
// file:line:column with its path and what is allowed.
func TestMoEFieldsChecked(t *testing.T) {
	for _, c := range []struct{ base, item, want string }{
		{collectiveBase, "op: allreduce, size: 1MB, algorithm: hierarchical", "f.yaml:6:55: traffic.0.collective.algorithm: algorithm hierarchical runs inside scale-up domains first: it needs GPUs in servers with scale-up domains, topology preset rail with scaleup, or explicit servers; star has none"},
		{strings.Replace(railBase, ", scaleup: {}", "", 1), "op: allreduce, size: 1MB, algorithm: hierarchical", "traffic.0.collective.algorithm: algorithm hierarchical runs inside scale-up domains first: give the rail preset a scaleup block"},
		{collectiveBase, "op: allreduce, size: 1MB, pxn: false", "f.yaml:6:49: traffic.0.collective.pxn: pxn relays a GPU's traffic to another rail through its scale-up domain: it needs GPUs in servers with scale-up domains, topology preset rail with scaleup, or explicit servers; star has none"},
		{strings.Replace(railBase, ", scaleup: {}", "", 1), "op: allreduce, size: 1MB, pxn: true", "traffic.0.collective.pxn: pxn relays a GPU's traffic to another rail through its scale-up domain: give the rail preset a scaleup block"},
		{railBase, "op: allreduce, size: 1MB, pxn: maybe", "traffic.0.collective.pxn: "},
		{explicitNoServers, "op: allreduce, size: 1MB, pxn: true", "f.yaml:10:49: traffic.0.collective.pxn: pxn relays a GPU's traffic to another rail through its scale-up domain: the explicit topology gives no server a scaleup_domain"},
		{railBase, "op: broadcast, size: 1MB, algorithm: hierarchical", `traffic.0.collective.algorithm: unknown broadcast algorithm "hierarchical" (allowed: ring)`},
		{railBase, "op: allreduce, size: 1MB, skew: {dist: zipf, s: 1}", "traffic.0.collective.skew: skew spreads all_to_all's bytes over destinations; allreduce has no skew"},
		{railBase, "op: all_to_all, size: 1MB, skew: {dist: pareto}", `traffic.0.collective.skew.dist: unknown skew dist "pareto" (allowed: uniform, zipf)`},
		{railBase, "op: all_to_all, size: 1MB, skew: {dist: zipf}", "traffic.0.collective.skew.s: s is required with dist zipf"},
		{railBase, "op: all_to_all, size: 1MB, skew: {dist: zipf, s: 11}", "traffic.0.collective.skew.s: s is Zipf's exponent, above 0 and at most 10; got 11"},
		{railBase, "op: all_to_all, size: 1MB, skew: {dist: uniform, s: 1}", "traffic.0.collective.skew.s: s is Zipf's exponent; dist uniform takes none"},
		{railBase, "op: all_to_all, size: 1MB, skew: {dist: zipf, s: 1, k: 2}", `traffic.0.collective.skew.k: unknown field "k"`},
		{railBase, "op: allgather, size: 1MB, moe: {}", "traffic.0.collective.moe: moe makes all_to_all a MoE layer's dispatch and combine; allgather has no moe"},
		{railBase, "op: all_to_all, size: 1MB, moe: {combine_bits: 0}", "traffic.0.collective.moe.combine_bits: combine_bits is an element's size in bits, 1 to 64 (8: FP8, 16: BF16); got 0"},
		{railBase, "op: all_to_all, size: 4B, algorithm: hierarchical", "traffic.0.collective.size: all_to_all over 8 hosts: a size of 4 bytes cannot be cut into 8 pieces"},
	} {
		requireItemProblem(t, strings.Replace(c.base, "ITEM", c.item, 1), c.want, c.item)
	}
}

// requireItemProblem loads text as f.yaml and requires a problem that contains want.
func requireItemProblem(t *testing.T, text, want, item string) {
	t.Helper()
	_, problems, _ := Load("f.yaml", []byte(text), nil)
	var all []string
	for _, p := range problems {
		all = append(all, p.Error())
	}
	require.NotEmpty(t, all, item)
	require.Contains(t, strings.Join(all, "\n"), want, item)
}

// TestMoEFieldsResolve: the skew and moe blocks and algorithm hierarchical reach the
// Collective, moe's bits defaulting to FP8 dispatch and BF16 combine.
func TestMoEFieldsResolve(t *testing.T) {
	sc, problems, warns := Load("f.yaml", []byte(strings.Replace(railBase, "ITEM",
		"op: all_to_all, size: 8MB, algorithm: hierarchical, skew: {dist: zipf, s: 1.2}, moe: {}", 1)), nil)
	require.Empty(t, problems)
	require.Empty(t, warns)
	c := sc.Scenario(0).Traffic[0].Collective
	require.Equal(t, collective.Hierarchical, c.Algorithm)
	require.Equal(t, collective.Skew{Dist: collective.Zipf, S: 1.2}, c.Skew)
	require.Equal(t, &collective.MoE{DispatchBits: 8, CombineBits: 16}, c.MoE)
	sc, problems, warns = Load("f.yaml", []byte(strings.Replace(railBase, "ITEM", "op: allreduce, size: 8MB, algorithm: hierarchical", 1)), nil)
	require.Empty(t, problems)
	require.Empty(t, warns)
	require.Equal(t, collective.Hierarchical, sc.Scenario(0).Traffic[0].Collective.Algorithm)
}
