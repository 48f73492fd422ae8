package scenarios

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/transports/frames"
)

const twoHosts = `version: 1
name: msgs
stop: 1ms
topology: {preset: star, params: {hosts: 4, link: {rate: 100Gbps}}}
traffic:
  - flow: {src: h1, dst: h2, size: 1MB, start: 0us, transport: rocev2}
`

// TestMessagesSayWhatIsWrong pins the wording of problems that used to mislead.
func TestMessagesSayWhatIsWrong(t *testing.T) {
	for _, c := range []struct {
		name, file string
		want       []string // each problem, as Error() formats it, in order
	}{
		{"duplicate stop is one problem", strings.Replace(twoHosts, "stop: 1ms\n", "stop: 1ms\nstop: 2ms\n", 1),
			[]string{`f.yaml:4:1: stop: field "stop" is given twice (first at line 3); remove one`}},
		{"invalid stop, no warning about starts", strings.Replace(twoHosts, "stop: 1ms", "stop: 0ms", 1),
			[]string{"f.yaml:3:7: stop: stop must be > 0, e.g. stop: 10ms"}},
		{"exponent", strings.Replace(twoHosts, "100Gbps", "1e30Tbps", 1),
			[]string{`f.yaml:4:58: topology.params.link.rate: rate "1e30Tbps": an exponent (e30) is not allowed; write the number out with its unit, e.g. 100Gbps (units: bps, Kbps, Mbps, Gbps, Tbps)`}},
		{"binary input has a position", "version: 1\nname: x\x00y\n",
			[]string{"f.yaml:2:8: control character 0x00: a scenario file is text"}},
		{"invalid UTF-8 has a position", "version: 1\nname: \xff\n",
			[]string{"f.yaml:2:7: byte 0xff is not UTF-8: a scenario file is UTF-8 text"}},
		{"node bound", strings.Replace(twoHosts, "hosts: 4,", "hosts: 131072,", 1),
			[]string{"f.yaml:4:42: topology.params.hosts: the run is too large: 131,073 nodes, more than 131,072; "}},
		{"islands", `version: 1
name: islands
topology:
  nodes:
    - {name: h1, type: host, subnet: 10.0.1.0/24}
    - {name: h2, type: host, subnet: 10.0.1.0/24}
    - {name: sw1, type: switch}
    - {name: sw2, type: switch}
    - {name: sw3, type: switch}
  links:
    - {between: [h1, sw1], rate: 100Gbps}
    - {between: [h2, sw2], rate: 100Gbps}
traffic:
  - flow: {src: h1, dst: h2, size: 1MB, transport: rocev2}
`, []string{"f.yaml:11:5: topology.links: the fabric is in 3 islands that no link joins: {h1, sw1}, {h2, sw2} and {sw3}; link them, or remove the nodes no traffic uses"}},
		{"unknown destination after a node problem", `version: 1
name: unknown
topology:
  nodes:
    - {name: h1, type: host, subnet: 10.0.1.0/24}
    - {name: h2, type: hots, subnet: 10.0.1.0/24}
    - {name: sw1, type: switch}
  links:
    - {between: [h1, sw1], rate: 100Gbps}
    - {between: [h2, sw1], rate: 100Gbps}
traffic:
  - flow: {src: h1, dst: h9, size: 1MB, transport: rocev2}
`, []string{
			`f.yaml:6:24: topology.nodes.1.type: unknown node type "hots" (did you mean "host"?) (allowed: host, switch)`,
			`f.yaml:12:26: traffic.0.flow.dst: unknown host "h9" (did you mean "h1"? hosts: h1)`,
		}},
		{"rate 0 is no line rate", strings.Replace(twoHosts, "transport: rocev2}", "transport: rocev2, rate: 0}", 1),
			[]string{"f.yaml:6:78: traffic.0.flow.rate: rate must be > 0: omit rate for line rate, or give a pace such as rate: 8Gbps"}},
		{"empty label", strings.Replace(twoHosts, "transport: rocev2}", "transport: rocev2, label: ''}", 1),
			[]string{`f.yaml:6:79: traffic.0.flow.label: label "" is empty: a label is 1 to 64 bytes of printable text naming the item's flows, e.g. label: background (omit it for "flow 0")`}},
		{"label with a tab", strings.Replace(twoHosts, "transport: rocev2}", `transport: rocev2, label: "a\tb"}`, 1),
			[]string{`f.yaml:6:79: traffic.0.flow.label: label "a\tb" holds the unprintable character U+0009: a label is 1 to 64 bytes of printable text naming the item's flows, e.g. label: background (omit it for "flow 0")`}},
		{"long label", strings.Replace(twoHosts, "transport: rocev2}", "transport: rocev2, label: "+strings.Repeat("x", 65)+"}", 1),
			[]string{`f.yaml:6:79: traffic.0.flow.label: label "` + strings.Repeat("x", 65) + `" is 65 bytes long: a label is 1 to 64 bytes of printable text naming the item's flows, e.g. label: background (omit it for "flow 0")`}},
		// Issue 34, point 7: ESC, BEL and bidirectional overrides reached the terminal,
		// summary.md and report.html raw (a variant name turned the table red).
		{"escape in the description", strings.Replace(twoHosts, "stop: 1ms\n", "stop: 1ms\ndescription: \"a \\e[31mred\\e[0m one\"\n", 1),
			[]string{"f.yaml:4:14: description: description holds the character U+001B, which a terminal, summary.md or report.html would not show as itself"}},
		{"bidi override in the description", strings.Replace(twoHosts, "stop: 1ms\n", "stop: 1ms\ndescription: \"left \\u202Eright\"\n", 1),
			[]string{"f.yaml:4:14: description: description holds the character U+202E"}},
		{"escape in a variant name", twoHosts + "variants:\n  - {name: \"x\\e[41my\"}\n",
			[]string{`f.yaml:8:12: variants.0.name: variant name "x\x1b[41my" holds the character U+001B, which a table, summary.md or report.html would not show as itself`}},
		{"bell in a variant name", twoHosts + "variants:\n  - {name: \"bell\\a\"}\n",
			[]string{`f.yaml:8:12: variants.0.name: variant name "bell\a" holds the character U+0007`}},
		// The range says 1TB, so TB is a unit; beyond the range, the range is the problem.
		{"collective of 1TB", strings.Replace(twoHosts, "flow: {src: h1, dst: h2, size: 1MB, start: 0us, transport: rocev2}", "collective: {op: allreduce, hosts: all, size: 1TB, transport: rocev2}", 1),
			nil},
		{"collective of 2TB", strings.Replace(twoHosts, "flow: {src: h1, dst: h2, size: 1MB, start: 0us, transport: rocev2}", "collective: {op: allreduce, hosts: all, size: 2TB, transport: rocev2}", 1),
			[]string{"f.yaml:6:51: traffic.0.collective.size: size is the bytes each rank holds, from 1B to 1TB; got 2000000000000 bytes"}},
		{"negative iterations are one problem", strings.Replace(twoHosts, "flow: {src: h1, dst: h2, size: 1MB, start: 0us, transport: rocev2}", "collective: {op: allreduce, hosts: all, size: 1MB, iterations: -1, transport: rocev2}", 1),
			[]string{"f.yaml:6:68: traffic.0.collective.iterations: iterations is 1 to 100000; got -1"}},
		{"no traffic names every kind", strings.Replace(twoHosts, "traffic:\n  - flow: {src: h1, dst: h2, size: 1MB, start: 0us, transport: rocev2}\n", "", 1),
			[]string{"f.yaml: traffic: traffic is required: a list of items, each one of flow, incast, permutation, poisson, all_to_all, collective or chakra"}},
		{"a route via a host", strings.Replace(routedTwo, "via: r2", "via: h1", 1),
			[]string{`f.yaml:13:44: topology.routes.0.via: "h1" is a host, and hosts do not forward: via is a neighbouring switch`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errs, warns := Load("f.yaml", []byte(c.file), nil)
			require.Empty(t, warns)
			require.Len(t, errs, len(c.want), "%v", errs)
			for i, w := range c.want {
				require.True(t, strings.HasPrefix(errs[i].Error(), w), "got %s\nwant %s", errs[i].Error(), w)
			}
		})
	}
}

