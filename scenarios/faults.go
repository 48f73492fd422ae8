package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fabricsim/fabricsim/sim"
)

func (r *resolver) faults(raw []rawFault) {
	for i, rf := range raw {
		path := fmt.Sprintf("faults.%d", i)
		f := Fault{Pos: r.pos(path)}
		if rf.At != nil {
			f.At = sim.Time(*rf.At)
			if f.At >= r.sc.Stop && r.sc.Stop > 0 { // an invalid stop is its own problem
				r.warnf(path+".at", "at %v is at or after stop (%v); the fault never happens", f.At, r.sc.Stop)
			}
		}
		var set []string
		if rf.State != nil {
			set = append(set, "state")
			f.State = *rf.State
			r.oneOf(path+".state", "state", f.State, stateNames)
		}
		if rf.Loss != nil {
			set = append(set, "loss")
			v := *rf.Loss
			f.Loss = &v
			r.probability(path+".loss", "loss", v)
		}
		if rf.DropEvery != nil {
			set = append(set, "drop_every")
			f.DropEvery = *rf.DropEvery
			if f.DropEvery < 0 {
				r.errf(path+".drop_every", "drop_every is a whole number: n >= 1 drops every n-th data packet, 0 stops dropping; got %d", f.DropEvery)
			}
		}
		if rf.PFCStorm != nil {
			set = append(set, "pfc_storm")
			f.PFCStorm = r.pfcStorm(path+".pfc_storm", rf.PFCStorm)
		}
		if rf.Pause != nil {
			set = append(set, "pause")
			f.Pause = r.pauseFault(path+".pause", rf.Pause)
		}
		switch len(set) {
		case 0:
			r.errf(path, "a fault sets one of state (up/down), loss, drop_every, pfc_storm or pause")
		case 1:
		default:
			r.errf(path+"."+set[1], "a fault sets one of state, loss, drop_every, pfc_storm or pause; this one sets %s", strings.Join(set, " and "))
		}
		onLink := len(set) > 0 && set[0] != "pfc_storm" && set[0] != "pause"
		switch {
		case onLink:
			r.faultLink(path, rf.Link, &f)
		case rf.Link != nil && len(set) > 0:
			r.errf(path+".link", "%s names its node inside its own block; link is for state, loss and drop_every", set[0])
		}
		if rf.Until != nil {
			f.Until = sim.Time(*rf.Until)
			switch {
			case f.PFCStorm == nil:
				r.errf(path+".until", "until ends a pfc_storm; for the other faults add a second fault at that time (e.g. loss: 0, state: up)")
			case f.Until <= f.At:
				r.errf(path+".until", "until %v must be after at (%v)", f.Until, f.At)
			}
		}
		r.sc.Faults = append(r.sc.Faults, f)
	}
}

// faultLink checks the link a state, loss or drop_every fault acts on.
func (r *resolver) faultLink(path string, link []string, f *Fault) {
	if len(link) != 2 {
		r.errf(path+".link", "link names the two ends of an existing link, e.g. link: [tor1, r1]")
		return
	}
	f.Link = [2]string{link[0], link[1]}
	known := true
	for e, name := range f.Link {
		if r.topo == nil {
			continue
		}
		if _, _, ok := r.topo.lookup(name); !ok {
			r.errf(fmt.Sprintf("%s.link.%d", path, e), "unknown node %q (%s)", name, r.topo.nodesHint(name))
			known = false
		}
	}
	if known && r.topo != nil && !r.topo.linked(f.Link[0], f.Link[1]) {
		r.errf(path+".link", "no link joins %s and %s", f.Link[0], f.Link[1])
	}
}

// pfcClass resolves the priority of a PFC fault: 0..7, default the node's hosts.priority. It
// warns when the class is not lossless, since a switch ignores PFC frames for a class
// without PFC (IEEE 802.1Qbb: PFC is enabled per priority).
func (r *resolver) pfcClass(path, node string, prio *int) int {
	c := r.hostPriority(node)
	if prio != nil {
		c = *prio
		if c < 0 || c > 7 {
			r.errf(path, "priority is a traffic class from 0 to 7; got %d", c)
		}
	}
	switch p := &r.sc.Switch.PFC; {
	case !p.Enabled:
		r.warnf(path, "class %d is not lossless: PFC is off (switch.pfc.enabled: false), so switches ignore PFC frames for every class", c)
	case !slices.Contains(p.Priorities, c):
		r.warnf(path, "class %d is not lossless (switch.pfc.priorities %v do not hold it): switches ignore PFC frames for it", c, p.Priorities)
	}
	return c
}

func (r *resolver) pfcStorm(path string, raw *rawPFCStorm) *PFCStorm {
	s := &PFCStorm{Node: raw.Node}
	if !r.host(path+".node", "pfc_storm.node", raw.Node) {
		return s
	}
	s.Priority = r.pfcClass(path+".priority", raw.Node, raw.Priority)
	return s
}

func (r *resolver) pauseFault(path string, raw *rawPause) *PauseFault {
	p := &PauseFault{Node: raw.Node, Port: 1}
	if raw.Node == "" {
		r.errf(path+".node", "pause.node is required: the node that sends the PFC frame")
		return p
	}
	if r.topo != nil {
		typ, _, ok := r.topo.lookup(raw.Node)
		if !ok {
			r.errf(path+".node", "unknown node %q (%s)", raw.Node, r.topo.nodesHint(raw.Node))
			return p
		}
		if typ == "switch" && raw.Port == nil {
			r.errf(path+".port", "pause.port is required for a switch: the port (from 1) the PFC frame leaves by")
		}
	}
	if raw.Port != nil {
		p.Port = *raw.Port
		if p.Port < 1 {
			r.errf(path+".port", "port counts from 1; got %d", p.Port)
		}
	}
	p.Priority = r.pfcClass(path+".priority", raw.Node, raw.Priority)
	switch {
	case raw.Quanta == nil:
		r.errf(path+".quanta", "pause.quanta is required: 0 to 65535 quanta of 512 bit times (0 resumes)")
	case *raw.Quanta < 0 || *raw.Quanta > 0xFFFF:
		r.errf(path+".quanta", "quanta is 0 to 65535 (512 bit times each); got %d", *raw.Quanta)
	default:
		p.Quanta = *raw.Quanta
	}
	return p
}

// keys returns the keys of m, sorted.
func keys(m map[string]int) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
