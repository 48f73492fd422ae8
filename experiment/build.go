// Package experiment runs a scenario: it builds the fabric of each variant (network, routes,
// switches, NICs, wires), expands the traffic into flows, runs the event loop to the stop
// time, and gathers every counter into a results document. Variants run in parallel, each
// fabric cut into partitions that run on threads of their own (partition.go, sim.Group).
package experiment

import (
	"fmt"

	"github.com/fabricsim/fabricsim/ecn"
	"github.com/fabricsim/fabricsim/jobs"
	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/switchmodel"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports"
)

// fabric is one variant's world: everything the event loop touches.
type fabric struct {
	sc *scenarios.Scenario
	// run runs the fabric, cut into partitions (partition.go); global is the engine of the
	// events that see the whole fabric (samples, faults, the deadlock detector).
	run      *sim.Group
	parts    partitioning
	pools    topology.Pools // per partition; a packet goes back to the one it came from
	global   *sim.Engine
	nw       *topology.Network
	routes   *topology.Routes
	wires    [][2]*topology.Wire // per link: A->B, B->A
	switches []*switchmodel.Switch
	nics     []*transports.NIC // by node id, the NIC of the host's first port; nil for switches
	// ports are each host's NICs by port (a GPU's planes and scale-up port), by node id;
	// nicList every NIC, in node and port order.
	ports   [][]*transports.NIC
	nicList []*transports.NIC
	reg     *transports.Registry
	ideal   []sim.Time // per flow: FCT alone on the empty fabric
	starter flowStarter
	// jobs runs the collectives.
	jobs     *jobs.Runtime
	group    []int // per flow: the index of its traffic item, whose Label is its group
	warnings []string
	// deadlocks is the PFC deadlock detector, nil when PFC or detection is off.
	deadlocks *switchmodel.DeadlockDetector
	sampler   *sampler
	// nodeCfg holds the explicit nodes that carry their own switch or host block, by name.
	nodeCfg map[string]*scenarios.Node
	// lossless is the switch config of scale-up switches and PCIe NICs (losslessConfig).
	lossless *scenarios.SwitchConfig
}

// buildNetwork makes the topology of a scenario, from its preset or its explicit nodes.
func buildNetwork(t *scenarios.Topology) (*topology.Network, error) {
	if t.Preset != "" {
		return scenarios.PresetNetwork(*t)
	}
	nw := topology.NewNetwork()
	for _, n := range t.Nodes {
		var err error
		if n.Type == "host" {
			var ip topology.IPv4
			if n.IP.IsValid() {
				ip = topology.IPv4From(n.IP)
			}
			_, err = nw.AddHost(n.Name, topology.SubnetFrom(n.Subnet), ip)
		} else {
			layer := n.Layer
			if layer == 0 {
				layer = 2
			}
			_, err = nw.AddSwitch(n.Name, layer)
		}
		if err != nil {
			return nil, err
		}
	}
	for _, l := range t.Links {
		a, okA := nw.Lookup(l.Between[0])
		b, okB := nw.Lookup(l.Between[1])
		if !okA || !okB {
			return nil, fmt.Errorf("link %s-%s: unknown node", l.Between[0], l.Between[1])
		}
		if _, err := nw.Connect(a, b, topology.LinkParams{Rate: l.Rate, Delay: l.Delay, Loss: l.Loss}); err != nil {
			return nil, err
		}
	}
	return nw, placeServers(nw, t.Servers)
}

// placeServers marks an explicit topology's GPUs with their server (from 1, in file order),
// rail (their place in the server's list) and scale-up domain (numbered from 1 as the
// servers first name its switch), and each scale-up switch as such.
func placeServers(nw *topology.Network, servers []scenarios.Server) error {
	domains := map[string]int32{}
	for si, s := range servers {
		var domain int32
		if s.ScaleupDomain != "" {
			sw, ok := nw.Lookup(s.ScaleupDomain)
			if !ok {
				return fmt.Errorf("server %s: unknown scale-up switch %s", s.Name, s.ScaleupDomain)
			}
			if domain = domains[s.ScaleupDomain]; domain == 0 {
				domain = int32(len(domains) + 1)
				domains[s.ScaleupDomain] = domain
			}
			nw.Nodes[sw].Role, nw.Nodes[sw].Domain = topology.RoleScaleUp, domain
		}
		for g, name := range s.GPUs {
			id, ok := nw.Lookup(name)
			if !ok {
				return fmt.Errorf("server %s: unknown GPU %s", s.Name, name)
			}
			n := &nw.Nodes[id]
			n.Server, n.Rail, n.Domain = int32(si+1), int32(g+1), domain
		}
	}
	return nil
}