// routedTwo is two routers in a line with a static route.
const routedTwo = `version: 1
name: routed
topology:
  nodes:
    - {name: h1, type: host, subnet: 10.0.1.0/24}
    - {name: h2, type: host, subnet: 10.0.2.0/24}
    - {name: r1, type: switch, layer: 3}
    - {name: r2, type: switch, layer: 3}
  links:
    - {between: [h1, r1], rate: 100Gbps}
    - {between: [r1, r2], rate: 100Gbps}
    - {between: [h2, r2], rate: 100Gbps}
  routes: [{at: r1, dst: 10.0.2.0/24, via: r2}]
traffic:
  - flow: {src: h1, dst: h2, size: 1MB, transport: rocev2}
`

// TestPauseOnALossyClassSaysWhy: a PFC fault on a class that is not lossless warns, and says
// which: PFC off altogether, or on for other priorities.
func TestPauseOnALossyClassSaysWhy(t *testing.T) {
	const pause = "faults:\n  - {at: 0, pause: {node: sw, port: 1, priority: 3, quanta: 100}}\n"
	for _, c := range []struct {
		sets []string
		want string
	}{
		{[]string{"switch.pfc.enabled=false"}, "class 3 is not lossless: PFC is off (switch.pfc.enabled: false), so switches ignore PFC frames for every class"},
		{[]string{"switch.pfc.enabled=true", "switch.pfc.priorities=[4]"}, "class 3 is not lossless (switch.pfc.priorities [4] do not hold it): switches ignore PFC frames for it"},
	} {
		var ovs []Override
		for _, set := range c.sets {
			o, err := ParseOverride(set)
			require.NoError(t, err)
			ovs = append(ovs, o)
		}
		_, errs, warns := Load("f.yaml", []byte(twoHosts+pause), ovs)
		require.Empty(t, errs)
		require.Len(t, warns, 1)
		col := strings.Index(pause, "priority: 3") - strings.Index(pause, "  - ") + len("priority: ") + 1
		require.Equal(t, fmt.Sprintf("f.yaml:8:%d: faults.0.pause.priority: %s", col, c.want), warns[0].Error())
	}
}

