package scenarios

import (
	"net/netip"

	"github.com/fabricsim/fabricsim/collective"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/workload"
)

// Pos is the 1-based line and column where an item starts in the scenario file; zero when the
// item came from a --set flag or from a preset.
type Pos struct{ Line, Column int }

// Scenario is one fully resolved and validated variant of a scenario file: every default is
// filled in, every reference checked. The topology builder and the traffic generators consume
// it as is.
type Scenario struct {
	File        string // the file as the caller named it
	Version     int    // always 1
	Name        string // lower-case letters, digits and '-'
	Description string // may be empty
	Seed        uint64 // default 1
	// Seeds, when set, replicate every variant under each of these seeds (seeds: [1, 2, 3]);
	// nil means one run with Seed.
	Seeds []uint64
	// Sweep is the file's sweep block (sweep: {PATH: [values]}): the axes of a parameter
	// sweep, which `fabricsim sweep` runs; nil when the file has none. A run ignores it.
	Sweep []Axis
	Stop  sim.Time // simulated-time limit, default 100ms
	// SampleInterval is the period of the time series (flow rates, queue depths) written
	// with --out; 0 (the default) lets the sampler choose it from the run's active period.
	SampleInterval sim.Time
	// SeriesSamples is, without a SampleInterval, the most samples the automatic sampler
	// keeps (even): MaxAutoSamples-1, fewer when the flows and queues would otherwise make
	// more than MaxSeriesRows rows.
	SeriesSamples int

	Variant   string // the variant's name; "default" when the file has no variants
	Transport string // the variant's transport; "" when it names none

	Topology   Topology
	Switch     SwitchConfig // every switch, unless its Node.Switch is set
	Hosts      HostConfig   // every host, unless its Node.Hosts is set
	Transports Transports
	Traffic    []Traffic
	Faults     []Fault
}

// Topology is either a preset with its params (Preset != "") or explicit nodes and links.
type Topology struct {
	Preset string       // star | dumbbell | leafspine | fattree | rail, or "" for explicit nodes
	Params PresetParams // the preset's params with defaults; zero for explicit topologies
	Nodes  []Node       // explicit topologies only, in file order
	Links  []Link       // explicit topologies only, in file order; parallel links are allowed
	Routes []Route      // static routes on layer-3 switches, for either kind
	// Servers, in an explicit topology, group hosts into GPU servers; empty otherwise.
	Servers []Server
	Pos     Pos // where topology: starts in the file
}

// PresetParams are the params of every preset (topology.params); only those of
// Topology.Preset are set. Each preset's keys:
//
//	star:      hosts, link
//	dumbbell:  left, right, host_link, bottleneck
//	leafspine: leaves, spines, hosts_per_leaf, host_link, fabric_link, routing
//	fattree:   k, link, routing
//	rail:      stripes, servers_per_stripe, gpus_per_server, servers_per_scaleup, spines,
//	           planes, nic_link, fabric_link, scaleup, pcie, routing
type PresetParams struct {
	Hosts int      // star: hosts h1..hN
	Link  LinkSpec // star and fattree: every link

	Left, Right          int      // dumbbell: hosts l1..lN and r1..rM
	HostLink, Bottleneck LinkSpec // dumbbell (HostLink also leafspine)

	Leaves, Spines, HostsPerLeaf int
	FabricLink                   LinkSpec // leafspine: leaf-spine links

	K int // fattree: even, >= 2

	Routing string // leafspine, fattree and rail: "l2" or "l3" (default l3)

	// rail: Stripes (default 1) of ServersPerStripe servers of GPUsPerServer GPUs (default 8,
	// also the rails), ServersPerScaleup servers to a scale-up domain (default 1), Spines
	// per plane (Spines above), Planes (default 1); NICLink joins a GPU's NIC to its rail
	// leaf, FabricLink (above) a leaf to a spine; ScaleUp joins a GPU to its scale-up switch
	// (nil: no scale-up domain; scaleup: {} is the H100 default, ScaleUpRate and
	// ScaleUpDelay), PCIe a GPU to its NIC (nil: no PCIe hop).
	Stripes, ServersPerStripe, GPUsPerServer, ServersPerScaleup, Planes int
	NICLink                                                             LinkSpec
	ScaleUp, PCIe                                                       *LinkSpec
}