// switchConfig is the model's config of a switch block: its settings that name a model field,
// then the scheduler and the ECN marker (PFC is sized per switch, see pfcConfig).
func switchConfig(c *scenarios.SwitchConfig) (switchmodel.Config, error) {
	var cfg switchmodel.Config
	if err := copySettings(&cfg, c); err != nil {
		return cfg, err
	}
	if c.Scheduler == "dwrr" {
		cfg.Scheduler = switchmodel.DWRR
		copy(cfg.Weights[:], c.Weights)
	}
	if c.ECN.Enabled {
		cfg.ECN = &ecn.Marker{Kmin: c.ECN.Kmin, Kmax: c.ECN.Kmax, Pmax: c.ECN.Pmax}
	}
	if t := c.Trimming; t.Enabled {
		cfg.Trim = switchmodel.TrimConfig{Enabled: true, Priority: uint8(t.Priority)}
		if !t.Threshold.Auto {
			cfg.Trim.Threshold = t.Threshold.Bytes
		}
		cfg.Trim.Reserve = c.Buffer / 16
		if !t.Reserve.Auto {
			cfg.Trim.Reserve = t.Reserve.Bytes
		}
	}
	cfg.LoadBalancing = map[string]switchmodel.LoadBalancing{"ecmp": switchmodel.ECMP, "spray": switchmodel.Spray,
		"flowlet": switchmodel.Flowlet, "adaptive": switchmodel.Adaptive}[c.LoadBalancing]
	return cfg, nil
}

// ecnAnywhere reports whether any switch marks ECN.
func (f *fabric) ecnAnywhere() bool {
	for _, sw := range f.switches {
		if sw.MarksECN() {
			return true
		}
	}
	return false
}

// build assembles the fabric of one resolved scenario, to run on one thread.
func build(sc *scenarios.Scenario) (*fabric, error) { return buildOn(sc, 1) }

