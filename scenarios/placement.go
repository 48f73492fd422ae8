package scenarios

import "slices"

// placements are the ways a count of GPUs is placed on a fabric of GPU servers (a hosts
// list {count, placement}), in the order messages name them.
var placements = []string{"packed", "spread", "rail_aligned"}

// gpuPlace is a GPU of the topology: its name, server and rail (from 1).
type gpuPlace struct {
	name         string
	server, rail int
}

// gpus lists the topology's GPUs server by server, in rail order within each: the rail
// preset's from its built network, an explicit topology's from topology.servers.
func (ti *topoInfo) gpus() []gpuPlace {
	t := ti.t
	var out []gpuPlace
	switch {
	case t.Preset == "rail":
		nw, err := PresetNetwork(*t)
		if err != nil {
			return nil
		}
		for i := range nw.Nodes {
			if n := &nw.Nodes[i]; n.Server > 0 {
				out = append(out, gpuPlace{n.Name, int(n.Server), int(n.Rail)})
			}
		}
		slices.SortStableFunc(out, func(a, b gpuPlace) int { return a.server - b.server })
	case t.Preset == "":
		for s, srv := range t.Servers {
			for g, name := range srv.GPUs {
				out = append(out, gpuPlace{name, s + 1, g + 1})
			}
		}
	}
	return out
}

// place resolves {count, placement} at path into the GPUs it names, in rank order:
//
//   - packed: server by server, every GPU of a server before the next (s1g1..s1g8, s2g1, ...):
//     neighbouring ranks share a server and its scale-up domain;
//   - spread: a GPU of each server in turn (s1g1, s2g1, ..., s1g2, ...): as many servers as
//     possible;
//   - rail_aligned: the same GPU positions on each server used, as many on each as count
//     allows (the largest k <= GPUs per server that divides count with count/k servers),
//     server by server: every server's GPU i is on rail i, so traffic between servers stays
//     on its rail.
func (r *resolver) place(path string, hl *hostList, kind string) []string {
	if !slices.Contains(placements, hl.Placement) {
		r.oneOf(path+".placement", "placement", hl.Placement, placements)
		return nil
	}
	if r.topo == nil {
		return nil
	}
	gpus := r.topo.gpus()
	switch {
	case len(gpus) == 0:
		r.errf(path, "a placement needs GPUs: the rail preset, or explicit nodes grouped in topology.servers")
		return nil
	case hl.Count < 2:
		r.errf(path+".count", "%s needs at least 2 GPUs; got count %d", kind, hl.Count)
		return nil
	case hl.Count > len(gpus):
		r.errf(path+".count", "count %d is more than the topology's %d GPUs", hl.Count, len(gpus))
		return nil
	}
	var servers [][]string // by server, its GPUs in rail order
	for _, g := range gpus {
		if len(servers) < g.server {
			servers = append(servers, make([][]string, g.server-len(servers))...)
		}
		servers[g.server-1] = append(servers[g.server-1], g.name)
	}
	var names []string
	switch hl.Placement {
	case "packed":
		for _, s := range servers {
			names = append(names, s...)
		}
	case "spread":
		for g := 0; len(names) < hl.Count; g++ {
			for _, s := range servers {
				if g < len(s) {
					names = append(names, s[g])
				}
			}
		}
	case "rail_aligned":
		perServer := len(servers[0])
		for _, s := range servers {
			perServer = min(perServer, len(s))
		}
		for k := min(perServer, hl.Count); k >= 1; k-- {
			if hl.Count%k == 0 && hl.Count/k <= len(servers) {
				for _, s := range servers[:hl.Count/k] {
					names = append(names, s[:k]...)
				}
				break
			}
		}
		if len(names) == 0 {
			r.errf(path+".count", "count %d does not fit rail-aligned: no k <= %d GPUs per server divides it with at most %d servers", hl.Count, perServer, len(servers))
			return nil
		}
	}
	return names[:hl.Count]
}
