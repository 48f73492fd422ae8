package scenarios

import (
	"github.com/fabricsim/fabricsim/ecn"
	"net/netip"

	"github.com/fabricsim/fabricsim/sim"
)

// Pos is the 1-based line and column where an item starts in the scenario file; zero when the
// item came from a --set flag or from a preset.
type Pos struct{ Line, Column int }

// Scenario is one fully resolved and validated variant of a scenario file: every default is
// filled in, every reference checked. The topology builder and the traffic generators consume
// it as is.
type Scenario struct {
	File        string   // the file as the caller named it
	Version     int      // always 1
	Name        string   // lower-case letters, digits and '-'
	Description string   // may be empty
	Seed        uint64   // default 1
	Stop        sim.Time // simulated-time limit, default 100ms
	// SampleInterval is the period of the time series (flow rates, queue depths) written
	// with --out; default stop/500.
	SampleInterval sim.Time

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
	Preset string       // star | dumbbell | leafspine | fattree, or "" for explicit nodes
	Params PresetParams // the preset's params with defaults; zero for explicit topologies
	Nodes  []Node       // explicit topologies only, in file order
	Links  []Link       // explicit topologies only, in file order; parallel links are allowed
	Routes []Route      // static routes on layer-3 switches, for either kind
}

// PresetParams are the params of every preset; only those of Topology.Preset are set.
//
//	star:      Hosts, Link
//	dumbbell:  Left, Right, HostLink, Bottleneck
//	leafspine: Leaves, Spines, HostsPerLeaf, HostLink, FabricLink, Routing
//	fattree:   K, Link, Routing
type PresetParams struct {
	Hosts int      // star: hosts h1..hN
	Link  LinkSpec // star and fattree: every link

	Left, Right          int      // dumbbell: hosts l1..lN and r1..rM
	HostLink, Bottleneck LinkSpec // dumbbell (HostLink also leafspine)

	Leaves, Spines, HostsPerLeaf int
	FabricLink                   LinkSpec // leafspine: leaf-spine links

	K int // fattree: even, >= 2

	Routing string // leafspine and fattree: "l2" or "l3" (default l3)
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

// Route is a static route on a layer-3 switch: packets for Dst leave At towards Via, replacing
// the computed next hops for that prefix.
type Route struct {
	At  string
	Dst netip.Prefix
	Via string
	Pos Pos
}

// SwitchConfig configures a switch.
type SwitchConfig struct {
	// Buffer is the shared packet buffer in bytes; default 32MB (a 32 MB shared buffer is
	// typical of datacenter switch ASICs of the 100G generation).
	Buffer int64
	// BufferAlpha is the dynamic-threshold alpha (Choudhury-Hahne): a queue may hold alpha x
	// the free buffer; default 1 (the SONiC Mellanox profiles use alpha = 1). Must be > 0.
	BufferAlpha float64
	// Scheduler is strict (the default) or dwrr.
	Scheduler string
	// Weights are the 8 DWRR weights, one per priority; required with dwrr, rejected with strict.
	Weights []int
	// Latency is the forwarding latency added to each packet; default 0.
	Latency sim.Time
	PFC     PFCConfig
	ECN     ECNConfig
}

// PFCConfig configures priority flow control (IEEE 802.1Qbb).
type PFCConfig struct {
	Enabled    bool       // default false
	Priorities []int      // the lossless classes, default [3]
	Xoff, Xon  SizeOrAuto // per ingress port and priority; default auto
	Headroom   SizeOrAuto // default auto: the worst case of pfc.HeadroomTerms
	Watchdog   sim.Time   // > 0: a queue paused this long without a break is flushed (watchdog drops); default 0 (off)
	// ResponseTime is how long a port takes to stop sending after a PAUSE arrives; auto
	// (default) is the IEEE 802.3 annex 31B bound for the link's speed (394 quanta at 100G).
	ResponseTime DurationOrAuto
	// Quanta is the pause time of each PAUSE sent, in 512-bit-time quanta; default 65535.
	Quanta int
	// DeadlockDetection is how long a cycle of paused, non-empty queues must make no progress
	// to be reported as a deadlock; 0 turns detection off; default 1ms.
	DeadlockDetection sim.Time
}

// ECNConfig configures RED-style ECN marking on egress queues, at dequeue, of ECN-capable
// frames: no mark up to Kmin, probability rising linearly to Pmax at Kmax, always above.
type ECNConfig struct {
	Enabled    bool    // default false
	Kmin, Kmax int64   // bytes; defaults 5KB and 200KB (the DCQCN paper's settings)
	Pmax       float64 // marking probability at Kmax; default 0.01 (the DCQCN paper's)
}

// HostConfig configures host NICs.
type HostConfig struct {
	Priority int // traffic class of RDMA data unless a flow says otherwise; 0..7, default 3
	TTL      int // initial IP TTL; 1..255, default 64
	// CNPPriority is the traffic class of the CNPs a host sends; default 6 (NVIDIA's
	// CNP_802P_PRIO; CNP_DSCP 48).
	CNPPriority int
	// Jitter, when positive, delays each frame a host sends by a random time in [0, Jitter)
	// on its way to the switch (at most one minimum frame time, so a host's frames stay in
	// order). It breaks the lock-step phase effects of identical senders at drop-tail
	// queues (Floyd and Jacobson, 1992); default 0.
	Jitter sim.Time
}

// Transports holds the settings of each transport.
type Transports struct {
	RoCEv2 RoCEConfig
	RoCEv1 RoCEConfig // defaults as for RoCEv2; cc must be none (no IP header, no ECN)
	IWARP  IWARPConfig
}

// RoCEConfig configures a RoCE (v1 or v2) reliable-connection endpoint.
type RoCEConfig struct {
	MTU               int        // path MTU: 256, 512, 1024 (default), 2048 or 4096
	CC                string     // congestion control: none (default) or dcqcn (RoCE v2 only)
	Recovery          string     // go-back-n (default) or go-back-0 (the whole message again)
	RetransmitTimeout sim.Time   // default 1.048576ms = 4.096us x 2^8 (IB local ACK timeout 8)
	RetryLimit        int        // 0..7 (IB retry_cnt is 3 bits), default 7
	AckInterval       int        // packets per coalesced ACK, default 16; a message's last packet is always ACKed
	DCQCN             ecn.Params // the DCQCN reaction and notification points, when CC is dcqcn
	DCQCNMode         string     // paper (default) or nvidia: the defaults DCQCN starts from
}

// IWARPConfig configures an iWARP endpoint: RDMAP/DDP/MPA over TCP (transports.IWARPConfig).
type IWARPConfig struct {
	MTU        int      // IPv4 MTU, 576..9216, default 1500; MSS = MTU - 40 (- 12 with timestamps)
	CC         string   // newreno (default): slow start, congestion avoidance, fast recovery
	MinRTO     sim.Time // RTO floor, default 1ms (RFC 6298's 1 s scaled to the datacenter)
	RTOInit    sim.Time // RTO before any RTT sample, default min_rto (RFC 6298: both 1 s)
	MaxRTO     sim.Time // back-off ceiling, default 60 x min_rto (RFC 6298: at least 60 s)
	Retries    int      // RTOs in a row without progress before the flow fails, default 15 (Linux tcp_retries2)
	InitCwnd   int      // segments, default 10 (RFC 6928)
	NICDelay   sim.Time // extra NIC processing per received segment, default 1us
	Markers    bool     // MPA markers every 512 bytes, default false
	Timestamps bool     // TCP timestamps option on every segment, default false
	SACK       bool     // selective ACKs and SACK recovery (RFC 2018, 6675), default true; false: NewReno
	DelayedAck sim.Time // ACK every 2nd segment, a lone one after this; default 40us; 0 = ACK every segment
	ECN        string   // none (default), classic (RFC 3168) or dctcp (RFC 8257)
	// ReceiveWindow is the receiver's window in bytes, default 4MB.
	ReceiveWindow int64
	// Handshake runs SYN, SYN-ACK, ACK and the MPA Request/Reply at each flow's start, default
	// false: a flow starts on an established connection, as a RoCE flow on a connected QP.
	Handshake bool
}

// Traffic is one item of the traffic list; Kind says which pointer is set.
type Traffic struct {
	Kind        string // flow | incast | permutation (poisson is not supported yet)
	Flow        *Flow
	Incast      *Incast
	Permutation *Permutation
	Pos         Pos
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

// Incast is one message of Size bytes from each sender to the receiver, all starting at Start.
type Incast struct {
	Senders   []string
	Receiver  string
	Size      int64 // bytes per sender, > 0
	Start     sim.Time
	Transport string
	Priority  int // the item's, else the global hosts.priority
	Rate      sim.Rate
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
