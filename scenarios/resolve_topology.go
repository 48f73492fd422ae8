package scenarios

import (
	"fmt"
	"net/netip"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/fabricsim/fabricsim/pfc"
	"github.com/fabricsim/fabricsim/sim"
)

func (r *resolver) topology(raw *rawTopology) {
	const what = "a preset (star, dumbbell, leafspine, fattree, rail) with params, or nodes and links"
	if raw == nil {
		r.errf("topology", "topology is required: %s", what)
		return
	}
	t := &r.sc.Topology
	t.Pos = r.pos("topology")
	explicit := r.ix.has("topology.nodes") || r.ix.has("topology.links")
	switch {
	case raw.Preset != nil && explicit:
		r.errf("topology.preset", "give either a preset or nodes and links, not both")
		return
	case raw.Preset != nil && r.ix.has("topology.servers"):
		r.errf("topology.servers", "servers go with explicit nodes and links; the rail preset builds its own servers")
		return
	case raw.Preset == nil && !explicit:
		if r.ix.has("topology.params") {
			r.errf("topology", "params need a preset: add preset: star, dumbbell, leafspine, fattree or rail")
		} else {
			r.errf("topology", "topology needs %s", what)
		}
		return
	}
	ok := true
	if raw.Preset != nil {
		ok = r.preset(raw)
	} else {
		if r.ix.has("topology.params") {
			r.errf("topology.params", "params go with a preset; an explicit topology gives each link its rate and delay")
		}
		ok = r.explicit(raw)
	}
	// An explicit topology with problems still names its nodes: traffic, faults and routes
	// are checked against the names it has, so that each problem is reported on its own.
	if ok || (raw.Preset == nil && len(t.Nodes) > 0) {
		r.topo = newTopoInfo(t)
		r.routes(raw.Routes)
	}
	if ok {
		r.connected()
	}
}

// preset resolves a preset and its params; it reports whether the result is usable.
func (r *resolver) preset(raw *rawTopology) bool {
	t := &r.sc.Topology
	name := *raw.Preset
	params, known := presetParams[name]
	if !known {
		r.oneOf("topology.preset", "preset", name, presetOrder)
		return false
	}
	t.Preset = name
	if raw.Params == nil {
		r.errf("topology.params", "the %s preset needs params: %s", name, listOf(params))
		return false
	}
	// Params of other presets are known fields of rawParams, so the decoder accepts them.
	if pn := r.ix.byPath["topology.params"]; pn != nil && pn.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(pn.Content); i += 2 {
			k := pn.Content[i].Value
			if !slices.Contains(params, k) && slices.Contains(fieldNames(reflect.TypeOf(rawParams{})), k) {
				r.errf("topology.params."+k, "%s", paramProblem(name, k))
			}
		}
	}
	p := &t.Params
	ok := true
	count := func(field string, v *int, min int) int {
		if v == nil {
			r.errf("topology.params."+field, "the %s preset needs param %q", name, field)
			ok = false
			return 0
		}
		if *v < min || *v > maxNodes {
			r.errf("topology.params."+field, "%s must be %d..%d, got %d", field, min, maxNodes, *v)
			ok = false
			return 0
		}
		return *v
	}
	link := func(field string, v *rawLinkSpec) LinkSpec {
		if v == nil {
			r.errf("topology.params."+field, "the %s preset needs param %q, e.g. %s: {rate: 100Gbps, delay: 1us}", name, field, field)
			ok = false
			return LinkSpec{}
		}
		return r.linkSpec("topology.params."+field, v.Rate, v.Delay, v.Loss)
	}
	routing := func() {
		p.Routing = "l3"
		if raw.Params.Routing != nil {
			p.Routing = *raw.Params.Routing
			if !r.oneOf("topology.params.routing", "routing", p.Routing, routingNames) {
				p.Routing = "l3"
			}
		}
	}
	planes := func() int {
		if raw.Params.Planes == nil {
			return 1
		}
		n := count("planes", raw.Params.Planes, 1)
		if n > MaxPlanes {
			r.errf("topology.params.planes", "planes must be 1..%d (a NIC has a port per plane; MRC's 800G NIC as 8 x 100G has 8), got %d", MaxPlanes, n)
			ok = false
		}
		return n
	}
	switch name {
	case "star":
		p.Hosts = count("hosts", raw.Params.Hosts, 1)
		p.Link = link("link", raw.Params.Link)
	case "dumbbell":
		p.Left = count("left", raw.Params.Left, 1)
		p.Right = count("right", raw.Params.Right, 1)
		p.HostLink = link("host_link", raw.Params.HostLink)
		p.Bottleneck = link("bottleneck", raw.Params.Bottleneck)
	case "leafspine":
		p.Leaves = count("leaves", raw.Params.Leaves, 1)
		p.Spines = count("spines", raw.Params.Spines, 1)
		p.HostsPerLeaf = count("hosts_per_leaf", raw.Params.HostsPerLeaf, 1)
		p.HostLink = link("host_link", raw.Params.HostLink)
		p.FabricLink = link("fabric_link", raw.Params.FabricLink)
		routing()
		p.Planes = planes()
	case "fattree":
		p.K = count("k", raw.Params.K, 2)
		p.Link = link("link", raw.Params.Link)
		routing()
		p.Planes = planes()
		switch {
		case !ok:
		case p.K%2 != 0:
			r.errf("topology.params.k", "k must be even (a k-ary fat-tree has k/2 edge and k/2 aggregation switches per pod), got %d", p.K)
			ok = false
		}
	case "rail":
		ok = r.rail(raw.Params, count, link, routing, planes) && ok
	}
	// The size of the whole (nodes, routes, memory) is checked on the estimate (checkSize).
	return ok
}

