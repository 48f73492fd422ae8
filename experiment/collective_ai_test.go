package experiment

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/collective"
	"github.com/fabricsim/fabricsim/scenarios"
)

// railJob is a ring allreduce over the 8 GPUs of 2 servers of 4 on one stripe.
const railJob = `version: 1
name: rail-job
stop: 1ms
topology: {preset: rail, params: {servers_per_stripe: 2, gpus_per_server: 4, spines: 2, nic_link: {rate: 400Gbps, delay: 1us}, fabric_link: {rate: 400Gbps, delay: 1us}, scaleup: {}}}
traffic:
  - collective: {op: allreduce, hosts: all, size: 8MiB, channels: 4}
variants:
  - {name: v, transport: rocev2}
`

// TestPlanOfReadsTheFabric checks planOf's layout and plans on a rail cluster: GPU s<S>g<G>
// is server S, rail G, domain S; the ring is NCCL's, channel c entering each server at rail
// c+1 and leaving by it with PXN (relay c+1 on each inter-server message); hierarchical and
// a Zipf MoE all_to_all build; without a scale-up domain hierarchical is an error placed at
// the item.
func TestPlanOfReadsTheFabric(t *testing.T) {
	f := build0(t, railJob)
	c := *f.sc.Traffic[0].Collective
	ranks := f.hostNames(c.Hosts)
	l := f.layoutOf(ranks, nil)
	require.True(t, l.PXN)
	for i, name := range ranks {
		s, g := i/4+1, i%4+1
		require.Equal(t, collective.GPU{Server: s, Rail: g, Domain: s}, l.GPUs[i], name)
	}
	p, err := f.planOf(&c, ranks)
	require.NoError(t, err)
	inter := 0
	for _, m := range p.Messages {
		require.GreaterOrEqual(t, m.Channel, 0)
		if l.GPUs[m.Src].Server != l.GPUs[m.Dst].Server {
			inter++
			require.Equal(t, m.Channel+1, l.GPUs[m.Dst].Rail, "channel %d enters at rail %d", m.Channel, l.GPUs[m.Dst].Rail)
			require.Equal(t, m.Channel+1, m.Relay, "channel %d leaves by rail %d", m.Channel, m.Relay)
		}
	}
	require.Equal(t, 4*2*7*2, inter) // 4 channels, 2 inter-server hops a step, 2(N-1) = 14 steps
	c.Algorithm = collective.Hierarchical
	_, err = f.planOf(&c, ranks)
	require.NoError(t, err)
	a2a := c
	a2a.Op, a2a.Skew, a2a.MoE = collective.AllToAll, collective.Skew{Dist: collective.Zipf, S: 1}, &collective.MoE{DispatchBits: 8, CombineBits: 16}
	_, err = f.planOf(&a2a, ranks)
	require.NoError(t, err)
	g := build0(t, strings.Replace(railJob, ", scaleup: {}", "", 1))
	_, err = g.planOf(&c, ranks)
	require.ErrorContains(t, err, "algorithm hierarchical needs every rank in a scale-up domain")
}

// planOf is collective item c's plan over ranks (its first phase's: Plan with c's own op,
// algorithm, size and chunk).
func (f *fabric) planOf(c *scenarios.Collective, ranks []string) (*collective.Plan, error) {
	return jobsFabric{f}.Plan(c, c.Op, c.Algorithm, ranks, c.Size, c.Chunk)
}
