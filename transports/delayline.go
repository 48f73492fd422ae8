package transports

import (
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// delayLine is the NIC's receive pipeline: every segment reaches TCP a fixed processing time
// after it arrived, in arrival order. It holds copies of the frames (the NIC returns the
// frame to the pool when the endpoint has looked at it) in a ring that grows while the
// network fills and is reused after, so the steady state allocates nothing.
type delayLine struct {
	pkts []topology.Packet
	due  []sim.Time
	head int
	n    int
}

// push queues a copy of p, due at t; it reports whether the line was empty.
func (d *delayLine) push(p *topology.Packet, t sim.Time) bool {
	if d.n == len(d.pkts) {
		c := max(2*len(d.pkts), 16)
		pk, du := make([]topology.Packet, c), make([]sim.Time, c)
		for i := 0; i < d.n; i++ {
			j := (d.head + i) % len(d.pkts)
			pk[i], du[i] = d.pkts[j], d.due[j]
		}
		d.pkts, d.due, d.head = pk, du, 0
	}
	i := (d.head + d.n) % len(d.pkts)
	d.pkts[i], d.due[i] = *p, t
	d.n++
	return d.n == 1
}

func (d *delayLine) front() (*topology.Packet, sim.Time) { return &d.pkts[d.head], d.due[d.head] }

func (d *delayLine) pop() {
	d.head = (d.head + 1) % len(d.pkts)
	d.n--
}