// buildOn assembles the fabric of one resolved scenario, cut into partitions for threads
// goroutines (partition).
func buildOn(sc *scenarios.Scenario, threads int) (*fabric, error) {
	if err := settingsReachModels(); err != nil {
		return nil, err
	}
	nw, err := buildNetwork(&sc.Topology)
	if err != nil {
		return nil, placed(sc, "topology", sc.Topology.Pos, err)
	}
	var static []topology.StaticRoute
	for i, r := range sc.Topology.Routes {
		at, ok1 := nw.Lookup(r.At)
		via, ok2 := nw.Lookup(r.Via)
		if !ok1 || !ok2 {
			return nil, placed(sc, fmt.Sprintf("topology.routes.%d", i), r.Pos, fmt.Errorf("route at %s via %s: unknown node", r.At, r.Via))
		}
		static = append(static, topology.StaticRoute{At: at, Dst: topology.SubnetFrom(r.Dst), Via: via})
	}
	routes, err := topology.ComputeRoutes(nw, static)
	if err != nil {
		return nil, routeOf(sc, err)
	}
	routes.PXN = sc.Hosts.PXN
	f := &fabric{sc: sc, nw: nw, routes: routes, nics: make([]*transports.NIC, len(nw.Nodes)), ports: make([][]*transports.NIC, len(nw.Nodes)), parts: partition(nw, threads)}
	f.run = sim.NewGroup(f.parts.parts, threads, f.parts.window, len(nw.Nodes)+1)
	f.pools = topology.NewPools(f.parts.parts)
	f.run.AfterWindow(func(end sim.Time) {
		if f.parts.parts > 1 {
			f.pools.GiveBack()
		}
		f.jobs.AfterWindow(end)
	})
	f.global = f.run.Global()
	// The registry's engine and pool are only the NICs' until SetEngine gives each its
	// partition's.
	f.reg = transports.NewRegistry(f.run.Part(0), f.pools[0])
	f.reg.Seed = sc.Seed
	f.reg.Done = f.run.Stop
	f.reg.Deferred = true
	f.jobs = jobs.New(jobsFabric{f})

	f.nodeCfg = map[string]*scenarios.Node{}
	for i := range sc.Topology.Nodes {
		f.nodeCfg[sc.Topology.Nodes[i].Name] = &sc.Topology.Nodes[i]
	}
	receivers := make([]topology.Receiver, len(nw.Nodes))
	for i := range nw.Nodes {
		n := &nw.Nodes[i]
		if len(n.Ports) > topology.MaxPorts {
			return nil, f.nodeErr(n.Name, fmt.Errorf("%s has %d links; a node has at most %d", n.Name, len(n.Ports), topology.MaxPorts))
		}
		if n.Type == topology.Switch {
			c := f.switchConfigOf(n)
			cfg, err := switchConfig(c)
			if err != nil {
				return nil, f.nodeErr(n.Name, err)
			}
			cfg.PFC = f.pfcConfig(n, c)
			cfg.UETHostsUnmarked = !sc.Transports.UET.ECNToHosts
			cfg.Rand = sim.Stream(sc.Seed, "switch:"+n.Name)
			cfg.BalanceRand = sim.Stream(sc.Seed, "balance:"+n.Name)
			sw, err := switchmodel.New(f.engOf(n.ID), f.poolOf(n.ID), nw, routes, n.ID, cfg)
			if err != nil {
				return nil, f.nodeErr(n.Name, err)
			}
			f.switches = append(f.switches, sw)
			receivers[i] = sw
			continue
		}
		if len(n.Ports) == 0 {
			return nil, f.nodeErr(n.Name, fmt.Errorf("host %s has no link", n.Name))
		}
		if len(n.Ports) > 1 && n.Rail == 0 && !multiPlane(nw, n) {
			return nil, f.nodeErr(n.Name, fmt.Errorf("host %s has %d links; a host has one NIC port, a GPU of the rail preset one per plane and one to its scale-up switch", n.Name, len(n.Ports)))
		}
		hc := f.hostConfigOf(n)
		f.ports[i] = make([]*transports.NIC, len(n.Ports))
		for pi := range n.Ports {
			nic := transports.NewNIC(f.reg, nw, n.ID, uint8(hc.TTL))
			nic.SetEngine(f.engOf(n.ID), f.poolOf(n.ID))
			nic.Port = pi
			f.ports[i][pi] = nic
			f.nicList = append(f.nicList, nic)
		}
		if su := routes.ScaleUpPort(n.ID); su >= 0 {
			f.ports[i][su].Ports, f.ports[i][su].Routes = f.ports[i], routes
		}
		f.nics[i] = f.ports[i][0]
		receivers[i] = f.nics[i]
	}
	f.wires = make([][2]*topology.Wire, len(nw.Links))
	jitterWarned := false
	for li, l := range nw.Links {
		for dir, ends := range [2][2]topology.End{{l.A, l.B}, {l.B, l.A}} {
			from, to := ends[0], ends[1]
			name := fmt.Sprintf("link:%d:%s->%s", li, nw.Nodes[from.Node].Name, nw.Nodes[to.Node].Name)
			w := topology.NewWire(f.engOf(to.Node), f.poolOf(to.Node), from.Node, to.Node, from.Port, to.Port, l.Params, sim.Stream(sc.Seed, name))
			w.SetLane(topology.LaneOf(to.Node))
			if a, b := f.parts.of[from.Node], f.parts.of[to.Node]; a != b {
				w.CrossFrom(f.run.Part(a), b)
			}
			if nic := f.nicAt(to); nic != nil {
				w.Attach(nic)
			} else {
				w.Attach(receivers[to.Node])
			}
			f.wires[li][dir] = w
			if nic := f.nicAt(from); nic != nil {
				nic.Wire = w
				nic.Peer = f.routes.Forwarding(to.Node)
				nic.Response = responseTime(&sc.Switch.PFC, l.Params.Rate)
				hc := f.hostConfigOf(&nw.Nodes[from.Node])
				if hc.Jitter > 0 {
					if got := w.SetJitter(hc.Jitter); got < hc.Jitter && !jitterWarned {
						jitterWarned = true
						f.warnf("hosts.jitter %v is more than one minimum frame time at %v; it is capped at %v so a host's frames stay in order",
							hc.Jitter, l.Params.Rate, got)
					}
				}
			}
		}
	}
	if sc.Hosts.PlaneSpread == "packet" {
		f.spray()
	}
	if p := sc.Topology.Params; p.PCIe != nil && p.Planes > 1 && sc.Hosts.PlaneSpread != "qp" {
		f.warnf("hosts.plane_spread %s does not reach past a PCIe hop: a GPU's NIC node spreads its flows over the planes by its ECMP hash, one plane per flow", sc.Hosts.PlaneSpread)
	}
	f.logDepth()
	for _, sw := range f.switches {
		for pi, p := range nw.Nodes[sw.ID].Ports {
			l := nw.Links[p.Link]
			dir := 0
			if l.B.Node == sw.ID && l.B.Port == pi {
				dir = 1
			}
			sw.SetWire(pi, f.wires[p.Link][dir])
		}
	}
	if p := &sc.Switch.PFC; p.Enabled && p.DeadlockDetection > 0 {
		f.deadlocks = switchmodel.NewDeadlockDetector(f.global, nw, f.switches, p.DeadlockDetection)
	}
	if err := f.scheduleFaults(); err != nil {
		return nil, err
	}
	if err := f.addFlows(); err != nil {
		var at scenarios.Pos
		if len(sc.Traffic) > 0 {
			at = sc.Traffic[0].Pos
		}
		return nil, placed(sc, "traffic", at, err)
	}
	return f, nil
}