// linkSpec resolves a link's rate, delay and loss at path.
func (r *resolver) linkSpec(path string, rate *Rate, delay *Duration, loss *float64) LinkSpec {
	var s LinkSpec
	if rate == nil {
		r.errf(path+".rate", "a link needs a rate, e.g. rate: 100Gbps")
	} else {
		s.Rate = sim.Rate(*rate)
		switch {
		case s.Rate <= 0:
			r.errf(path+".rate", "a link rate must be > 0, e.g. 100Gbps")
		case s.Rate < MinLinkRate:
			r.errf(path+".rate", "a link rate must be at least %v (MinLinkRate): slower, a PAUSE of %d quanta (%d bit times) lasts longer than 2^60 ps (about 13.3 days, sim.MaxDuration), the longest time a run may hold; got %v",
				MinLinkRate, pfc.MaxQuanta, pfc.MaxQuanta*pfc.QuantumBits, s.Rate)
		}
	}
	if delay != nil {
		s.Delay = sim.Time(*delay)
	}
	if loss != nil {
		s.Loss = *loss
		r.probability(path+".loss", "loss", s.Loss)
	}
	return s
}

// explicit resolves explicit nodes and links; it reports whether the result is usable.
func (r *resolver) explicit(raw *rawTopology) bool {
	t := &r.sc.Topology
	ok := true
	byName := map[string]int{}
	ips := map[netip.Addr]int{}
	if len(raw.Nodes) == 0 {
		r.errf("topology.nodes", "an explicit topology needs nodes, e.g. - {name: h1, type: host, subnet: 10.0.1.0/24}")
		return false
	}
	if len(raw.Nodes) > maxNodes {
		r.errf("topology.nodes", "%d nodes; at most %d are allowed", len(raw.Nodes), maxNodes)
		return false
	}
	for i, rn := range raw.Nodes {
		path := fmt.Sprintf("topology.nodes.%d", i)
		n := Node{Name: rn.Name, Type: rn.Type, Pos: r.pos(path)}
		switch {
		case rn.Name == "":
			r.errf(path+".name", "a node needs a name")
			ok = false
		case !nodeNameRE.MatchString(rn.Name):
			r.errf(path+".name", "node name %q: use letters, digits, '_' and '.', starting with a letter ('-' and ':' are taken by --pcap A-B and NODE:PORT)", rn.Name)
			ok = false
		default:
			if j, dup := byName[rn.Name]; dup {
				r.errf(path+".name", "node name %q is already used by topology.nodes.%d", rn.Name, j)
				ok = false
			} else {
				byName[rn.Name] = i
			}
		}
		switch rn.Type {
		case "host":
			r.hostNode(&n, rn, path, ips)
		case "switch":
			n.Layer = 2
			if rn.Layer != nil {
				n.Layer = *rn.Layer
				if n.Layer != 2 && n.Layer != 3 {
					r.errf(path+".layer", "layer is 2 (bridges within a subnet) or 3 (routes between subnets), got %d", n.Layer)
				}
			}
			if rn.Subnet != nil {
				r.errf(path+".subnet", "a switch has no subnet; give each host its subnet")
			}
			if rn.IP != nil {
				r.errf(path+".ip", "a switch has no ip; its interfaces are addressed by the builder")
			}
			if present(&rn.Hosts) {
				r.errf(path+".hosts", "a hosts block belongs on a host; a switch takes a switch block")
			}
			if present(&rn.Switch) {
				c := settings(r, &rn.Switch, path+".switch", r.sc.Switch)
				n.Switch = &c
			}
		default:
			r.oneOf(path+".type", "node type", rn.Type, nodeTypes)
			ok = false
		}
		t.Nodes = append(t.Nodes, n)
	}
	info := r.servers(raw, byName)
	if len(raw.Links) == 0 {
		r.errf("topology.links", "an explicit topology needs links, e.g. - {between: [h1, sw1], rate: 100Gbps, delay: 1us}")
		return false
	}
	hostLink := map[string]int{}
	for i, rl := range raw.Links {
		path := fmt.Sprintf("topology.links.%d", i)
		l := Link{Pos: r.pos(path)}
		spec := r.linkSpec(path, rl.Rate, rl.Delay, rl.Loss)
		l.Rate, l.Delay, l.Loss = spec.Rate, spec.Delay, spec.Loss
		if len(rl.Between) != 2 {
			r.errf(path+".between", "between names the two nodes a link joins, e.g. between: [h1, sw1]; got %d names", len(rl.Between))
			ok = false
			t.Links = append(t.Links, l)
			continue
		}
		l.Between = [2]string{rl.Between[0], rl.Between[1]}
		for e, name := range l.Between {
			j, known := byName[name]
			ep := fmt.Sprintf("%s.between.%d", path, e)
			switch {
			case !known:
				r.errf(ep, "unknown node %q%s", name, didYouMean(name, keys(byName)))
				ok = false
			case raw.Nodes[j].Type == "host" && info.scaleUp[name] != "" && info.scaleUp[name] == l.Between[1-e]:
				if prev, dup := info.linked[name]; dup {
					r.errf(ep, "GPU %q already has a link to its scale-up switch (topology.links.%d)", name, prev)
				} else {
					info.linked[name] = i
				}
			case raw.Nodes[j].Type == "host":
				if prev, dup := hostLink[name]; dup {
					r.errf(ep, "host %q already has a link (topology.links.%d); a host has one NIC port", name, prev)
				} else {
					hostLink[name] = i
				}
			}
		}
		if l.Between[0] == l.Between[1] {
			r.errf(path+".between", "a link to itself (%s to %s); a link joins two different nodes", l.Between[0], l.Between[1])
		}
		t.Links = append(t.Links, l)
	}
	r.serverLinksAfter(info)
	for i, rn := range raw.Nodes {
		if _, linked := hostLink[rn.Name]; rn.Type == "host" && rn.Name != "" && !linked {
			if j := byName[rn.Name]; j == i {
				r.errf(fmt.Sprintf("topology.nodes.%d", i), "host %q has no link", rn.Name)
			}
		}
	}
	return ok
}

