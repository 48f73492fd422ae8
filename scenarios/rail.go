package scenarios

import (
	"fmt"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// The H100 scale-up defaults, taken by scaleup: {} (and by each of its fields left out).
const (
	// ScaleUpRate is one H100 GPU's NVLink bandwidth each way: NVLink 4 gives a GPU 18 links
	// of 50 GB/s (25 GB/s each way), 900 GB/s in both directions together (NVIDIA H100
	// Tensor Core GPU datasheet; the DGX H100 user guide), so 450 GB/s = 3.6 Tb/s each way.
	ScaleUpRate = 3600 * sim.Gbps
	// ScaleUpDelay is the latency of each of a GPU's two links through the NVSwitch:
	// ASTRA-sim's analytical model validated against NCCL on an HGX H100 (its
	// examples/network/analytical/HGX-H100-validated.yml: a Switch of 8 NPUs, 936.25 ns a
	// link, 400 GB/s) takes 936.25 ns per link, so a GPU-to-GPU frame sees 1.8725 us of
	// propagation through the domain.
	ScaleUpDelay = 936250 * sim.Picosecond
)

// MaxPlanes bounds topology.params.planes: a NIC has a port on each plane.
const MaxPlanes = 16

// rail resolves the rail preset's params into t.Params; it reports whether they are usable.
// count, link and routing are preset's helpers (they record each problem).
func (r *resolver) rail(raw *rawParams, count func(string, *int, int) int, link func(string, *rawLinkSpec) LinkSpec, routing func(), planes func() int) bool {
	p := &r.sc.Topology.Params
	ok := true
	orDefault := func(field string, v *int, def int) int {
		if v == nil {
			return def
		}
		n := count(field, v, 1)
		ok = ok && n > 0
		return n
	}
	p.Stripes = orDefault("stripes", raw.Stripes, 1)
	p.ServersPerStripe = count("servers_per_stripe", raw.ServersPerStripe, 1)
	p.GPUsPerServer = orDefault("gpus_per_server", raw.GPUsPerServer, 8)
	p.ServersPerScaleup = orDefault("servers_per_scaleup", raw.ServersPerScaleup, 1)
	p.Spines = count("spines", raw.Spines, 1)
	p.Planes = planes()
	p.NICLink = link("nic_link", raw.NICLink)
	p.FabricLink = link("fabric_link", raw.FabricLink)
	if raw.ScaleUp != nil {
		s := *raw.ScaleUp
		if s.Rate == nil {
			rate := Rate(ScaleUpRate)
			s.Rate = &rate
		}
		if s.Delay == nil {
			d := Duration(ScaleUpDelay)
			s.Delay = &d
		}
		spec := r.linkSpec("topology.params.scaleup", s.Rate, s.Delay, s.Loss)
		p.ScaleUp = &spec
	}
	if raw.PCIe != nil {
		spec := r.linkSpec("topology.params.pcie", raw.PCIe.Rate, raw.PCIe.Delay, raw.PCIe.Loss)
		p.PCIe = &spec
	}
	routing()
	if p.ServersPerStripe == 0 || p.Spines == 0 || p.GPUsPerServer == 0 || p.Stripes == 0 || p.ServersPerScaleup == 0 || p.Planes == 0 {
		return false
	}
	if servers := p.Stripes * p.ServersPerStripe; servers%p.ServersPerScaleup != 0 {
		r.errf("topology.params.servers_per_scaleup", "the %d servers (stripes %d x servers_per_stripe %d) do not divide into scale-up domains of %d servers: servers_per_scaleup must divide %d",
			servers, p.Stripes, p.ServersPerStripe, p.ServersPerScaleup, servers)
		return false
	}
	if p.ServersPerScaleup > 1 && p.ScaleUp == nil {
		r.errf("topology.params.servers_per_scaleup", "servers_per_scaleup %d needs a scale-up domain: add scaleup: {} (H100 defaults) or scaleup: {rate, delay}", p.ServersPerScaleup)
		return false
	}
	if nodes := RailParams(r.sc.Topology).Nodes(); nodes > maxNodes {
		r.errf("topology.params", "the rail fabric has %d nodes; at most %d are allowed", nodes, maxNodes)
		return false
	}
	return ok
}

// Params is the link as the topology package takes it.
func (s LinkSpec) Params() topology.LinkParams {
	return topology.LinkParams{Rate: s.Rate, Delay: s.Delay, Loss: s.Loss}
}

// RailParams is t's rail params as the topology package takes them.
func RailParams(t Topology) topology.RailParams {
	p := t.Params
	lp := LinkSpec.Params
	rp := topology.RailParams{Stripes: p.Stripes, ServersPerStripe: p.ServersPerStripe, GPUsPerServer: p.GPUsPerServer,
		ServersPerScaleup: p.ServersPerScaleup, Spines: p.Spines, Planes: p.Planes, NIC: lp(p.NICLink),
		Fabric: lp(p.FabricLink), Routing: p.Routing}
	if p.ScaleUp != nil {
		l := lp(*p.ScaleUp)
		rp.ScaleUp = &l
	}
	if p.PCIe != nil {
		l := lp(*p.PCIe)
		rp.PCIe = &l
	}
	return rp
}

// PresetNetwork builds the network of t's preset (t.Preset not ""): the one definition of
// the presets' nodes, links and addresses, which NodeNames and TopologyLinks read for the
// rail preset and for planes.
func PresetNetwork(t Topology) (*topology.Network, error) {
	lp := LinkSpec.Params
	p := t.Params
	var nw *topology.Network
	var err error
	switch t.Preset {
	case "star":
		return topology.Star(p.Hosts, lp(p.Link))
	case "dumbbell":
		return topology.Dumbbell(p.Left, p.Right, lp(p.HostLink), lp(p.Bottleneck))
	case "leafspine":
		nw, err = topology.LeafSpine(p.Leaves, p.Spines, p.HostsPerLeaf, lp(p.HostLink), lp(p.FabricLink), p.Routing)
	case "fattree":
		nw, err = topology.FatTree(p.K, lp(p.Link), p.Routing)
	case "rail":
		return topology.Rail(RailParams(t))
	default:
		return nil, fmt.Errorf("unknown preset %q", t.Preset)
	}
	if err != nil {
		return nil, err
	}
	return topology.WithPlanes(nw, max(p.Planes, 1))
}

// builtNames reports whether NodeNames and TopologyLinks read t's names and links from its
// built network (builtNodes): the rail preset, and leafspine or fattree with planes.
func builtNames(t *Topology) bool { return t.Preset == "rail" || t.Params.Planes > 1 }

// builtNodes is the nodes and links of a preset's network as an explicit topology would
// declare them (see PresetNetwork), or nil when its params do not build.
func builtNodes(t Topology) ([]Node, []Link) {
	nw, err := PresetNetwork(t)
	if err != nil {
		return nil, nil
	}
	nodes := make([]Node, len(nw.Nodes))
	for i := range nw.Nodes {
		n := &nw.Nodes[i]
		nodes[i] = Node{Name: n.Name, Type: n.Type.String(), Layer: n.Layer}
		if n.Type == topology.Host {
			nodes[i].Layer = 0
		}
	}
	links := make([]Link, len(nw.Links))
	for i, l := range nw.Links {
		links[i] = Link{Between: [2]string{nw.Nodes[l.A.Node].Name, nw.Nodes[l.B.Node].Name},
			Rate: l.Params.Rate, Delay: l.Params.Delay, Loss: l.Params.Loss}
	}
	return nodes, links
}