// LinkSpec is the rate, propagation delay and random per-packet loss of a link.
type LinkSpec struct {
	Rate  sim.Rate // > 0
	Delay sim.Time // >= 0, default 0
	Loss  float64  // in [0,1], default 0; acts on both directions
}

// Node is one node of an explicit topology.
type Node struct {
	Name   string        // unique; letters, digits, '_' and '.'
	Type   string        // host | switch
	Subnet netip.Prefix  // hosts: the IPv4 subnet (required)
	IP     netip.Addr    // hosts: the address if given (inside Subnet), else invalid: assign one
	Layer  int           // switches: 2 (default) or 3; 0 for hosts
	Switch *SwitchConfig // switches: the node's own config (the global one with its block applied), or nil
	Hosts  *HostConfig   // hosts: the node's own config (the global one with its block applied), or nil
	Pos    Pos
}

// Link is one link of an explicit topology (or of a preset, from TopologyLinks).
type Link struct {
	Between [2]string
	Rate    sim.Rate
	Delay   sim.Time
	Loss    float64
	Pos     Pos
}

// Server is a GPU server of an explicit topology: its GPUs (hosts, in rail order: the first
// is on rail 1) and, optionally, the scale-up switch they share with the GPUs of the servers
// that name the same one (a switch whose links are lossless, as NVLink is; each GPU links to
// it besides its NIC's link).
type Server struct {
	Name          string
	GPUs          []string
	ScaleupDomain string // a switch of the topology, or ""
	Pos           Pos
}

// Route is a static route on a layer-3 switch: packets for Dst leave At towards Via, replacing
// the computed next hops for that prefix.
type Route struct {
	At  string
	Dst netip.Prefix
	Via string
	Pos Pos
}

// Traffic is one item of the traffic list; Kind says which pointer is set.
type Traffic struct {
	Kind        string // flow | incast | permutation | poisson | all_to_all | collective | chakra
	Flow        *Flow
	Incast      *Incast
	Permutation *Permutation
	Poisson     *Poisson
	AllToAll    *AllToAll
	Collective  *Collective
	// Label names the item's flows as a group in the results (their group): the item's
	// label field, else its kind and index in the list ("poisson 0", "incast 1"). Items may
	// share a label; their flows then form one group.
	Label string
	Pos   Pos
}

// Poisson is open-loop traffic: each host of Hosts starts flows at the times of a Poisson
// process whose rate offers Load of its link's rate (rate = Load x link rate / (8 x mean
// size)), from Start until Stop, or until Count flows in all have started. Sizes are drawn
// from Workload by inverse CDF; each flow goes to a host of Dst other than its sender, drawn
// uniformly.
type Poisson struct {
	Hosts        []string // nil = all hosts of the topology
	Dst          []string // nil = Hosts
	Load         float64  // in (0, 1]
	Workload     *workload.CDF
	WorkloadFile string // the workload's file, "" for a bundled one
	Start, Stop  sim.Time
	Count        int // > 0: stop after this many flows in all (then Stop is the run's stop)
	Transport    string
	Priority     int
	Rate         sim.Rate
	Pos          Pos
}

// AllToAll sends one message of Size from every host of Hosts to every other one.
type AllToAll struct {
	Hosts     []string // nil = all hosts of the topology
	Size      int64
	Start     sim.Time
	Transport string
	Priority  int
	Rate      sim.Rate
	Pos       Pos
}

