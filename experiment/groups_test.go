package experiment

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/results"
)

// TestLinksSayTheirGroups (issue 38, point 5): on a rail fabric with two planes, every link
// of the time series says its plane, rail and scale-up domain as the nodes' names give them
// (a GPU s<S>g<G> is on rail G, a plane's switches are named p<P>..., a scale-up switch
// nv<D> is domain D; a link between switches is in no group), and each group's links carry,
// by the last sample, what link_groups sums for it.
func TestLinksSayTheirGroups(t *testing.T) {
	text := fmt.Sprintf(railPair, "s2g2")
	f := load(t, text, "topology.params.planes=2", "traffic.0.flow.size=4MB", "hosts.plane_spread=packet", "transports.rocev2.recovery=irn")
	doc, err := RunFileWith(f, nil, Options{Workers: 1, Series: true, Threads: 1})
	require.NoError(t, err)
	v := &doc.Variants[0]
	require.NotEmpty(t, v.LinkGroups)
	gpu := regexp.MustCompile(`^s([0-9]+)g([0-9]+)$`)
	plane := regexp.MustCompile(`^p([0-9]+)`)
	scaleup := regexp.MustCompile(`^nv([0-9]+)$`)
	num := func(m []string) int { n, _ := strconv.Atoi(m[len(m)-1]); return n }
	sums := map[string]int64{}
	for _, l := range v.Series.Links {
		var want results.LinkSeries
		for _, end := range []string{l.From, l.To} {
			if m := gpu.FindStringSubmatch(end); m != nil {
				want.Rail = num(m)
			}
		}
		for _, end := range []string{l.From, l.To} {
			if m := scaleup.FindStringSubmatch(end); m != nil {
				want.ScaleUp, want.Rail = num(m), 0
			}
			if m := plane.FindStringSubmatch(end); m != nil && want.Rail > 0 {
				want.Plane = num(m)
			}
		}
		require.Equal(t, [3]int{want.Plane, want.Rail, want.ScaleUp}, [3]int{l.Plane, l.Rail, l.ScaleUp}, "%s -> %s", l.From, l.To)
		last := l.WireBytes[len(l.WireBytes)-1]
		for kind, n := range map[string]int{"plane": l.Plane, "rail": l.Rail, "scaleup": l.ScaleUp} {
			if n > 0 {
				sums[fmt.Sprintf("%s %d", kind, n)] += last
			}
		}
	}
	for _, kind := range []string{"plane 2", "rail 2", "scaleup 1"} {
		require.Positive(t, sums[kind], "some link is in %s and carried bytes", kind)
	}
	for _, g := range v.LinkGroups {
		// link_groups counts to the end of the run, the series to its last sample: the
		// sampler takes one at the end, so the two agree.
		require.Equal(t, g.WireBytes, sums[fmt.Sprintf("%s %d", g.Kind, g.Index)], "%s %d", g.Kind, g.Index)
	}
}
