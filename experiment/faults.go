package experiment

import (
	"fmt"

	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// faults applies the scenario's faults at their times: link state, random or deterministic
// loss on a link, a NIC's PFC storm, one PFC frame from a node's port.
type faults struct {
	f    *fabric
	list []scenarios.Fault
	link []int // per fault: the link it acts on, or -1
	node []topology.NodeID
}

func (f *fabric) scheduleFaults() error {
	fs := &faults{f: f, list: f.sc.Faults}
	for i, ft := range f.sc.Faults {
		li, node := -1, topology.NodeID(-1)
		path := fmt.Sprintf("faults.%d", i)
		switch {
		case ft.PFCStorm != nil:
			id, ok := f.nw.Lookup(ft.PFCStorm.Node)
			if !ok || f.nics[id] == nil {
				return placed(f.sc, path, ft.Pos, fmt.Errorf("fault at %v: pfc_storm.node %q is not a host", ft.At, ft.PFCStorm.Node))
			}
			node = id
		case ft.Pause != nil:
			id, ok := f.nw.Lookup(ft.Pause.Node)
			if !ok {
				return placed(f.sc, path, ft.Pos, fmt.Errorf("fault at %v: unknown node %q", ft.At, ft.Pause.Node))
			}
			if ports := len(f.nw.Nodes[id].Ports); ft.Pause.Port > ports {
				return placed(f.sc, path, ft.Pos, fmt.Errorf("fault at %v: %s has %d ports; pause.port is %d", ft.At, ft.Pause.Node, ports, ft.Pause.Port))
			}
			node = id
		default:
			a, ok1 := f.nw.Lookup(ft.Link[0])
			b, ok2 := f.nw.Lookup(ft.Link[1])
			if !ok1 || !ok2 {
				return placed(f.sc, path, ft.Pos, fmt.Errorf("fault at %v: unknown node in link %v", ft.At, ft.Link))
			}
			l, ok := f.nw.LinkBetween(a, b)
			if !ok {
				return placed(f.sc, path, ft.Pos, fmt.Errorf("fault at %v: no link between %s and %s", ft.At, ft.Link[0], ft.Link[1]))
			}
			li = l
		}
		fs.link = append(fs.link, li)
		fs.node = append(fs.node, node)
	}
	for i, ft := range f.sc.Faults {
		f.global.At(ft.At, fs, i, nil)
	}
	return nil
}

// Handle implements sim.Handler: fault i is due.
func (fs *faults) Handle(now sim.Time, i int, _ any) {
	ft := fs.list[i]
	switch {
	case ft.PFCStorm != nil:
		until := ft.Until
		if until == 0 {
			until = sim.Never
		}
		fs.f.nics[fs.node[i]].Storm(now, ft.PFCStorm.Priority, until) // a multi-port host: its first port
		return
	case ft.Pause != nil:
		c, q := ft.Pause.Priority, uint16(ft.Pause.Quanta)
		if ports := fs.f.ports[fs.node[i]]; ports != nil {
			ports[ft.Pause.Port-1].SendPause(now, c, q) // the host's NIC of that port (a GPU has several)
		} else {
			fs.f.switchByID(fs.node[i]).Ports[ft.Pause.Port-1].InjectPause(now, c, q)
		}
		return
	}
	pair := fs.f.wires[fs.link[i]]
	l := fs.f.nw.Links[fs.link[i]]
	// loss and drop_every act from the first named node to the second only.
	forward := pair[0]
	if fs.f.nw.Nodes[l.A.Node].Name != ft.Link[0] {
		forward = pair[1]
	}
	switch {
	case ft.State == "down":
		pair[0].SetUp(false)
		pair[1].SetUp(false)
		for _, end := range [2]topology.End{l.A, l.B} {
			if nic := fs.f.nicAt(end); nic != nil {
				nic.LinkDown(now) // a switch's port resets itself (switchmodel.Port.linkChanged)
			}
		}
	case ft.State == "up":
		pair[0].SetUp(true)
		pair[1].SetUp(true)
		for _, end := range [2]topology.End{l.A, l.B} {
			if nic := fs.f.nicAt(end); nic != nil {
				nic.Resume(now) // it held its frames while the link was down
			}
		}
	case ft.Loss != nil:
		forward.SetLoss(*ft.Loss)
	default: // drop_every; 0 stops it
		forward.SetDropEvery(int64(ft.DropEvery))
	}
}
