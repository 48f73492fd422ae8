package experiment

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/fabricsim/fabricsim/sim"
)

// standardFabric is the benchmark fabric of docs/architecture.md: a 128-host leaf-spine at 100 Gb/s
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
		f.runUntil(200 * sim.Microsecond)
		h0, e0 := packetHops(f), f.run.Executed()
		runtime.ReadMemStats(&ms)
		m0 := ms.Mallocs
		b.StartTimer()
		f.runUntil(f.sc.Stop)
		b.StopTimer()
		runtime.ReadMemStats(&ms)
		allocs += int64(ms.Mallocs - m0)
		hops += packetHops(f) - h0
		events += int64(f.run.Executed() - e0)
	}
	b.ReportMetric(float64(hops)/b.Elapsed().Seconds(), "packet_hops/s")
	b.ReportMetric(float64(events)/float64(hops), "events/hop")
	b.ReportMetric(float64(allocs)/float64(hops), "allocs/hop")
}

func packetHops(f *fabric) int64 {
	var n int64
	for _, pair := range f.wires {
		n += pair[0].Packets() + pair[1].Packets()
	}
	return n
}

// BenchmarkGoBackNTimeoutDominated is the long run behind the two renewal-reward cases that
// TestGoBackNUnderRandomLossMatchesRenewalReward leaves out: RoCE v2 go-back-N with a 67.1 ms
// retransmit timeout at loss 1e-3 and 1e-2, where lost retransmissions, and so timeouts, set
// the goodput. It reports the measured goodput over the closed form (docs/model.md
// section 7); each case is sized for about 100 timeouts, so expect the ratio within about 10%.
// It takes minutes: go test -run xxx -bench GoBackNTimeoutDominated -benchtime 1x ./experiment
func BenchmarkGoBackNTimeoutDominated(b *testing.B) {
	rate := 100 * sim.Gbps
	tx := rate.TxTime(1024 + roceV2Overhead)
	rtt := 2*(tx+sim.Microsecond) + 2*(rate.TxTime(86)+sim.Microsecond)
	w := float64(rtt) / float64(tx)
	rto := 67108864 * sim.Nanosecond
	for _, c := range []struct {
		name string
		p    float64
		size string
	}{
		{"p=1e-3", 1e-3, "100GB"}, // 1e8 packets x p x p = 100 timeouts
		{"p=1e-2", 1e-2, "1GB"},   // 1e6 x 1e-4 = 100 timeouts
	} {
		b.Run(c.name, func(b *testing.B) {
			file := loadB(b, fmt.Sprintf(strings.Replace(lossyForward, "stop: 60s", "stop: 3600s", 1), 1, rto, c.size, c.p))
			for i := 0; i < b.N; i++ {
				v, err := Run(file.Scenario(0), nil)
				if err != nil {
					b.Fatal(err)
				}
				fl := v.PerFlow[0]
				if fl.FCTUS == nil {
					b.Fatalf("flow did not complete: %s", fl.Reason)
				}
				r := float64(rto) / float64(tx)
				eta := (1 - c.p) / (1 + c.p*(w+c.p*r))
				want := 100 * 1024.0 / (1024 + roceV2Overhead) * eta
				goodput := float64(fl.SizeBytes*8) / (*fl.FCTUS * 1e-6) / 1e9
				b.ReportMetric(goodput, "goodput_gbps")
				b.ReportMetric(goodput/want, "measured/closed_form")
			}
		})
	}
}
