// Package collective holds the dependency graphs of the collective operations of AI
// training traffic (NCCL's allreduce, allgather, reduce_scatter, all_to_all and broadcast):
// for each operation and algorithm, the messages every rank sends, their sizes, the step
// of the algorithm each belongs to and the messages whose arrival each waits for; the
// bus-bandwidth factors of nccl-tests; and a collective's ideal time: the step-synchronous
// closed form, and the critical path through its graph. It is pure: no engine, no network (docs/model.md, section
// "Collectives", writes the graphs down with their sources).
package collective

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// Operations, as the scenario file names them.
const (
	AllReduce     = "allreduce"
	AllGather     = "allgather"
	ReduceScatter = "reduce_scatter"
	AllToAll      = "all_to_all"
	Broadcast     = "broadcast"
)

// Algorithms, as the scenario file names them.
const (
	Ring            = "ring"
	HalvingDoubling = "halving_doubling"
	// Direct is all_to_all's only algorithm: every rank to every other at once.
	Direct = "direct"
	// Tree is NCCL's double binary tree (tree.go), allreduce's only: NCCL builds trees for
	// allreduce alone (NVIDIA/nccl src/graph/tuning.cc, ncclTopoTuneModel, skips
	// NCCL_ALGO_TREE for every other collective).
	Tree = "tree"
)

// Ops lists the operations; Algorithms each one's algorithms, the first its default.
var (
	Ops        = []string{AllReduce, AllGather, ReduceScatter, AllToAll, Broadcast}
	Algorithms = map[string][]string{
		AllReduce:     {Ring, HalvingDoubling, Tree},
		AllGather:     {Ring, HalvingDoubling},
		ReduceScatter: {Ring, HalvingDoubling},
		AllToAll:      {Direct},
		Broadcast:     {Ring},
	}
)

// DefaultChunk is the piece a pipelined algorithm (ring broadcast, tree) cuts its buffer in
// unless the scenario says otherwise: one of NCCL's buffer slots, NCCL_BUFFSIZE (4 MiB by
// default: NCCL's docs, "Environment Variables"; DEFAULT_BUFFSIZE in NVIDIA/nccl
// src/init.cc) over NCCL_STEPS (8: src/include/device.h), 512 KiB. NCCL's tree and
// broadcast with the simple protocol send one slot a chunk (src/enqueue.cc,
// calcCollChunking: chunkSteps = 1 for every algorithm but the ring).
const DefaultChunk = 4 << 20 / 8

// Pipelined reports whether op by alg cuts its buffer in chunks (the scenario's chunk): the
// ring broadcast and the tree.
func Pipelined(op, alg string) bool { return op == Broadcast || alg == Tree }

// Message is one transfer of a collective: Bytes from rank Src to rank Dst in step Step of
// the algorithm, pieces Lo..Hi-1 of the buffer (broadcast: its chunks), sent once every
// message of After has arrived (its receiver holds all of it); a message with no After goes
// at the iteration's start.
type Message struct {
	Src, Dst int
	Step     int
	Lo, Hi   int
	Bytes    int64
	// Reduce says the receiver combines the pieces with its own (a reduction); otherwise
	// they replace what it held.
	Reduce bool
	After  []int32
	// Channel is the one channel (queue pair per peer) that carries the message, from 0, or
	// -1 when the message is split over all of the job's channels; the rail-aware plans
	// (BuildOn: NCCL's rail rings) give each channel its own messages.
	Channel int
	// Relay is the rail (the GPU position, from 1) of the sender's server whose NIC the
	// message leaves through after crossing the scale-up domain (PXN), or 0 when it takes the
	// sender's own path.
	Relay int
}

// Plan is one iteration of a collective over Ranks ranks of Size bytes each, pipelined in
// pieces of Chunk bytes (0 when it is not pipelined): its messages, and for each the
// messages that wait for it (Next, the reverse of After).
type Plan struct {
	Op, Algorithm string
	Ranks         int
	Size          int64
	Chunk         int64
	Steps         int
	Messages      []Message
	Next          [][]int32
}

