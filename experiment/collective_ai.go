package experiment

import (
	"github.com/fabricsim/fabricsim/collective"
	"github.com/fabricsim/fabricsim/scenarios"
)

// layoutOf is where a job's ranks (host names, rank i the i-th) are on the fabric: each one's
// server, rail and scale-up domain as the rail preset placed it (all 0 off it; the domain 0
// too when the GPU has no link to a scale-up switch), and whether
// the fabric relays traffic to another rail's GPU through the scale-up domain (pxn, the
// collective's, when not nil; else hosts.pxn).
func (f *fabric) layoutOf(ranks []string, pxn *bool) collective.Layout {
	l := collective.Layout{GPUs: make([]collective.GPU, len(ranks)), PXN: f.routes.PXN}
	if pxn != nil {
		l.PXN = *pxn
	}
	for i, name := range ranks {
		if id, ok := f.nw.Lookup(name); ok {
			n := &f.nw.Nodes[id]
			l.GPUs[i] = collective.GPU{Server: int(n.Server), Rail: int(n.Rail)}
			if f.routes.ScaleUpPort(id) >= 0 { // the preset numbers domains without a scale-up switch too
				l.GPUs[i].Domain = int(n.Domain)
			}
		}
	}
	return l
}

// Plan is one phase's plan of collective item c over ranks as the fabric places them
// (collective.BuildOn): NCCL's rail rings and trees on a rail cluster, algorithm
// hierarchical, all_to_all's skew (drawn from the scenario's seed) and MoE combine; on any
// other fabric, collective.Build's plan. A plan's message on channel k >= 0 goes on that
// channel's queue pair alone; one on channel -1 is split over all of c.Channels (docs/model.md
// section 17). An error is placed at the item.
func (a jobsFabric) Plan(c *scenarios.Collective, op, alg string, ranks []string, size, chunk int64) (*collective.Plan, error) {
	f := a.f
	p, err := collective.BuildOn(op, alg, f.layoutOf(ranks, c.PXN), size, collective.Options{
		Chunk: chunk, Channels: c.Channels, Skew: c.Skew, MoE: c.MoE, Seed: f.sc.Seed})
	if err != nil {
		return nil, placed(f.sc, "traffic", c.Pos, err)
	}
	return p, nil
}