// TestTrafficLabels: every kind takes a label; without one an item is its kind and index.
func TestTrafficLabels(t *testing.T) {
	file := `version: 1
name: labels
stop: 1ms
topology: {preset: star, params: {hosts: 4, link: {rate: 100Gbps}}}
traffic:
  - flow: {src: h1, dst: h2, size: 1MB, transport: rocev2, label: victim}
  - incast: {senders: [h1, h2], receiver: h3, size: 1MB, transport: rocev2}
  - permutation: {hosts: all, size: 1MB, transport: rocev2, label: "perm é"}
  - poisson: {hosts: all, load: 0.1, workload: websearch, count: 5, transport: rocev2}
  - all_to_all: {hosts: [h1, h2], size: 1KB, transport: rocev2, label: victim}
`
	f, errs, _ := Load("f.yaml", []byte(file), nil)
	require.Empty(t, errs)
	sc := f.Scenario(0)
	var got []string
	for _, it := range sc.Traffic {
		got = append(got, it.Label)
	}
	require.Equal(t, []string{"victim", "incast 1", "perm é", "poisson 3", "victim"}, got)
	// --set reaches it as any field does.
	f, errs, _ = Load("f.yaml", []byte(file), []Override{{Path: "traffic.1.incast.label", Value: "burst"}})
	require.Empty(t, errs)
	require.Equal(t, "burst", f.Scenario(0).Traffic[1].Label)
	// A misspelt field offers label.
	_, errs, _ = Load("f.yaml", []byte(strings.Replace(file, "label: victim}", "lable: victim}", 1)), nil)
	require.NotEmpty(t, errs)
	require.Contains(t, errs[0].Error(), `did you mean "label"`)
}

// TestTrimmingBelowAFrameWarns (issue 34, point 7): a trimming threshold below one full frame
// of the traffic (a RoCE v2 WRITE First of MTU 1024: RoCEWireBytes(2, 1024, true)) makes every
// packet that meets a queue a trimmed one: a warning at the field, with the frame's size.
func TestTrimmingBelowAFrameWarns(t *testing.T) {
	frame := frames.RoCEWireBytes(2, 1024, true)
	for _, c := range []struct {
		threshold string
		warned    bool
	}{{"500B", true}, {fmt.Sprintf("%dB", frame-1), true}, {fmt.Sprintf("%dB", frame), false}, {"auto", false}} {
		file := strings.Replace(twoHosts, "traffic:", "switch: {trimming: {enabled: true, threshold: "+c.threshold+"}}\ntraffic:", 1)
		_, errs, warns := Load("f.yaml", []byte(file), nil)
		require.Empty(t, errs)
		if !c.warned {
			require.Empty(t, warns, c.threshold)
			continue
		}
		require.Len(t, warns, 1, c.threshold)
		require.Contains(t, warns[0].Error(), fmt.Sprintf("switch.trimming.threshold: threshold %s bytes is below one full frame of this traffic (%d bytes on the wire)", strings.TrimSuffix(c.threshold, "B"), frame))
	}
}
