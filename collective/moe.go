package collective

import (
	"fmt"
	"math"
)

// Skew distributions of all_to_all's bytes over destinations (Skew.Dist).
const (
	Uniform = "uniform"
	Zipf    = "zipf"
)

// Skew is how all_to_all's bytes spread over the destinations: Uniform, every rank the same
// share; Zipf, the ranks in an order drawn from the seed, the k-th (from 1) receiving a
// share proportional to 1/k^S (an expert's popularity as a Zipf law over the ranks that
// host them: the hottest expert's rank receives most; docs/model.md, "MoE all-to-all").
// Every sender spreads its buffer by the same shares (a token's routing does not depend on
// which rank holds it), keeping its own share.
type Skew struct {
	Dist string
	S    float64
}

// MoE makes all_to_all a mixture-of-experts layer's two exchanges: the dispatch of Size bytes
// a rank at DispatchBits bits an element (DeepSeek-V3 and DeepEP dispatch in FP8, 8), then
// the combine that sends each dispatch message's tokens back at CombineBits (BF16, 16): a
// message of b dispatch bytes returns b x CombineBits / DispatchBits bytes.
type MoE struct {
	DispatchBits, CombineBits int
}

// Shares is the bytes a rank sends each destination out of size bytes under the skew: the
// share of rank d (its own included, which it keeps), summing to size exactly (each cut at
// the rounded running total).
func (s Skew) Shares(n int, size int64, seed uint64) []int64 {
	w := make([]float64, n)
	for d := range w {
		w[d] = 1
	}
	if s.Dist == Zipf {
		for d, k := range zipfOrder(n, seed) {
			w[d] = math.Pow(float64(k+1), -s.S)
		}
	}
	var total float64
	for _, x := range w {
		total += x
	}
	out := make([]int64, n)
	var acc float64
	var prev int64
	for d, x := range w {
		acc += x
		cut := int64(math.Round(float64(size) * acc / total))
		if d == n-1 {
			cut = size
		}
		out[d], prev = cut-prev, cut
	}
	return out
}