// nodeErr places an error of building the named node: at the node in an explicit topology,
// else (a preset's node) at the topology.
func (f *fabric) nodeErr(name string, err error) error {
	for i := range f.sc.Topology.Nodes {
		if n := &f.sc.Topology.Nodes[i]; n.Name == name {
			return placed(f.sc, fmt.Sprintf("topology.nodes.%d", i), n.Pos, err)
		}
	}
	return placed(f.sc, "topology", f.sc.Topology.Pos, err)
}

// depthLogPorts is the switch ports from which a fabric's queues add to their depth records
// through a DepthLog: a fabric that large does not keep the records in cache, and the log's
// batches overlap their misses; a smaller one adds at once, for fewer instructions. Either
// way the records are the same, to the bit (TestDepthLogLeavesResultsAsTheyWere). A
// variable only so that the test can move it.
var depthLogPorts = 1024

// logDepth gives every queue of a large fabric one DepthLog (see depthLogPorts).
func (f *fabric) logDepth() {
	ports := 0
	for _, sw := range f.switches {
		ports += len(sw.Ports)
	}
	if ports < depthLogPorts {
		return
	}
	depth := make([]*topology.DepthLog, f.parts.parts) // one per partition: each runs on its own
	for i := range depth {
		depth[i] = &topology.DepthLog{}
	}
	for _, nic := range f.nicList {
		nic.LogDepth(depth[f.parts.of[nic.ID]])
	}
	for _, sw := range f.switches {
		sw.LogDepth(depth[f.parts.of[sw.ID]])
	}
}

// nicAt is the NIC of a host's port (nil for a switch's).
func (f *fabric) nicAt(e topology.End) *transports.NIC {
	if ps := f.ports[e.Node]; ps != nil {
		return ps[e.Port]
	}
	return nil
}

// nicFor is the NIC host src sends flow i's frames to dst from (topology.Routes.HostPort, with
// the flow's PXN, pxnOf; with hosts.plane_spread flow, the plane FlowKey(i) picks, the same
// at both ends).
func (f *fabric) nicFor(src, dst topology.NodeID, i int32) *transports.NIC {
	if len(f.ports[src]) < 2 {
		return f.nics[src]
	}
	key := topology.PairKey(src, dst)
	if f.sc.Hosts.PlaneSpread == "flow" {
		key = topology.FlowKey(i)
	}
	if pi := f.routes.HostPortPXN(src, dst, key, f.pxnOf(i)); pi >= 0 {
		return f.ports[src][pi]
	}
	return f.nics[src]
}

// pxnOf is whether flow i's frames to another rail's GPU outside its sender's scale-up
// domain cross the domain first: its collective's pxn, else hosts.pxn.
func (f *fabric) pxnOf(i int32) bool {
	if int(i) < len(f.group) {
		if c := f.sc.Traffic[f.group[i]].Collective; c != nil && c.PXN != nil {
			return *c.PXN
		}
	}
	return f.routes.PXN
}

// spray makes every host with ports on several planes spray its frames over them
// (hosts.plane_spread packet), each NIC seeing which planes reach a destination.
func (f *fabric) spray() {
	reach := &transports.Reach{Wires: make([][]*topology.Wire, len(f.nw.Nodes))}
	for id, ports := range f.ports {
		var planes []*transports.NIC
		for pi, nic := range ports {
			if f.nw.Nodes[f.nw.Nodes[id].Ports[pi].Peer].Plane > 0 {
				planes = append(planes, nic)
			}
		}
		if len(planes) < 2 {
			continue
		}
		reach.Wires[id] = make([]*topology.Wire, len(ports))
		for k, nic := range planes {
			nic.Spray, nic.Reach = planes, reach
			nic.SetSprayIndex(k)
			reach.Wires[id][nic.Port] = nic.Wire
		}
	}
}

// multiPlane reports whether host n's ports all lead to fabric switches of different planes.
func multiPlane(nw *topology.Network, n *topology.Node) bool {
	seen := map[int32]bool{}
	for _, p := range n.Ports {
		pl := nw.Nodes[p.Peer].Plane
		if pl == 0 || seen[pl] {
			return false
		}
		seen[pl] = true
	}
	return true
}

// engOf is the engine of node id's partition; poolOf its packet pool.
func (f *fabric) engOf(id topology.NodeID) *sim.Engine { return f.run.Part(f.parts.of[id]) }

func (f *fabric) poolOf(id topology.NodeID) *topology.Pool { return f.pools[f.parts.of[id]] }
