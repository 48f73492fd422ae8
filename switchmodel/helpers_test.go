package switchmodel

import (
	"testing"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/stretchr/testify/require"
)

// got is one frame a host received.
type got struct {
	at       sim.Time
	src      topology.NodeID
	priority uint8
	psn      uint32
	ttl      uint8
	frame    int32
	routed   bool
}

// host records the frames delivered to it and returns them to the pool.
type host struct {
	pool *topology.Pool
	got  []got
	// onReceive, if set, runs after each frame is recorded.
	onReceive func(now sim.Time)
}

func (h *host) Receive(now sim.Time, p *topology.Packet, _ int) {
	h.got = append(h.got, got{now, p.Src, p.Priority, p.PSN, p.TTL, p.Frame, p.Routed})
	h.pool.Deliver(p)
	if h.onReceive != nil {
		h.onReceive(now)
	}
}

// fabric is a network wired for a test: a switch per switch node, a recording host per
// host node, and a wire per link direction.
type fabric struct {
	nw     *topology.Network
	routes *topology.Routes
	eng    *sim.Engine
	pool   *topology.Pool
	sw     map[topology.NodeID]*Switch
	hosts  map[topology.NodeID]*host
	wires  map[[2]topology.NodeID]*topology.Wire // [from, to] -> the wire of that direction
}

func build(t *testing.T, nw *topology.Network, cfg Config, static ...topology.StaticRoute) *fabric {
	t.Helper()
	routes, err := topology.ComputeRoutes(nw, static)
	require.NoError(t, err)
	f := &fabric{nw: nw, routes: routes, eng: sim.NewEngine(), pool: &topology.Pool{},
		sw: map[topology.NodeID]*Switch{}, hosts: map[topology.NodeID]*host{}, wires: map[[2]topology.NodeID]*topology.Wire{}}
	recv := map[topology.NodeID]topology.Receiver{}
	for i := range nw.Nodes {
		n := &nw.Nodes[i]
		if n.Type == topology.Switch {
			sw, err := New(f.eng, f.pool, nw, routes, n.ID, cfg)
			if err != nil {
				t.Fatal(err)
			}
			f.sw[n.ID] = sw
			recv[n.ID] = f.sw[n.ID]
		} else {
			f.hosts[n.ID] = &host{pool: f.pool}
			recv[n.ID] = f.hosts[n.ID]
		}
	}
	for _, l := range nw.Links {
		for _, e := range [2][2]topology.End{{l.A, l.B}, {l.B, l.A}} {
			from, to := e[0], e[1]
			w := topology.NewWire(f.eng, f.pool, from.Node, to.Node, from.Port, to.Port, l.Params,
				sim.Stream(1, nw.PortName(from.Node, from.Port)))
			w.Attach(recv[to.Node])
			f.wires[[2]topology.NodeID{from.Node, to.Node}] = w
			if sw := f.sw[from.Node]; sw != nil {
				sw.SetWire(from.Port, w)
			}
		}
	}
	return f
}

func (f *fabric) id(t *testing.T, name string) topology.NodeID {
	t.Helper()
	id, ok := f.nw.Lookup(name)
	require.True(t, ok, name)
	return id
}

// wire is the wire from node a to node b.
func (f *fabric) wire(t *testing.T, a, b string) *topology.Wire {
	t.Helper()
	w := f.wires[[2]topology.NodeID{f.id(t, a), f.id(t, b)}]
	require.NotNil(t, w, "%s->%s", a, b)
	return w
}

// data is a RoCE v2 WRITE Middle packet from host src to host dst, marked as a transport
// marks it.
func (f *fabric) data(src, dst topology.NodeID, priority uint8, psn uint32, payload int32) *topology.Packet {
	s, d := &f.nw.Nodes[src], &f.nw.Nodes[dst]
	p := f.pool.Get(topology.KindData)
	p.EtherType, p.Protocol, p.DstPort, p.IB().Opcode = topology.EtherTypeIPv4, topology.IPProtoUDP, topology.UDPPortRoCEv2, topology.OpWriteMiddle
	p.SrcIP, p.DstIP, p.TTL = s.IP, d.IP, 64
	p.SrcPort = uint16(49152 + psn%1024)
	p.Priority, p.DSCP, p.PSN, p.Payload = priority, priority, psn, payload
	p.Src, p.Dst = src, dst
	p.CrossSubnet = !s.Subnet.Contains(d.IP)
	p.Hash = topology.FlowHash(p.SrcIP, p.DstIP, p.Protocol, p.SrcPort, p.DstPort)
	p.Seal()
	return p
}

// send puts p on the host's only link at now and returns when its last bit is out.
func (f *fabric) send(now sim.Time, p *topology.Packet) sim.Time {
	h := &f.nw.Nodes[p.Src]
	return f.wires[[2]topology.NodeID{h.ID, h.Ports[0].Peer}].Send(now, p)
}

// checkBooks checks that nothing is left anywhere once the run is over.
func (f *fabric) checkBooks(t *testing.T) {
	t.Helper()
	for k := topology.Kind(0); k < topology.NumKinds; k++ {
		require.Zero(t, f.pool.InNetwork(k), "%s packets still in the network", k)
	}
	for _, sw := range f.sw {
		require.Zero(t, sw.BufferUsed, "%s buffer", sw.Name)
		for _, p := range sw.Ports {
			require.Zero(t, p.Queued())
			for q := range p.Queues {
				require.Zero(t, p.Queues[q].Bytes)
			}
		}
	}
}

// tx is the serialization time of a frame of the given size at rate r: (frame + preamble,
// SFD and inter-frame gap) x 8 / r, exact for the rates the tests use.
func tx(t *testing.T, frame int32, r sim.Rate) sim.Time {
	bits := (int64(frame) + topology.PreambleSFD + topology.InterFrameGap) * 8
	require.Zero(t, bits*int64(sim.Second)%int64(r), "pick a rate that divides")
	return sim.Time(bits * int64(sim.Second) / int64(r))
}

// rocev2Frame is the frame size of a RoCE v2 WRITE Middle with this payload, from the
// header sizes.
func rocev2Frame(payload int32) int32 {
	return topology.EthernetHeader + topology.IPv4Header + topology.UDPHeader + topology.BTHHeader +
		topology.ICRC + topology.FCS + payload
}
