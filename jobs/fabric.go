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
	// Path is the path from host src to host dst as a message of the transport sees it alone
	// on the empty fabric; ok is false when there is none.
	Path(transport, src, dst string) (p Path, ok bool)
	// Frame is the transport's full packet: its wire bytes and the payload it carries.
	Frame(transport string) (wire, payload int64)
}

// Path is what a message's ideal needs of its path: the slowest link's rate, a full packet's
// latency through it beyond its first serialization, and a message's time alone on it.
type Path struct {
	Rate  sim.Rate
	Alpha sim.Time
	// Alone is when a message of the given bytes, leaving at 0, has fully arrived: its own
	// packets through the path's store-and-forward pipeline.
	Alone func(bytes int64) sim.Time
}

// OpenFunc opens a queue pair from host src to host dst on the transport at priority prio,
// from time start: a persistent flow of the fabric, which carries the messages posted on it
// (Fabric.Post). Flows are numbered in the order they are opened.
type OpenFunc func(src, dst string, start sim.Time, transport string, prio int) error