// Collective is a job's collective operation (collective.Build gives its dependency graph):
// Op by Algorithm over Hosts (rank i is Hosts[i]), Size bytes per rank, run Iterations
// times, the first at Start and each next one Compute after the one before has ended; each
// message split over Channels queue pairs (connections with their own UDP source port).
type Collective struct {
	Op, Algorithm string
	Hosts         []string // nil = all hosts of the topology, in order
	Size          int64
	Chunk         int64 // the pipeline's piece (tree, broadcast); 0 for the other algorithms
	Start         sim.Time
	Iterations    int
	Compute       sim.Time
	Channels      int
	Transport     string
	Priority      int
	Label         string // the job's name; default OP-INDEX (the traffic item's index)
	Pos           Pos
	// Steps, for a job read from Chakra traces (traffic kind chakra; Op is then "chakra"),
	// are its collectives in order, each one iteration of the job, and Size their sum; nil
	// for a collective item. Traces are the files read, rank by rank, as the scenario names
	// them (relative to its directory).
	Steps  []CollectiveStep
	Traces []string
	// Skew spreads an all_to_all's bytes over destinations (collective.Skew; Dist "" as
	// uniform), drawn from the scenario's seed; MoE, when set, makes it a MoE layer's
	// dispatch then combine (collective.MoE). Build the plan with collective.BuildOn.
	Skew collective.Skew
	MoE  *collective.MoE
	// ReleaseLatency is the time between a message's last input arriving at its sender and
	// the sender posting it (0: at once); PXN, when set, overrides hosts.pxn for the job's
	// queue pairs and plan.
	ReleaseLatency sim.Time
	PXN            *bool
}

// CollectiveStep is one collective of a job's sequence: Op by Algorithm of Size bytes per
// rank (as Collective's Size counts it) in pieces of Chunk, from trace node Node (rank 0's id and name), and
// per rank what it waits for before it sends (Waits[rank]).
type CollectiveStep struct {
	Op, Algorithm string
	Size          int64
	Chunk         int64 // a pipelined algorithm's piece (collective.Pipelined), else 0
	Node          string
	Waits         [][]Wait
}

// Wait is one thing a rank waits for before a step of its job: Compute after step After
// has ended (-1: after the job's start).
type Wait struct {
	After   int
	Compute sim.Time
}

// Flow is one message from Src to Dst.
type Flow struct {
	Src, Dst  string
	Size      int64    // bytes, > 0
	Start     sim.Time // default 0
	Transport string   // the flow's, else the variant's
	Priority  int      // the flow's, else the sending host's hosts.priority
	Rate      sim.Rate // pace at most this fast; 0 (default) = line rate
	Pos       Pos
}

// Incast is one message of Size bytes from each sender to the receiver, all starting at Start,
// and again every Every, Count times in all (Count 1 when it does not repeat).
type Incast struct {
	Senders   []string
	Receiver  string
	Size      int64 // bytes per sender, > 0
	Start     sim.Time
	Transport string
	Priority  int // the item's, else the global hosts.priority
	Rate      sim.Rate
	Every     sim.Time
	Count     int
	Pos       Pos
}

// Permutation sends one message from every host of Hosts to another, each host receiving one.
type Permutation struct {
	Hosts     []string // nil = all hosts of the topology
	Size      int64
	Start     sim.Time
	Transport string
	Priority  int // the item's, else the global hosts.priority
	Rate      sim.Rate
	Pos       Pos
}

// Fault changes a link at time At: exactly one of State, Loss and DropEvery is set.
type Fault struct {
	At        sim.Time
	Link      [2]string // an existing link, in the direction the fault acts (Loss, DropEvery)
	State     string    // "", "up" or "down" (both directions)
	Loss      *float64  // random loss from Link[0] to Link[1], in [0,1]
	DropEvery int       // > 0: drop every n-th data packet from Link[0] to Link[1]
	// PFCStorm, when set, makes a host's NIC send PAUSE on a class from At until Until.
	PFCStorm *PFCStorm
	// Until ends a PFC storm; 0 means it lasts to the end of the run.
	Until sim.Time
	// Pause, when set, makes a node send one PFC frame at At.
	Pause *PauseFault
	Pos   Pos
}

// PFCStorm is a broken NIC's pause storm: host Node sends PAUSE frames of the largest
// quanta (0xFFFF) on class Priority, refreshed at half the pause time, from the fault's At
// until its Until; when it stops, the last pause runs out (it sends no resume).
type PFCStorm struct {
	Node     string // a host
	Priority int    // 0..7, default the host's hosts.priority
}

// PauseFault is one PFC frame that node Node sends out of its port Port (from 1; a host has
// port 1) pausing class Priority for Quanta quanta of 512 bit times (0 resumes it).
type PauseFault struct {
	Node     string
	Port     int // default 1
	Priority int // default hosts.priority
	Quanta   int // 0..65535, required
}

// VariantInfo names one variant of a file and its transport ("" when it names none).
type VariantInfo struct{ Name, Transport string }
