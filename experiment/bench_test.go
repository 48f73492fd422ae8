package experiment

import (
	"runtime"
	"testing"

	"github.com/fabricsim/fabricsim/sim"
)

// standardFabric is the benchmark fabric of DESIGN.md: a 128-host leaf-spine at 100 Gb/s
// (8 racks of 16 hosts, 4 spines at 400 Gb/s: no oversubscription) with a random permutation
// of long RoCE v2 flows, routed at layer 3.
const standardFabric = `
version: 1
name: bench-leafspine
stop: 1ms
topology:
  preset: leafspine
  params:
    leaves: 8
    spines: 4
    hosts_per_leaf: 16
    host_link: {rate: 100Gbps, delay: 1us}
    fabric_link: {rate: 400Gbps, delay: 1us}
    routing: l3
traffic:
  - permutation: {size: 1GB, transport: rocev2}
`

// BenchmarkLeafSpinePermutation runs the standard fabric for 1 ms of simulated time per
// iteration and reports the simulator's speed in packet hops (frames put on links) per
// second of wall time, events per packet hop, and heap allocations per packet hop in the
// steady state (after a warm-up of 200 us, which is when the pools and queues have grown).
func BenchmarkLeafSpinePermutation(b *testing.B) {
	var hops, events, allocs int64
	var ms runtime.MemStats
	file := loadB(b, standardFabric)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		f, err := build(file.Scenario(0))
		if err != nil {
			b.Fatal(err)
		}
		f.eng.Run(200 * sim.Microsecond)
		h0, e0 := packetHops(f), f.eng.Executed()
		runtime.ReadMemStats(&ms)
		m0 := ms.Mallocs
		b.StartTimer()
		f.eng.Run(f.sc.Stop)
		b.StopTimer()
		runtime.ReadMemStats(&ms)
		allocs += int64(ms.Mallocs - m0)
		hops += packetHops(f) - h0
		events += int64(f.eng.Executed() - e0)
	}
	b.ReportMetric(float64(hops)/b.Elapsed().Seconds(), "packet_hops/s")
	b.ReportMetric(float64(events)/float64(hops), "events/hop")
	b.ReportMetric(float64(allocs)/float64(hops), "allocs/hop")
}

func packetHops(f *fabric) int64 {
	var n int64
	for _, pair := range f.wires {
		n += pair[0].Packets + pair[1].Packets
	}
	return n
}
