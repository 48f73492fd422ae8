package topology

// Scale-up domains and GPUs with several ports: which port a GPU sends from, the scale-up
// switch's routes toward GPUs outside its domain, and the GPU that relays such a frame onto
// its own rail (PXN). See docs/model.md, "AI clusters".

// ScaleUpPort is host h's port to a scale-up switch, or -1.
func (r *Routes) ScaleUpPort(h NodeID) int {
	for pi, p := range r.nw.Nodes[h].Ports {
		if n := &r.nw.Nodes[p.Peer]; n.Type == Switch && n.Role == RoleScaleUp {
			return pi
		}
	}
	return -1
}

// PairKey is the number a host picks a plane for its frames to dst by with hosts.plane_spread
// qp: the same for every frame from src to dst, so a queue pair's frames keep to one plane.
func PairKey(src, dst NodeID) uint32 { return mix32(uint32(src)*0x9e3779b9 ^ uint32(dst)) }

// FlowKey is the number both ends of flow i pick its plane by with hosts.plane_spread flow.
func FlowKey(i int32) uint32 { return mix32(uint32(i)*0x85ebca6b + 0x165667b1) }

// sidePort is host h's k-th fabric-side port, counting every port but the one to its
// scale-up switch (su), taking k modulo their number; -1 when there is none.
func (r *Routes) sidePort(h NodeID, su int, k uint32) int {
	ports := r.nw.Nodes[h].Ports
	n := len(ports)
	if su >= 0 {
		n--
	}
	if n <= 0 {
		return -1
	}
	i := int(k % uint32(n))
	if su >= 0 && i >= su {
		i++
	}
	return i
}

// HostPort is the port host h sends a frame for host d from. A host with one port uses it. A
// GPU with a scale-up port sends through the scale-up domain to a GPU of its own domain, and,
// with PXN, to another rail's GPU outside it (the scale-up switch takes the frame to the GPU of
// the destination's rail, which sends it on its own NIC: NCCL's PXN); every other frame leaves
// by a fabric-side port (its NIC's, or its PCIe link's), one of the planes chosen per
// source and destination pair (PairKey). -1 when h has no port.
func (r *Routes) HostPort(h, d NodeID) int { return r.HostPortKeyed(h, d, PairKey(h, d)) }

// HostPortKeyed is HostPort with the plane picked by key (PairKey or FlowKey).
func (r *Routes) HostPortKeyed(h, d NodeID, key uint32) int { return r.HostPortPXN(h, d, key, r.PXN) }

// HostPortPXN is HostPortKeyed with PXN on or off for this frame, whatever r.PXN says (a
// collective's pxn).
func (r *Routes) HostPortPXN(h, d NodeID, key uint32, pxn bool) int {
	nodes := r.nw.Nodes
	if len(nodes[h].Ports) == 1 {
		return 0
	}
	su := r.ScaleUpPort(h)
	if su >= 0 && nodes[d].Rail > 0 {
		if nodes[d].Domain == nodes[h].Domain || pxn && nodes[d].Rail != nodes[h].Rail {
			return su
		}
	}
	return r.sidePort(h, su, key)
}

// RelayPort is the port a GPU relays a frame from src to dst on, after the scale-up switch
// brought it there (PXN): a fabric-side port, chosen among them as HostPort chooses, but by
// the pair (src, dst) rather than (h, dst), so that one source's frames keep one port; or
// -1 when the GPU has none or the frame did not come through the domain.
func (r *Routes) RelayPort(h, src, dst NodeID) int {
	nodes := r.nw.Nodes
	su := r.ScaleUpPort(h)
	if su < 0 || h == dst || nodes[src].Domain != nodes[h].Domain {
		return -1
	}
	return r.sidePort(h, su, PairKey(src, dst))
}

// scaleUpRelays gives every scale-up switch its routes toward the GPUs outside its domain
// (which it has no link toward): the ports to its own GPUs on the destination's rail, equal
// cost, which relay the frame onto that rail (PXN).
func (r *Routes) scaleUpRelays(index []map[string]uint16, routers bool) error {
	nw := r.nw
	var ports []int32
	for i := range nw.Nodes {
		sw := &nw.Nodes[i]
		if sw.Type != Switch || sw.Role != RoleScaleUp {
			continue
		}
		fw := r.fwd[i]
		for d := range nw.Nodes {
			dn := &nw.Nodes[d]
			if dn.Type != Host || dn.Rail == 0 || dn.Domain == sw.Domain {
				continue
			}
			ports = ports[:0]
			for pi, p := range sw.Ports {
				if g := &nw.Nodes[p.Peer]; g.Type == Host && g.Rail == dn.Rail {
					ports = append(ports, int32(pi))
				}
			}
			g, err := fw.group(index[i], ports)
			if err != nil {
				return err
			}
			c := fw.dests[d].class
			fw.rows[Bridged][c] = g
			if routers { // else every switch shares one empty Unrouted row
				fw.rows[Unrouted][c] = g
			}
		}
	}
	return nil
}
