package results

import (
	"fmt"
	"sort"
)

// spreadRow is one paused sending port-class of a pause-spreading view: its pause series,
// the sample interval in which it was first paused and how much of that interval, and its
// hops from the congested node (-1: not connected to it through a link that carried a frame).
type spreadRow struct {
	series int
	first  int     // the first sample k whose interval (k-1, k] holds paused time (0: paused by the first sample)
	share  float64 // us paused in that interval
	total  float64 // us paused over the run
	hops   int
	label  string
}

// pauseSpread orders the paused sending port-classes of v's series by their hops from the
// congested node, the node whose PAUSE took effect first. That is the peer of the root, the
// port-class first paused: the one whose paused time starts in the earliest sample interval;
// among those paused first in one interval, the one paused longest in it (it was paused
// earlier in it, or without a break), then the one paused longest over the run, then by
// name. A row's hops are those from the congested node to the row's node along the links
// that carried a frame, so the root is 1 hop away and a pause that spread one switch further
// upstream 2. Rows come nearest first, then by when they were first paused; rows not
// connected to the congested node come last. It returns the rows and the congested node.
func pauseSpread(v *Variant) (rows []spreadRow, congested string) {
	s := v.Series
	for i := range s.Pauses {
		p := s.Pauses[i].PausedUS
		r := spreadRow{series: i, first: -1, total: p[len(p)-1], label: pauseLabel(&s.Pauses[i])}
		for k, x := range p {
			prev := 0.0
			if k > 0 {
				prev = p[k-1]
			}
			if x > prev {
				r.first, r.share = k, x-prev
				break
			}
		}
		if r.first >= 0 {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return nil, ""
	}
	earlier := func(a, b spreadRow) bool {
		if a.first != b.first {
			return a.first < b.first
		}
		if a.share != b.share {
			return a.share > b.share
		}
		if a.total != b.total {
			return a.total > b.total
		}
		return a.label < b.label
	}
	root := rows[0]
	for _, r := range rows[1:] {
		if earlier(r, root) {
			root = r
		}
	}
	congested = s.Pauses[root.series].Peer
	hops := linkHops(v, congested)
	for i := range rows {
		h, ok := hops[s.Pauses[rows[i].series].Node]
		if !ok {
			h = -1
		}
		rows[i].hops = h
	}
	sort.SliceStable(rows, func(a, b int) bool {
		ha, hb := rows[a].hops, rows[b].hops
		if (ha < 0) != (hb < 0) {
			return hb < 0
		}
		if ha != hb {
			return ha < hb
		}
		return earlier(rows[a], rows[b])
	})
	return rows, congested
}

// linkHops is the hops from node from to every node it reaches along v's links that carried
// a frame (either direction) or that a pause crossed (pause series: node and peer).
func linkHops(v *Variant, from string) map[string]int {
	adj := map[string][]string{}
	edge := func(a, b string) { adj[a], adj[b] = append(adj[a], b), append(adj[b], a) }
	for _, l := range v.Links {
		edge(l.From, l.To)
	}
	if v.Series != nil {
		for _, p := range v.Series.Pauses {
			edge(p.Node, p.Peer)
		}
	}
	return hopsFrom(adj, []string{from})
}

// hopsFrom is, for every node adj reaches from sources, its hops from the nearest source
// (breadth first): 0 for the sources themselves.
func hopsFrom(adj map[string][]string, sources []string) map[string]int {
	hops := map[string]int{}
	var queue []string
	for _, n := range sources {
		if _, seen := hops[n]; !seen {
			hops[n] = 0
			queue = append(queue, n)
		}
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, m := range adj[n] {
			if _, seen := hops[m]; !seen {
				hops[m] = hops[n] + 1
				queue = append(queue, m)
			}
		}
	}
	return hops
}

// keepSpreadRows keeps at most n of rows, taking in turn the first row left of each hop
// distance, nearest first, so that every distance the pauses reached stays in the view; the
// rows kept stay in rows' order.
func keepSpreadRows(rows []spreadRow, n int) []spreadRow {
	if len(rows) <= n {
		return rows
	}
	var groups [][]int // row indices by distance, in rows' order
	for i, r := range rows {
		if i == 0 || r.hops != rows[i-1].hops {
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], i)
	}
	keep := make([]bool, len(rows))
	for taken := 0; taken < n; {
		for g := range groups {
			if taken < n && len(groups[g]) > 0 {
				keep[groups[g][0]] = true
				groups[g] = groups[g][1:]
				taken++
			}
		}
	}
	var out []spreadRow
	for i, r := range rows {
		if keep[i] {
			out = append(out, r)
		}
	}
	return out
}

// spreadFigure is the pause-spreading view: a row per paused sending port-class, the ones
// nearest the congested node at the top, shaded where each was paused (pauseSpread).
func spreadFigure(v *Variant) (*Figure, string, error) {
	s := v.Series
	if len(s.Pauses) == 0 || s.Len() < 2 {
		return nil, "no port-class was paused at any sample (no PFC frame took effect)", nil
	}
	rows, congested := pauseSpread(v)
	if len(rows) == 0 {
		return nil, "no port-class was paused at any sample (no PFC frame took effect)", nil
	}
	caption := fmt.Sprintf("How the pauses spread: a row per sending port-class a PFC frame paused, shaded over each sample interval in which it was paused (darker the larger the share), ordered by its hops from the congested node, %s: the peer of the port-class paused first (its paused time starts in the earliest sample interval; a tie goes to the one paused longest in that interval). Nearest at the top; within a distance, by when each was first paused.", congested)
	if kept := keepSpreadRows(rows, maxTimelineRows); len(kept) < len(rows) {
		caption += fmt.Sprintf(" %d of the %d paused port-classes, the first paused at each distance in turn.", len(kept), len(rows))
		rows = kept
	}
	f := newFigure("pause-spread-", v.Name, v.Name+": how the pauses spread from "+congested, "", "port-class paused, by hops from "+congested)
	f.Caption = caption
	// The nearest row at the top: addPauseRows draws from the bottom up.
	idx := make([]int, len(rows))
	labels := make([]string, len(rows))
	for y := range rows {
		r := rows[len(rows)-1-y]
		idx[y] = r.series
		hops := "?"
		if r.hops >= 0 {
			hops = fmt.Sprint(r.hops)
		}
		labels[y] = hops + " hop: " + r.label
		if r.hops != 1 {
			labels[y] = hops + " hops: " + r.label
		}
	}
	addPauseRows(f, v, idx, labels)
	return f, "", nil
}
