package scenarios

import (
	"fmt"
	"strings"
)

// maxIslandsNamed and maxIslandNames bound the message of a fabric in pieces.
const (
	maxIslandsNamed = 4
	maxIslandNames  = 3
)

// connected reports an explicit topology whose nodes are not all joined by links: a fabric
// in pieces (islands) cannot carry traffic between them, so every flow across would fail.
// Presets are connected by construction. Each island is named by its first nodes in file
// order.
func (r *resolver) connected() {
	t := &r.sc.Topology
	if t.Preset != "" || len(t.Nodes) == 0 {
		return
	}
	parent := make([]int, len(t.Nodes))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	index := make(map[string]int, len(t.Nodes))
	for i, n := range t.Nodes {
		index[n.Name] = i
	}
	for _, l := range t.Links {
		a, okA := index[l.Between[0]]
		b, okB := index[l.Between[1]]
		if okA && okB {
			parent[find(a)] = find(b)
		}
	}
	var order []int // island roots in the order of their first node
	members := map[int][]string{}
	for i, n := range t.Nodes {
		root := find(i)
		if members[root] == nil {
			order = append(order, root)
		}
		members[root] = append(members[root], n.Name)
	}
	if len(order) < 2 {
		return
	}
	var named []string
	for _, root := range order[:min(len(order), maxIslandsNamed)] {
		names := members[root]
		s := strings.Join(names[:min(len(names), maxIslandNames)], ", ")
		if len(names) > maxIslandNames {
			s += fmt.Sprintf(", ... (%d nodes)", len(names))
		}
		named = append(named, "{"+s+"}")
	}
	if len(order) > maxIslandsNamed {
		named = append(named, fmt.Sprintf("%d more", len(order)-maxIslandsNamed))
	}
	list := strings.Join(named[:len(named)-1], ", ") + " and " + named[len(named)-1]
	r.errf("topology.links", "the fabric is in %d islands that no link joins: %s; link them, or remove the nodes no traffic uses",
		len(order), list)
}
