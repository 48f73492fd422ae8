package scenarios

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// independentBase is a valid scenario that touches every part of the file, for
// TestProblemsAreIndependent's mutations.
const independentBase = `version: 1
name: combo
stop: 1ms
seed: 1
sample_interval: 10us
switch: {buffer: 1MB}
hosts: {priority: 3}
topology:
  nodes:
    - {name: h1, type: host, subnet: 10.0.1.0/24}
    - {name: h2, type: host, subnet: 10.0.1.0/24}
    - {name: h3, type: host, subnet: 10.0.1.0/24}
    - {name: h4, type: host, subnet: 10.0.1.0/24, ip: 10.0.1.4}
    - {name: sw, type: switch, layer: 2}
  links:
    - {between: [h1, sw], rate: 100Gbps, delay: 1us}
    - {between: [h2, sw], rate: 100Gbps, delay: 2us}
    - {between: [h3, sw], rate: 100Gbps, loss: 0}
    - {between: [h4, sw], rate: 100Gbps, delay: 4us}
traffic:
  - flow: {src: h1, dst: h2, size: 1MB, transport: rocev2}
  - flow: {src: h2, dst: h3, size: 2MB, transport: rocev2}
  - flow: {src: h3, dst: h4, size: 3MB, transport: rocev2}
  - incast: {senders: [h1, h2], receiver: h3, size: 4MB, transport: rocev2}
  - permutation: {hosts: all, size: 5MB, transport: rocev2}
faults:
  - {at: 10us, link: [h1, sw], state: down}
  - {at: 20us, pause: {node: h1, quanta: 100}}
variants:
  - {name: a}
  - {name: b, set: {switch.buffer: 2MB}}
`

// mutation turns the base into a file with one problem, at path, whose message holds msg.
type mutation struct {
	old, new  string
	path, msg string
}

var mutations = []mutation{
	{"version: 1", "version: 2", "version", "version 2 is not supported"},
	{"name: combo", "name: Combo", "name", `name "Combo" may hold only lower-case letters`},
	{"seed: 1\n", "seed: 1\nseed: 2\n", "seed", `field "seed" is given twice (first at line 4)`},
	{"sample_interval: 10us", "sample_interval: 10", "sample_interval", "has no unit"},
	{"{buffer: 1MB}", "{bufer: 1MB}", "switch.bufer", `unknown field "bufer"`},
	{"{priority: 3}", "{priority: 9}", "hosts.priority", ""},
	{"h1, type: host, subnet: 10.0.1.0/24", "h1, type: host, subnet: 10.0.1.1/24", "topology.nodes.0.subnet", "has host bits set"},
	{"h2, type: host", "h2, type: hots", "topology.nodes.1.type", `unknown node type "hots"`},
	{"ip: 10.0.1.4", "ip: 10.0.2.4", "topology.nodes.3.ip", "outside the host's subnet"},
	{"layer: 2", "layer: 4", "topology.nodes.4.layer", "layer is 2"},
	{"rate: 100Gbps, delay: 1us", "rate: 1e30Tbps, delay: 1us", "topology.links.0.rate", "an exponent (e30) is not allowed"},
	{"delay: 2us", "delay: 2 us s", "topology.links.1.delay", "unknown unit"},
	{"loss: 0}", "loss: 2}", "topology.links.2.loss", "probability"},
	{"delay: 4us}", "delay: 4us, colour: red}", "topology.links.3.colour", `unknown field "colour"`},
	{"dst: h2", "dst: h9", "traffic.0.flow.dst", `unknown host "h9"`},
	{"size: 2MB", "size: 0B", "traffic.1.flow.size", "size must be > 0"},
	{"size: 3MB, transport: rocev2", "size: 3MB, transport: roce", "traffic.2.flow.transport", `unknown transport "roce"`},
	{"senders: [h1, h2]", "senders: [h1, h1]", "traffic.3.incast.senders.1", "listed twice"},
	{"size: 5MB", "size: 5XB", "traffic.4.permutation.size", "unknown unit"},
	{"state: down", "state: sideways", "faults.0.state", `unknown state "sideways"`},
	{"quanta: 100", "quanta: 70000", "faults.1.pause.quanta", "quanta is 0 to 65535"},
	{"at: 20us", "at: 20", "faults.1.at", "has no unit"},
	{"{name: a}", "{name: b}", "variants.1.name", `variant name "b" is already used by variants.0`},
	{"{switch.buffer: 2MB}", "{name: x}", "variants.1.set.name", "a variant cannot set name"},
	{"variants:", "colour: red\nvariants:", "colour", `unknown field "colour" at the top level`},
}

// hintless drops the list of hosts an unknown-host message ends with: a node whose type is
// wrong is rightly not among them.
func hintless(msg string) string {
	before, _, _ := strings.Cut(msg, " (did you mean")
	return before
}

// TestProblemsAreIndependent: each mutation of a valid file alone gives exactly its problem,
// and all of them at once give all of their problems, each as it was alone: no problem hides
// or changes another.
func TestProblemsAreIndependent(t *testing.T) {
	_, errs, _ := Load("base.yaml", []byte(independentBase), nil)
	require.Empty(t, errs)
	require.GreaterOrEqual(t, len(mutations), 25)
	combined := independentBase
	var alone []string
	for _, m := range mutations {
		require.Equal(t, 1, strings.Count(combined, m.old), "%q must occur once", m.old)
		one := strings.Replace(independentBase, m.old, m.new, 1)
		combined = strings.Replace(combined, m.old, m.new, 1)
		_, errs, _ := Load("one.yaml", []byte(one), nil)
		require.Len(t, errs, 1, "%s: %v", m.new, errs)
		require.Equal(t, m.path, errs[0].Path, "%s: %v", m.new, errs)
		require.Contains(t, errs[0].Msg, m.msg)
		alone = append(alone, fmt.Sprintf("%s: %s", errs[0].Path, hintless(errs[0].Msg)))
	}
	_, errs, _ = Load("all.yaml", []byte(combined), nil)
	var got []string
	for _, p := range errs {
		got = append(got, fmt.Sprintf("%s: %s", p.Path, hintless(p.Msg)))
	}
	require.ElementsMatch(t, alone, got)
}
