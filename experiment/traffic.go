package experiment

import (
	"container/heap"
	"fmt"
	"math/rand/v2"

	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports"
)

// maxFlows bounds the flows a scenario's traffic may generate: a million flows take about a
// gigabyte to simulate and report.
const maxFlows = scenarios.MaxFlows

// expandTraffic turns the traffic items into flows, in order; a generator's flows are in the
// order they start. f.group[i] is the traffic item flow i came from. Every random draw comes from a stream named after the item (and, for
// Poisson arrivals, the sending host), so adding an item or a host elsewhere changes nothing
// here, and the flows do not depend on how many variants run at once.
func (f *fabric) expandTraffic() ([]*transports.Flow, error) {
	var flows []*transports.Flow
	item := 0 // the traffic item being expanded: its label is its flows' group
	f.group = f.group[:0]
	host := func(name string) (topology.NodeID, error) {
		id, ok := f.nw.Lookup(name)
		if !ok || f.nw.Nodes[id].Type != topology.Host {
			return 0, fmt.Errorf("%q is not a host", name)
		}
		return id, nil
	}
	add := func(src, dst string, size int64, start sim.Time, transport string, prio int, rate sim.Rate) error {
		if len(flows) >= maxFlows {
			return fmt.Errorf("the traffic makes more than %d flows: lower a count, a load or stop", maxFlows)
		}
		s, err := host(src)
		if err != nil {
			return err
		}
		d, err := host(dst)
		if err != nil {
			return err
		}
		f.group = append(f.group, item)
		flows = append(flows, &transports.Flow{ID: len(flows) + 1, Src: s, Dst: d, Size: size, Start: start,
			Transport: transport, Priority: uint8(prio), Rate: rate, Finish: sim.Never})
		return nil
	}
	for ti, t := range f.sc.Traffic {
		var err error
		item = ti
		switch {
		case t.Flow != nil:
			fl := t.Flow
			err = add(fl.Src, fl.Dst, fl.Size, fl.Start, fl.Transport, fl.Priority, fl.Rate)
		case t.Incast != nil:
			in := t.Incast
			for k := 0; k < in.Count && err == nil; k++ {
				for _, s := range in.Senders {
					if err = add(s, in.Receiver, in.Size, in.Start+sim.Time(k)*in.Every, in.Transport, in.Priority, in.Rate); err != nil {
						break
					}
				}
			}
		case t.Permutation != nil:
			pm := t.Permutation
			names := f.hostNames(pm.Hosts)
			dst := derangement(len(names), sim.Stream(f.sc.Seed, fmt.Sprintf("traffic:%d:permutation", ti)))
			for i, s := range names {
				if err = add(s, names[dst[i]], pm.Size, pm.Start, pm.Transport, pm.Priority, pm.Rate); err != nil {
					break
				}
			}
		case t.AllToAll != nil:
			a := t.AllToAll
			names := f.hostNames(a.Hosts)
			for _, s := range names {
				for _, d := range names {
					if s != d && err == nil {
						err = add(s, d, a.Size, a.Start, a.Transport, a.Priority, a.Rate)
					}
				}
			}
		case t.Poisson != nil:
			err = f.poissonFlows(ti, t.Poisson, add)
		case t.Collective != nil:
			open := func(src, dst string, start sim.Time, transport string, prio int) error {
				if err := add(src, dst, 0, start, transport, prio, 0); err != nil {
					return err
				}
				flows[len(flows)-1].Persistent = true
				return nil
			}
			err = f.jobs.Add(t.Collective, f.hostNames(t.Collective.Hosts), int32(len(flows)), open)
		default:
			err = fmt.Errorf("kind %q is not supported", t.Kind)
		}
		if err != nil {
			return nil, fmt.Errorf("traffic item %d: %w", ti, err)
		}
	}
	return flows, nil
}

// hostNames is names, or every host of the topology when names is nil.
func (f *fabric) hostNames(names []string) []string {
	if names != nil {
		return names
	}
	for _, h := range f.nw.Hosts() {
		names = append(names, f.nw.Nodes[h].Name)
	}
	return names
}

