package collective

import (
	"math"
	"reflect"
	"testing"
)

// railLayout is servers servers of gpus GPUs on gpus rails, ranks s1g1, s1g2, .., s2g1, ..,
// perDomain servers a scale-up domain (0: none).
func railLayout(servers, gpus, perDomain int, pxn bool) Layout {
	l := Layout{PXN: pxn}
	for s := 1; s <= servers; s++ {
		for g := 1; g <= gpus; g++ {
			d := 0
			if perDomain > 0 {
				d = (s-1)/perDomain + 1
			}
			l.GPUs = append(l.GPUs, GPU{Server: s, Rail: g, Domain: d})
		}
	}
	return l
}

// leaves says how message m of p leaves its sender on one stripe of a rail fabric: over the
// fabric or not (inside the scale-up domain), the rail of the NIC it leaves by, and whether
// it must cross a spine to reach its destination's rail leaf.
func leaves(l Layout, m Message) (fabric bool, rail int, spine bool) {
	s, d := l.GPUs[m.Src], l.GPUs[m.Dst]
	if s.Domain > 0 && s.Domain == d.Domain {
		return false, 0, false
	}
	rail = s.Rail
	if m.Relay > 0 {
		rail = m.Relay
	}
	return true, rail, rail != d.Rail
}

// TestRailOrderIsNCCLs checks channel c's ring by hand: on 3 servers of 4 GPUs, channel c
// enters every server at GPU c+1 (mod 4) and visits the others in rail order, wrapping.
func TestRailOrderIsNCCLs(t *testing.T) {
	l := railLayout(3, 4, 1, true)
	want := map[int][]int{
		0: {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
		1: {1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8},
		3: {3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10},
		5: {1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8}, // channel 5 is on rail 2 again
	}
	for c, w := range want {
		if got := l.RailOrder(c); !reflect.DeepEqual(got, w) {
			t.Errorf("channel %d: %v, want %v", c, got, w)
		}
	}
}

// TestRailRingBytesAndRails checks NCCL's rail ring allreduce on 4 servers of 8 GPUs, 8
// channels: every message carries S/(C N) bytes; every message between servers leaves by
// its channel's rail with PXN (no byte crosses a spine: each NIC carries its own rail's
// channel), and without PXN leaves by the last GPU's own rail, so the spine bytes are the
// closed form's 2 (N-1) x n x S/N; per step, each GPU puts S/(g N) bytes on its NIC and,
// with PXN, S/N on its scale-up link.
func TestRailRingBytesAndRails(t *testing.T) {
	const servers, gpus, C = 4, 8, 8
	N := servers * gpus
	S := int64(C * N * 1000)
	unit := S / int64(C*N)
	for _, pxn := range []bool{true, false} {
		l := railLayout(servers, gpus, 1, pxn)
		p, err := BuildOn(AllReduce, Ring, l, S, Options{Channels: C})
		if err != nil {
			t.Fatal(err)
		}
		if want := C * 2 * (N - 1) * N; len(p.Messages) != want {
			t.Fatalf("pxn=%v: %d messages, want %d", pxn, len(p.Messages), want)
		}
		if p.Steps != 2*(N-1) {
			t.Fatalf("pxn=%v: %d steps, want %d", pxn, p.Steps, 2*(N-1))
		}
		var spineBytes int64
		nic := make(map[[2]int]int64) // (step, rank whose NIC) -> bytes
		su := make(map[[2]int]int64)  // (step, rank) -> bytes out on its scale-up link
		for _, m := range p.Messages {
			if m.Bytes != unit {
				t.Fatalf("pxn=%v: a message of %d bytes, want %d", pxn, m.Bytes, unit)
			}
			fabric, rail, spine := leaves(l, m)
			src := l.GPUs[m.Src]
			if !fabric {
				su[[2]int{m.Step, m.Src}] += m.Bytes
				continue
			}
			if want := m.Channel%gpus + 1; pxn && rail != want {
				t.Fatalf("channel %d leaves server %d by rail %d, want %d", m.Channel, src.Server, rail, want)
			}
			if spine {
				spineBytes += m.Bytes
			}
			if m.Relay > 0 {
				su[[2]int{m.Step, m.Src}] += m.Bytes
				nic[[2]int{m.Step, (src.Server-1)*gpus + m.Relay - 1}] += m.Bytes
			} else {
				nic[[2]int{m.Step, m.Src}] += m.Bytes
			}
		}
		want := int64(0)
		if !pxn {
			want = int64(2*(N-1)*servers) * S / int64(N)
		}
		if spineBytes != want {
			t.Errorf("pxn=%v: %d bytes cross a spine, the closed form says %d", pxn, spineBytes, want)
		}
		for step := range p.Steps {
			for r := range N {
				if got, w := nic[[2]int{step, r}], S/int64(gpus*N); got != w {
					t.Fatalf("pxn=%v step %d: rank %d's NIC carries %d bytes, want S/(gN) = %d", pxn, step, r, got, w)
				}
				if w := S / int64(N); pxn && su[[2]int{step, r}] != w {
					t.Fatalf("step %d: rank %d's scale-up link carries %d bytes, want S/N = %d", step, r, su[[2]int{step, r}], w)
				}
			}
		}
	}
}

// TestRailRingWaitsForItsInput checks every rail ring message's dependency: the one its
// sender received from the ring's previous rank in the step before, on the same channel,
// carrying the unit it sends on (for reduce-scatter: the unit it reduces into and sends).
func TestRailRingWaitsForItsInput(t *testing.T) {
	l := railLayout(2, 4, 1, true)
	for _, op := range []string{AllReduce, AllGather, ReduceScatter} {
		p, err := BuildOn(op, Ring, l, 8*4*100, Options{Channels: 4})
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range p.Messages {
			if m.Step == 0 {
				if len(m.After) != 0 {
					t.Fatalf("%s: step-0 message %d waits for %v", op, i, m.After)
				}
				continue
			}
			if len(m.After) != 1 {
				t.Fatalf("%s: message %d waits for %v, want one", op, i, m.After)
			}
			a := p.Messages[m.After[0]]
			if a.Dst != m.Src || a.Step != m.Step-1 || a.Channel != m.Channel {
				t.Fatalf("%s: message %d (%d->%d step %d ch %d) waits for %d->%d step %d ch %d", op, i, m.Src, m.Dst, m.Step, m.Channel, a.Src, a.Dst, a.Step, a.Channel)
			}
			if a.Lo != m.Lo { // ring step k sends unit i-k (+1 in allreduce's allgather), received as unit (i-1)-(k-1)
				t.Fatalf("%s: message %d sends piece %d after receiving piece %d", op, i, m.Lo, a.Lo)
			}
		}
	}
}

// TestBuildOnFlatIsBuild checks that ranks not on rails get Build's plan unchanged, each
// message on every channel.
func TestBuildOnFlatIsBuild(t *testing.T) {
	flat := Layout{GPUs: make([]GPU, 8), PXN: true}
	for _, op := range []string{AllReduce, AllGather, ReduceScatter, AllToAll} {
		alg := Algorithms[op][0]
		a, err := BuildOn(op, alg, flat, 8000, Options{Channels: 4})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Build(op, alg, 8, 8000, 0)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: BuildOn on a flat fabric differs from Build", op)
		}
		for _, m := range a.Messages {
			if m.Channel != -1 || m.Relay != 0 {
				t.Fatalf("%s: a flat message on channel %d, relay %d", op, m.Channel, m.Relay)
			}
		}
	}
}

