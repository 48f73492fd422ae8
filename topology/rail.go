package topology

import "fmt"

// RailParams are the params of the rail preset (Rail).
type RailParams struct {
	Stripes           int         // groups of servers whose rails share leaves (>= 1)
	ServersPerStripe  int         // >= 1
	GPUsPerServer     int         // also the number of rails (>= 1)
	ServersPerScaleup int         // servers in one scale-up domain; divides ServersPerStripe x Stripes
	Spines            int         // per plane (>= 1)
	Planes            int         // parallel copies of the leaf-spine fabric (>= 1)
	NIC               LinkParams  // a GPU's NIC (or its PCIe NIC node) to a rail leaf
	Fabric            LinkParams  // rail leaf to spine
	ScaleUp           *LinkParams // a GPU to its scale-up switch; nil: no scale-up domain
	PCIe              *LinkParams // a GPU to its NIC; nil: the GPU is the NIC's host, no hop
	Routing           string      // l3 (default) or l2
}

// Nodes is the number of nodes Rail builds: for each plane a leaf per stripe and rail and
// the spines; a scale-up switch per domain; the GPUs and, with a PCIe hop, a NIC each.
func (p RailParams) Nodes() int {
	servers := p.Stripes * p.ServersPerStripe
	gpus := servers * p.GPUsPerServer
	n := p.Planes*(p.Stripes*p.GPUsPerServer+p.Spines) + gpus
	if p.ScaleUp != nil {
		n += servers / p.ServersPerScaleup
	}
	if p.PCIe != nil {
		n += gpus
	}
	return n
}

// Links is the number of links Rail builds: per plane a NIC link per GPU and every leaf to
// every spine; a scale-up link per GPU; a PCIe link per GPU.
func (p RailParams) Links() int {
	gpus := p.Stripes * p.ServersPerStripe * p.GPUsPerServer
	n := p.Planes * (gpus + p.Stripes*p.GPUsPerServer*p.Spines)
	if p.ScaleUp != nil {
		n += gpus
	}
	if p.PCIe != nil {
		n += gpus
	}
	return n
}

// check reports params Rail cannot build.
func (p RailParams) check() error {
	for _, c := range []struct {
		name string
		v    int
	}{{"stripes", p.Stripes}, {"servers_per_stripe", p.ServersPerStripe}, {"gpus_per_server", p.GPUsPerServer},
		{"servers_per_scaleup", p.ServersPerScaleup}, {"spines", p.Spines}, {"planes", p.Planes}} {
		if c.v < 1 {
			return fmt.Errorf("rail %s=%d (allowed: 1 or more)", c.name, c.v)
		}
	}
	if servers := p.Stripes * p.ServersPerStripe; servers%p.ServersPerScaleup != 0 {
		return fmt.Errorf("rail: %d servers do not divide into scale-up domains of servers_per_scaleup=%d", servers, p.ServersPerScaleup)
	}
	return nil
}

// PlaneName is a fabric switch's name in plane pl (from 1) of planes: the name itself with
// one plane, else prefixed p<pl> (p2leaf1r3, p2spine4).
func PlaneName(name string, pl, planes int) string {
	if planes == 1 {
		return name
	}
	return fmt.Sprintf("p%d%s", pl, name)
}