// arrivals is one sending host's Poisson process.
type arrivals struct {
	next sim.Time // the time of its next flow
	host int      // its index among the senders: ties go to the lower
	gap  float64  // the mean time between its flows, in ps
	rng  *rand.Rand
}

// arrivalHeap orders the senders by their next flow's time.
type arrivalHeap []*arrivals

func (h arrivalHeap) Len() int { return len(h) }
func (h arrivalHeap) Less(i, j int) bool {
	return h[i].next < h[j].next || (h[i].next == h[j].next && h[i].host < h[j].host)
}
func (h arrivalHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *arrivalHeap) Push(x any)   { *h = append(*h, x.(*arrivals)) }
func (h *arrivalHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// poissonFlows generates p's flows in the order they start: each sender's flows at the
// times of a Poisson process of rate load x link rate / (8 x mean size), so it offers load of
// its link; each size drawn from the workload by inverse CDF, each destination uniformly
// among the other hosts of p.Dst. A sender draws from its own stream: its gaps, sizes and
// destinations do not depend on the other senders.
func (f *fabric) poissonFlows(ti int, p *scenarios.Poisson, add func(src, dst string, size int64, start sim.Time, transport string, prio int, rate sim.Rate) error) error {
	senders := f.hostNames(p.Hosts)
	dsts := p.Dst
	if dsts == nil {
		dsts = senders
	}
	mean := p.Workload.Mean()
	h := make(arrivalHeap, 0, len(senders))
	for i, s := range senders {
		id, ok := f.nw.Lookup(s)
		if !ok || len(f.nw.Nodes[id].Ports) == 0 {
			return fmt.Errorf("%q is not a host with a link", s)
		}
		rate := f.nw.Links[f.nw.Nodes[id].Ports[0].Link].Params.Rate
		a := &arrivals{host: i, rng: sim.Stream(f.sc.Seed, fmt.Sprintf("traffic:%d:poisson:%s", ti, s)),
			gap: mean * 8 / (float64(rate) * p.Load) * float64(sim.Second)}
		a.next = p.Start + sim.Time(a.rng.ExpFloat64()*a.gap)
		h = append(h, a)
	}
	heap.Init(&h)
	started := 0
	for h.Len() > 0 {
		a := h[0]
		if (p.Count > 0 && started == p.Count) || (p.Count == 0 && a.next >= p.Stop) {
			if p.Count > 0 {
				return nil
			}
			heap.Pop(&h) // this sender is done; the others may still start flows
			continue
		}
		src := senders[a.host]
		size := p.Workload.Size(a.rng.Float64())
		dst, ok := otherHost(dsts, src, a.rng)
		if !ok {
			return fmt.Errorf("poisson: %s has no other host to send to among %v", src, dsts)
		}
		if err := add(src, dst, size, a.next, p.Transport, p.Priority, p.Rate); err != nil {
			return err
		}
		started++
		a.next += sim.Time(a.rng.ExpFloat64() * a.gap)
		heap.Fix(&h, 0)
	}
	return nil
}

// otherHost draws a host of hosts other than self, uniformly.
func otherHost(hosts []string, self string, rng *rand.Rand) (string, bool) {
	n := len(hosts)
	selfAt := -1
	for i, h := range hosts {
		if h == self {
			selfAt = i
			break
		}
	}
	if selfAt >= 0 {
		n--
	}
	if n < 1 {
		return "", false
	}
	k := rng.IntN(n)
	if selfAt >= 0 && k >= selfAt {
		k++
	}
	return hosts[k], true
}

// derangement is a uniformly random permutation of 0..n-1 with no fixed point, so no host
// sends to itself (rejection sampling: about e tries on average).
func derangement(n int, rng *rand.Rand) []int {
	p := make([]int, n)
	if n < 2 {
		return p
	}
	for {
		for i := range p {
			p[i] = i
		}
		rng.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
		ok := true
		for i, v := range p {
			if i == v {
				ok = false
				break
			}
		}
		if ok {
			return p
		}
	}
}