// MaxMessages bounds one iteration's messages: a plan's message takes about 160 bytes (its
// fields and its After and Next lists), so 10 million, 1.6 GB, is most of what a run may
// take (scenarios.MaxMemory, 4 GiB); a 2,048-rank ring allreduce is 8.4 million.
const MaxMessages = 10_000_000

// Count is the number of messages one iteration of op by alg over n ranks of size bytes,
// pipelined in chunks of chunk bytes, has, without building them; 0 when the combination is
// refused (Build says why).
func Count(op, alg string, n int, size, chunk int64) int64 {
	if Check(op, alg, n, size, chunk) != nil {
		return 0
	}
	N := int64(n)
	L := int64(bits.TrailingZeros(uint(n)))
	switch op {
	case AllReduce:
		switch alg {
		case HalvingDoubling:
			return 2 * L * N
		case Tree: // every rank but a tree's root sends each chunk of the tree's half up once and receives it down once
			h0, h1 := halves(size)
			return 2 * (N - 1) * (chunks(h0, chunk) + chunks(h1, chunk))
		}
		return 2 * (N - 1) * N
	case AllGather, ReduceScatter:
		if alg == HalvingDoubling {
			return L * N
		}
		return (N - 1) * N
	case AllToAll:
		return N * (N - 1)
	case Broadcast:
		return chunks(size, chunk) * (N - 1)
	}
	return 0
}

// Check reports why op by alg over n ranks of size bytes each, pipelined in chunks of chunk
// bytes (0 for an algorithm that is not pipelined), cannot be built, or nil.
func Check(op, alg string, n int, size, chunk int64) error {
	algs, ok := Algorithms[op]
	if !ok {
		return fmt.Errorf("unknown op %q", op)
	}
	switch {
	case alg == Tree && op != AllReduce:
		return fmt.Errorf("%s has no algorithm %q: NCCL builds its double binary tree for allreduce only (NVIDIA/nccl src/graph/tuning.cc); %s has %s", op, alg, op, strings.Join(algs, ", "))
	case !slices.Contains(algs, alg):
		return fmt.Errorf("%s has no algorithm %q", op, alg)
	case n < 2:
		return fmt.Errorf("a collective needs at least 2 ranks, got %d", n)
	case Pipelined(op, alg) && chunk < 1:
		return fmt.Errorf("%s by %s is pipelined in chunks: chunk must be at least 1 byte, got %d", op, alg, chunk)
	case !Pipelined(op, alg) && chunk != 0:
		return fmt.Errorf("%s by %s is not pipelined: chunk applies to algorithm tree and to broadcast only", op, alg)
	case alg == Tree && size < 2:
		return fmt.Errorf("the tree splits the buffer in two halves, one per tree: size must be at least 2 bytes, got %d", size)
	case size < int64(n) && op != Broadcast && alg != Tree:
		return fmt.Errorf("a size of %d bytes cannot be cut into %d pieces, one per rank", size, n)
	case size < 1:
		return fmt.Errorf("size must be at least 1 byte")
	case alg == HalvingDoubling && n&(n-1) != 0:
		return fmt.Errorf("halving_doubling needs a power of two ranks (Thakur, Rabenseifner and Gropp 2005 handle others with extra steps, not modelled); got %d", n)
	}
	return nil
}

