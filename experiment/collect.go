package experiment

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/switchmodel"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports"
)

// collect reads every counter into a results variant.
func (f *fabric) collect() *results.Variant {
	now := f.run.Now()
	v := &results.Variant{
		Name:      f.sc.Variant,
		Transport: f.sc.Transport,
		Seed:      f.sc.Seed,
		SimTimeUS: now.Microseconds(),
		Events:    int64(f.run.Executed()),
		Deadlocks: []results.Deadlock{},
		Queues:    []results.Queue{},
		Links:     []results.Link{},
		PerFlow:   []results.Flow{},
		Warnings:  append([]string(nil), f.warnings...),
	}
	used := map[string]bool{}
	for i := range f.reg.Flows {
		v.ECN.CNPs += f.reg.CNPs(int32(i))
	}
	for i, fl := range f.reg.Flows {
		r := results.Flow{ID: fl.ID, Src: f.nw.Nodes[fl.Src].Name, Dst: f.nw.Nodes[fl.Dst].Name,
			Transport: fl.Transport, Priority: int(fl.Priority), SizeBytes: fl.Size,
			StartUS: fl.Start.Microseconds(), Status: fl.Status.String(), Reason: fl.Reason,
			RetransmittedPackets: fl.Retransmitted, DeliveredBytes: fl.Delivered,
			Timeouts: fl.Timeouts, NAKs: fl.NAKs, CNPs: f.reg.CNPs(int32(i)),
			Group: f.sc.Traffic[f.group[i]].Label}
		s, d := &f.nw.Nodes[fl.Src], &f.nw.Nodes[fl.Dst]
		r.SrcServer, r.SrcRail, r.DstServer, r.DstRail = int(s.Server), int(s.Rail), int(d.Server), int(d.Rail)
		used[fl.Transport] = true
		if fl.Persistent {
			r.QueuePair, r.Messages = true, fl.Messages
		}
		switch fl.Status {
		case transports.Completed:
			if fl.Persistent {
				r.FinishQueuePair(fl.Finish.Microseconds())
				break
			}
			r.Finish(fl.Finish.Microseconds(), f.ideal[i].Microseconds())
		case transports.Pending:
			if fl.Start > now {
				r.Reason = fmt.Sprintf("not started by the end of the run at %v", now)
			} else {
				r.Reason = fmt.Sprintf("%d of %d bytes delivered when the run stopped at %v", fl.Delivered, fl.Size, now)
				if fl.Persistent {
					r.Reason = fmt.Sprintf("%d of %d bytes posted delivered (%d of %d messages) when the run stopped at %v", fl.Delivered, fl.Size, fl.Messages, fl.Posted, now)
				}
			}
		}
		v.PerFlow = append(v.PerFlow, r)
	}
	v.Jobs = f.jobs.Collect(now)
	for k, j := range f.jobs.Jobs() {
		v.Jobs[k].Servers, v.Jobs[k].Rails = f.spread(j.Ranks())
	}
	// The transports the flows used: a traffic item's own transport: overrides the
	// variant's, and the table's transport column says what ran, not what was asked.
	if len(used) > 0 && !(len(used) == 1 && used[v.Transport]) {
		var ts []string
		for t := range used {
			ts = append(ts, t)
		}
		sort.Strings(ts)
		v.Transport = strings.Join(ts, "+")
	}

	by := &v.Drops.ByReason
	for _, sw := range f.switches {
		by.Buffer += sw.Drops[switchmodel.DropBuffer]
		by.Headroom += sw.Drops[switchmodel.DropHeadroom]
		by.Unroutable += sw.Drops[switchmodel.DropUnroutable]
		by.TTL += sw.Drops[switchmodel.DropTTL]
		by.Watchdog += sw.Drops[switchmodel.DropWatchdog]
		v.ECN.MarkedPackets += sw.Marked
		v.TrimmedPackets += sw.Trimmed
		for _, pt := range sw.Ports {
			for prio := range pt.Queues {
				f.addQueue(v, sw.ID, pt.Index, prio, &pt.Queues[prio], now)
				paused := pt.Pause.PausedTime(prio, now)
				v.PFC.PauseFrames += pt.PausesSent[prio]
				v.PFC.ResumeFrames += pt.ResumesSent[prio]
				v.PFC.PausedTimeUS += paused.Microseconds()
				if pt.PausesSent[prio]+pt.ResumesSent[prio] > 0 || paused > 0 {
					in := &pt.Ingress[prio]
					v.PFCPorts = append(v.PFCPorts, results.PFCPort{Node: sw.Name, Port: pt.Index + 1,
						Peer: f.nw.Nodes[pt.Wire.To].Name, Priority: prio, PausesSent: pt.PausesSent[prio],
						ResumesSent: pt.ResumesSent[prio], PausedUS: paused.Microseconds(),
						IngressMaxBytes: in.Max, XoffBytes: in.Xoff, HeadroomBytes: in.Headroom})
				}
			}
		}
	}
	for _, nic := range f.nicList {
		by.Unroutable += nic.Misdelivered
		for prio := range nic.Control {
			f.addQueue(v, nic.ID, nic.Port, prio, &nic.Control[prio], now)
			if rq := nic.RelayQueue(prio); rq != nil && rq.MaxBytes > 0 {
				// The data relayed for other GPUs (PXN): a record of its own, marked relay,
				// not in the time series (whose rows are by node, port and class).
				n := &f.nw.Nodes[nic.ID]
				v.Queues = append(v.Queues, results.Queue{Node: n.Name, Port: nic.Port + 1, Peer: f.nw.Nodes[n.Ports[nic.Port].Peer].Name,
					Priority: prio, Relay: true, MeanBytes: rq.MeanBytes(now), P99Bytes: rq.QuantileBytes(0.99, now), MaxBytes: rq.MaxBytes})
			}
			paused := nic.Pause.PausedTime(prio, now)
			v.PFC.PausedTimeUS += paused.Microseconds()
			v.PFC.PauseFrames += nic.PausesSent[prio]
			v.PFC.ResumeFrames += nic.ResumesSent[prio]
			if paused > 0 || nic.PausesSent[prio]+nic.ResumesSent[prio] > 0 {
				v.PFCPorts = append(v.PFCPorts, results.PFCPort{Node: nic.Name, Port: nic.Port + 1,
					Peer: f.nw.Nodes[nic.Wire.To].Name, Priority: prio, PausesSent: nic.PausesSent[prio],
					ResumesSent: nic.ResumesSent[prio], PausedUS: paused.Microseconds()})
			}
		}
	}
	for _, pair := range f.wires {
		for _, w := range pair {
			by.RandomLoss += w.LostRandom
			by.LinkDown += w.LostDown
			v.PacketHops += w.Packets()
			if w.Packets() == 0 {
				continue
			}
			util := 0.0
			if now > 0 {
				// A frame's whole serialization counts when it starts; on a slow link one
				// frame may outlast the run (an 84-byte PAUSE takes 22.4 s at 30 b/s), so
				// the busy time is capped at the run's.
				util = float64(min(w.BusyTime(), now)) / float64(now)
			}
			v.Links = append(v.Links, results.Link{From: f.nw.Nodes[w.From].Name, To: f.nw.Nodes[w.To].Name,
				Utilization: util, Packets: w.Packets()})
		}
	}
	v.DropPlaces = f.dropPlaces()
	for _, ft := range f.sc.Faults {
		if st := ft.PFCStorm; st != nil && ft.At <= now {
			until := now
			if ft.Until > 0 && ft.Until < now {
				until = ft.Until
			}
			v.Storms = append(v.Storms, results.Storm{Node: st.Node, Priority: st.Priority, FromUS: ft.At.Microseconds(), UntilUS: until.Microseconds()})
		}
	}
	v.LinkGroups = f.linkGroups(now)
	v.NodeGroups = f.nodeGroups()
	if f.deadlocks != nil {
		for _, d := range f.deadlocks.Found {
			// The table's notes print each deadlock as a warning under the table.
			v.Deadlocks = append(v.Deadlocks, results.Deadlock{AtUS: d.At.Microseconds(), Cycle: d.Cycle})
		}
	}
	if f.sampler != nil {
		v.Events -= int64(f.sampler.ticks) // the model's events only, with series or without
		v.Series = f.sampler.finish(now)
	}
	results.Summarize(v)
	return v
}

func (f *fabric) addQueue(v *results.Variant, node topology.NodeID, port, prio int, q *topology.Queue, now sim.Time) {
	if q.MaxBytes == 0 {
		return
	}
	n := &f.nw.Nodes[node]
	v.Queues = append(v.Queues, results.Queue{Node: n.Name, Port: port + 1, Peer: f.nw.Nodes[n.Ports[port].Peer].Name,
		Priority: prio, MeanBytes: q.MeanBytes(now), P99Bytes: q.QuantileBytes(0.99, now), MaxBytes: q.MaxBytes})
	if f.sampler != nil {
		f.sampler.queueDepths(node, port, prio, q, now)
	}
}

// workloadsOf lists the flow-size distributions the file's traffic draws from, each once,
