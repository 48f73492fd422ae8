package switchmodel

import (
	"strings"

	"github.com/fabricsim/fabricsim/pfc"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// Deadlock is a cycle of paused egress queues that made no progress, found at At. Cycle
// names each queue's port as "node:port" (ports from 1), in the order each waits on the next:
// a queue is paused by its peer, whose buffer is held by the next queue, and so on.
type Deadlock struct {
	At    sim.Time
	Cycle []string
}

// DeadlockDetector looks, every Interval, for a cycle of egress queues that are paused, hold
// frames, and sent none since the last look: a PFC deadlock (Hu et al., HotNets 2016). Each
// cycle is reported once.
type DeadlockDetector struct {
	Interval sim.Time
	// Found lists the deadlocks in the order they were found.
	Found []Deadlock

	eng      *sim.Engine
	nw       *topology.Network
	switches []*Switch
	byNode   map[topology.NodeID]*Switch
	served   map[queueKey]uint32
	reported map[string]bool
}

type queueKey struct {
	sw    *Switch
	port  int
	class int
}

// NewDeadlockDetector watches the given switches of nw; it starts looking at the first
// Interval.
func NewDeadlockDetector(eng *sim.Engine, nw *topology.Network, switches []*Switch, interval sim.Time) *DeadlockDetector {
	d := &DeadlockDetector{Interval: interval, eng: eng, nw: nw, switches: switches,
		byNode: map[topology.NodeID]*Switch{}, served: map[queueKey]uint32{}, reported: map[string]bool{}}
	for _, sw := range switches {
		d.byNode[sw.ID] = sw
	}
	eng.At(interval, d, 0, nil)
	return d
}

// Handle implements sim.Handler: one look.
func (d *DeadlockDetector) Handle(now sim.Time, _ int, _ any) {
	d.look(now)
	d.eng.At(now+d.Interval, d, 0, nil)
}

func (d *DeadlockDetector) look(now sim.Time) {
	var stuck []queueKey
	index := map[queueKey]int{}
	for _, sw := range d.switches {
		for _, pt := range sw.Ports {
			for c := range pt.Queues {
				k := queueKey{sw, pt.Index, c}
				served := pt.Queues[c].Served
				last, seen := d.served[k]
				d.served[k] = served
				since := pt.Pause.PausedSince(now, c)
				if pt.Queues[c].Len > 0 && seen && served == last && since <= now-d.Interval {
					index[k] = len(stuck)
					stuck = append(stuck, k)
				}
			}
		}
	}
	if len(stuck) < 2 {
		return
	}
	// Queue (A, p, c) waits on the stuck queues of class c at A's peer behind port p.
	adj := make([][]int, len(stuck))
	for i, k := range stuck {
		peer := d.byNode[k.sw.Ports[k.port].Wire.To]
		if peer == nil {
			continue
		}
		for _, pt := range peer.Ports {
			if j, ok := index[queueKey{peer, pt.Index, k.class}]; ok {
				adj[i] = append(adj[i], j)
			}
		}
	}
	cycle := pfc.FindCycle(adj)
	if cycle == nil {
		return
	}
	names := make([]string, len(cycle))
	for i, v := range cycle {
		names[i] = d.nw.PortName(stuck[v].sw.ID, stuck[v].port)
	}
	key := strings.Join(names, " ")
	if !d.reported[key] {
		d.reported[key] = true
		d.Found = append(d.Found, Deadlock{At: now, Cycle: names})
	}
}
