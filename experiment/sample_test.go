package experiment

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/results"
)

// TestSeriesColumnsAgreeWithTheCounters checks the sampler's columns against the counters
// the results document reads from the model at the end, on bundled scenarios where switch
// ports, switch-to-switch links and NICs are paused: every column has a sample per time;
// a pause column names a port-class the document says was paused, ends at its paused time
// and never decreases, and every paused port-class has one; a queue column names a queue the
// document lists and stays within its maximum; an ingress column names a lossless
// port-class with the same XOFF and stays within its maximum. A column filed under the wrong
// port, class or node fails it.
func TestSeriesColumnsAgreeWithTheCounters(t *testing.T) {
	slow(t, "every bundled scenario with its time series")
	for _, name := range []string{"pfc-storm", "victim-flow", "incast-pfc"} {
		t.Run(name, func(t *testing.T) {
			doc := runBundledWithSeries(t, name)
			paused := 0
			for i := range doc.Variants {
				v := &doc.Variants[i]
				ss := v.Series
				require.NotNil(t, ss, v.Name)
				n := ss.Len()
				require.Positive(t, n, v.Name)

				type portClass struct {
					node, peer string
					port, prio int
				}
				pfc := map[portClass]*results.PFCPort{}
				for k := range v.PFCPorts {
					p := &v.PFCPorts[k]
					pfc[portClass{p.Node, p.Peer, p.Port, p.Priority}] = p
				}
				seen := map[portClass]bool{}
				for _, c := range ss.Pauses {
					key := portClass{c.Node, c.Peer, c.Port, c.Priority}
					require.False(t, seen[key], "%s: two pause columns for %+v", v.Name, key)
					seen[key] = true
					require.Equal(t, n, len(c.PausedUS), "%s: %+v", v.Name, key)
					require.True(t, slices.IsSorted(c.PausedUS), "%s: %+v: paused time went down", v.Name, key)
					p := pfc[key]
					require.NotNil(t, p, "%s: a pause column for %+v, which the document has no PFC entry for", v.Name, key)
					require.InDelta(t, p.PausedUS, c.PausedUS[n-1], 1e-9, "%s: %+v", v.Name, key)
				}
				for key, p := range pfc {
					if p.PausedUS > 0 {
						paused++
						require.True(t, seen[key], "%s: %+v was paused %.3f us but has no pause column", v.Name, key, p.PausedUS)
					}
				}

				queues := map[portClass]results.Queue{}
				for _, q := range v.Queues {
					queues[portClass{node: q.Node, port: q.Port, prio: q.Priority}] = q
				}
				seenQ := map[portClass]bool{}
				for _, c := range ss.Queues {
					key := portClass{node: c.Node, port: c.Port, prio: c.Priority}
					require.False(t, seenQ[key], "%s: two queue columns for %+v", v.Name, key)
					seenQ[key] = true
					require.Equal(t, n, len(c.Bytes), "%s: %+v", v.Name, key)
					q, ok := queues[key]
					require.True(t, ok, "%s: a queue column for %+v, which never held a frame", v.Name, key)
					require.LessOrEqual(t, slices.Max(c.Bytes), q.MaxBytes, "%s: %+v", v.Name, key)
					require.Positive(t, slices.Max(c.Bytes), "%s: %+v: a column for a queue never seen holding a frame", v.Name, key)
				}

				for _, c := range ss.Ingress {
					key := portClass{c.Node, c.Peer, c.Port, c.Priority}
					require.Equal(t, n, len(c.Bytes), "%s: %+v", v.Name, key)
					p := pfc[key]
					if p == nil {
						// A lossless port-class that held frames but never paused nor was
						// paused is not in the document's PFC list.
						continue
					}
					require.Equal(t, p.XoffBytes, c.XoffBytes, "%s: %+v", v.Name, key)
					require.LessOrEqual(t, slices.Max(c.Bytes), p.IngressMaxBytes, "%s: %+v", v.Name, key)
				}
			}
			require.Positive(t, paused, "the scenario pauses something")
		})
	}
}