// TestRailRingIdeal checks RailRingIdeal against the plan: on 4 servers of 8 GPUs and 8 or
// 16 channels, each step's time is its busiest scale-up link's and busiest NIC's bytes (from
// the messages, a relayed one on both) at their cost, the longer, plus the step's longest
// path latency (a relayed message crosses both link classes); summed over the steps it is
// the closed form, with and without PXN. RailRingPipelined is the busiest link's bytes over
// all steps at its cost plus one path latency (a relayed message's with PXN, a NIC path's
// without).
func TestRailRingIdeal(t *testing.T) {
	const n, g = 4, 8
	N := n * g
	w := 1.08
	su := Link{PerByte: w / 450e9, Alpha: 0.94e-6}
	nic := Link{PerByte: w * 8 / 400e9, Alpha: 2.5e-6}
	for _, C := range []int{8, 16} {
		for _, pxn := range []bool{true, false} {
			for _, op := range []string{AllReduce, AllGather} {
				l := railLayout(n, g, 1, pxn)
				S := int64(C * N * 4096)
				p, err := BuildOn(op, Ring, l, S, Options{Channels: C})
				if err != nil {
					t.Fatal(err)
				}
				suLoad := make([]map[int]int64, p.Steps)
				nicLoad := make([]map[int]int64, p.Steps)
				alpha := make([]float64, p.Steps)
				for s := range suLoad {
					suLoad[s], nicLoad[s] = map[int]int64{}, map[int]int64{}
				}
				for _, m := range p.Messages {
					fabric, rail, _ := leaves(l, m)
					src := l.GPUs[m.Src]
					switch {
					case !fabric:
						suLoad[m.Step][m.Src] += m.Bytes
						alpha[m.Step] = max(alpha[m.Step], su.Alpha)
					case m.Relay > 0:
						suLoad[m.Step][m.Src] += m.Bytes
						nicLoad[m.Step][(src.Server-1)*g+rail-1] += m.Bytes
						alpha[m.Step] = max(alpha[m.Step], su.Alpha+nic.Alpha)
					default:
						nicLoad[m.Step][m.Src] += m.Bytes
						alpha[m.Step] = max(alpha[m.Step], nic.Alpha)
					}
				}
				var got float64
				suTotal, nicTotal := map[int]int64{}, map[int]int64{}
				for s := range p.Steps {
					var a, b int64
					for k, x := range suLoad[s] {
						a = max(a, x)
						suTotal[k] += x
					}
					for k, x := range nicLoad[s] {
						b = max(b, x)
						nicTotal[k] += x
					}
					got += max(float64(a)*su.PerByte, float64(b)*nic.PerByte) + alpha[s]
				}
				if want := RailRingIdeal(op, S, n, g, C, pxn, su, nic); math.Abs(got-want) > 1e-12*want {
					t.Errorf("%s C=%d pxn=%v: the plan's steps give %g s, the closed form %g s", op, C, pxn, got, want)
				}
				var a, b int64
				for _, x := range suTotal {
					a = max(a, x)
				}
				for _, x := range nicTotal {
					b = max(b, x)
				}
				once := nic.Alpha
				if pxn {
					once += su.Alpha
				}
				got = max(float64(a)*su.PerByte, float64(b)*nic.PerByte) + once
				if want := RailRingPipelined(op, S, n, g, C, pxn, su, nic); math.Abs(got-want) > 1e-12*want {
					t.Errorf("%s C=%d pxn=%v: the busiest link's bytes give %g s, the pipelined closed form %g s", op, C, pxn, got, want)
				}
			}
		}
	}
}