// Build returns one iteration of op by alg over n ranks of size bytes each (the size a rank
// holds: allreduce's buffer, allgather's output, reduce_scatter's input, all_to_all's send
// buffer, broadcast's buffer, as nccl-tests count them).
func Build(op, alg string, n int, size, chunk int64) (*Plan, error) {
	if err := Check(op, alg, n, size, chunk); err != nil {
		return nil, err
	}
	c := Count(op, alg, n, size, chunk)
	if c > MaxMessages {
		return nil, fmt.Errorf("%s by %s over %d ranks is %d messages an iteration; at most %d", op, alg, n, c, MaxMessages)
	}
	p := &Plan{Op: op, Algorithm: alg, Ranks: n, Size: size, Chunk: chunk, Messages: make([]Message, 0, c)}
	switch {
	case alg == Tree:
		p.trees()
	case op == AllReduce && alg == Ring:
		p.ring(0, n-1, true)
		p.ring(n-1, n-1, false)
	case op == ReduceScatter && alg == Ring:
		p.ring(0, n-1, true)
	case op == AllGather && alg == Ring:
		p.ring(0, n-1, false)
	case op == AllReduce:
		p.halving()
		p.doubling()
	case op == ReduceScatter:
		p.halving()
	case op == AllGather:
		p.doubling()
	case op == AllToAll:
		p.direct()
	case op == Broadcast:
		p.chain()
	}
	p.finish(true)
	return p, nil
}

// finish adds the data dependencies (inputs) when derive is set (a plan whose builder wrote
// every After itself leaves it unset), then packs the lists and fills Next and Steps
// (compact).
func (p *Plan) finish(derive bool) {
	if derive {
		p.inputs()
	}
	p.compact()
}

// compact packs every message's After into one array and builds Next the same way (its
// reverse, each list in message order): two allocations for the plan's lists, not one per
// message, which for millions of messages is most of a plan's memory. It also sets Steps.
func (p *Plan) compact() {
	var edges int
	next := make([]int32, len(p.Messages)+1) // per message, then its list's start
	for m := range p.Messages {
		edges += len(p.Messages[m].After)
		for _, a := range p.Messages[m].After {
			next[a+1]++
		}
		p.Steps = max(p.Steps, p.Messages[m].Step+1)
	}
	after := make([]int32, 0, edges)
	for m := range p.Messages {
		msg := &p.Messages[m]
		lo := len(after)
		after = append(after, msg.After...)
		msg.After = after[lo:len(after):len(after)]
	}
	for m := range p.Messages {
		next[m+1] += next[m]
	}
	flat := make([]int32, edges)
	fill := slices.Clone(next[:len(p.Messages)])
	for m := range p.Messages {
		for _, a := range p.Messages[m].After {
			flat[fill[a]] = int32(m)
			fill[a]++
		}
	}
	p.Next = make([][]int32, len(p.Messages))
	for m := range p.Next {
		p.Next[m] = flat[next[m]:next[m+1]:next[m+1]]
	}
}

// inputs adds to every message's After the messages that brought its sender the data it
// sends: for each of its pieces, every delivery of that piece to the sender since the last
// one that replaced it (a reduction needs all its contributions; a copy only the last).
// The steps are taken in order, and a step's deliveries count from the next step on: a rank
// sends in step k what it held when step k began.
func (p *Plan) inputs() {
	order := make([]int32, len(p.Messages))
	for m := range order {
		order[m] = int32(m)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return p.Messages[a].Step - p.Messages[b].Step })
	pieces := 0
	for _, m := range p.Messages {
		pieces = max(pieces, m.Hi)
	}
	into := make([][]int32, p.Ranks*pieces) // (rank, piece): the deliveries that count
	var pending []int32
	apply := func() {
		for _, m := range pending {
			msg := &p.Messages[m]
			for j := msg.Lo; j < msg.Hi; j++ {
				k := msg.Dst*pieces + j
				if msg.Reduce {
					into[k] = append(into[k], m)
				} else {
					into[k] = append(into[k][:0:0], m)
				}
			}
		}
		pending = pending[:0]
	}
	step := 0
	for _, m := range order {
		msg := &p.Messages[m]
		if msg.Step != step {
			apply()
			step = msg.Step
		}
		for j := msg.Lo; j < msg.Hi; j++ {
			for _, d := range into[msg.Src*pieces+j] {
				if !slices.Contains(msg.After, d) {
					msg.After = append(msg.After, d)
				}
			}
		}
		slices.Sort(msg.After)
		pending = append(pending, m)
	}
}

