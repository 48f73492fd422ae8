package switchmodel

import (
	"math"
	"testing"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/stretchr/testify/require"
)

// balanceFabric is two leaves and four spines, one host per leaf, hosts at hostRate and
// the leaf-spine links at 100 Gb/s, every switch balancing by lb.
func balanceFabric(t *testing.T, lb LoadBalancing, gap sim.Time, hostRate sim.Rate) *fabric {
	t.Helper()
	host := topology.LinkParams{Rate: hostRate, Delay: 500 * sim.Nanosecond}
	up := topology.LinkParams{Rate: 100 * sim.Gbps, Delay: 500 * sim.Nanosecond}
	nw, err := topology.LeafSpine(2, 4, 1, host, up, topology.RoutingL3)
	require.NoError(t, err)
	return build(t, nw, Config{BufferBytes: 32_000_000, Alpha: 1, LoadBalancing: lb, FlowletGap: gap,
		BalanceRand: sim.Stream(1, "balance")})
}

// onePacketOfAFlow is packet psn of one flow h1 -> h2: one 5-tuple, so one ECMP hash.
func onePacketOfAFlow(f *fabric, t *testing.T, psn uint32) *topology.Packet {
	p := f.data(f.id(t, "h1"), f.id(t, "h2"), 0, psn, 1024)
	p.SrcPort = 49152
	p.Hash = topology.FlowHash(p.SrcIP, p.DstIP, p.Protocol, p.SrcPort, p.DstPort)
	return p
}

// uplinkCounts is the packets each of leaf1's four uplinks has carried.
func uplinkCounts(f *fabric, t *testing.T) [4]int64 {
	var n [4]int64
	for i := range n {
		n[i] = f.wire(t, "leaf1", []string{"spine1", "spine2", "spine3", "spine4"}[i]).Packets()
	}
	return n
}

func TestSprayIsUniformOverTheEqualCostPorts(t *testing.T) {
	// M packets of one flow, spaced so that none queues. ECMP puts all of them on one
	// uplink; spraying draws each uplink with probability 1/4: each count is binomial
	// (M, 1/4), within 5 sigma = 5 sqrt(M x 1/4 x 3/4) of M/4.
	const m = 4000
	sigma := math.Sqrt(m * 0.25 * 0.75)
	for _, lb := range []LoadBalancing{ECMP, Spray} {
		f := balanceFabric(t, lb, 0, 100*sim.Gbps)
		now := sim.Time(0)
		for i := range m {
			now = f.send(now, onePacketOfAFlow(f, t, uint32(i)))
		}
		f.eng.Run(sim.Second)
		require.Len(t, f.hosts[f.id(t, "h2")].got, m)
		n := uplinkCounts(f, t)
		t.Logf("load balancing %d: uplinks carried %v (M/4 = %d, sigma %.1f)", lb, n, m/4, sigma)
		if lb == ECMP {
			require.ElementsMatch(t, []int64{0, 0, 0, m}, n[:], "one flow, one path")
			continue
		}
		for i, c := range n {
			require.InDelta(t, m/4, c, 5*sigma, "uplink %d", i+1)
		}
		f.checkBooks(t)
	}
}

func TestAdaptiveSendsEachPacketToTheEarliestFreePort(t *testing.T) {
	// The host sends at 400 Gb/s into 100 Gb/s uplinks: a frame arrives at the leaf every
	// quarter of an uplink's frame time. Each arrival finds the uplinks it has not used in the
	// last frame time idle and the others busy, so packets k, k+4, k+8, ... share an uplink,
	// and none waits in a queue: every uplink carries exactly M/4, and each packet reaches h2
	// one uplink frame time after the one four before it. Spraying the same burst at random
	// queues packets behind one another.
	const m = 400
	f := balanceFabric(t, Adaptive, 0, 400*sim.Gbps)
	now := sim.Time(0)
	for i := range m {
		now = f.send(now, onePacketOfAFlow(f, t, uint32(i)))
	}
	f.eng.Run(sim.Second)
	got := f.hosts[f.id(t, "h2")].got
	require.Len(t, got, m)
	require.Equal(t, [4]int64{m / 4, m / 4, m / 4, m / 4}, uplinkCounts(f, t))
	uplinkFrame := tx(t, rocev2Frame(1024), 100*sim.Gbps)
	for i := 4; i < m; i++ {
		require.Equal(t, uplinkFrame, got[i].at-got[i-4].at, "packet %d", i)
	}
	f.checkBooks(t)
}

func TestFlowletMovesOnlyAfterAnIdleGap(t *testing.T) {
	// Bursts of 20 back-to-back packets of one flow, 20 us apart. With a flowlet gap of 10 us
	// each burst is one flowlet: it takes one uplink whole, and a new burst draws its uplink
	// at random (all 40 bursts on the first one's uplink has probability 4^-39). With a gap
	// of 50 us the whole flow is one flowlet on one uplink.
	const bursts, per = 40, 20
	for _, gap := range []sim.Time{10 * sim.Microsecond, 50 * sim.Microsecond} {
		f := balanceFabric(t, Flowlet, gap, 100*sim.Gbps)
		used := map[int]bool{}
		before := uplinkCounts(f, t)
		for b := range bursts {
			now := sim.Time(b) * 20 * sim.Microsecond
			for i := range per {
				now = f.send(now, onePacketOfAFlow(f, t, uint32(b*per+i)))
			}
			f.eng.Run(sim.Time(b+1) * 20 * sim.Microsecond)
			after := uplinkCounts(f, t)
			moved := 0
			for i := range after {
				if d := after[i] - before[i]; d != 0 {
					require.EqualValues(t, per, d, "burst %d splits over uplinks", b)
					used[i] = true
					moved++
				}
			}
			require.Equal(t, 1, moved, "burst %d", b)
			before = after
		}
		t.Logf("flowlet gap %v: %d bursts used uplinks %v", gap, bursts, used)
		if gap == 10*sim.Microsecond {
			require.Greater(t, len(used), 1, "bursts after a long gap move")
		} else {
			require.Len(t, used, 1, "no gap is long enough: one flowlet")
		}
		f.checkBooks(t)
	}
}

func TestLoadBalancingConfigIsChecked(t *testing.T) {
	nw := leafSpine(t, 2, 2, 1, topology.RoutingL3)
	routes, err := topology.ComputeRoutes(nw, nil)
	require.NoError(t, err)
	leaf, _ := nw.Lookup("leaf1")
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{BufferBytes: 1, Alpha: 1, LoadBalancing: Spray}, "needs a random stream"},
		{Config{BufferBytes: 1, Alpha: 1, LoadBalancing: Flowlet, BalanceRand: sim.Stream(1, "x")}, "flowlet gap 0ps: must be positive"},
		{Config{BufferBytes: 1, Alpha: 1, LoadBalancing: Adaptive + 1, BalanceRand: sim.Stream(1, "x")}, "not a scheme"},
	} {
		_, err := New(sim.NewEngine(), &topology.Pool{}, nw, routes, leaf, c.cfg)
		require.ErrorContains(t, err, c.want)
	}
}
