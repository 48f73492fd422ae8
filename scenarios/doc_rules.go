// # Other defaults
//
//	seed                          1
//	stop                          100ms
//	sample_interval               auto: the period of the time series written with --out;
//	                              auto keeps 512 to 1,024 even samples from the first flow's
//	                              start to the run's end
//	link delay, loss              0, 0
//	flow start, rate              0, none: unpaced, at line rate (rate, when given, is a pace
//	                              > 0; rate: 0 is refused: omit rate for line rate)
//	flow priority                 the sending host's hosts.priority (incast, permutation: the
//	                              global hosts.priority)
//	fault at                      0
//	fault until                   the end of the run (pfc_storm only)
//	pfc_storm.priority            the host's hosts.priority
//	pause.port, pause.priority    1 (a host's only port; required for a switch), hosts.priority
//	topology.params.routing       l3 (leafspine, fattree, rail)
//	rail params                   stripes 1, gpus_per_server 8, servers_per_scaleup 1, planes 1;
//	                              no scaleup: no scale-up domain; scaleup: {}: H100, 3.6Tbps
//	                              and 936.25ns (ScaleUpRate, ScaleUpDelay); no pcie: no hop
//	node layer                    2 (switches)
//	permutation.hosts             all
//
// # Rules checked
//
// Topology: a preset with its params, or explicit nodes and links, not both. Preset params
// that are counts are >= 1 (fattree k even, >= 2), and a preset takes only its own params;
// rail's servers_per_scaleup divides its servers and, above 1, needs a scaleup block;
// NodeNames and TopologyLinks give the names and links each preset defines. Explicit nodes have
// unique names, type host or switch, switches layer 2 or 3; a host needs an IPv4 subnet and
// may give an ip inside it; a host has exactly one link (one NIC port; a GPU of
// topology.servers one more, to its scaleup_domain switch). Placements {count, placement}
// need GPUs; docs/model.md section 15 has their rules. Links join two
// different known nodes; parallel links between the same pair are allowed. A link's rate is
// at least MinLinkRate, 30 b/s (the least at which the longest PAUSE, 65535 quanta of 512
// bit times, lasts at most sim.MaxDuration), its delay >= 0, its loss in [0,1]. A route sits on a layer-3 switch and points to a
// neighbouring switch (a host does not forward). Traffic runs between existing, different hosts, with size > 0, priority 0..7.
// A fault sets exactly one of state, loss, drop_every (each on an existing link), pfc_storm
// (a host's NIC floods PAUSE on a class from at until until, which must be after at) and
// pause (one PFC frame from node's port, quanta 0..65535, required); a PFC fault on a class
// that is not lossless is a warning, since switches ignore PFC frames for it; the warning
// says whether PFC is off (switch.pfc.enabled: false) or the class is not in its priorities.
// The settings' own limits are in the settings table; across fields: switch.scheduler dwrr
// needs 8 weights and strict takes none, xon <= xoff, xon (other than auto) and alpha,
// xon_offset only with the xoff they go with (alpha and xon_offset with xoff: dynamic, xon
// with a static one), switch.pfc.quanta long enough for a refresh to arrive before the pause
// runs out (pfc.MinQuanta of the traffic's largest frame), kmin <= kmax, iwarp rto_init >=
// min_rto and max_rto >= both, receive_window from 2 x mtu to 1GiB, and rocev1 takes no dcqcn.
//
// Explicit nodes must all be joined by links: a fabric in pieces is an error that names its
// islands (the connected parts) by their first nodes. A file is UTF-8 text: a byte that is
// not, or a control character, is reported at its line and column.
//
// # Limits
//
// Before anything is built, each variant's run is estimated from its resolved scenario
// alone (Estimate, File.Estimate): nodes, switches, hosts, links, route-table entries
// (switches x nodes), routing steps (hosts x (nodes + 4 x links): at most a search from
// every destination host; the hosts of one switch share one, and one table entry, so both
// figures are upper bounds), flows (counted, not made; a Poisson item without count by its
// offered load and the workload's mean size), events in flight (two per frame on the wires,
// the frame and what it draws back: the frames a wire holds, rate x delay, but no more than
// the traffic's own data frames, every message at 256 bytes a frame, the least RoCE path MTU,
// in 8 copies, the original and retry_limit 7 retransmissions, or for iWARP 1 + the RTO's
// doublings + stop / max_rto, so a 100 KB flow over a 1 s link is 3,133 frames, not the
// link's 12.5 GB), time-series rows (only for a run that keeps the time series, run -o:
// at most every flow in every sample, plus two queues per switch port, both directions of
// every link and every switch's buffer) and memory. A run
// over any of these limits is refused with the estimate and how to shrink it, naming the
// cause (the flows, -o's time series, the links' frames in flight, or the topology; for a
// preset, the largest size of its shape that fits):
//
//	file size                     8 MB (MaxFileBytes; checked before parsing)
//	nodes                         131,072 (MaxNodes)
//	route-table entries           1,000,000,000 (MaxRouteEntries, the builder's own bound)
//	routing steps                 1,000,000,000 (MaxRouteWork, a few seconds of routing)
//	flows                         1,000,000 (MaxFlows, all traffic items together)
//	time-series rows              2,000,000 (MaxSeriesRows: rates.csv, queues.csv, links.csv and buffers.csv together; -o only)
//	memory                        4 GB (MaxMemory, estimated per variant)
//
// Routing binds first: the largest star is 14,142 hosts, the largest fat-tree k = 32
// (8,192 hosts). With -o, without a sample_interval the automatic sampler keeps fewer
// samples (down to 16) to keep the time series under MaxSeriesRows; a sample_interval given
// that would exceed it is refused with the least that fits. Without -o nothing is sampled
// and the series is not checked; validate checks as run without -o does, and warns when -o
// would be refused.
//
// # Seeds
//
// seed (default 1) seeds every random draw of a run. seeds: [s1, s2, ...] (2 to MaxSeeds,
// none twice) runs every variant under each seed instead (seed, if not given, is the first):
// one random run is not a result. A variant's set may not change seeds.
//
// # Sweeps
//
// sweep: {PATH: VALUES, ...} declares a parameter sweep, which `fabricsim sweep` runs (a run
// simulates the file's own values once and warns that the block is for sweep): every combination of the values (the cartesian product, at most
// MaxSweepPoints), each run as the file with --set PATH=VALUE. PATH is a set path (seed
// included; not version, name, description, variants, seeds or sweep). VALUES is a list of
// values ([50KB, 100KB], [[3], [3, 4]]) or a string of comma-separated items; an item is a
// value, an integer range a..b (both ends included) or logspace(a,b,n) / linspace(a,b,n): n
// values from a to b, geometrically or evenly spaced, a and b plain numbers or sizes, rates
// or durations with units (logspace(1KB,1MB,4) = 1KB, 10KB, 100KB, 1MB; the values between
// the ends are rounded to 3 significant digits for logspace). --grid PATH=VALUES takes the
// same syntax (ParseGrid); run ignores the block, validate checks each of its values on its
// own as sweep does; a --grid PATH replaces the block's axis of that PATH, and a PATH
// given in two --grid flags is an error (give its values in one). A value listed twice is an
// error.
//
//	sweep:
//	  switch.ecn.kmax: [50KB, 100KB, 200KB]
//	  seed: 1..10
//
// # Traffic
//
// A traffic item is one of: flow {src, dst, size, start, transport, priority, rate}; incast
// {senders, receiver, size, ..., repeat: {every, count}} (count bursts, every apart);
// permutation {hosts, size, ...} (each host sends to one other, each receives from one, drawn
// from the seed); all_to_all {hosts, size, ...} (every host to every other); poisson {hosts,
// load, workload, start, stop | count, dst, ...}: each sender starts flows at Poisson times at
// load (0, 1] of its link rate, sizes drawn from workload (websearch, hadoop, alistorage,
// googlerpc, or a regular file of "size_bytes cumulative_percent" lines, checked with
// file:line; a fifo, device or directory is refused without being opened for a blocking read),
// destinations uniform over the other hosts of dst (default hosts), until stop (default the
// scenario's) or until count flows in all; collective {op, algorithm, hosts, size, chunk,
// start, iterations, compute, channels, transport, priority, label, skew, moe,
// release_latency, pxn}: one job's
// collective (op allreduce, allgather, reduce_scatter, all_to_all or broadcast; algorithm
// ring (the default) or halving_doubling (a power of two hosts) for the first three, and tree
// (NCCL's double binary tree) for allreduce only, direct for all_to_all, ring for broadcast;
// hierarchical for all but broadcast on GPUs in scale-up domains (preset rail with scaleup,
// or explicit servers): inside the domain, across domains GPU G with GPU G, inside again,
// and for all_to_all DeepEP's normal kernels, RDMA to the destination server's GPU on the
// sender's rail, then the scale-up domain; skew {dist: uniform | zipf, s} spreads an
// all_to_all's bytes over destinations, Zipf with exponent s (0, 10] over the ranks in an
// order drawn from the seed; moe {dispatch_bits (default 8, FP8), combine_bits (default 16,
// BF16)} makes an all_to_all a MoE layer's dispatch then combine, each dispatch message
// returned at combine_bits/dispatch_bits its bytes; docs/model.md, "Collectives on AI
// clusters") over hosts
// (rank i the i-th; all: the topology's, in order), size the bytes each rank holds (at least
// one per rank, at least one per channel in every message), chunk the piece the pipelined
// algorithms (tree, broadcast) send at a time (default 512KiB, one NCCL buffer slot; refused
// for the others), iterations (default 1, at most 100,000) each compute (default 0) after the one before
// ended, every message split over channels (default 1, at most 64) queue pairs of their own
// UDP source port; each message starts when the messages that bring its sender its data have
// arrived (docs/model.md section 12), and release_latency (default 0, not negative) after
// that: the time from a message's last input arriving at its sender to its posting (a
// phase's first messages go at its gate); pxn (true or false, on GPUs in scale-up domains
// only) overrides hosts.pxn for the job's queue pairs and its plan; label (default OP-INDEX, unique among the collectives,
// at most 64 printable characters without , or ") names the job in the results' jobs; chakra
// {traces, hosts, algorithm, start, channels, transport, priority, label}: one job read from
// Chakra execution traces (ASTRA-sim's workload format, package chakra), one per rank (rank
// i the i-th of hosts): traces is a list of files or a pattern, "dir/trace.%d.et" with %d
// the rank, or without %d ASTRA-sim's prefix to which .RANK.et is added, relative to the
// scenario file; each rank's COMM_COLL_NODEs in dependency order become the job's steps,
// one collective each (ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL, BROADCAST; others,
// point-to-point and memory nodes are errors naming the node and its byte), the ranks
// agreeing on each one's type and size, and the compute (COMP_NODE durations) before each
// the time its rank waits after the step it follows; algorithm (ring or halving_doubling)
// for allreduce, allgather and reduce_scatter (docs/model.md section 12). Every
// random draw comes from the scenario seed and the item's index, so a run is the same
// whatever the number of workers.
//
// Every traffic item takes label: the name of its flows' group in the results (per_flow's
// group, flows.csv, the per-group slowdown_by_size bins and the plots), 1 to 64 bytes of
// printable text with no space at either end; without one an item is its kind and index in
// the list ("poisson 0", "incast 1"). Items that share a label make one group, e.g. two
// flows both labelled background. A new traffic kind takes label in its own block, read in
// one place (rawTraffic.label) and checked there (itemLabel).
//
//   - poisson: {hosts: all, load: 0.5, workload: websearch, count: 1500, label: web search}
//   - incast: {senders: [h17, h18], receiver: h1, size: 200KB, label: incast}
//
// # Library
//
// Bundled and BundledYAML give the scenarios shipped inside the binary (library/*.yaml).
package scenarios
