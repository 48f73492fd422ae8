// Package transports holds the host NICs and the transport endpoints that run on them: the
// RoCE requester and responder of reliable-connected RDMA WRITE messages, over IPv4/UDP (RoCE
// v2, with DCQCN) or straight over Ethernet with a GRH (RoCE v1), with PSNs, coalesced ACKs,
// NAK on a sequence gap, a retransmit timeout and a retry limit; and iWARP, RDMAP/DDP/MPA
// over a TCP with SACK recovery, an RFC 6298 timer and optional ECN; and the Ultra Ethernet
// transport's reliable unordered delivery with NSCC and per-packet entropy (uet.go,
// uet_receiver.go, uet_nscc.go, uet_entropy.go).
//
// The RoCE requester (roce.go) holds its congestion control behind one interface (roce_cc.go:
// none in cc_none.go, DCQCN's reaction point in dcqcn_cc.go, HPCC in hpcc.go) and its loss
// recovery behind another (roce_recovery.go: go-back-N in gbn_recovery.go, go-back-0 in
// gb0_recovery.go, IRN's selective repeat in irn.go), each a state machine in its own file.
//
// Endpoints are state machines driven by the NIC: it asks a requester for its next frame
// when its link is free, and hands each arriving frame to the endpoint it belongs to.
//
// The iWARP endpoints' TCP is cut as gVisor's tcp package is: the connection set-up
// (handshake.go), the sender and receiver cores (tcp_sender.go, tcp_receiver.go), congestion
// control behind one interface (congestion.go: NewReno in newreno.go, DCTCP in dctcp.go),
// loss recovery behind another (recovery.go: SACK per RFC 6675 in sack_recovery.go, NewReno
// per RFC 6582 in reno_recovery.go), the RTT estimator and the retransmission timeout (rtt.go,
// rto.go), and the MPA/DDP/RDMAP framing: its arithmetic (segment sizes, markers, the
// FPDU layout) in package transports/frames, filling a segment in mpa.go.
package transports

import (
	"fmt"
	"sync/atomic"

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

// Flow is one message from Src to Dst and what became of it; or, Persistent, a connection
// for a job's messages (persistent.go).
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
	// Timeouts counts the sender's retransmit timer expiries (RoCE's local ACK timeout,
	// TCP's RTO, handshake included), the one that exhausts the retry limit included.
	Timeouts int64
	// NAKs counts the sequence-error NAKs the RoCE responder sent (one per gap, IBA C9-114),
	// or the NACKs a UET receiver sent (one per trimmed packet it does not hold).
	NAKs int64

	// Persistent, set before the flow starts, makes it a queue pair for a whole job that
	// starts with no bytes and carries the messages Registry.Post gives it (persistent.go);
	// Size then counts the bytes posted so far, and Finish is when the last message
	// completed after Registry.Close.
	Persistent bool
	// Posted counts the messages posted on a persistent flow; Messages those its receiver
	// has completed (every byte of it and of every earlier one arrived).
	Posted, Messages int64

	closed  bool     // persistent: Close was called
	final   int64    // persistent: Posted when Close was called (atomic)
	lastMsg sim.Time // persistent: when the receiver completed its latest message

	// What each end knows, when the registry is Deferred: the receiver sets done (and
	// Finish), the sender failed, failedAt and failReason; Settle makes the Status of them.
	done       bool
	failed     bool
	failedAt   sim.Time
	failReason string
	ends       int32 // 1 once an end has counted the flow as ended (atomically)
}

// receiverOpen reports whether the flow is still open as its receiver knows it: neither
// ended before it started nor completed. (In a Deferred registry the receiver does not see
// the sender give up, which happens in another partition.)
func (f *Flow) receiverOpen() bool { return !f.done && f.Status == Pending }

// Registry is the set of flows of one run and the NICs they run on. Frames name their flow
// by index, so the NIC finds the endpoint without a map.
type Registry struct {
	eng       *sim.Engine
	pool      *topology.Pool
	Flows     []*Flow
	senders   []sender
	receivers []receiver
	open      int64 // flows not yet completed, failed or unroutable (atomic)
	// Done, when set, is called once every flow has ended.
	Done func()
	// OnComplete, when set, is called as flow i completes (its receiver holds the whole
	// message), at that time: collectives release the messages that waited for it.
	OnComplete func(i int32, now sim.Time)
	// OnMessage, when set, is called as the receiver of persistent flow i completes its
	// message msg (numbered from 0 in posting order; they complete in order), at that time.
	OnMessage func(i int32, msg int64, now sim.Time)
	// OnAcked, when set, is called as the sender of persistent flow i learns that its
	// message msg is acknowledged whole (the requester's completion), at that time.
	OnAcked func(i int32, msg int64, now sim.Time)
	// Seed is the run's seed: a flow's random choices (its source port, SourcePortRandom)
	// are drawn from it and the flow's index.
	Seed uint64
	// Deferred is set for a run whose two ends of a flow may run in different partitions
	// (sim.Group): each end records what it knows, the flow's Status stays Pending until
	// Settle, and the flow counts as ended when either end has ended it.
	Deferred bool
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
	if f.Status != Pending {
		return // ended already: refused at its start
	}
	f.Status, f.Reason = Unroutable, reason
	if s := r.senders[i]; s != nil {
		s.stop() // its endpoints may be set up already: it must send nothing
	}
	r.ended(f)
}