// Rail is a rail-optimized AI cluster (NVIDIA's HGX AI Factory reference architecture, the
// compute network: "rail N connects GPUs in position N in all the servers" of a stripe
// through leaf N; Juniper's AI data-center JVD, "Rail Optimized Fabric"). Servers s1.. are
// numbered across stripes (stripe T holds servers (T-1)*ServersPerStripe+1..); GPU G of
// server S is host s<S>g<G>, with its own NIC on rail G. For each plane: rail leaf
// leaf<T>r<R> joins GPU R of the servers of stripe T, and spines spine1..spineK join every
// leaf; with several planes the fabric is built once per plane, its switch names prefixed
// p<P>, and every NIC has a port on each. With ScaleUp, scale-up switch nv<D> joins the GPUs
// of ServersPerScaleup consecutive servers (a switch whose links are lossless, as NVLink
// is); with PCIe, each GPU reaches a NIC node s<S>g<G>nic over a PCIe link, and the NIC's
// ports go to the leaves. In l3 mode the GPUs under one rail leaf (of every plane) are one
// subnet and every switch but the PCIe NICs routes; in l2 mode all is one subnet.
func Rail(p RailParams) (*Network, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	layer, err := layerOf(p.Routing)
	if err != nil {
		return nil, err
	}
	nw := NewNetwork()
	rails := p.GPUsPerServer
	leaves := make([][]NodeID, p.Planes) // [plane][(stripe-1)*rails + rail-1]
	for pl := 1; pl <= p.Planes; pl++ {
		for t := 1; t <= p.Stripes; t++ {
			for r := 1; r <= rails; r++ {
				id, err := nw.AddSwitch(PlaneName(fmt.Sprintf("leaf%dr%d", t, r), pl, p.Planes), layer)
				if err != nil {
					return nil, err
				}
				nw.Nodes[id].Plane = int32(pl)
				leaves[pl-1] = append(leaves[pl-1], id)
			}
		}
		for k := 1; k <= p.Spines; k++ {
			id, err := nw.AddSwitch(PlaneName(fmt.Sprintf("spine%d", k), pl, p.Planes), layer)
			if err != nil {
				return nil, err
			}
			nw.Nodes[id].Plane = int32(pl)
			for _, l := range leaves[pl-1] {
				if _, err := nw.Connect(l, id, p.Fabric); err != nil {
					return nil, err
				}
			}
		}
	}
	servers := p.Stripes * p.ServersPerStripe
	var scaleUp []NodeID
	if p.ScaleUp != nil {
		for d := 1; d <= servers/p.ServersPerScaleup; d++ {
			id, err := nw.AddSwitch(fmt.Sprintf("nv%d", d), layer)
			if err != nil {
				return nil, err
			}
			nw.Nodes[id].Role, nw.Nodes[id].Domain = RoleScaleUp, int32(d)
			scaleUp = append(scaleUp, id)
		}
	}
	for s := 1; s <= servers; s++ {
		stripe := (s - 1) / p.ServersPerStripe
		domain := (s-1)/p.ServersPerScaleup + 1
		for g := 1; g <= rails; g++ {
			leaf := stripe*rails + g - 1
			sub := rackSubnet(p.Routing, leaf)
			if p.Routing != RoutingL2 && p.ServersPerStripe > 253 {
				sub = Subnet{Base: IPv4(10<<24 | (leaf+1)<<16), Bits: 16}
			}
			name := fmt.Sprintf("s%dg%d", s, g)
			gpu, err := nw.AddHost(name, sub, 0)
			if err != nil {
				return nil, err
			}
			n := &nw.Nodes[gpu]
			n.Server, n.Rail, n.Domain = int32(s), int32(g), int32(domain)
			nicNode := gpu
			if p.PCIe != nil {
				if nicNode, err = nw.AddSwitch(name+"nic", 2); err != nil {
					return nil, err
				}
				nw.Nodes[nicNode].Role = RolePCIeNIC
				if _, err := nw.Connect(gpu, nicNode, *p.PCIe); err != nil {
					return nil, err
				}
			}
			for pl := range p.Planes {
				if _, err := nw.Connect(nicNode, leaves[pl][leaf], p.NIC); err != nil {
					return nil, err
				}
			}
			if p.ScaleUp != nil {
				if _, err := nw.Connect(gpu, scaleUp[domain-1], *p.ScaleUp); err != nil {
					return nil, err
				}
			}
		}
	}
	return nw, nil
}

// WithPlanes is nw built once per plane: every switch copied into each of planes planes,
// named PlaneName (p1leaf1, p2leaf1, ...), plane by plane, then the hosts, each with a port on
// every plane (its port i on plane i+1); a link between switches joins their copies in each
// plane. With one plane it is nw itself. Hosts keep their addresses, so a host is one
// endpoint whatever plane a frame takes (Alibaba HPN's dual-plane, OpenAI's MRC's planes,
// uet-htsim's -planes).
func WithPlanes(nw *Network, planes int) (*Network, error) {
	if planes == 1 {
		return nw, nil
	}
	if planes < 1 {
		return nil, fmt.Errorf("planes=%d (allowed: 1 or more)", planes)
	}
	out := NewNetwork()
	copies := make([][]NodeID, planes) // [plane][old id] -> new id (switches and hosts)
	for pl := range copies {
		copies[pl] = make([]NodeID, len(nw.Nodes))
	}
	for pl := 1; pl <= planes; pl++ {
		for i := range nw.Nodes {
			n := &nw.Nodes[i]
			if n.Type != Switch {
				continue
			}
			id, err := out.AddSwitch(PlaneName(n.Name, pl, planes), n.Layer)
			if err != nil {
				return nil, err
			}
			c := &out.Nodes[id]
			c.Plane, c.Role, c.Domain = int32(pl), n.Role, n.Domain
			copies[pl-1][i] = id
		}
	}
	for i := range nw.Nodes {
		n := &nw.Nodes[i]
		if n.Type != Host {
			continue
		}
		id, err := out.AddHost(n.Name, n.Subnet, n.IP)
		if err != nil {
			return nil, err
		}
		c := &out.Nodes[id]
		c.Server, c.Rail, c.Domain = n.Server, n.Rail, n.Domain
		for pl := range copies {
			copies[pl][i] = id
		}
	}
	for _, l := range nw.Links {
		for pl := range copies {
			if _, err := out.Connect(copies[pl][l.A.Node], copies[pl][l.B.Node], l.Params); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}
