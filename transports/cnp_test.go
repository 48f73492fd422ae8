package transports_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/ecn"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports"
)

// ceMarker stands in for a congestion point in front of a NIC: it marks CE the data packets
// mark chooses.
type ceMarker struct {
	next topology.Receiver
	mark func(p *topology.Packet) bool
}

func (m *ceMarker) Receive(now sim.Time, p *topology.Packet, port int) {
	if p.Kind == topology.KindData && m.mark(p) {
		p.ECN = topology.ECNCE
	}
	m.next.Receive(now, p, port)
}

func TestNotificationPointOnTheWire(t *testing.T) {
	// Flows from h1 to h2 with DCQCN; a few early packets of each flow arrive CE-marked, all
	// within the first CNP interval. The responder's CNPs (their send times) show the rule:
	// the paper's answers the first mark at once and the later ones at the interval's end;
	// immediate-only only the first. With per-port pacing a second flow's first mark, which
	// finds the port's pacer busy, waits for the end of the port's interval (paper) or is
	// forgotten (immediate-only).
	n := ecn.PaperParams().CNPInterval
	for _, tc := range []struct {
		name  string
		rule  ecn.NPRule
		port  bool
		flows int
		// want lists the CNPs as (flow, offset from the first marked arrival, in intervals).
		want [][2]int
	}{
		{"paper per flow", ecn.NPPaper, false, 1, [][2]int{{0, 0}, {0, 1}}},
		{"immediate-only per flow", ecn.NPImmediateOnly, false, 1, [][2]int{{0, 0}}},
		{"paper per port", ecn.NPPaper, true, 2, [][2]int{{0, 0}, {1, 1}, {0, 2}}},
		{"immediate-only per port", ecn.NPImmediateOnly, true, 2, [][2]int{{0, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, defaultLink())
			marked := map[uint32]bool{0: true, 5: true, 10: true}
			h.at2.next = &ceMarker{next: h.nic2, mark: func(p *topology.Packet) bool { return marked[p.PSN] }}
			p := ecn.PaperParams()
			p.NP, p.PortPacing = tc.rule, tc.port
			cfg := defaultConfig()
			cfg.CC = (*transports.DCQCNParams)(&p)
			for range tc.flows {
				h.add(&transports.Flow{Src: h.h1, Dst: h.h2, Size: 64 * mtu}, cfg)
			}
			h.run()
			first := sim.Never
			for _, a := range h.at2.of(topology.KindData, -1) {
				if marked[a.psn] {
					first = min(first, a.at)
				}
			}
			var got [][2]int
			for _, a := range h.at1.of(topology.KindCNP, -1) {
				off := a.sentAt - first
				require.Zero(t, off%n, "CNP of flow %d sent %v after the first mark: not on a window's end", a.flow, off)
				got = append(got, [2]int{int(a.flow), int(off / n)})
			}
			require.Equal(t, tc.want, got)
		})
	}
}
