package results

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// jobVariant is a variant of 100 us whose job "gradients" has qps queue pairs, each
// delivering 1 KB per us, beside one flow "victim" (id 1, h1->h2) delivering 2 KB per us.
func jobVariant(name string, qps int) Variant {
	s := &Series{IntervalUS: 0.5}
	v := Variant{Name: name, Series: s, PerFlow: []Flow{{ID: 1, Src: "h1", Dst: "h2", Group: "victim"}}}
	for k := range 201 {
		s.TimesUS = append(s.TimesUS, float64(k)/2)
	}
	for id := 1; id <= qps+1; id++ {
		fs := FlowSeries{Flow: id}
		for _, t := range s.TimesUS {
			per := 1e3
			if id == 1 {
				per = 2e3
			}
			fs.DeliveredBytes = append(fs.DeliveredBytes, int64(t*per))
		}
		s.Flows = append(s.Flows, fs)
		if id > 1 {
			v.PerFlow = append(v.PerFlow, Flow{ID: id, Src: fmt.Sprintf("h%d", id+10), Dst: "h3", Group: "gradients", QueuePair: true})
		}
	}
	return v
}

// TestGroupsAreOneIdentityAcrossPanels: a job of 11 queue pairs in one variant and 13 in
// the other is one legend entry, "gradients: 11 to 13 queue pairs", one colour in both
// panels, its line the sum (11 or 13 KB per us, 88 or 104 Gb/s); the victim keeps a line
// of its own, the same in both.
func TestGroupsAreOneIdentityAcrossPanels(t *testing.T) {
	d := &Document{Scenario: "s", Variants: []Variant{jobVariant("A", 11), jobVariant("B", 13)}}
	figs, _, err := Figures(d)
	require.NoError(t, err)
	var gp *Figure
	for _, f := range figs {
		if f.Name == "goodput" {
			gp = f
		}
	}
	require.NotNil(t, gp)
	require.Equal(t, []string{"h1->h2 (victim)", "gradients: 11 to 13 queue pairs"}, gp.LegendLabels())
	colour := map[string]string{}
	sums := map[int]float64{}
	for _, c := range gp.Curves {
		if want, ok := colour[c.Label]; ok {
			require.Equal(t, want, c.Style().Color, c.Label)
		}
		colour[c.Label] = c.Style().Color
		if c.Label == "gradients: 11 to 13 queue pairs" {
			sums[c.Panel] = c.MaxY
		}
	}
	// 1 KB per us is 8 Gb/s a queue pair.
	require.InDelta(t, 11*8, sums[0], 1e-9)
	require.InDelta(t, 13*8, sums[1], 1e-9)
}

// TestFlowsThatReadAlikeAreTold: flows of one source, destination and group (an incast
// repeated) are named apart by their order; a flow of one name is drawn alike in two
// variants where its id differs (a job's queue pairs before it, more in one variant).
func TestFlowsThatReadAlikeAreTold(t *testing.T) {
	v := &Variant{PerFlow: []Flow{{ID: 3, Src: "h4", Dst: "h1", Group: "short"}, {ID: 4, Src: "h4", Dst: "h1", Group: "short"}, {ID: 5, Src: "h2", Dst: "h1"}}}
	require.Equal(t, map[int]string{3: "h4->h1 (short) #1", 4: "h4->h1 (short) #2", 5: "h2->h1"}, flowNames(v))
}

func TestFlowStyleFollowsTheName(t *testing.T) {
	a := &Variant{PerFlow: []Flow{{ID: 1, Src: "h1", Dst: "h2", Group: "job", QueuePair: true}, {ID: 2, Src: "h5", Dst: "h6", Group: "web"}}}
	b := &Variant{PerFlow: []Flow{{ID: 1, Src: "h1", Dst: "h2", Group: "job", QueuePair: true}, {ID: 2, Src: "h2", Dst: "h1", Group: "job", QueuePair: true},
		{ID: 3, Src: "h5", Dst: "h6", Group: "web"}}}
	g := runFlowGroups([]*Variant{a, b})
	ca, da := g.flowStyle(flowNames(a)[2], 2)
	cb, db := g.flowStyle(flowNames(b)[3], 3)
	require.Equal(t, ca, cb)
	require.Equal(t, da, db)
}
