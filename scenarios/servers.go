package scenarios

import "fmt"

// serverInfo is what resolving an explicit topology's servers tells its links: each GPU's
// scale-up switch (GPUs of servers without one are absent).
type serverInfo struct {
	scaleUp map[string]string // GPU -> its scale-up switch
	linked  map[string]int    // GPU -> the link that joins it to its scale-up switch
}

// servers resolves topology.servers of an explicit topology whose nodes are byName (name ->
// index in raw.Nodes).
func (r *resolver) servers(raw *rawTopology, byName map[string]int) serverInfo {
	info := serverInfo{scaleUp: map[string]string{}, linked: map[string]int{}}
	t := &r.sc.Topology
	names := map[string]int{}
	gpuOf := map[string]int{} // GPU -> its server's index
	for i, rs := range raw.Servers {
		path := fmt.Sprintf("topology.servers.%d", i)
		s := Server{Name: rs.Name, Pos: r.pos(path)}
		switch j, dup := names[rs.Name]; {
		case rs.Name == "":
			r.errf(path+".name", "a server needs a name, e.g. - {name: server1, gpus: [g1, g2], scaleup_domain: nv1}")
		case dup:
			r.errf(path+".name", "server name %q is already used by topology.servers.%d", rs.Name, j)
		default:
			names[rs.Name] = i
		}
		if len(rs.GPUs) == 0 {
			r.errf(path+".gpus", "a server needs gpus: the hosts that are its GPUs, in rail order (the first is on rail 1)")
		}
		for g, name := range rs.GPUs {
			gp := fmt.Sprintf("%s.gpus.%d", path, g)
			j, known := byName[name]
			switch {
			case !known:
				r.errf(gp, "unknown node %q%s", name, didYouMean(name, keys(byName)))
				continue
			case raw.Nodes[j].Type != "host":
				r.errf(gp, "%q is a %s; a server's GPUs are hosts", name, raw.Nodes[j].Type)
				continue
			}
			if k, dup := gpuOf[name]; dup {
				r.errf(gp, "host %q is already a GPU of topology.servers.%d", name, k)
				continue
			}
			gpuOf[name] = i
			s.GPUs = append(s.GPUs, name)
		}
		if rs.ScaleupDomain != nil {
			sw := *rs.ScaleupDomain
			j, known := byName[sw]
			switch {
			case !known:
				r.errf(path+".scaleup_domain", "unknown node %q%s", sw, didYouMean(sw, keys(byName)))
			case raw.Nodes[j].Type != "switch":
				r.errf(path+".scaleup_domain", "%q is a %s; the scale-up domain is a switch, linked to each GPU of its servers", sw, raw.Nodes[j].Type)
			default:
				s.ScaleupDomain = sw
				for _, g := range s.GPUs {
					info.scaleUp[g] = sw
				}
			}
		}
		t.Servers = append(t.Servers, s)
	}
	return info
}

// serverLinksAfter reports the GPUs of a scale-up domain that no link joins to its switch.
func (r *resolver) serverLinksAfter(info serverInfo) {
	for i, s := range r.sc.Topology.Servers {
		for g, name := range s.GPUs {
			if _, ok := info.linked[name]; s.ScaleupDomain != "" && !ok {
				r.errf(fmt.Sprintf("topology.servers.%d.gpus.%d", i, g), "GPU %q has no link to its scale-up switch %q: add - {between: [%s, %s], rate: 3600Gbps, delay: 936.25ns}",
					name, s.ScaleupDomain, name, s.ScaleupDomain)
			}
		}
	}
}
