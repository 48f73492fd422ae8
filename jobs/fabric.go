package jobs

import "github.com/fabricsim/fabricsim/sim"

// Fabric is what the runtime asks of the fabric its jobs run on.
type Fabric interface {
	// Engine is the engine the runtime's events run on.
	Engine() *sim.Engine
	// StartFlow starts flow i (registered by the add function given to Runtime.Add) at now.
	StartFlow(i int32, now sim.Time) error
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

// AddFunc registers a flow of size bytes from host src to host dst, to start at start
// unless held (Runtime.Held); flows are numbered in the order they are added.
type AddFunc func(src, dst string, size int64, start sim.Time, transport string, prio int, rate sim.Rate) error