// hostNode resolves the host-only fields of an explicit node.
func (r *resolver) hostNode(n *Node, rn rawNode, path string, ips map[netip.Addr]int) {
	if rn.Layer != nil {
		r.errf(path+".layer", "layer is for switches; a host has none")
	}
	if present(&rn.Switch) {
		r.errf(path+".switch", "a switch block belongs on a switch; a host takes a hosts block")
	}
	if present(&rn.Hosts) {
		c := settings(r, &rn.Hosts, path+".hosts", r.sc.Hosts)
		n.Hosts = &c
	}
	if rn.Subnet == nil {
		r.errf(path+".subnet", "a host needs a subnet, e.g. subnet: 10.0.1.0/24")
	} else if p, ok := r.prefix(path+".subnet", *rn.Subnet); ok {
		n.Subnet = p
	}
	if rn.IP == nil {
		return
	}
	ip, err := netip.ParseAddr(strings.TrimSpace(*rn.IP))
	switch {
	case err != nil || !ip.Is4():
		r.errf(path+".ip", "ip %q is not an IPv4 address such as 10.0.1.5", *rn.IP)
		return
	case n.Subnet.IsValid() && !n.Subnet.Contains(ip):
		r.errf(path+".ip", "ip %s is outside the host's subnet %s", ip, n.Subnet)
	case n.Subnet.IsValid() && n.Subnet.Bits() < 31 && (ip == n.Subnet.Addr() || ip == lastAddr(n.Subnet)):
		r.errf(path+".ip", "ip %s is the network or broadcast address of %s", ip, n.Subnet)
	}
	if j, dup := ips[ip]; dup {
		r.errf(path+".ip", "ip %s is already used by topology.nodes.%d", ip, j)
	} else {
		ips[ip] = indexOfNode(path)
	}
	n.IP = ip
}

