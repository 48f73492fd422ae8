package results

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestJobTimeline: a panel per variant whose job recorded its ranks' steps, the ranks named
// on y with their hosts, x from the iteration's start to the last bar's end; each step's
// slowest rank and the iteration's slowest bar found; no record, no figure, and why.
func TestJobTimeline(t *testing.T) {
	slow := 7.0
	job := func() Job {
		j := Job{Label: "g", Ranks: 2, RankHosts: []string{"h1", "h2"}, PerIteration: []JobIteration{{
			StepSlowestRank: []int{1, 0}, SlowestStep: 1, SlowestRank: 0, SlowestStepUS: &slow}}}
		j.RankSteps = []RankStep{{0, 0, 0, 2, true}, {0, 1, 2, 9, true}, {1, 0, 0, 3, true}, {1, 1, 3, 5, true}}
		return j
	}
	d := &Document{Scenario: "s", Variants: []Variant{{Name: "A", Jobs: []Job{job()}}, {Name: "B", Jobs: []Job{job()}}}}
	f, why, err := jobTimelineFigure(d)
	require.NoError(t, err)
	require.NotNil(t, f, why)
	require.Equal(t, "jobs-timeline", f.Name)
	require.Len(t, f.Panels(), 2)
	p := f.Panels()[0]
	_, y, _, named := p.TickLabels()
	require.True(t, named)
	require.Equal(t, []string{"0 h1", "1 h2"}, y)
	for _, c := range p.Curves {
		require.Equal(t, "rank steps", c.Label)
	}
	bars := p.timeline
	require.Equal(t, map[int]int{0: 1, 1: 0}, bars.slowest)
	require.Equal(t, 1, bars.worst, "rank 0's step 1, 7 us")
	x0, x1, _, _ := bars.DataRange()
	require.Equal(t, [2]float64{0, 9}, [2]float64{x0, x1})

	d.Variants[0].Jobs[0].RankSteps, d.Variants[1].Jobs[0].RankSteps = nil, nil
	f, why, err = jobTimelineFigure(d)
	require.NoError(t, err)
	require.Nil(t, f)
	require.Contains(t, why, "larger jobs keep no per-rank record")
}
