package scenarios

import (
	"fmt"

	"go.yaml.in/yaml/v4"

	"github.com/fabricsim/fabricsim/sim"
)

// pos is the position of path's value in the file, or zero for --set values.
func (r *resolver) pos(path string) Pos {
	n := r.ix.byPath[path]
	if n == nil || n.Line <= 0 {
		return Pos{}
	}
	return Pos{Line: n.Line, Column: n.Column}
}

// host checks that name, at path, is a host of the topology.
func (r *resolver) host(path, field, name string) bool {
	if name == "" {
		r.errf(path, "%s is required: a host name", field)
		return false
	}
	if r.topo == nil {
		return true
	}
	typ, _, ok := r.topo.lookup(name)
	switch {
	case !ok:
		r.errf(path, "unknown host %q (%s)", name, r.topo.hostsHint(name))
		return false
	case typ != "host":
		r.errf(path, "%q is a switch; traffic runs between hosts", name)
		return false
	}
	return true
}

// hostPriority is the hosts.priority of the named host: its own hosts block's, else the global.
func (r *resolver) hostPriority(name string) int {
	if r.topo != nil && r.topo.nodes != nil {
		if n := r.topo.nodes[name]; n != nil && n.Hosts != nil {
			return n.Hosts.Priority
		}
	}
	return r.sc.Hosts.Priority
}

// common resolves the fields every traffic kind has.
type common struct {
	size      int64
	start     sim.Time
	transport string
	priority  int
	rate      sim.Rate
}

func (r *resolver) common(path string, size *Size, start *Duration, transport string, priority *int, rate *Rate, defPriority int) common {
	var c common
	if size == nil {
		r.errf(path+".size", "size is required, e.g. size: 1MB")
	} else if c.size = int64(*size); c.size <= 0 {
		r.errf(path+".size", "size must be > 0, e.g. 1MB")
	} else if c.size > maxFlowSize {
		r.errf(path+".size", "size %d bytes is more than a flow may carry (at most 1TB: a RoCE message of up to 2^32 packets)", c.size)
	}
	if start != nil {
		c.start = sim.Time(*start)
		if c.start >= r.sc.Stop {
			r.warnf(path+".start", "starts at %v, at or after stop (%v); it will not run", c.start, r.sc.Stop)
		}
	}
	switch {
	case transport != "":
		c.transport = transport
		r.transport(path+".transport", transport)
	case r.variant.transport != "":
		c.transport = r.variant.transport
	default:
		r.errf(path, "no transport: give one here or in the variant")
	}
	c.priority = defPriority
	if priority != nil {
		c.priority = *priority
		r.priority(path+".priority", c.priority)
	}
	if rate != nil {
		c.rate = sim.Rate(*rate)
	}
	return c
}

var trafficKinds = []string{"flow", "incast", "permutation", "poisson"}

// kindNeeds says what an empty traffic item of each kind lacks.
var kindNeeds = map[string]string{
	"flow":        "src, dst and size, e.g. {src: h1, dst: h2, size: 1MB}",
	"incast":      "senders, receiver and size, e.g. {senders: [h1, h2], receiver: h3, size: 1MB}",
	"permutation": "a size, e.g. {hosts: all, size: 1MB}",
	"poisson":     "hosts, load, workload and count",
}

