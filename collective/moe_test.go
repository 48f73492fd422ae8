package collective

import (
	"math"
	"testing"
)

// sentReceived is each rank's bytes sent and received in p's messages.
func sentReceived(p *Plan) (sent, recv []int64) {
	sent, recv = make([]int64, p.Ranks), make([]int64, p.Ranks)
	for _, m := range p.Messages {
		sent[m.Src] += m.Bytes
		recv[m.Dst] += m.Bytes
	}
	return sent, recv
}

// TestUniformAllToAllBytes checks direct all_to_all, uniform, on 2 servers of 4 GPUs: every
// rank sends and receives (N-1) S/N bytes in the dispatch and, with the MoE combine at BF16
// over FP8, twice that in the combine; the combine's messages from a rank wait for all of
// its dispatch.
func TestUniformAllToAllBytes(t *testing.T) {
	l := railLayout(2, 4, 1, true)
	N := 8
	S := int64(N * 1000)
	p, err := BuildOn(AllToAll, Direct, l, S, Options{Skew: Skew{Dist: Uniform}, MoE: &MoE{DispatchBits: 8, CombineBits: 16}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Messages) != 2*N*(N-1) {
		t.Fatalf("%d messages, want %d", len(p.Messages), 2*N*(N-1))
	}
	sent, recv := sentReceived(p)
	want := int64(N-1) * S / int64(N) * (1 + 2)
	for r := range N {
		if sent[r] != want || recv[r] != want {
			t.Fatalf("rank %d sends %d and receives %d bytes, want %d", r, sent[r], recv[r], want)
		}
	}
	for _, m := range p.Messages {
		if m.Step == 1 && len(m.After) != N-1 {
			t.Fatalf("a combine message from rank %d waits for %d messages, want the %d of its dispatch", m.Src, len(m.After), N-1)
		}
	}
}

// TestZipfHottestReceiver checks the Zipf skew on 64 ranks, s = 1.2: the hottest receiver
// (the rank the seed puts first) gets (N-1) S / H(N, s) bytes, H the generalized harmonic
// number, within a byte per sender; shares sum to S; another seed picks another rank.
func TestZipfHottestReceiver(t *testing.T) {
	const N, s = 64, 1.2
	S := int64(64 << 20)
	l := railLayout(8, 8, 1, true)
	var H float64
	for k := 1; k <= N; k++ {
		H += math.Pow(float64(k), -s)
	}
	hot := -1
	for d, k := range zipfOrder(N, 7) {
		if k == 0 {
			hot = d
		}
	}
	for _, alg := range []string{Direct, Hierarchical} {
		p, err := BuildOn(AllToAll, alg, l, S, Options{Skew: Skew{Dist: Zipf, S: s}, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		// By final destination: a forward (step 1) brings its share to its receiver; a
		// message to a rail peer brings that peer what its forwards do not take on.
		recv := make([]int64, N)
		for _, m := range p.Messages {
			recv[m.Dst] += m.Bytes
			if m.Step == 1 {
				recv[p.Messages[m.After[0]].Dst] -= m.Bytes
			}
		}
		want := float64(N-1) * float64(S) / H
		if math.Abs(float64(recv[hot])-want) > N {
			t.Fatalf("%s: the hottest rank %d receives %d bytes, want %.0f", alg, hot, recv[hot], want)
		}
		for d := range N {
			if recv[d] > recv[hot] {
				t.Fatalf("%s: rank %d receives %d bytes, more than the hottest's %d", alg, d, recv[d], recv[hot])
			}
		}
	}
	var sum int64
	for _, b := range (Skew{Dist: Zipf, S: s}).Shares(N, S, 7) {
		sum += b
	}
	if sum != S {
		t.Fatalf("shares sum to %d, want %d", sum, S)
	}
	if a, b := zipfOrder(N, 7), zipfOrder(N, 8); equalInts(a, b) {
		t.Fatal("seeds 7 and 8 give the same order")
	}
}

func equalInts(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// TestAllToAllRails checks on one stripe of 4 servers of 8 GPUs, uniform, S a multiple of N:
// with PXN, direct and hierarchical put no byte on a spine; without PXN the direct one puts
// there every share between servers and rails, n g (n-1) (g-1) x S/N, and the hierarchical
// none (it keeps to the sender's rail by itself). Hierarchical sends every share between
// domains over the rails once, (n-1) g S/N a rank, and forwards over the scale-up domain
// (g-1) of them plus its own server's (g-1) S/N.
func TestAllToAllRails(t *testing.T) {
	const n, g = 4, 8
	N := n * g
	S := int64(N * 512)
	unit := S / int64(N)
	for _, pxn := range []bool{true, false} {
		l := railLayout(n, g, 1, pxn)
		for _, alg := range []string{Direct, Hierarchical} {
			p, err := BuildOn(AllToAll, alg, l, S, Options{Skew: Skew{Dist: Uniform}, MoE: &MoE{DispatchBits: 8, CombineBits: 8}})
			if err != nil {
				t.Fatal(err)
			}
			var spine int64
			fabricOut, suOut := make([]int64, N), make([]int64, N)
			for _, m := range p.Messages {
				fabric, _, crosses := leaves(l, m)
				if crosses {
					spine += m.Bytes
				}
				if fabric {
					fabricOut[m.Src] += m.Bytes
				} else {
					suOut[m.Src] += m.Bytes
				}
			}
			want := int64(0)
			if !pxn && alg == Direct {
				want = 2 * int64(n*g*(n-1)*(g-1)) * unit // dispatch and combine
			}
			if spine != want {
				t.Errorf("pxn=%v %s: %d bytes on spines, want %d", pxn, alg, spine, want)
			}
			if alg != Hierarchical {
				continue
			}
			for r := range N {
				wf, ws := 2*int64((n-1)*g)*unit, 2*int64((n-1)*(g-1)+(g-1))*unit
				if fabricOut[r] != wf || suOut[r] != ws {
					t.Fatalf("pxn=%v: rank %d sends %d bytes on rails and %d over the scale-up domain, want %d and %d", pxn, r, fabricOut[r], suOut[r], wf, ws)
				}
			}
		}
	}
}

// TestAllToAllWaits checks the hierarchical MoE plan's dependencies: a forward waits for the
// RDMA message that brought it; a combine message leaving an expert's rank waits for every
// dispatch message that brought that rank tokens.
func TestAllToAllWaits(t *testing.T) {
	l := railLayout(3, 4, 1, true)
	p, err := BuildOn(AllToAll, Hierarchical, l, 12*300, Options{MoE: &MoE{DispatchBits: 8, CombineBits: 16}})
	if err != nil {
		t.Fatal(err)
	}
	arrivals := make([]int, p.Ranks) // dispatch messages that end at (or pass through with a share for) each rank
	for _, m := range p.Messages {
		if m.Step <= 1 {
			arrivals[m.Dst]++
		}
	}
	for i, m := range p.Messages {
		switch m.Step {
		case 1:
			if len(m.After) != 1 || p.Messages[m.After[0]].Dst != m.Src || p.Messages[m.After[0]].Step != 0 {
				t.Fatalf("forward %d waits for %v", i, m.After)
			}
		case 2:
			if len(m.After) != arrivals[m.Src] {
				t.Fatalf("combine %d from rank %d waits for %d messages, want its %d arrivals", i, m.Src, len(m.After), arrivals[m.Src])
			}
		}
	}
}