// chunk is the size of piece j of the N pieces a rank's buffer is cut into: Size/N, the
// first Size mod N pieces one byte more.
func (p *Plan) chunk(j int) int64 {
	N := int64(p.Ranks)
	b := p.Size / N
	if int64(j) < p.Size%N {
		b++
	}
	return b
}

// add appends a message and returns its index.
func (p *Plan) add(src, dst, step, lo, hi int, bytes int64, reduce bool, after ...int32) int32 {
	p.Messages = append(p.Messages, Message{Src: src, Dst: dst, Step: step, Lo: lo, Hi: hi, Bytes: bytes, Reduce: reduce, After: after, Channel: -1})
	return int32(len(p.Messages) - 1)
}

// ring appends steps first..first+count-1 of a ring (Patarasuk and Yuan 2009; NCCL's ring
// algorithms): in each, rank r sends one piece to rank r+1 and receives one from r-1, the
// piece it received in the step before once reduced (reduce-scatter) or as it is
// (allgather). In reduce-scatter step k rank r sends piece r-k; after N-1 steps rank r
// holds piece r+1 reduced, which allgather step k sends on as piece r+1-k. A message
// waits for the one its sender received in the step before.
func (p *Plan) ring(first, count int, reduce bool) {
	n := p.Ranks
	order := make([]int, n)
	for r := range order {
		order[r] = r
	}
	shift := 1 // allgather after a reduce-scatter: rank r holds piece r+1
	if reduce || first == 0 {
		shift = 0 // reduce-scatter, or allgather alone: rank r starts with its own piece r
	}
	p.ringOn(order, func(u int) (int, int, int64) { return u, u + 1, p.chunk(u) }, -1, first, count, shift, reduce)
}

// ringOn appends steps first..first+count-1 of a ring over the ranks order (order[i] sends
// to order[i+1]) that passes units around: unit u is pieces lo..hi-1 of bytes bytes
// (unit(u)). In step k the i-th rank of the ring sends unit i+shift-k (mod the ring's
// length): shift 0 for a reduce-scatter or an allgather from its own unit, 1 for an
// allgather that follows a reduce-scatter on the same ring. Its messages are on channel
// (-1: all channels).
func (p *Plan) ringOn(order []int, unit func(u int) (lo, hi int, bytes int64), channel, first, count, shift int, reduce bool) {
	n := len(order)
	for k := 0; k < count; k++ {
		for i, r := range order {
			lo, hi, b := unit(((i+shift-k)%n + n) % n)
			m := p.add(r, order[(i+1)%n], first+k, lo, hi, b, reduce)
			p.Messages[m].Channel = channel
		}
	}
}

// rangeBytes is the size of pieces lo..hi-1.
func (p *Plan) rangeBytes(lo, hi int) int64 {
	var b int64
	for j := lo; j < hi; j++ {
		b += p.chunk(j)
	}
	return b
}

// halving appends recursive halving's reduce-scatter (Thakur, Rabenseifner and Gropp 2005,
// section 4.4): in step k rank r exchanges with r XOR N/2^(k+1) the half of its current
// range of pieces that the partner keeps (N/2^(k+1) pieces, Size/2^(k+1) bytes), and keeps
// the other half reduced; after log2 N steps rank r holds piece r. A message waits for the
// one its sender received in the step before.
func (p *Plan) halving() {
	n := p.Ranks
	L := bits.TrailingZeros(uint(n))
	first := p.Steps0()
	lo, hi := make([]int, n), make([]int, n)
	for r := range hi {
		hi[r] = n
	}
	for k := 0; k < L; k++ {
		d := n >> (k + 1)
		for r := 0; r < n; r++ {
			partner := r ^ d
			mid := (lo[r] + hi[r]) / 2
			slo, shi := mid, hi[r] // the upper half goes to a partner above
			if r&d != 0 {
				slo, shi = lo[r], mid
			}
			p.add(r, partner, first+k, slo, shi, p.rangeBytes(slo, shi), true)
		}
		for r := 0; r < n; r++ {
			mid := (lo[r] + hi[r]) / 2
			if r&d != 0 {
				lo[r] = mid
			} else {
				hi[r] = mid
			}
		}
	}
}