func (r *resolver) traffic(raw []rawTraffic) {
	if len(raw) == 0 {
		r.errf("traffic", "traffic is required: a list of flow, incast or permutation items")
		return
	}
	for i, it := range raw {
		path := fmt.Sprintf("traffic.%d", i)
		var kinds []string
		for _, k := range trafficKinds {
			if r.ix.has(path + "." + k) {
				kinds = append(kinds, k)
			}
		}
		switch {
		case len(kinds) == 0:
			// A non-empty mapping has unknown keys and anything else the wrong type: the
			// decoder has reported those.
			if n := r.ix.byPath[path]; n != nil && (isNull(n) || n.Kind == yaml.MappingNode && len(n.Content) == 0) {
				r.errf(path, "a traffic item is one of %s, e.g. - flow: {src: h1, dst: h2, size: 1MB}", listOf(trafficKinds))
			}
			continue
		case len(kinds) > 1:
			r.errf(path+"."+kinds[1], "a traffic item has one kind; this one has %s and %s", kinds[0], kinds[1])
			continue
		}
		item := Traffic{Kind: kinds[0], Pos: r.pos(path)}
		kp := path + "." + kinds[0]
		switch {
		case it.Flow != nil:
			item.Flow = r.flow(kp, it.Flow)
		case it.Incast != nil:
			item.Incast = r.incast(kp, it.Incast)
		case it.Permutation != nil:
			item.Permutation = r.permutation(kp, it.Permutation)
		case it.Poisson != nil:
			r.errf(kp, "poisson traffic is not supported yet; use flow, incast or permutation")
		default:
			r.errf(kp, "%s is empty; it needs %s", kinds[0], kindNeeds[kinds[0]])
		}
		r.sc.Traffic = append(r.sc.Traffic, item)
	}
}

func (r *resolver) flow(path string, f *rawFlow) *Flow {
	okSrc := r.host(path+".src", "src", f.Src)
	okDst := r.host(path+".dst", "dst", f.Dst)
	if okSrc && okDst && f.Src == f.Dst {
		r.errf(path+".dst", "dst is src (%s); a flow runs between two different hosts", f.Src)
	}
	c := r.common(path, f.Size, f.Start, f.Transport, f.Priority, f.Rate, r.hostPriority(f.Src))
	return &Flow{Src: f.Src, Dst: f.Dst, Size: c.size, Start: c.start, Transport: c.transport,
		Priority: c.priority, Rate: c.rate, Pos: r.pos(path)}
}

func (r *resolver) incast(path string, in *rawIncast) *Incast {
	if len(in.Senders) == 0 {
		r.errf(path+".senders", "senders is required: a list of hosts, e.g. senders: [h1, h2, h3]")
	}
	seen := map[string]int{}
	for i, s := range in.Senders {
		sp := fmt.Sprintf("%s.senders.%d", path, i)
		if j, dup := seen[s]; dup {
			r.errf(sp, "sender %q is listed twice (also senders.%d)", s, j)
			continue
		}
		seen[s] = i
		if r.host(sp, "a sender", s) && s == in.Receiver {
			r.errf(sp, "sender %q is the receiver", s)
		}
	}
	r.host(path+".receiver", "receiver", in.Receiver)
	c := r.common(path, in.Size, in.Start, in.Transport, in.Priority, in.Rate, r.sc.Hosts.Priority)
	return &Incast{Senders: in.Senders, Receiver: in.Receiver, Size: c.size, Start: c.start,
		Transport: c.transport, Priority: c.priority, Rate: c.rate, Pos: r.pos(path)}
}

func (r *resolver) permutation(path string, pm *rawPermutation) *Permutation {
	p := &Permutation{Pos: r.pos(path)}
	if pm.Hosts != nil && !pm.Hosts.All {
		p.Hosts = pm.Hosts.Names
		if len(p.Hosts) < 2 {
			r.errf(path+".hosts", "a permutation needs at least 2 hosts (or hosts: all)")
		}
		seen := map[string]int{}
		for i, h := range p.Hosts {
			hp := fmt.Sprintf("%s.hosts.%d", path, i)
			if j, dup := seen[h]; dup {
				r.errf(hp, "host %q is listed twice (also hosts.%d)", h, j)
				continue
			}
			seen[h] = i
			r.host(hp, "a host", h)
		}
	} else if r.topo != nil && r.topo.hostCount() < 2 {
		r.errf(path, "a permutation needs at least 2 hosts; the topology has %d", r.topo.hostCount())
	}
	c := r.common(path, pm.Size, pm.Start, pm.Transport, pm.Priority, pm.Rate, r.sc.Hosts.Priority)
	p.Size, p.Start, p.Transport, p.Priority, p.Rate = c.size, c.start, c.transport, c.priority, c.rate
	return p
}
