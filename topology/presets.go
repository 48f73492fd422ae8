package topology

import "fmt"

// Routing modes of the multi-tier presets.
const (
	RoutingL2 = "l2" // one flat L2 domain, one subnet; switches bridge along shortest paths
	RoutingL3 = "l3" // every switch is a router; each rack (edge) is a subnet
)

// Star is n hosts h1..hN on one layer-2 switch sw, in subnet 10.0.0.0/8.
func Star(n int, link LinkParams) (*Network, error) {
	nw := NewNetwork()
	sw, _ := nw.AddSwitch("sw", 2)
	s := Subnet{Base: 10 << 24, Bits: 8}
	for i := 1; i <= n; i++ {
		h, err := nw.AddHost(fmt.Sprintf("h%d", i), s, 0)
		if err != nil {
			return nil, err
		}
		if _, err := nw.Connect(h, sw, link); err != nil {
			return nil, err
		}
	}
	return nw, nil
}

// Dumbbell is hosts l1..lN on switch swl and r1..rM on switch swr, the two switches joined by
// the bottleneck link; one subnet, 10.0.0.0/8, layer 2.
func Dumbbell(left, right int, hostLink, bottleneck LinkParams) (*Network, error) {
	nw := NewNetwork()
	swl, _ := nw.AddSwitch("swl", 2)
	swr, _ := nw.AddSwitch("swr", 2)
	s := Subnet{Base: 10 << 24, Bits: 8}
	if _, err := nw.Connect(swl, swr, bottleneck); err != nil {
		return nil, err
	}
	for side, count := range []int{left, right} {
		sw, prefix := swl, "l"
		if side == 1 {
			sw, prefix = swr, "r"
		}
		for i := 1; i <= count; i++ {
			h, err := nw.AddHost(fmt.Sprintf("%s%d", prefix, i), s, 0)
			if err != nil {
				return nil, err
			}
			if _, err := nw.Connect(h, sw, hostLink); err != nil {
				return nil, err
			}
		}
	}
	return nw, nil
}

// rackSubnet is the subnet of rack i (from 0) in l3 mode, or the one flat subnet in l2 mode.
func rackSubnet(routing string, i int) Subnet {
	if routing == RoutingL2 {
		return Subnet{Base: 10 << 24, Bits: 8}
	}
	return Subnet{Base: IPv4(10<<24 | (i+1)<<8), Bits: 24} // 10.0.(i+1).0/24 ... up to 10.255.255.0
}

func layerOf(routing string) (int, error) {
	switch routing {
	case RoutingL2:
		return 2, nil
	case RoutingL3, "":
		return 3, nil
	}
	return 0, fmt.Errorf("routing %q (allowed: l2, l3)", routing)
}

// LeafSpine is a two-tier Clos: leaf1..leafL each joined to spine1..spineS by a fabric link,
// and hostsPerLeaf hosts on each leaf, numbered h1.. rack by rack. In l3 mode every switch
// routes and rack i is subnet 10.0.i.0/24 (more than 253 hosts a rack use 10.i.0.0/16); in
// l2 mode the fabric is one subnet 10.0.0.0/8.
func LeafSpine(leaves, spines, hostsPerLeaf int, hostLink, fabricLink LinkParams, routing string) (*Network, error) {
	layer, err := layerOf(routing)
	if err != nil {
		return nil, err
	}
	nw := NewNetwork()
	var leafIDs, spineIDs []NodeID
	for i := 1; i <= leaves; i++ {
		id, _ := nw.AddSwitch(fmt.Sprintf("leaf%d", i), layer)
		leafIDs = append(leafIDs, id)
	}
	for i := 1; i <= spines; i++ {
		id, _ := nw.AddSwitch(fmt.Sprintf("spine%d", i), layer)
		spineIDs = append(spineIDs, id)
	}
	for _, l := range leafIDs {
		for _, s := range spineIDs {
			if _, err := nw.Connect(l, s, fabricLink); err != nil {
				return nil, err
			}
		}
	}
	h := 0
	for li, l := range leafIDs {
		s := rackSubnet(routing, li)
		if routing != RoutingL2 && hostsPerLeaf > 253 {
			s = Subnet{Base: IPv4(10<<24 | (li+1)<<16), Bits: 16}
		}
		for j := 0; j < hostsPerLeaf; j++ {
			h++
			id, err := nw.AddHost(fmt.Sprintf("h%d", h), s, 0)
			if err != nil {
				return nil, err
			}
			if _, err := nw.Connect(id, l, hostLink); err != nil {
				return nil, err
			}
		}
	}
	return nw, nil
}

// FatTree is the k-ary fat tree of Al-Fares et al. (SIGCOMM 2008): (k/2)^2 core switches
// core1.., k pods of k/2 aggregation (agg1..) and k/2 edge (edge1..) switches, k/2 hosts per
// edge switch (h1..), k^3/4 hosts in all. Aggregation switch j of each pod connects to cores
// j*k/2+1 .. (j+1)*k/2. In l3 mode each edge switch's hosts are a /24 subnet.
func FatTree(k int, link LinkParams, routing string) (*Network, error) {
	if k < 2 || k%2 != 0 {
		return nil, fmt.Errorf("fattree k=%d (allowed: an even number >= 2)", k)
	}
	layer, err := layerOf(routing)
	if err != nil {
		return nil, err
	}
	nw := NewNetwork()
	half := k / 2
	var cores, aggs, edges []NodeID
	for i := 1; i <= half*half; i++ {
		id, _ := nw.AddSwitch(fmt.Sprintf("core%d", i), layer)
		cores = append(cores, id)
	}
	for i := 1; i <= k*half; i++ {
		id, _ := nw.AddSwitch(fmt.Sprintf("agg%d", i), layer)
		aggs = append(aggs, id)
	}
	for i := 1; i <= k*half; i++ {
		id, _ := nw.AddSwitch(fmt.Sprintf("edge%d", i), layer)
		edges = append(edges, id)
	}
	for pod := 0; pod < k; pod++ {
		for j := 0; j < half; j++ {
			agg := aggs[pod*half+j]
			for c := 0; c < half; c++ {
				if _, err := nw.Connect(agg, cores[j*half+c], link); err != nil {
					return nil, err
				}
			}
			for e := 0; e < half; e++ {
				if _, err := nw.Connect(edges[pod*half+e], agg, link); err != nil {
					return nil, err
				}
			}
		}
	}
	h := 0
	for ei, e := range edges {
		s := rackSubnet(routing, ei)
		for j := 0; j < half; j++ {
			h++
			id, err := nw.AddHost(fmt.Sprintf("h%d", h), s, 0)
			if err != nil {
				return nil, err
			}
			if _, err := nw.Connect(id, e, link); err != nil {
				return nil, err
			}
		}
	}
	return nw, nil
}
