// Package scenarios reads fabricsim scenario files (YAML, version 1; SPEC.md section 2):
// strict loading, explicit units, semantic validation, --set overrides, variants, and the
// bundled library of scenarios.
//
// # Loading
//
// Load parses a file into a YAML node tree, applies the --set overrides (Override,
// ParseOverride) to it, and then, for each variant, copies the tree, applies the variant's
// set map, decodes the copy strictly (unknown fields are errors) and validates it. The result
// is a File whose Scenario(i) is variant i fully resolved: every default filled in, every
// reference checked. A file without variants has one variant, "default".
//
//	f, errs, warns := scenarios.Load("incast.yaml", data, overrides)
//	if errs != nil { /* print each; exit status 2 */ }
//	for i, v := range f.Variants() { run(v.Name, f.Scenario(i)) }
//
// Every problem in the file is reported, not only the first, each as a Problem that names
// the file, the line and column of the offending value, the field path
// ("traffic.1.flow.dst") and what is allowed. Problems found in several variants are
// reported once. Problems caused by a --set flag name OverrideFile ("--set") instead of a
// position. Warnings (a flow that starts after stop, a fault that never happens) do not make
// a file invalid. Load never panics, whatever its input.
//
// # Units
//
// Sizes, rates and durations carry explicit units (ParseSize, ParseRate, ParseDuration); a
// bare number is an error except 0. Decimals are exact: "1.5us" is 1500000 ps. Probabilities
// (loss, pmax) are plain numbers in [0,1].
//
// # Overrides and variants
//
// A set path is a field path of the file: dotted field names, list items by index from 0
// ("switch.pfc.enabled", "traffic.1.flow.size"). Missing mapping keys are created; lists are
// never grown. The value is parsed as YAML ("4MB", "false", "[3,4]", "{rate: 1Gbps}"). The
// --set flags apply first, to the whole file, and each variant's set applies after them, so
// a variant keeps its own difference from the base scenario. A variant's set may not change
// version, name, description or variants. A traffic item without a transport takes its
// variant's.
//
// # Defaults
//
//	seed                          1
//	stop                          100ms
//	sample_interval               stop/500: the period of the time series written with --out
//	switch.buffer                 32MB (a typical shared buffer of 100G-generation datacenter ASICs)
//	switch.buffer_alpha           1 (dynamic threshold, Choudhury-Hahne; SONiC Mellanox profiles use 1)
//	switch.scheduler              strict
//	switch.latency                0
//	switch.pfc.enabled            false
//	switch.pfc.priorities         [3] (the class of hosts.priority)
//	switch.pfc.xoff, xon          auto: the buffer left after every lossless port-class's
//	                              headroom, shared equally by them; xon = xoff - 2 x largest frame
//	switch.pfc.headroom           auto: the worst case after XOFF is crossed: 3 x largest frame
//	                              (the one crossing XOFF, one on the reverse wire, the one the
//	                              sender finishes) + 84 B per lossless class (the PAUSE and those
//	                              queued ahead of it) + rate x (2 x delay + response time +
//	                              forwarding latency + host jitter); see pfc.HeadroomTerms
//	switch.pfc.response_time      auto: IEEE 802.3 annex 31B bound for the link speed
//	                              (60/80/118/394/905 quanta at 10/25/40/100/400G)
//	switch.pfc.quanta             65535 (refreshed at half the pause time)
//	switch.pfc.watchdog           0 (off)
//	switch.pfc.deadlock_detection 1ms (0 = off)
//	switch.ecn.enabled            false
//	switch.ecn.kmin, kmax, pmax   5KB, 200KB, 0.01 (DCQCN, SIGCOMM'15): RED-style marking on
//	                              egress, at dequeue, of ECN-capable frames (RoCE v2 data;
//	                              iWARP data when transports.iwarp.ecn is classic or dctcp)
//	hosts.priority                3
//	hosts.ttl                     64 (the usual initial IP TTL)
//	hosts.cnp_priority            6 (NVIDIA CNP_802P_PRIO; DSCP 48)
//	hosts.jitter                  0: a random delay in [0, jitter) per frame a host sends,
//	                              at most one minimum frame time at the host's link rate
//	transports.rocev2.mtu         1024 (allowed: the IB path MTUs 256, 512, 1024, 2048, 4096)
//	transports.rocev2.cc          none (or dcqcn)
//	transports.rocev2.dcqcn.mode  paper: g 1/256, alpha_init 1, alpha_period 55us,
//	                              rate_timer 55us, byte_counter 10MB, f 5, rai 40Mbps,
//	                              rhai 200Mbps (hyper linear: i x rhai), min_rate 1Mbps,
//	                              decrease_period 0 (cut on every CNP), cnp_interval 50us,
//	                              alpha_on_cnp true (SIGCOMM'15; rhai from the authors' ns-3)
//	                              nvidia: g 5/1024, alpha_period 1us, rate_timer 300us,
//	                              byte_counter 0 (timer only), f 1, rai 5Mbps, rhai 50Mbps
//	                              (hyper constant), min_rate 1Mbps, decrease_period 4us,
//	                              cnp_interval 4us, alpha_on_cnp false (ConnectX firmware)
//	                              Every field may be set on its own over the mode's defaults.
//	transports.rocev2.dcqcn.np    paper (both modes): a CE mark with no CNP in the last
//	                              cnp_interval is answered at once; then one CNP at the end
//	                              of each cnp_interval window in which a packet was marked
//	                              (SIGCOMM'15 section 3). immediate-only: the first clause
//	                              alone, marks inside the interval are forgotten
//	transports.rocev2.dcqcn.cnp_pacing  flow in paper mode (one pacer per flow, the paper);
//	                              port in nvidia mode (one pacer per receiving NIC port:
//	                              ConnectX MIN_TIME_BETWEEN_CNPS is "from the port"). With
//	                              port pacing and np paper, flows marked while the port is
//	                              blocked wait, oldest mark first, one CNP per window end (a
//	                              modelling choice: the vendor does not say which flow wins);
//	                              with immediate-only their marks are forgotten
//	transports.rocev2.recovery    go-back-n (or go-back-0: the whole message again, as old NICs did)
//	transports.rocev1             as rocev2; cc none only (RoCE v1 has no IP header, no ECN)
//	transports.rocev2.retransmit_timeout  1.048576ms = 4.096us x 2^8, the IB local ACK
//	                              timeout with QP timeout attribute 8 (physics-references 4.1)
//	transports.rocev2.retry_limit 7 (IB retry_cnt has 3 bits: 0..7)
//	transports.rocev2.ack_interval 16 packets per coalesced ACK; a message's last packet is
//	                              always ACKed
//	transports.iwarp.mtu          1500 (an IPv4 MTU, 576..9216); MSS = mtu - 40, - 12 more with
//	                              timestamps; one FPDU per segment
//	transports.iwarp.cc           newreno: slow start (byte counting, L = 2), congestion
//	                              avoidance, fast retransmit and fast recovery
//	transports.iwarp.sack         true: SACK blocks (RFC 2018) and SACK recovery (RFC 6675);
//	                              false: NewReno (RFC 6582)
//	transports.iwarp.min_rto      1ms (RFC 6298's 1 s, scaled by 1/1000)
//	transports.iwarp.rto_init     min_rto (RFC 6298: the initial RTO is 1 s too)
//	transports.iwarp.max_rto      60 x min_rto (RFC 6298: a ceiling of at least 60 s)
//	transports.iwarp.retries      15 RTOs in a row without progress, then the flow fails
//	                              (Linux tcp_retries2)
//	transports.iwarp.init_cwnd    10 segments (RFC 6928)
//	transports.iwarp.delayed_ack  40us: an ACK every second segment, a lone one after 40us
//	                              (Linux's 40 ms minimum, scaled like min_rto); 0 = every
//	                              segment; out-of-order, gap-filling and a message's last
//	                              segment are acknowledged at once
//	transports.iwarp.ecn          none (or classic: RFC 3168, halve once per window; dctcp:
//	                              RFC 8257, g = 1/16)
//	transports.iwarp.markers      false (MPA markers: 4 bytes per 512 of TCP sequence space)
//	transports.iwarp.timestamps   false (TCP timestamps: 12 bytes per segment, RTT per ACK)
//	transports.iwarp.receive_window 4MB (window scaling; large enough not to limit one flow)
//	transports.iwarp.nic_delay    1us: each received segment reaches TCP this much later
//	                              (offload processing, pipelined: latency, not a rate cap)
//	transports.iwarp.handshake    false: a flow starts on an established connection, as a
//	                              RoCE flow on a connected queue pair; true: SYN, SYN-ACK,
//	                              ACK, MPA Request and Reply first, counted in the FCT and in
//	                              the ideal FCT
//	link delay, loss              0, 0
//	flow start, rate              0, 0 (0 = unpaced)
//	flow priority                 the sending host's hosts.priority (incast, permutation: the
//	                              global hosts.priority)
//	fault at                      0
//	fault until                   the end of the run (pfc_storm only)
//	pfc_storm.priority            the host's hosts.priority
//	pause.port, pause.priority    1 (a host's only port; required for a switch), hosts.priority
//	topology.params.routing       l3 (leafspine, fattree)
//	node layer                    2 (switches)
//	permutation.hosts             all
//
// # Rules checked
//
// Topology: a preset with its params, or explicit nodes and links, not both. Preset params
// that are counts are >= 1 (fattree k even, >= 2), and a preset takes only its own params;
// NodeNames and TopologyLinks give the names and links each preset defines. Explicit nodes have
// unique names, type host or switch, switches layer 2 or 3; a host needs an IPv4 subnet and
// may give an ip inside it; a host has exactly one link (one NIC port). Links join two
// different known nodes; parallel links between the same pair are allowed. A link's rate is
// > 0, its delay >= 0, its loss in [0,1]. A route sits on a layer-3 switch and points to a
// neighbour. Traffic runs between existing, different hosts, with size > 0, priority 0..7.
// A fault sets exactly one of state, loss, drop_every (each on an existing link), pfc_storm
// (a host's NIC floods PAUSE on a class from at until until, which must be after at) and
// pause (one PFC frame from node's port, quanta 0..65535, required); a PFC fault on a class
// that is not lossless is a warning, since switches ignore PFC frames for it.
// iWARP: mtu 576..9216, min_rto > 0, rto_init >= min_rto, max_rto >= both, retries 1..255,
// init_cwnd 1..1000, nic_delay and delayed_ack >= 0, receive_window 2 x mtu .. 1GiB.
//
// Features of later issues are parsed and then rejected at their position as "not supported
// yet", never silently ignored: poisson traffic.
//
// # Library
//
// Bundled and BundledYAML give the scenarios shipped inside the binary (library/*.yaml).
package scenarios
