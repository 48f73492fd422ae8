package experiment

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/scenarios"
)

const routedLine = `version: 1
name: routed
stop: 1ms
topology:
  nodes:
    - {name: h1, type: host, subnet: 10.0.1.0/24}
    - {name: h2, type: host, subnet: 10.0.2.0/24}
    - {name: r1, type: switch, layer: 3}
    - {name: r2, type: switch, layer: 3}
  links:
    - {between: [h1, r1], rate: 100Gbps, delay: 1us}
    - {between: [r1, r2], rate: 100Gbps, delay: 1us}
    - {between: [h2, r2], rate: 100Gbps, delay: 1us}
  routes:
    - {at: r1, dst: 10.0.2.0/24, via: r2}
traffic:
  - flow: {src: h1, dst: h2, size: 10KB, transport: rocev2}
faults:
  - {at: 0, link: [r1, r2], loss: 0.01}
`

// TestBuildErrorsNameFileLineAndColumn: a problem the builder finds (here made past the
// loader's checks by editing the resolved scenario) is placed at its item's line and column
// with its field path, as the loader's problems are: a static route's at the route, a
// fault's at the fault.
func TestBuildErrorsNameFileLineAndColumn(t *testing.T) {
	posOf := func(prefix string) (line, col int) {
		for i, l := range strings.Split(routedLine, "\n") {
			if strings.Contains(l, prefix) {
				return i + 1, strings.Index(l, "{") + 1
			}
		}
		t.Fatalf("no line with %q", prefix)
		return 0, 0
	}
	for _, c := range []struct {
		edit func(sc *scenarios.Scenario)
		item string // the item's line in the file
		path string
		msg  string
	}{
		{func(sc *scenarios.Scenario) { sc.Topology.Routes[0].Via = "h1" }, "{at: r1, dst:", "topology.routes.0",
			"static route at r1 via h1: h1 is a host, and hosts do not forward"},
		{func(sc *scenarios.Scenario) { sc.Faults[0].Link = [2]string{"h1", "h2"} }, "{at: 0, link:", "faults.0",
			"fault at 0ps: no link between h1 and h2"},
	} {
		f, errs, _ := scenarios.Load("routed.yaml", []byte(routedLine), nil)
		require.Empty(t, errs)
		c.edit(f.Scenario(0))
		_, err := Check(f)
		var be *BuildError
		require.True(t, errors.As(err, &be), "%v", err)
		line, col := posOf(c.item)
		require.Equal(t, scenarios.Pos{Line: line, Column: col}, be.Pos)
		require.Equal(t, c.path, be.Path)
		require.Equal(t, fmt.Sprintf("routed.yaml:%d:%d: %s: %s", line, col, c.path, c.msg), err.Error())
	}
}
