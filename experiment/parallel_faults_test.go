package experiment

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/scenarios"
)

// probeEarlyPause has a pause fault on a switch port facing another switch, before any flow
// starts: the frame crosses partitions from a global event before the first window.
const probeEarlyPause = `
version: 1
name: probe
seed: 1
stop: 100us
topology:
  nodes:
    - {name: sw1, type: switch}
    - {name: sw2, type: switch}
    - {name: a, type: host, subnet: 10.0.0.0/24}
    - {name: x, type: host, subnet: 10.0.0.0/24}
  links:
    - {between: [sw1, sw2], rate: 100Gbps, delay: 1us}
    - {between: [a, sw1], rate: 100Gbps, delay: 1us}
    - {between: [x, sw2], rate: 100Gbps, delay: 1us}
switch:
  pfc: {enabled: true, priorities: [3]}
traffic:
  - flow: {src: a, dst: x, size: 100KB, start: 10us}
faults:
  - {at: 1us, pause: {node: sw1, port: 1, priority: 3, quanta: 100}}
variants:
  - {name: v, transport: rocev2}
`

// TestAFaultsFrameCrossingBeforeTheFirstWindow: a PAUSE a fault puts on a link between two
// partitions before any flow starts is taken in by the far partition before its first
// window (it used to be left for the second, which then scheduled its arrival in the past
// and failed on two threads only).
func TestAFaultsFrameCrossingBeforeTheFirstWindow(t *testing.T) {
	f, problems, _ := scenarios.Load("probe.yaml", []byte(probeEarlyPause), nil)
	require.Empty(t, problems)
	one, _ := documentOn(t, f, 1)
	two, doc := documentOn(t, f, 2)
	require.Equal(t, 2, doc.Variants[0].Parallel.Partitions)
	if !bytes.Equal(one, two) {
		t.Fatalf("differs:\n%s", lineDiff(string(one), string(two), 20))
	}
}

// TestOddFabricsDoNotDependOnThreads: a fabric of two hosts and one link (one partition),
// and a chain of switches with links of 300 ns, 0 and 7 us, a switch with no host and a
// host on a 5 us link (cut only where the link is at least the 0.3 us window), with RoCE,
// iWARP and UET, give the same results on 1 to 4 threads.
func TestOddFabricsDoNotDependOnThreads(t *testing.T) {
	cases := map[string]string{
		"hosts-only": `
version: 1
name: p
seed: 1
stop: 50us
topology:
  nodes:
    - {name: a, type: host, subnet: 10.0.0.0/24}
    - {name: b, type: host, subnet: 10.0.0.0/24}
  links:
    - {between: [a, b], rate: 100Gbps, delay: 1us}
traffic:
  - flow: {src: a, dst: b, size: 10KB}
variants:
  - {name: v, transport: rocev2}
`,
		"chain-mixed-delays-and-lonely-switch": `
version: 1
name: p
seed: 1
stop: 200us
topology:
  nodes:
    - {name: s1, type: switch}
    - {name: s2, type: switch}
    - {name: s3, type: switch}
    - {name: s4, type: switch}
    - {name: a, type: host, subnet: 10.0.0.0/24}
    - {name: b, type: host, subnet: 10.0.0.0/24}
  links:
    - {between: [s1, s2], rate: 100Gbps, delay: 300ns}
    - {between: [s2, s3], rate: 100Gbps, delay: 0}
    - {between: [s3, s4], rate: 100Gbps, delay: 7us}
    - {between: [a, s1], rate: 100Gbps, delay: 0}
    - {between: [b, s3], rate: 100Gbps, delay: 5us}
traffic:
  - flow: {src: a, dst: b, size: 100KB}
  - flow: {src: b, dst: a, size: 100KB, start: 3us}
variants:
  - {name: v, transport: rocev2}
  - {name: i, transport: iwarp}
  - {name: u, transport: uet}
`,
	}
	for name, y := range cases {
		t.Run(name, func(t *testing.T) {
			f, problems, _ := scenarios.Load("p.yaml", []byte(y), nil)
			require.Empty(t, problems)
			one, _ := documentOn(t, f, 1)
			for _, n := range []int{2, 3, 4} {
				got, doc := documentOn(t, f, n)
				t.Logf("%d threads: %d partitions, window %v", n, doc.Variants[0].Parallel.Partitions, doc.Variants[0].Parallel.WindowUS)
				if !bytes.Equal(one, got) {
					t.Fatalf("%d threads differ:\n%s", n, lineDiff(string(one), string(got), 20))
				}
			}
		})
	}
}

// TestFaultsOnCutLinksDoNotDependOnThreads: a link between partitions that goes down and up,
// another that starts losing frames, and a PAUSE fault on a spine port, under RoCE with PFC
// and UET with trimming, give the same results on 1, 2 and 3 threads.
func TestFaultsOnCutLinksDoNotDependOnThreads(t *testing.T) {
	y := `
version: 1
name: p
seed: 3
stop: 400us
topology:
  preset: leafspine
  params: {leaves: 4, spines: 2, hosts_per_leaf: 2, host_link: {rate: 100Gbps, delay: 1us}, fabric_link: {rate: 100Gbps, delay: 1us}}
switch:
  pfc: {enabled: true, priorities: [3]}
traffic:
  - permutation: {size: 200KB}
faults:
  - {at: 0, link: [leaf1, spine1], state: down}
  - {at: 20us, link: [leaf1, spine1], state: up}
  - {at: 30us, link: [leaf2, spine2], loss: 0.01}
  - {at: 40us, pause: {node: spine1, port: 2, priority: 3, quanta: 500}}
variants:
  - {name: v, transport: rocev2}
  - {name: u, transport: uet, set: {switch.pfc.enabled: false, switch.trimming.enabled: true, switch.ecn.enabled: true}}
`
	f, problems, _ := scenarios.Load("p.yaml", []byte(y), nil)
	require.Empty(t, problems)
	one, _ := documentOn(t, f, 1)
	for _, n := range []int{2, 3} {
		got, doc := documentOn(t, f, n)
		t.Logf("%d threads: %d partitions", n, doc.Variants[0].Parallel.Partitions)
		if !bytes.Equal(one, got) {
			t.Fatalf("%d threads differ:\n%s", n, lineDiff(string(one), string(got), 20))
		}
	}
}
