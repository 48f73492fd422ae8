// Package topology holds the fabric as data: nodes, ports and full-duplex links, IPv4
// subnets and addresses, the packets that cross the links with their real header stacks and
// exact wire sizes, the route computation (L2 bridging inside a subnet, L3 longest-prefix
// routing between subnets, ECMP, static routes), and the presets star, dumbbell, leafspine,
// fattree and rail (an AI cluster: GPUs with a NIC each on their rail, scale-up domains, planes;
// scaleup.go says which port a GPU sends from and how PXN relays).
//
// Addresses: hosts have IPv4 addresses in their subnets; every host NIC and every switch port
// has a MAC address (PortMAC). Routes.FrameMACs says which MACs a frame carries on a given
// link: each router rewrites them, bridges do not. ARP is not modelled: the MACs are known
// from the topology, never resolved, and the datapath does not look at them at all (they are
// worked out only for packet captures).
//
// It also holds the two pieces of per-packet machinery that every node shares: the Wire (one
// direction of a link: serialization, propagation, loss, up/down) and the Queue (an
// allocation-free FIFO of packets with a time-weighted depth record).
package topology
