package experiment

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// railBound is one stripe of the rail preset: 2 servers of 4 GPUs, one spine, NICs at %s,
// the scale-up links at %s, hosts.pxn %t, RoCE v2 without congestion control over PFC, and
// the collective items given (each a "- collective: {...}" line).
const railBound = `version: 1
name: bound
stop: 50ms
topology: {preset: rail, params: {servers_per_stripe: 2, gpus_per_server: 4, spines: 1, nic_link: {rate: %s, delay: 1us}, fabric_link: {rate: 400Gbps, delay: 1us}, scaleup: {rate: %s, delay: 500ns}}}
hosts: {pxn: %t}
switch: {pfc: {enabled: true}}
transports: {rocev2: {cc: none}}
traffic:
%s
variants:
  - {name: v, transport: rocev2}
`

// TestAIClusterNeverBeatsItsIdeal: the ideal is a lower bound on the AI cluster's plans too
// (NCCL's rail rings and trees, hierarchical, MoE all-to-all) with the scale-up domain
// faster or slower than the NICs, with and without PXN, alone and beside another job: every
// job's every iteration takes at least its ideal. Before the ideal serialised the messages a
// queue pair carries one after another, a rail ring whose NICs are slower than its scale-up
// links finished under it: the ideal let one NIC's queue pair carry the messages of several
// steps at once.
func TestAIClusterNeverBeatsItsIdeal(t *testing.T) {
	items := []string{
		"op: allreduce, hosts: all, size: 4MB, channels: 4",
		"op: allreduce, hosts: all, size: 1MB, channels: 2, algorithm: tree",
		"op: allreduce, hosts: all, size: 4MB, channels: 4, algorithm: hierarchical",
		"op: allreduce, hosts: all, size: 1MB, algorithm: halving_doubling",
		"op: allgather, hosts: all, size: 4MB, channels: 4",
		"op: allgather, hosts: all, size: 4MB, channels: 2, algorithm: hierarchical",
		"op: reduce_scatter, hosts: all, size: 4MB, channels: 4",
		"op: reduce_scatter, hosts: all, size: 4MB, algorithm: hierarchical",
		"op: broadcast, hosts: all, size: 1MB",
		"op: all_to_all, hosts: all, size: 2MB",
		"op: all_to_all, hosts: all, size: 2MB, algorithm: hierarchical, skew: {dist: zipf, s: 1.2}, moe: {}",
		"op: all_to_all, hosts: all, size: 2MB, skew: {dist: zipf, s: 1}",
	}
	type fabric struct{ nic, su string }
	fabrics := []fabric{{"400Gbps", "3600Gbps"}, {"400Gbps", "100Gbps"}, {"100Gbps", "3600Gbps"}}
	if testing.Short() {
		fabrics = fabrics[1:2]
	}
	check := func(name, text string) {
		t.Run(name, func(t *testing.T) { holdsItsIdeal(t, name, text) })
	}
	for _, fb := range fabrics {
		for _, pxn := range []bool{true, false} {
			for _, item := range items {
				name := fmt.Sprintf("NIC %s, scale-up %s, pxn %t, %s", fb.nic, fb.su, pxn, item)
				check(name, fmt.Sprintf(railBound, fb.nic, fb.su, pxn, "  - collective: {"+item+"}"))
			}
			// A MoE all-to-all beside a hierarchical allreduce, each against its ideal alone.
			two := "  - collective: {op: allreduce, hosts: all, size: 4MB, channels: 4, algorithm: hierarchical, label: ar}\n" +
				"  - collective: {op: all_to_all, hosts: all, size: 2MB, algorithm: hierarchical, skew: {dist: zipf, s: 1.2}, moe: {}, label: moe}"
			check(fmt.Sprintf("NIC %s, scale-up %s, pxn %t, allreduce beside MoE", fb.nic, fb.su, pxn), fmt.Sprintf(railBound, fb.nic, fb.su, pxn, two))
		}
	}
}

// holdsItsIdeal runs the scenario text and holds every job's every iteration at or above
// its ideal.
func holdsItsIdeal(t *testing.T, name, text string) {
	v := runOne(t, text, 0)
	require.NotEmpty(t, v.Jobs, name)
	for _, j := range v.Jobs {
		require.Equal(t, j.Iterations, j.Completed, "%s: %s ended", name, j.Label)
		for k, it := range j.PerIteration {
			t.Logf("%s: %s iteration %d: %.3f us, ideal %.3f", name, j.Label, k, *it.CompletionUS, j.IdealUS)
			require.GreaterOrEqual(t, *it.CompletionUS, j.IdealUS-1e-6, "%s: %s iteration %d took %.3f us, under its ideal %.3f",
				name, j.Label, k, *it.CompletionUS, j.IdealUS)
		}
	}
}