// indexOfNode extracts N from "topology.nodes.N".
func indexOfNode(path string) int {
	var i int
	fmt.Sscanf(strings.TrimPrefix(path, "topology.nodes."), "%d", &i)
	return i
}

// lastAddr is the highest address of an IPv4 prefix (its broadcast address).
func lastAddr(p netip.Prefix) netip.Addr {
	a := p.Addr().As4()
	v := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
	v |= uint32(1)<<(32-p.Bits()) - 1
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// prefix parses an IPv4 prefix written without host bits.
func (r *resolver) prefix(path, s string) (netip.Prefix, bool) {
	p, err := netip.ParsePrefix(strings.TrimSpace(s))
	switch {
	case err != nil || !p.Addr().Is4():
		r.errf(path, "%q is not an IPv4 prefix such as 10.0.1.0/24", s)
		return netip.Prefix{}, false
	case p.Masked() != p:
		r.errf(path, "%s has host bits set; did you mean %s?", p, p.Masked())
		return netip.Prefix{}, false
	}
	return p, true
}

func (r *resolver) routes(raw []rawRoute) {
	t := &r.sc.Topology
	for i, rr := range raw {
		path := fmt.Sprintf("topology.routes.%d", i)
		rt := Route{At: rr.At, Via: rr.Via, Pos: r.pos(path)}
		if rr.At == "" {
			r.errf(path+".at", "a route needs at: the layer-3 switch it is installed on")
		} else if typ, layer, ok := r.topo.lookup(rr.At); !ok {
			r.errf(path+".at", "unknown node %q (%s)", rr.At, r.topo.nodesHint(rr.At))
		} else if typ != "switch" {
			r.errf(path+".at", "%q is a host; routes are installed on layer-3 switches", rr.At)
		} else if layer != 3 {
			r.errf(path+".at", "%q is a layer-2 switch; routes are installed on layer-3 switches", rr.At)
		}
		if rr.Dst == "" {
			r.errf(path+".dst", "a route needs dst: the prefix it matches, e.g. dst: 10.0.9.0/24")
		} else if p, ok := r.prefix(path+".dst", rr.Dst); ok {
			rt.Dst = p
		}
		if rr.Via == "" {
			r.errf(path+".via", "a route needs via: the neighbour packets are sent to")
		} else if typ, _, ok := r.topo.lookup(rr.Via); !ok {
			r.errf(path+".via", "unknown node %q (%s)", rr.Via, r.topo.nodesHint(rr.Via))
		} else if rr.At != "" && !r.topo.linked(rr.At, rr.Via) {
			r.errf(path+".via", "%q is not a neighbour of %q (no link joins them)", rr.Via, rr.At)
		} else if typ == "host" {
			r.errf(path+".via", "%q is a host, and hosts do not forward: via is a neighbouring switch", rr.Via)
		}
		t.Routes = append(t.Routes, rt)
	}
}