// zipfOrder is each rank's place (from 0, the hottest) in the Zipf order: a permutation of
// the ranks drawn by Fisher-Yates from splitmix64 seeded by seed (Steele, Lea and Flood,
// "Fast splittable pseudorandom number generators", OOPSLA 2014).
func zipfOrder(n int, seed uint64) []int {
	x := seed
	next := func() uint64 {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		return z ^ z>>31
	}
	place := make([]int, n)
	for i := range place {
		place[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := int(next() % uint64(i+1))
		place[i], place[j] = place[j], place[i]
	}
	return place
}

// allToAll is all_to_all by alg (direct or hierarchical) over ranks placed by l, with the
// skew's shares and, with o.MoE, the combine after the dispatch. Direct: step 0 every rank
// sends every other its share. Hierarchical, as DeepEP's normal kernels
// (deepseek-ai/DeepEP csrc/kernels/legacy/internode.cu at commit dd758ca: dispatch's warp
// roles kRDMASender, kRDMAAndNVLForwarder, kNVLReceivers, line 487; the RDMA peer is the
// same nvl_rank, the same GPU position, of the destination node, lines 88-89 and 128): a
// rank sends its shares for a server outside its scale-up domain in one message to that
// server's rank on its own rail (step 0), which forwards each share to its rank over the
// scale-up domain (step 1); shares inside its domain go straight (step 0). The combine
// returns every share (steps 1 or 2-3), mirrored for hierarchical (combine's kNVLSender,
// kNVLAndRDMAForwarder, kRDMAReceiver, line 1746: over the scale-up domain to the rank on
// the source's rail, then one RDMA message per source and server); an expert's rank starts
// its combine once all its dispatch has arrived. Messages of no bytes are left out.
func allToAll(alg string, l Layout, size int64, o Options) (*Plan, error) {
	n := len(l.GPUs)
	if alg != Direct && alg != Hierarchical {
		return nil, fmt.Errorf("all_to_all has no algorithm %q (allowed: %s, %s)", alg, Direct, Hierarchical)
	}
	switch {
	case n < 2:
		return nil, fmt.Errorf("a collective needs at least 2 ranks, got %d", n)
	case size < 1:
		return nil, fmt.Errorf("size must be at least 1 byte")
	case o.Skew.Dist != "" && o.Skew.Dist != Uniform && o.Skew.Dist != Zipf:
		return nil, fmt.Errorf("skew dist %q (allowed: %s, %s)", o.Skew.Dist, Uniform, Zipf)
	case o.Skew.Dist == Zipf && !(o.Skew.S > 0 && o.Skew.S <= 10):
		return nil, fmt.Errorf("skew s is the Zipf exponent, above 0 and at most 10; got %g", o.Skew.S)
	case o.MoE != nil && (o.MoE.DispatchBits < 1 || o.MoE.CombineBits < 1):
		return nil, fmt.Errorf("moe dispatch_bits and combine_bits are element sizes in bits, at least 1; got %d and %d", o.MoE.DispatchBits, o.MoE.CombineBits)
	}
	if c := int64(n) * int64(n-1) * 4; c > MaxMessages {
		return nil, fmt.Errorf("all_to_all over %d ranks may be %d messages an iteration; at most %d", n, c, MaxMessages)
	}
	var servers [][]int
	if alg == Hierarchical {
		var err error
		if servers, err = l.railServers(); err != nil {
			return nil, err
		}
	}
	share := o.Skew.Shares(n, size, o.Seed)
	p := &Plan{Op: AllToAll, Algorithm: alg, Ranks: n, Size: size}
	arrived := make([][]int32, n) // per rank, the dispatch messages that brought it its tokens
	send := func(src, dst, step, piece int, b int64, after []int32) int32 {
		m := p.add(src, dst, step, piece, piece+1, b, false, after...)
		p.Messages[m].Relay = l.relay(src, dst)
		return m
	}
	direct := func(r, d int) bool { return alg == Direct || l.GPUs[r].Domain == l.GPUs[d].Domain }
	for r := range n {
		for _, s := range servers {
			if direct(r, s[0]) {
				continue
			}
			g := railPeer(l, s, r)
			var sum int64
			for _, d := range s {
				sum += share[d]
			}
			if sum == 0 {
				continue
			}
			m := send(r, g, 0, g, sum, nil)
			arrived[g] = append(arrived[g], m)
			for _, d := range s {
				if d != g && share[d] > 0 {
					arrived[d] = append(arrived[d], send(g, d, 1, d, share[d], []int32{m}))
				}
			}
		}
		for d := range n {
			if d != r && direct(r, d) && share[d] > 0 {
				arrived[d] = append(arrived[d], send(r, d, 0, d, share[d], nil))
			}
		}
	}
	if o.MoE != nil {
		back := func(b int64) int64 { return b * int64(o.MoE.CombineBits) / int64(o.MoE.DispatchBits) }
		first := p.Steps0()
		for r := range n {
			for _, s := range servers {
				if direct(r, s[0]) {
					continue
				}
				g := railPeer(l, s, r)
				var after []int32
				var sum int64
				for _, d := range s {
					b := back(share[d])
					if b == 0 {
						continue
					}
					sum += b
					if d == g {
						after = append(after, arrived[g]...)
					} else {
						after = append(after, send(d, g, first, r, b, arrived[d]))
					}
				}
				if sum > 0 {
					send(g, r, first+1, r, sum, after)
				}
			}
			for d := range n {
				if b := back(share[d]); d != r && direct(r, d) && b > 0 {
					send(d, r, first, r, b, arrived[d])
				}
			}
		}
	}
	p.finish(false)
	return p, nil
}

// railPeer is the rank of server s on rank r's rail (railServers makes sure there is one).
func railPeer(l Layout, s []int, r int) int {
	for _, g := range s {
		if l.GPUs[g].Rail == l.GPUs[r].Rail {
			return g
		}
	}
	return -1
}

// railServers is the job's ranks by server, or why the hierarchical all_to_all cannot run on
// them: a rank not on a rail, or a server whose ranks do not cover every rail the job's ranks
// are on (a rank needs its rail's peer in every other server).
func (l Layout) railServers() ([][]int, error) {
	if !l.railed() {
		return nil, fmt.Errorf("algorithm hierarchical needs every rank a GPU of a rail topology")
	}
	for r, g := range l.GPUs {
		if g.Domain < 1 {
			return nil, fmt.Errorf("algorithm hierarchical needs every rank in a scale-up domain (topology rail with scaleup); rank %d is in none", r)
		}
	}
	rails := map[int]bool{}
	for _, g := range l.GPUs {
		rails[g.Rail] = true
	}
	servers := l.servers()
	for _, s := range servers {
		if len(s) != len(rails) {
			return nil, fmt.Errorf("algorithm hierarchical needs the job's ranks in every server on the same rails: server %d holds %d of the job's ranks, the job is on %d rails",
				l.GPUs[s[0]].Server, len(s), len(rails))
		}
	}
	return servers, nil
}
