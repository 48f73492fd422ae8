package results

// OneFlowGroups names, in the tables and slowdown_by_size, the flows of traffic items of one
// flow each, put together when there are more than maxOneFlowGroups such items (a
// benchmark's 128 unlabelled flow items): a group per flow would be a row per flow, or five
// mostly empty size bins per flow, saying nothing per_flow does not.
const OneFlowGroups = "(items of one flow)"

// maxOneFlowGroups is the most groups of one flow that keep a row each (tradeoff's victim and
// background flows, each its own item): the lines a plot draws (maxPlotLines).
const maxOneFlowGroups = maxPlotLines

// groupFlows is flows by group (a traffic item's label), in the order of each group's first
// flow; the groups of one flow put together under OneFlowGroups, in the place of the first,
// when there are more than maxOneFlowGroups of them.
func groupFlows(flows []*Flow) (order []string, of map[string][]*Flow) {
	of = map[string][]*Flow{}
	for _, f := range flows {
		if _, ok := of[f.Group]; !ok {
			order = append(order, f.Group)
		}
		of[f.Group] = append(of[f.Group], f)
	}
	ones := 0
	for _, g := range order {
		if len(of[g]) == 1 {
			ones++
		}
	}
	if ones <= maxOneFlowGroups {
		return order, of
	}
	kept := order[:0:0]
	for _, g := range order {
		if len(of[g]) != 1 {
			kept = append(kept, g)
			continue
		}
		if _, ok := of[OneFlowGroups]; !ok {
			kept = append(kept, OneFlowGroups)
		}
		of[OneFlowGroups] = append(of[OneFlowGroups], of[g]...)
		delete(of, g)
	}
	return kept, of
}
