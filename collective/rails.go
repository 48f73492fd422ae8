package collective

import "fmt"

// NCCL's rings on a rail-optimized cluster (docs/model.md, "Collectives on AI clusters").
// NCCL searches its rings per channel over the GPUs and NICs of a node (NVIDIA/nccl
// src/graph/search.cc, at commit 5067397): the inter-node ring of a channel is "NET n -> GPU
// a -> GPU b -> .. -> GPU x -> NET n" (line 827); channel c starts at NIC c
// (ncclTopoSearchRecNet, line 736: nets[(graph->nChannels + i) % netCount]), enters at that
// NIC's local GPU (line 791: net->net.localGpu), and on an NVSwitch node goes on to the next
// GPU index first (ncclTopoSearchNextGpuSort, lines 298-302: nextGpu = index+1 tried first
// for a ring); the ring leaves the node through the NIC it entered by (crossNic off,
// ncclTopoSearchCheckNet lines 604-607, the NIC's rail), which the last GPU reaches over
// NVLink through the NIC's own GPU (PXN, src/graph/paths.cc lines 817-839: PATH_PXN via the
// NIC's local GPU). With one NIC per GPU, GPU G's NIC is on rail G, so channel c enters
// every server at its GPU on rail c+1 and leaves it by rail c+1.

// share is part j of total cut in parts parts: total/parts, the first total mod parts one
// byte more.
func share(total int64, parts, j int) int64 {
	b := total / int64(parts)
	if int64(j) < total%int64(parts) {
		b++
	}
	return b
}

// RailOrder is channel c's ring over the job's ranks as NCCL builds it on a rail-optimized
// cluster: the servers in the order of their first rank, and in each server its ranks by
// rail starting at the (c mod k)-th of its k ranks (with every GPU of a server in the job,
// the GPU on rail c+1 mod k), the rest in rail order, wrapping.
func (l Layout) RailOrder(c int) []int {
	var order []int
	for _, s := range l.servers() {
		k := len(s)
		for i := range k {
			order = append(order, s[(c%k+i)%k])
		}
	}
	return order
}

// railRing is op by ring over ranks placed by l as NCCL runs it on rails: a ring per channel
// (RailOrder), channel c carrying part c of the buffer (share), each of its messages on
// channel c alone, with the relay PXN takes. Channel c's ring cuts its part into N units
// (pieces c*N..c*N+N-1) and runs as Build's ring; a message waits for the one its sender
// received from the ring's previous rank in the step before.
func railRing(op string, l Layout, size int64, channels int) (*Plan, error) {
	n, C := len(l.GPUs), max(channels, 1)
	if err := Check(op, Ring, n, size/int64(C), 0); err != nil {
		return nil, fmt.Errorf("%v (the buffer is cut in %d channels first)", err, C)
	}
	if m := int64(C) * Count(op, Ring, n, size/int64(C), 0); m > MaxMessages {
		return nil, fmt.Errorf("%s by ring over %d ranks and %d channels is %d messages an iteration; at most %d", op, n, C, m, MaxMessages)
	}
	p := &Plan{Op: op, Algorithm: Ring, Ranks: n, Size: size}
	for c := range C {
		part := share(size, C, c)
		unit := func(u int) (int, int, int64) { return c*n + u, c*n + u + 1, share(part, n, u) }
		order := l.RailOrder(c)
		first := len(p.Messages)
		switch op {
		case AllReduce:
			p.ringOn(order, unit, c, 0, n-1, 0, true)
			p.ringOn(order, unit, c, n-1, n-1, 1, false)
		case ReduceScatter:
			p.ringOn(order, unit, c, 0, n-1, 0, true)
		case AllGather:
			p.ringOn(order, unit, c, 0, n-1, 0, false)
		}
		// ringOn appends step by step, ring position by position: message first+k*n+i is
		// step k's from order[i]; it waits for step k-1's from order[i-1].
		for m := first; m < len(p.Messages); m++ {
			msg := &p.Messages[m]
			msg.Relay = l.relay(msg.Src, msg.Dst)
			if k, i := (m-first)/n, (m-first)%n; k > 0 {
				msg.After = []int32{int32(first + (k-1)*n + (i-1+n)%n)}
			}
		}
	}
	p.finish(false)
	return p, nil
}

// RailRingIdeal is the step-synchronous closed form of op by NCCL's rail ring over n servers
// of g GPUs (N = n g ranks, each server's g GPUs in the job), C = k g channels (k a whole
// number), Size bytes a rank (docs/model.md section 17): 2(N-1) steps for allreduce, N-1 for
// allgather and reduce_scatter, each taking the busier link class's bytes at its cost plus the
// step's path latency. Per step a GPU sends S/N bytes over its scale-up link with PXN (S
// (C-k)/(C N) without: the last GPU's unit leaves by its own NIC) and S/(g N) over its NIC;
// the path latency is a relayed message's, su.Alpha + nic.Alpha, with PXN and the longer of
// the two without.
func RailRingIdeal(op string, size int64, n, g, C int, pxn bool, su, nic Link) float64 {
	steps, bytes := railRingSteps(op, size, n, g, C, pxn, su, nic)
	alpha := su.Alpha + nic.Alpha
	if !pxn {
		alpha = max(su.Alpha, nic.Alpha)
	}
	return steps * (bytes + alpha)
}

// railRingSteps is the rail ring's number of steps and a step's bytes at the busier link
// class's cost (RailRingIdeal's per-step bytes).
func railRingSteps(op string, size int64, n, g, C int, pxn bool, su, nic Link) (steps, bytes float64) {
	N, S := float64(n*g), float64(size)
	k := float64(C / g)
	steps = N - 1
	if op == AllReduce {
		steps *= 2
	}
	suBytes := S / N
	if !pxn {
		suBytes = S * (float64(C) - k) / (float64(C) * N)
	}
	return steps, max(suBytes*su.PerByte, S/(float64(g)*N)*nic.PerByte)
}

// RailRingPipelined is the closed form of op by NCCL's rail ring as it runs when bandwidth
// bounds it: each channel's ring moves on as each rank's data arrives, not in lockstep, so a
// link class busy every step carries its 2(N-1) steps' bytes back to back and the path
// latency is paid once (the first relayed unit's way in and the last one's way out), not per
// step as in RailRingIdeal. Same arguments and per-step bytes as RailRingIdeal; nic.PerByte is
// the cost of a byte crossing between servers, which without PXN (the last GPU's unit through
// a spine) is the NIC's or, when the crossing flows of a leaf share its uplinks, that share's
// (docs/model.md section 17). It holds when a unit's way around the g GPUs of a server (g-1
// scale-up hops and one NIC hop, each with its latency) is shorter than the g steps the
// busier link class needs: the ring then never waits on latency.
func RailRingPipelined(op string, size int64, n, g, C int, pxn bool, su, nic Link) float64 {
	steps, bytes := railRingSteps(op, size, n, g, C, pxn, su, nic)
	alpha := su.Alpha + nic.Alpha
	if !pxn {
		alpha = nic.Alpha
	}
	return steps*bytes + alpha
}
