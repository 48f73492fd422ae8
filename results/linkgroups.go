package results

import (
	"strconv"
)

// linkGroupHeader is the header of the report's table of an AI cluster's link groups.
var linkGroupHeader = []string{"variant", "group", "links", "wire_bytes", "utilization_%"}

// linkGroupName is how a table names group g: "plane 2", "rail 3", "scale-up domain 1".
func linkGroupName(g LinkGroup) string {
	kind := g.Kind
	if kind == "scaleup" {
		kind = "scale-up domain"
	}
	return kind + " " + strconv.Itoa(g.Index)
}

// linkGroupRows are the report's rows of what each variant's planes, rails and scale-up
// domains carried (LinkGroups): a row per variant and group, its links, the wire bytes they
// carried both ways, their mean utilisation in percent; nil when no variant has a group.
func linkGroupRows(d *Document) [][]string {
	var rows [][]string
	for i := range d.Variants {
		v := &d.Variants[i]
		for _, g := range v.LinkGroups {
			rows = append(rows, []string{v.Name, linkGroupName(g), strconv.Itoa(g.Links), integer(g.WireBytes),
				strconv.FormatFloat(100*g.Utilization, 'f', 2, 64)})
		}
	}
	return rows
}

// NodeGroup places a node of an AI cluster in its groups: a GPU's server, rail (its
// position in the server) and scale-up domain; a scale-up switch's domain; a rail leaf's
// rail; a fabric switch's plane when there are several. Each from 1, 0 where none.
type NodeGroup struct {
	Node                        string
	Server, Rail, Domain, Plane int
}
