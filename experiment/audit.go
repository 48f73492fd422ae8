package experiment

import (
	"fmt"

	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports"
)

// audit checks the books of a finished run: for every kind of packet, those taken from the
// pool equal those delivered, plus those dropped, plus those still queued or on a wire; and
// the drops the pool saw equal the drops the components counted by reason; and every
// completed flow delivered exactly its bytes. A failure is a bug in the simulator, never in
// the scenario.
func (f *fabric) audit() error {
	var counted int64
	for _, sw := range f.switches {
		for _, d := range sw.Drops {
			counted += d
		}
	}
	for _, pair := range f.wires {
		for _, w := range pair {
			counted += w.LostRandom + w.LostDown
		}
	}
	for _, nic := range f.nicList {
		counted += nic.Misdelivered
	}
	var dropped int64
	for k := topology.Kind(0); k < topology.NumKinds; k++ {
		var where int64
		for _, sw := range f.switches {
			for _, pt := range sw.Ports {
				for q := range pt.Queues {
					where += pt.Queues[q].Count(k)
				}
			}
			where += sw.InTransit(k)
			for _, pt := range sw.Ports {
				where += pt.ControlCount(k)
			}
		}
		for _, nic := range f.nicList {
			for q := range nic.Control {
				where += nic.Control[q].Count(k)
				if rq := nic.RelayQueue(q); rq != nil {
					where += rq.Count(k)
				}
			}
			where += nic.PFCOut.Count(k)
		}
		for _, pair := range f.wires {
			where += pair[0].InFlight(k) + pair[1].InFlight(k)
		}
		var pl topology.Pool // the partitions' pools summed: a packet taken in one may end in another
		for _, p := range f.pools {
			pl.Taken[k] += p.Taken[k]
			pl.Delivered[k] += p.Delivered[k]
			pl.Dropped[k] += p.Dropped[k]
		}
		if pl.Taken[k] != pl.Delivered[k]+pl.Dropped[k]+where {
			return fmt.Errorf("packet books do not balance for %v packets: %d sent, %d delivered, %d dropped, %d in the network",
				k, pl.Taken[k], pl.Delivered[k], pl.Dropped[k], where)
		}
		dropped += pl.Dropped[k]
	}
	if dropped != counted {
		return fmt.Errorf("%d packets dropped, but the drop counters by reason add up to %d", dropped, counted)
	}
	for i := range f.reg.Flows {
		if fl := f.reg.Flows[i]; fl.Status == transports.Completed && fl.Delivered != fl.Size {
			return fmt.Errorf("flow %d completed with %d of its %d bytes delivered", i+1, fl.Delivered, fl.Size)
		}
	}
	return nil
}
