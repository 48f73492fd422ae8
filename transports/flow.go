// Package transports holds the host NICs and the transport endpoints that run on them: the
// RoCE v2 requester and responder of reliable-connected RDMA WRITE messages (IPv4/UDP/BTH
// framing, PSNs, coalesced ACKs, NAK on a sequence gap, go-back-N, a retransmit timeout and a
// retry limit).
//
// Endpoints are state machines driven by the NIC: it asks a requester for its next frame
// when its link is free, and hands each arriving frame to the endpoint it belongs to.
package transports

import (
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// Status is where a flow stands.
type Status uint8

// Flow statuses, as the results document names them.
const (
	Pending    Status = iota // not started yet, or running
	Completed                // the receiver holds the whole message
	Failed                   // the transport gave up (retry limit)
	Unroutable               // no path the transport can use; nothing was sent
)

func (s Status) String() string {
	switch s {
	case Completed:
		return "completed"
	case Failed:
		return "failed"
	case Unroutable:
		return "unroutable"
	}
	return "incomplete"
}

// Flow is one message from Src to Dst and what became of it.
type Flow struct {
	ID        int // from 1, in traffic order
	Src, Dst  topology.NodeID
	Size      int64 // message bytes
	Start     sim.Time
	Priority  uint8
	Rate      sim.Rate // pacing limit; 0 = line rate
	Transport string

	Status    Status
	Reason    string
	Finish    sim.Time // when the last byte was delivered in order; valid when Completed
	Delivered int64    // payload bytes delivered in order to the receiver
	// Retransmitted counts data packets sent again.
	Retransmitted int64
}

// Registry is the set of flows of one run and the NICs they run on. Frames name their flow
// by index, so the NIC finds the endpoint without a map.
type Registry struct {
	eng       *sim.Engine
	pool      *topology.Pool
	Flows     []*Flow
	senders   []*RoCESender
	receivers []*RoCEReceiver
	open      int // flows not yet completed, failed or unroutable
	// Done, when set, is called once every flow has ended.
	Done func()
}

// NewRegistry returns an empty registry.
func NewRegistry(eng *sim.Engine, pool *topology.Pool) *Registry {
	return &Registry{eng: eng, pool: pool}
}

// Add registers a flow and returns its index. The flow runs once Start is called.
func (r *Registry) Add(f *Flow) int32 {
	r.Flows = append(r.Flows, f)
	r.senders = append(r.senders, nil)
	r.receivers = append(r.receivers, nil)
	r.open++
	return int32(len(r.Flows) - 1)
}

// MarkUnroutable ends flow i before it starts.
func (r *Registry) MarkUnroutable(i int32, reason string) {
	f := r.Flows[i]
	f.Status, f.Reason = Unroutable, reason
	if s := r.senders[i]; s != nil {
		s.over = true // its queue pair may be set up already: it must send nothing
	}
	r.ended()
}

func (r *Registry) ended() {
	r.open--
	if r.open == 0 && r.Done != nil {
		r.Done()
	}
}

// Open is the number of flows that have not ended.
func (r *Registry) Open() int { return r.open }
