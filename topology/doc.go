// Package topology holds the fabric as data: nodes, ports and full-duplex links, IPv4
// subnets and addresses, the packets that cross the links with their real header stacks and
// exact wire sizes, the route computation (L2 bridging inside a subnet, L3 longest-prefix
// routing between subnets, ECMP, static routes), and the presets star, dumbbell, leafspine
// and fattree.
//
// It also holds the two pieces of per-packet machinery that every node shares: the Wire (one
// direction of a link: serialization, propagation, loss, up/down) and the Queue (an
// allocation-free FIFO of packets with a time-weighted depth record).
package topology
