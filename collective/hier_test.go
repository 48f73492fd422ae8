package collective

import (
	"fmt"
	"math"
	"testing"
)

// hierLayout is D scale-up domains (one server each) of L GPUs, rank r on domain r mod D
// and rail r/D+1: the i-th rank of domain d is rank i*D+d, whose first piece in a
// hierarchical allgather is piece i*D+d = its own rank, as play expects.
func hierLayout(D, L int) Layout {
	l := Layout{PXN: true}
	for r := range D * L {
		d := r%D + 1
		l.GPUs = append(l.GPUs, GPU{Server: d, Rail: r/D + 1, Domain: d})
	}
	return l
}

// TestHierarchicalDeliversItsResult plays algorithm hierarchical over 1 to 4 domains of 1 to
// 4 ranks and checks nccl's outcome, as TestPlansDeliverTheirResult does for Build's plans:
// every piece complete on every rank (allreduce, allgather), one distinct complete piece per
// rank (reduce_scatter), every message waiting for the data it sends.
func TestHierarchicalDeliversItsResult(t *testing.T) {
	for _, op := range []string{AllReduce, AllGather, ReduceScatter} {
		for D := 1; D <= 4; D++ {
			for L := 1; L <= 4; L++ {
				n := D * L
				if n < 2 {
					continue
				}
				p, err := BuildOn(op, Hierarchical, hierLayout(D, L), int64(1000*n+3), Options{})
				if err != nil {
					t.Fatalf("%s D=%d L=%d: %v", op, D, L, err)
				}
				checkResult(t, p, play(t, p), fmt.Sprintf("%s D=%d L=%d", op, D, L))
			}
		}
	}
}

// TestHierarchicalBytesAndIdeal checks, on 8 servers of 8 GPUs with a scale-up domain each,
// the bytes each rank sends on each link class against the phases' closed forms (S a
// multiple of N): allreduce 2 (L-1)/L S inside and 2 (D-1)/D S/L across; reduce_scatter and
// allgather half of each; that no message across domains leaves its rail; and the
// step-synchronous time with each step at its link class's cost against HierarchicalIdeal.
func TestHierarchicalBytesAndIdeal(t *testing.T) {
	const D, L = 8, 8
	N := D * L
	S := int64(N * 4096)
	l := railLayout(D, L, 1, true)
	// H100 NVLink 450 GB/s a direction, a 400 Gb/s NIC; w = 1.05 wire bytes a payload byte.
	w := 1.05
	su := Link{PerByte: w / 450e9, Alpha: 1e-6}
	rail := Link{PerByte: w * 8 / 400e9, Alpha: 3e-6}
	for _, op := range []string{AllReduce, ReduceScatter, AllGather} {
		p, err := BuildOn(op, Hierarchical, l, S, Options{})
		if err != nil {
			t.Fatal(err)
		}
		in, out := make([]int64, N), make([]int64, N)
		for _, m := range p.Messages {
			fabric, r, spine := leaves(l, m)
			if fabric && (spine || r != l.GPUs[m.Src].Rail) {
				t.Fatalf("%s: a message across domains leaves rail %d from rail %d", op, r, l.GPUs[m.Src].Rail)
			}
			if fabric {
				out[m.Src] += m.Bytes
			} else {
				in[m.Src] += m.Bytes
			}
		}
		k := int64(1)
		if op == AllReduce {
			k = 2
		}
		wantIn, wantOut := k*int64(L-1)*S/int64(L), k*int64(D-1)*S/int64(L*D)
		for r := range N {
			if in[r] != wantIn || out[r] != wantOut {
				t.Fatalf("%s: rank %d sends %d bytes inside and %d across, want %d and %d", op, r, in[r], out[r], wantIn, wantOut)
			}
		}
		loads := p.MessageLoads()
		got := p.IdealBySteps(func(m int) float64 {
			c := su
			if fabric, _, _ := leaves(l, p.Messages[m]); fabric {
				c = rail
			}
			return float64(loads[m])*c.PerByte + c.Alpha
		})
		if want := HierarchicalIdeal(op, S, L, D, su, rail); math.Abs(got-want) > 1e-12*want {
			t.Fatalf("%s: the plan's step-synchronous time is %g s, the closed form %g s", op, got, want)
		}
	}
}

// TestHierarchicalRefusesUnevenDomains checks the errors: no scale-up domain, and domains
// holding different numbers of the job's ranks.
func TestHierarchicalRefusesUnevenDomains(t *testing.T) {
	if _, err := BuildOn(AllReduce, Hierarchical, railLayout(2, 4, 0, true), 1<<20, Options{}); err == nil {
		t.Fatal("no scale-up domain accepted")
	}
	l := railLayout(2, 4, 1, true)
	l.GPUs = l.GPUs[:7]
	if _, err := BuildOn(AllReduce, Hierarchical, l, 1<<20, Options{}); err == nil {
		t.Fatal("domains of 4 and 3 ranks accepted")
	}
}