// doubling appends recursive doubling's allgather (Thakur, Rabenseifner and Gropp 2005,
// section 4.1): rank r starts with piece r; in step k it exchanges with r XOR 2^k the 2^k
// pieces it holds (2^k Size/N bytes); after log2 N steps it holds all. After a halving
// (allreduce), its first message waits for the halving's last one to the same rank.
func (p *Plan) doubling() {
	n := p.Ranks
	L := bits.TrailingZeros(uint(n))
	first := p.Steps0()
	for k := 0; k < L; k++ {
		d := 1 << k
		for r := 0; r < n; r++ {
			lo := r &^ (d - 1) // the block of 2^k pieces rank r holds
			p.add(r, r^d, first+k, lo, lo+d, p.rangeBytes(lo, lo+d), false)
		}
	}
}

// Steps0 is the step the next appended phase starts at: one past the highest so far.
func (p *Plan) Steps0() int {
	s := 0
	for _, m := range p.Messages {
		s = max(s, m.Step+1)
	}
	return s
}

// direct appends all_to_all: every rank sends piece d of its buffer to every rank d but
// itself, all at once (NCCL's alltoall is a send and a receive per peer, grouped).
func (p *Plan) direct() {
	for r := 0; r < p.Ranks; r++ {
		for d := 0; d < p.Ranks; d++ {
			if d != r {
				p.add(r, d, 0, d, d+1, p.chunk(d), false)
			}
		}
	}
}

// chunks is the number of pieces of chunk bytes size is cut into, the last the rest.
func chunks(size, chunk int64) int64 { return max((size+chunk-1)/chunk, 1) }

// chunkBytes is the size of piece c of the k pieces of chunk bytes size is cut into.
func chunkBytes(size, chunk int64, c, k int) int64 {
	if c == k-1 {
		return size - int64(k-1)*chunk
	}
	return chunk
}

// chain appends a ring broadcast from rank 0 (NCCL's ring broadcast: the ring without its
// last link), pipelined in pieces of Chunk bytes: rank j sends piece c to rank j+1 once it
// holds it (from rank j-1) and once its piece c-1 has arrived at j+1 (one slot in flight
// per link); piece c on link j is step c+j.
func (p *Plan) chain() {
	n := p.Ranks
	K := int(chunks(p.Size, p.Chunk))
	for c := 0; c < K; c++ {
		b := chunkBytes(p.Size, p.Chunk, c, K)
		for j := 0; j < n-1; j++ {
			var after []int32 // the data dependency (on piece c from rank j-1) comes from inputs
			if c > 0 {
				after = append(after, int32((c-1)*(n-1)+j))
			}
			p.add(j, j+1, c+j, c, c+1, b, false, after...)
		}
	}
}

// BusFactor is nccl-tests' bus bandwidth over algorithm bandwidth for op over n ranks
// (nccl-tests doc/PERFORMANCE.md): allreduce 2(n-1)/n; allgather, reduce_scatter and
// alltoall (n-1)/n; broadcast 1.
func BusFactor(op string, n int) float64 {
	N := float64(n)
	switch op {
	case AllReduce:
		return 2 * (N - 1) / N
	case AllGather, ReduceScatter, AllToAll:
		return (N - 1) / N
	}
	return 1
}

// StepLoads is, per step, the most bytes one rank sends or receives in it.
func (p *Plan) StepLoads() []int64 {
	loads := make([]int64, p.Steps)
	for m, l := range p.MessageLoads() {
		loads[p.Messages[m].Step] = max(loads[p.Messages[m].Step], l)
	}
	return loads
}

