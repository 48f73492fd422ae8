package transports

import (
	"testing"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// BenchmarkUETSenderPacket is a UET sender's cost per data packet, NSCC on: emit, the
// receiver's onData, and the ACKs fed back 12 us later, with no engine or network in between.
func BenchmarkUETSenderPacket(b *testing.B) {
	cfg := UETConfig{MTU: 4096, AckBytes: 16384, Paths: 64, QAGate: 3, AckPriority: 7, SLEEK: true}
	u := newUETPair(1<<40, cfg, 12*sim.Microsecond)
	pool := u.reg.pool
	type due struct {
		at sim.Time
		p  *topology.Packet
	}
	var acks []due
	now := sim.Time(0)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		now += 350 * sim.Nanosecond
		for len(acks) > 0 && acks[0].at <= now {
			u.s.onControl(acks[0].at, acks[0].p)
			pool.Deliver(acks[0].p)
			acks = acks[1:]
		}
		if !u.s.hasData() {
			continue
		}
		p := u.s.emit(now)
		u.r.onData(now, p)
		pool.Deliver(p)
		for c := range u.rcvNIC.Control {
			for u.rcvNIC.Control[c].Len > 0 {
				acks = append(acks, due{now + 12*sim.Microsecond, u.rcvNIC.Control[c].Pop(0)})
			}
		}
		u.rcvNIC.ctrlBacklog = 0
		for c := range u.s.nic.Control {
			for u.s.nic.Control[c].Len > 0 {
				pool.Deliver(u.s.nic.Control[c].Pop(0))
			}
		}
	}
	b.ReportMetric(float64(u.s.highest)/float64(b.N), "packets/op")
}
