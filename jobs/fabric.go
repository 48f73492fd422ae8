package jobs

import (
	"github.com/fabricsim/fabricsim/collective"
	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
)

// Fabric is what the runtime asks of the fabric its jobs run on.
type Fabric interface {
	// Engine is the engine the runtime's events run on: the one that runs between windows,
	// with every partition at its time.
	Engine() *sim.Engine
	// Partitions is the number of partitions the fabric is cut into; Partition the one of
	// host h (0 .. Partitions()-1), where its NIC's hooks run.
	Partitions() int
	Partition(h string) int
	// Local is partition p's engine: a release decided in it (a message's data arrived at
	// its sender) is an event there.
	Local(p int) *sim.Engine
	// Settle ends the queue pairs closed with every message arrived (between windows).
	Settle()
	// Post posts a message of bytes on queue pair qp (a persistent flow opened by the
	// OpenFunc given to Runtime.Add) at the time of its sender's engine, after every message
	// posted on it before, and returns its number on the queue pair (from 0): the fabric
	// calls Runtime.Delivered with that number as the receiver completes it.
	Post(qp int32, bytes int64) (msg int64, err error)
	// Close says that no message follows on queue pair qp.
	Close(qp int32) error
	// Plan is the plan of one phase of collective c: op by alg over ranks as the fabric
	// places them (NCCL's rail rings and trees on an AI cluster, c's all_to_all skew and MoE
	// combine), size bytes a rank in chunks of chunk.
	Plan(c *scenarios.Collective, op, alg string, ranks []string, size, chunk int64) (*collective.Plan, error)
	// Path is the path from host src to host dst as a message of collective c (its
	// transport, its pxn) sees it alone on the empty fabric; ok is false when there is none.
	Path(c *scenarios.Collective, src, dst string) (p Path, ok bool)
	// Frame is the transport's full packet: its wire bytes and the payload it carries.
	Frame(transport string) (wire, payload int64)
}

// Path is what a message's ideal needs of its path: the slowest link's rate, a full packet's
// latency through it beyond its first serialization, a message's time alone on it, and the
// links on it that every message between its two hosts crosses.
type Path struct {
	Rate  sim.Rate
	Alpha sim.Time
	// Alone is when a message of the given bytes, leaving at 0, has fully arrived: its own
	// packets through the path's store-and-forward pipeline.
	Alone func(bytes int64) sim.Time
	// Links are the links of the path that no hash, spray or plane choice moves a message
	// off: those leaving a host (the sender's, a relaying GPU's NIC) and the one into the
	// receiver, when the host at that end has one way out to the fabric.
	Links []PathLink
}

// PathLink is a link every message of a path crosses: its ID (one direction of one link,
// the same for every path through it), its rate, and Around(bytes): for a message of bytes
// alone on the path, its first packet's time from leaving the sender to its first bit on the
// link (lead), and its last packet's from its last bit on the link to the receiver (tail).
type PathLink struct {
	ID     int32
	Rate   sim.Rate
	Around func(bytes int64) (lead, tail sim.Time)
}

// OpenFunc opens a queue pair from host src to host dst on the transport at priority prio,
// from time start: a persistent flow of the fabric, which carries the messages posted on it
// (Fabric.Post). Flows are numbered in the order they are opened.
type OpenFunc func(src, dst string, start sim.Time, transport string, prio int) error