// MessageLoads is, per message, the bytes its link must carry while it is under way: the
// more of what its sender sends and what its receiver receives in its step (all_to_all's
// N-1 messages share their sender's link; a ring's one message has its link alone).
func (p *Plan) MessageLoads() []int64 {
	type key struct{ step, rank int }
	sent, recv := map[key]int64{}, map[key]int64{}
	for _, m := range p.Messages {
		sent[key{m.Step, m.Src}] += m.Bytes
		recv[key{m.Step, m.Dst}] += m.Bytes
	}
	loads := make([]int64, len(p.Messages))
	for i, m := range p.Messages {
		loads[i] = max(sent[key{m.Step, m.Src}], recv[key{m.Step, m.Dst}])
	}
	return loads
}

// CriticalPath is the time of one iteration when message m takes weight(m) once the last
// message of its After has arrived, and nothing else delays it: the longest path through the
// dependency graph. With every message's weight its step's load at a per-byte time plus
// one latency, it is Ideal for the ring and halving-doubling on a uniform fabric; on a
// fabric whose pairs of ranks are unequally far apart it is less, since a ring's chain of
// dependencies crosses each link of the ring in turn rather than the farthest in every step.
func (p *Plan) CriticalPath(weight func(m int) float64) float64 {
	steps := p.CriticalPathSteps(weight)
	var end float64
	for _, s := range steps {
		end = max(end, s)
	}
	return end
}

// CriticalPathSteps is CriticalPath step by step: for each step, when its last message
// arrives. It is SharedCriticalPathSteps with no message holding another.
func (p *Plan) CriticalPathSteps(weight func(m int) float64) []float64 {
	steps, _ := p.SharedCriticalPathSteps(SharedLinks{Alone: weight})
	return steps
}

// Ideal is the step-synchronous closed form of one iteration: the sum over steps of the
// step's load at the rate a byte takes perByte (the bottleneck's time per payload byte,
// headers included), plus alpha (the per-step latency) per step. For a ring allreduce it is
// 2(N-1)/N x Size x perByte + 2(N-1) alpha; for halving-doubling the same volume and
// 2 log2 N alpha.
func (p *Plan) Ideal(perByte, alpha float64) float64 {
	var t float64
	for _, l := range p.StepLoads() {
		t += float64(l)*perByte + alpha
	}
	return t
}

// Pairs is the number of ordered pairs of ranks (sender, receiver) that op by alg over n
// ranks sends messages between: the queue pairs a job keeps per channel. Ring: each rank to
// the next (n; the broadcast's chain, n-1); halving-doubling: each rank to its log2 n
// partners; direct: every rank to every other; tree: each edge of the two trees both ways,
// an edge both trees have counted once.
func Pairs(op, alg string, n int) int64 {
	if n < 2 {
		return 0
	}
	N := int64(n)
	switch {
	case op == AllToAll:
		return N * (N - 1)
	case op == Broadcast:
		return N - 1
	case alg == HalvingDoubling:
		return N * int64(bits.TrailingZeros(uint(n)))
	case alg == Tree:
		seen := map[[2]int]bool{}
		for _, s := range DoubleTree(n) {
			for r, par := range s.Parent {
				if par >= 0 {
					seen[[2]int{r, par}], seen[[2]int{par, r}] = true, true
				}
			}
		}
		return int64(len(seen))
	case alg == Hierarchical:
		return 2 * N // the domain's ring and the rail's ring, at most N pairs each
	}
	return N
}

// IdealBySteps is the step-synchronous closed form with each message's own cost: the sum
// over steps of the most any of its messages takes, cost(m) (its load, MessageLoads, at its
// link's time per byte plus its latency). Ideal is IdealBySteps with one link for all.
func (p *Plan) IdealBySteps(cost func(m int) float64) float64 {
	steps := make([]float64, p.Steps)
	for m := range p.Messages {
		steps[p.Messages[m].Step] = max(steps[p.Messages[m].Step], cost(m))
	}
	var t float64
	for _, s := range steps {
		t += s
	}
	return t
}
