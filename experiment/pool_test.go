package experiment

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// oneWay is traffic one way across the cut of a fabric in two partitions: a leaf-spine of 4
// leaves and 2 spines cut in two puts leaves 1 and 2 (with h1-h4) and spine 1 in one
// partition, leaves 3 and 4 (h5-h8) and spine 2 in the other (partition.go), so every data
// packet is taken in the first and delivered in the second, and only the ACKs, one per 16
// packets (rocev2's ack_interval), come back. Each flow is paced at 40 Gb/s: no link carries
// more than two of them (80 of its 100 Gb/s), so no queue builds and the packets in the
// network stay as many as the first microseconds made them.
const oneWay = `
version: 1
name: one-way
stop: 30ms
topology:
  preset: leafspine
  params:
    leaves: 4
    spines: 2
    hosts_per_leaf: 2
    host_link: {rate: 100Gbps, delay: 1us}
    fabric_link: {rate: 100Gbps, delay: 1us}
    routing: l3
traffic:
  - flow: {src: h1, dst: h5, size: 1000GB, rate: 40Gbps}
  - flow: {src: h2, dst: h6, size: 1000GB, rate: 40Gbps}
  - flow: {src: h3, dst: h7, size: 1000GB, rate: 40Gbps}
  - flow: {src: h4, dst: h8, size: 1000GB, rate: 40Gbps}
variants:
  - {name: one-way, transport: rocev2}
`

// slabs is the slabs every pool of f has allocated, and the packets they have taken.
func slabs(f *fabric) (slabs, taken int64) {
	for _, pl := range f.pools {
		slabs += pl.Slabs
		for k := range topology.NumKinds {
			taken += pl.Taken[k]
		}
	}
	return slabs, taken
}

// TestPoolsStopGrowingUnderOneWayTraffic: on one partition and on two, with traffic one way
// across the cut, the packet pools allocate no slab and the run nothing on the heap between
// 0.5 ms (the network long filled: a packet crosses in 4 us) and 2.5 ms, while tens of
// thousands of packets go from one partition to the other. Before packets went back to the
// pool they came from, the sender's pool ran dry every 512 of them: 4 flows at 40 Gb/s of
// 1,024-byte packets (1,100 wire bytes with RoCE v2's headers, padding and overhead) are
// 18,180 packets a millisecond, 15/16 of them not balanced by an ACK coming back: about 66
// slabs in 2 ms.
func TestPoolsStopGrowingUnderOneWayTraffic(t *testing.T) {
	sc := load(t, oneWay).Scenario(0)
	for _, threads := range []int{1, 2} {
		f, err := buildOn(sc, threads)
		require.NoError(t, err)
		require.Equal(t, threads, f.parts.parts)
		if threads == 2 {
			for _, fl := range f.reg.Flows {
				require.NotEqual(t, f.parts.of[fl.Src], f.parts.of[fl.Dst], "flow %d crosses the cut", fl.ID)
			}
		}
		f.runUntil(500 * sim.Microsecond)
		s0, t0 := slabs(f)
		hops0 := packetHops(f)
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		m0 := ms.Mallocs
		f.runUntil(2500 * sim.Microsecond)
		runtime.ReadMemStats(&ms)
		s1, t1 := slabs(f)
		hops := packetHops(f) - hops0
		// 2 ms of 4 x 40 Gb/s in full packets, less 1% for rounding.
		wire := frames.RoCEWireBytes(2, int64(sc.Transports.RoCEv2.MTU), false)
		packets := int64(2e-3 * 4 * 40e9 / 8 / float64(wire) * 0.99)
		require.Greater(t, t1-t0, packets, "%d threads: packets taken in the steady interval", threads)
		require.Equal(t, s0, s1, "%d threads: slabs allocated in the steady state", threads)
		// The heap: runUntil allocates a few objects a call (the group's channels, a
		// goroutine and its closure per extra thread), nothing per packet. 16 is twice what a
		// call on two threads takes, a quarter of the slabs the leak made, and below one
		// per 9,000 of the more than 4 x packets hops.
		require.Less(t, ms.Mallocs-m0, uint64(16), "%d threads: heap allocations over %d packet hops", threads, hops)
	}
}

// oneWayStopEnv, when set, makes TestOneWayPeakRSSStaysFlat's child process (this test
// binary run again) run the one-way scenario to that stop on two threads, and exit.
const oneWayStopEnv = "FABRICSIM_ONE_WAY_STOP"

// TestOneWayPeakRSSStaysFlat is the acceptance of issue 37's first item: on two threads, the
// peak RSS of 30 ms of one-way traffic across the cut is within 5 MiB of that of 10 ms (each
// run a process of its own; about half a second in all). With packets kept by the partition that delivered them, the
// sender allocated a new slab of 512 packets (128 KiB) about 36 times a simulated
// millisecond: 90 MiB more for the 20 ms.
func TestOneWayPeakRSSStaysFlat(t *testing.T) {
	if stop := os.Getenv(oneWayStopEnv); stop != "" {
		f, problems, _ := scenarios.Load("one-way.yaml", []byte(oneWay), overrides(t, "stop="+stop))
		require.Empty(t, problems)
		_, err := RunFileWith(f, nil, Options{Workers: 1, Threads: 2})
		require.NoError(t, err)
		os.Exit(0)
	}
	peak := func(stop string) int64 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestOneWayPeakRSSStaysFlat$", "-test.count=1")
		cmd.Env = append(os.Environ(), oneWayStopEnv+"="+stop)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024 // Linux: KiB
	}
	at10, at30 := peak("10ms"), peak("30ms")
	t.Logf("peak RSS: %.1f MiB at 10 ms, %.1f MiB at 30 ms", float64(at10)/(1<<20), float64(at30)/(1<<20))
	require.Less(t, at30-at10, int64(5<<20), "peak RSS grows with one-way traffic: %d bytes at 10 ms, %d at 30 ms", at10, at30)
}
