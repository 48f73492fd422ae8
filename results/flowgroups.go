package results

import (
	"fmt"
	"image/color"
	"sort"

	"gonum.org/v1/plot/vg"
)

// flowGroups is how a run's throughput and goodput figures draw its flows, alike in every
// panel: a line per flow when no variant has more than maxPlotLines flows that delivered
// anything, else a line (or a bundle of thin lines) per group of flows (a traffic item's
// label), each group one colour and one legend label in every panel, whatever its size in
// each variant (a job of 32 queue pairs in one, 64 in another), and a group of at most
// namedFlows flows in every variant (a flow the scenario names: the victim) a line per flow.
type flowGroups struct {
	byGroup bool
	place   map[string]int    // a group's place among the run's groups, from 0: its colour
	label   map[string]string // a group's legend label ("gradients: 32 to 64 queue pairs")
	most    map[string]int    // the most flows the group has in one variant
	// flows is each flow's place among the run's flows by name (flowNames), from 0: its
	// colour and dash in every figure and panel of the run, whatever its id in each
	// variant (a job's queue pairs come first, so a variant of more takes later ids).
	flows map[string]int
}

// runFlowGroups is the flowGroups of the run of variants vs: the groups in the order their
// first flows appear, each labelled with its name and size (the range over the variants).
func runFlowGroups(vs []*Variant) *flowGroups {
	g := &flowGroups{place: map[string]int{}, label: map[string]string{}, most: map[string]int{}, flows: map[string]int{}}
	least := map[string]int{}
	qps := map[string]bool{} // every flow of the group a collective's queue pair
	var order []string
	for _, v := range vs {
		if s := v.Series; s != nil {
			active := 0
			for i := range s.Flows {
				if b := s.Flows[i].DeliveredBytes; len(b) > 0 && b[len(b)-1] > 0 {
					active++
				}
			}
			g.byGroup = g.byGroup || active > maxPlotLines
		}
		names := flowNames(v)
		for i := range v.PerFlow {
			n := names[v.PerFlow[i].ID]
			if _, ok := g.flows[n]; !ok {
				g.flows[n] = len(g.flows)
			}
		}
		count := map[string]int{}
		for i := range v.PerFlow {
			f := &v.PerFlow[i]
			if _, ok := g.place[f.Group]; !ok {
				g.place[f.Group] = len(order)
				order = append(order, f.Group)
				qps[f.Group] = true
			}
			count[f.Group]++
			qps[f.Group] = qps[f.Group] && f.QueuePair
		}
		for name, n := range count {
			g.most[name] = max(g.most[name], n)
			if l, ok := least[name]; !ok || n < l {
				least[name] = n
			}
		}
	}
	for _, name := range order {
		what := "flows"
		if qps[name] {
			what = "queue pairs"
		}
		size := fmt.Sprintf("%d %s", g.most[name], what)
		if least[name] != g.most[name] {
			size = fmt.Sprintf("%d to %d %s", least[name], g.most[name], what)
		}
		g.label[name] = groupOrAll(name) + ": " + size
	}
	return g
}

// flowGroupsOf is v's run's flowGroups (Figures sets them), or v's own for a figure drawn on
// its own.
func flowGroupsOf(v *Variant) *flowGroups {
	if v.groups != nil {
		return v.groups
	}
	return runFlowGroups([]*Variant{v})
}

// members are the places in v's series of the flows that delivered anything, by group, in
// the run's order of groups.
func (g *flowGroups) members(v *Variant, flows map[int]*Flow) (order []string, idx map[string][]int) {
	idx = map[string][]int{}
	s := v.Series
	for i := range s.Flows {
		b := s.Flows[i].DeliveredBytes
		if len(b) == 0 || b[len(b)-1] == 0 {
			continue
		}
		name := ""
		if fl := flows[s.Flows[i].Flow]; fl != nil {
			name = fl.Group
		}
		if _, ok := idx[name]; !ok {
			order = append(order, name)
		}
		idx[name] = append(idx[name], i)
	}
	sort.SliceStable(order, func(a, b int) bool { return g.place[order[a]] < g.place[order[b]] })
	return order, idx
}

// flowNames names each flow of v in a legend (flowLabel), the flows that would read alike
// (one source, destination and group: an incast repeated) told apart by their order, "#2"
// the second of them by id: the same name for a flow in every panel of a run (its id may
// differ between variants), and no two flows under one name.
func flowNames(v *Variant) map[int]string {
	names := make(map[int]string, len(v.PerFlow))
	uses := map[string]int{}
	ids := make([]int, 0, len(v.PerFlow))
	for i := range v.PerFlow {
		f := &v.PerFlow[i]
		names[f.ID] = flowLabel(f.ID, f)
		uses[names[f.ID]]++
		ids = append(ids, f.ID)
	}
	sort.Ints(ids)
	nth := map[string]int{}
	for _, id := range ids {
		if n := names[id]; uses[n] > 1 {
			nth[n]++
			names[id] = fmt.Sprintf("%s #%d", n, nth[n])
		}
	}
	return names
}

// flowStyle is the colour and dash of the flow named name (id in its variant): its place
// among the run's flows (flowStyle's in turn), or its id's for a flow the run does not name.
func (g *flowGroups) flowStyle(name string, id int) (color.Color, []vg.Length) {
	if k, ok := g.flows[name]; ok {
		return flowStyle(k + 1)
	}
	return flowStyle(id)
}

// flowName is flow id's name in names, or flowLabel's when it has none.
func flowName(names map[int]string, id int, f *Flow) string {
	if n, ok := names[id]; ok {
		return n
	}
	return flowLabel(id, f)
}
