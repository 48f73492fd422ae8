package experiment

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/scenarios"
)

// A pause fault on a switch port facing another switch, before any flow starts: the frame
// crosses partitions from a global event before the first window.
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

func TestProbeEarlyGlobalCrossing(t *testing.T) {
	f, problems, _ := scenarios.Load("probe.yaml", []byte(probeEarlyPause), nil)
	require.Empty(t, problems)
	one, _ := documentOn(t, f, 1)
	two, doc := documentOn(t, f, 2)
	t.Logf("partitions on 2: %d", doc.Variants[0].Parallel.Partitions)
	if !bytes.Equal(one, two) {
		t.Fatalf("differs:\n%s", lineDiff(string(one), string(two), 20))
	}
}