// checkStart reports why flow f cannot start between src and dst: cfgErr (its transport's
// configuration), a NIC's, or the flow's own.
func (r *Registry) checkStart(f *Flow, src, dst *NIC, cfgErr error) error {
	switch {
	case cfgErr != nil:
		return cfgErr
	case src == nil || dst == nil:
		return fmt.Errorf("flow %d has no NIC at one end", f.ID)
	case f.Size < 0:
		return fmt.Errorf("flow %d has a negative size, %d bytes", f.ID, f.Size)
	case f.Persistent && f.Size != 0:
		return fmt.Errorf("flow %d is persistent with a size of %d bytes: a persistent flow starts with none, its messages are posted (Registry.Post)", f.ID, f.Size)
	case int(f.Priority) >= topology.NumPriorities:
		return fmt.Errorf("flow %d has priority %d: there are %d", f.ID, f.Priority, topology.NumPriorities)
	case f.Rate < 0:
		return fmt.Errorf("flow %d has a negative rate", f.ID)
	}
	if err := src.validate(); err != nil {
		return err
	}
	return dst.validate()
}

// refuse ends flow i, which cannot start for err, as failed, and returns err.
func (r *Registry) refuse(i int32, err error) error {
	f := r.Flows[i]
	f.Status, f.Reason = Failed, "not started: "+err.Error()
	r.ended(f)
	return err
}

// complete ends flow i as completed at now, once: the receiver holds the whole message.
func (r *Registry) complete(i int32, now sim.Time) {
	f := r.Flows[i]
	if !f.receiverOpen() {
		return
	}
	if r.Deferred {
		f.done, f.Finish = true, now
	} else {
		f.Status, f.Finish = Completed, now
	}
	r.ended(f)
	if r.OnComplete != nil {
		r.OnComplete(i, now)
	}
}

// fail ends flow f as failed at now for reason, once: its sender gave up.
func (r *Registry) fail(f *Flow, now sim.Time, reason string) {
	switch {
	case f.Status != Pending || f.failed:
	case r.Deferred:
		f.failed, f.failedAt, f.failReason = true, now, reason
		r.ended(f)
	default:
		f.Status, f.Reason = Failed, reason
		r.ended(f)
	}
}

// ended counts flow f as ended, once whichever end says so first, and calls Done when it was
// the last open flow.
func (r *Registry) ended(f *Flow) {
	if !atomic.CompareAndSwapInt32(&f.ends, 0, 1) {
		return
	}
	if atomic.AddInt64(&r.open, -1) == 0 && r.Done != nil {
		r.Done()
	}
}

// Settle gives the flows of a Deferred registry whose ends have ended them their Status: a
// flow whose receiver completed it no later than its sender gave up is completed, else
// failed. Call it where no partition runs (between windows, or after the run).
func (r *Registry) Settle() {
	for _, f := range r.Flows {
		r.settleClosed(f)
		switch {
		case f.Status != Pending:
		case f.done && (!f.failed || f.Finish <= f.failedAt):
			f.Status = Completed
		case f.failed:
			f.Status, f.Reason = Failed, f.failReason
		}
	}
}

// sender is a flow's sending endpoint as its NIC sees it: a RoCE requester, or a TCP sender.
type sender interface {
	// slot is the sender's place on its NIC's schedule.
	slot() *schedSlot
	// hasData reports whether it has a frame to send (now or when slot().readyAt comes).
	hasData() bool
	// emit builds the next frame. Precondition: hasData and readyAt <= now.
	emit(now sim.Time) *topology.Packet
	// onControl takes a frame of the flow's reverse direction: ACK, NAK, CNP.
	onControl(now sim.Time, p *topology.Packet)
	// stop makes it send nothing more.
	stop()
	// class is the flow's traffic class; hash its ECMP hash; rate its rate limit (0: none).
	class() uint8
	hash() uint32
	rate() sim.Rate
}

// receiver is a flow's receiving endpoint.
type receiver interface {
	onData(now sim.Time, p *topology.Packet)
	// cnps is the number of congestion notifications it has sent.
	cnps() int64
}

// schedSlot is what the NIC keeps for each sender: on which of its host's NICs' schedules it
// is (bit p: the NIC of port p; a sender sprayed over planes is on several), the earliest
// time its pacing lets it send, its flow's destination host, and, sprayed, the plane to offer
// its next frame first (the one after the plane of its last, so that a window-limited flow
// turns over its planes rather than filling the first).
type schedSlot struct {
	on      uint32
	readyAt sim.Time
	dst     topology.NodeID
	next    int // sprayed: the plane (index in NIC.Spray) offered its next frame first
}

// Hash is the ECMP hash of flow i's data packets (0 for a flow that was refused).
func (r *Registry) Hash(i int32) uint32 {
	if s := r.senders[i]; s != nil {
		return s.hash()
	}
	return 0
}

// CNPs is the number of CNPs flow i's receiver has sent.
func (r *Registry) CNPs(i int32) int64 {
	if rc := r.receivers[i]; rc != nil {
		return rc.cnps()
	}
	return 0
}

// RateOf is flow i's sending rate limit now (0: line rate).
func (r *Registry) RateOf(i int32) sim.Rate {
	if s := r.senders[i]; s != nil {
		return s.rate()
	}
	return 0
}

// DCQCNRate is flow i's DCQCN current rate R_C, which RateOf caps by the flow's own rate
// limit; 0 when the flow has no DCQCN reaction point.
func (r *Registry) DCQCNRate(i int32) sim.Rate {
	if s, ok := r.senders[i].(*RoCESender); ok {
		if c, ok := s.cc.(*dcqcnCC); ok {
			return c.rp.Rate()
		}
	}
	return 0
}

// Ended reports whether flow i has ended, as either end knows it, settled or not. Call it
// where no partition runs.
func (r *Registry) Ended(i int32) bool {
	f := r.Flows[i]
	return f.Status != Pending || f.ends != 0
}

// Open is the number of flows that have not ended.
func (r *Registry) Open() int { return int(atomic.LoadInt64(&r.open)) }
