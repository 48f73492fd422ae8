// Package scenarios reads fabricsim scenario files (YAML, version 1; every field below):
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
// Every problem in the file is reported, not only the first, and each on its own: a problem
// does not hide or change another (a key given twice is one problem, the rest of its mapping
// is still checked; traffic is checked against an explicit topology's names even when a node
// has a problem). Each is a Problem that names
// the file, the line and column of the offending value, the field path
// ("traffic.1.flow.dst") and what is allowed. Problems found in several variants are
// reported once. Problems caused by a --set flag name OverrideFile ("--set") instead of a
// position; a problem only building the fabric finds (experiment.BuildError) is placed the
// same way, at its route, fault or node, or at topology. Warnings (a flow that starts after
// stop, a fault that never happens) do not make
// a file invalid. Load never panics, whatever its input. A file that is no scenario at all
// (not a mapping, or a mapping none of whose top-level keys is a scenario field or near one,
// as a password file is) is one problem that quotes none of its text: a path given by mistake
// must not have its content printed. The command line reads only regular files (a fifo,
// device or directory is refused at once, without a blocking open).
//
// # Units
//
// Sizes, rates and durations carry explicit units (ParseSize, ParseRate, ParseDuration); a
// bare number is an error except 0. Decimals are exact: "1.5us" is 1500000 ps. Probabilities
// (loss, pmax) are plain numbers in [0,1]. A duration (stop and every timer, delay and
// interval) is at most sim.MaxDuration, 2^60 ps (about 13.3 days): eight of them still add
// up within the int64 picoseconds of simulated time, so no sum of a run's times overflows.
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
// # Settings
//
// The settings blocks, key by key (a switch node's own switch block and a host's own hosts
// block take the same keys): the default, in parentheses what is allowed, and what the
// setting does, with its source. The table is rendered from the declarations (SwitchConfig,
// HostConfig, Transports and their tags); go generate rewrites it and a test keeps it current.
//
//	switch.buffer                 32MB (> 0): the shared packet buffer in bytes (a typical
//	                              shared buffer of 100G-generation datacenter ASICs)
//	switch.buffer_alpha           1 (> 0): the dynamic-threshold alpha (Choudhury and Hahne,
//	                              1998): a queue may hold alpha x the free buffer; SONiC's
//	                              Mellanox profiles use 1
//	switch.scheduler              strict (strict | dwrr): strict priority, or deficit weighted
//	                              round robin over weights
//	switch.weights                none: the 8 DWRR weights, one per priority, each >= 1;
//	                              required with dwrr, rejected with strict
//	switch.latency                0: the forwarding latency added to each packet
//	switch.load_balancing         ecmp (ecmp | spray | flowlet | adaptive): how a switch chooses
//	                              among equal-cost ports: ecmp hashes the 5-tuple (one path per
//	                              flow); spray draws a port per packet uniformly at random;
//	                              flowlet (LetFlow, NSDI 2017) keeps a flow on its port while
//	                              its packets are less than flowlet_gap apart and draws a new
//	                              one after a longer gap; adaptive sends each packet to the port
//	                              that will have sent what it holds soonest (per-packet adaptive
//	                              routing). spray and adaptive reorder a flow's packets: RoCE v2
//	                              with recovery irn takes them out of order, go-back-N answers
//	                              each gap with a NAK and a resend, TCP counts duplicate ACKs
//	switch.flowlet_gap            0: with load_balancing: flowlet, the idle gap after which a
//	                              flow may move (FLARE, CCR 2007: longer than the largest delay
//	                              difference between the paths, or the flowlet's packets arrive
//	                              out of order); required with flowlet, rejected with the others
//	switch.pfc.enabled            false: makes the priorities lossless
//	switch.pfc.priorities         [3]: the lossless classes, 0..7 (the default is the class of
//	                              hosts.priority)
//	switch.pfc.xoff               auto (> 0): per ingress port and class; auto: the buffer left
//	                              after every lossless port-class's headroom, shared equally by
//	                              them; dynamic: alpha x the free shared buffer (the buffer less
//	                              every port-class's headroom and every frame held), as
//	                              shared-buffer switches compute it (Broadcom, SONiC dynamic_th)
//	switch.pfc.xon                auto (> 0): at most xoff; auto: xoff - 2 x the largest frame;
//	                              with xoff: dynamic only auto, and xon_offset sets it
//	switch.pfc.alpha              1 (> 0): with xoff: dynamic, the dynamic-threshold factor,
//	                              2^dynamic_th in SONiC's buffer profiles; 1 is SONiC's
//	                              default_dynamic_th 0 (sonic-buildimage
//	                              files/build_templates/buffers_config.j2) and the threshold 0
//	                              of its Broadcom pg_profile_lookup.ini
//	switch.pfc.xon_offset         auto (> 0): with xoff: dynamic, XON is the XOFF of the moment
//	                              less this (SAI's XON_OFFSET_TH, SONiC's xon_offset; 4608 B in
//	                              SONiC's Broadcom Trident3 profiles); auto: 2 x the largest
//	                              frame, the hysteresis of xon: auto
//	switch.pfc.headroom           auto (> 0): auto: the worst case after XOFF is crossed: 3 x
//	                              the largest frame (the one crossing XOFF, one on the reverse
//	                              wire, the one the sender finishes) + 84 B per lossless class
//	                              (the PAUSE and those queued ahead of it) + rate x (2 x delay +
//	                              response time + forwarding latency + host jitter); see
//	                              pfc.HeadroomTerms
//	switch.pfc.watchdog           0: a queue paused this long without a break is flushed
//	                              (watchdog drops); 0 is off
//	switch.pfc.response_time      auto: how long a port takes to stop sending after a PAUSE
//	                              arrives; auto: the IEEE 802.3 annex 31B bound for the link's
//	                              speed (60/80/118/394/905 quanta at 10/25/40/100/400G)
//	switch.pfc.quanta             65535 (1..65535): the pause time of each PAUSE sent; while the
//	                              class stays above XON it is refreshed at half the pause time,
//	                              or sooner, so that a refresh that waits behind the largest
//	                              frame still arrives before the pause runs out; quanta too
//	                              short for that are refused (with RoCE v2 MTU 1024 the shortest
//	                              is 23)
//	switch.pfc.deadlock_detection 1ms (0 or >= 1us): how long a cycle of paused, non-empty
//	                              queues must make no progress to be reported as a deadlock
//	switch.ecn.enabled            false: marks ECN-capable frames CE on egress
//	switch.ecn.kmin               5KB: no mark below this queue (DCQCN, SIGCOMM'15); at most
//	                              kmax
//	switch.ecn.kmax               200KB (> 0): every frame marked above this queue (DCQCN,
//	                              SIGCOMM'15)
//	switch.ecn.pmax               0.01 ([0,1]): the marking probability at kmax (DCQCN,
//	                              SIGCOMM'15)
//	switch.trimming.enabled       false: a trimmable data packet (RoCE v2's; iWARP's TCP
//	                              segments are not) that a lossy queue cannot take whole is cut
//	                              to its headers, which go on in the trim class; the responder
//	                              NAKs the trimmed PSN at once, and the requester resends it
//	                              (IRN: that PSN alone; go-back-N: from it). Counted as
//	                              trimmed_packets, not as drops
//	switch.trimming.threshold     auto (> 0): the queue depth above which data packets are
//	                              trimmed; auto: only those the queue would drop (the buffer or
//	                              its dynamic threshold full)
//	switch.trimming.priority      7 (0..7): the class the trimmed headers travel in, to every
//	                              later hop; NDP serves headers ahead of data, so the highest;
//	                              it must not be a lossless (PFC) class
//	switch.trimming.reserve       auto (> 0): the part of the shared buffer kept for trimmed
//	                              headers, so that a buffer full of data still takes the headers
//	                              of what it trims (NDP and uet-htsim keep headers in a queue of
//	                              their own); headers beyond it are buffer drops; auto: 1/16 of
//	                              the buffer, a choice: a little more than the headers of a
//	                              whole buffer of MTU-1024 RoCE v2 frames trimmed (62 of their
//	                              1,086 bytes)
//	hosts.priority                3 (0..7): the traffic class of RDMA data unless a flow says
//	                              otherwise
//	hosts.ttl                     64 (1..255): the initial IP TTL (the usual one)
//	hosts.cnp_priority            6 (0..7): the traffic class of the CNPs a host sends (NVIDIA's
//	                              CNP_802P_PRIO; CNP_DSCP 48)
//	hosts.jitter                  0 (0..1us): a random delay in [0, jitter) for each frame a
//	                              host sends, at most one minimum frame time at the host's link
//	                              rate, so a host's frames stay in order; it breaks the
//	                              lock-step phase effects of identical senders at drop-tail
//	                              queues (Floyd and Jacobson, 1992)
//	hosts.pxn                     true: NCCL 2.12's PXN: to another rail's GPU in another
//	                              domain, via the scale-up domain
//	hosts.plane_spread            qp (qp | flow | packet): a plane per queue pair or flow (by
//	                              hash), or per frame (MRC)
//	transports.rocev2.mtu         1024 (256, 512, 1024, 2048, 4096): the path MTU
//	transports.rocev2.cc          none (none | dcqcn | hpcc | timely | swift | dctcp | nscc):
//	                              congestion control (dcqcn, hpcc, dctcp, nscc: RoCE v2 only;
//	                              timely: RTT-based, Mittal et al., SIGCOMM'15, see timely;
//	                              swift: a window held to a target delay, Kumar et al.,
//	                              SIGCOMM'20, see swift; dctcp: TCP's DCTCP, RFC 8257, over a
//	                              window of packets, on the ECN echo each ACK carries in its BTH
//	                              BECN bit, see dctcp; nscc: the Ultra Ethernet transport's
//	                              NSCC, a window of bytes from the same ECN echo and each ACK's
//	                              RTT sample, see nscc)
//	transports.rocev2.recovery    go-back-n (go-back-n | go-back-0 | irn): go-back-0 sends the
//	                              whole message again, as old NICs did; irn resends only what
//	                              was lost, with packets in flight capped at the path's BDP
//	                              (Mittal et al., SIGCOMM'18; see irn)
//	transports.rocev2.retransmit_timeout 1.048576ms (> 0): 4.096us x 2^8: the InfiniBand local
//	                              ACK timeout (4.096us x 2^timeout) with QP timeout attribute 8
//	transports.rocev2.retry_limit 7 (0..7): retransmissions of one packet before the flow fails
//	                              (IB retry_cnt has 3 bits)
//	transports.rocev2.ack_interval 16 (1..65536): packets per coalesced ACK; a message's last
//	                              packet is always ACKed; with cc hpcc the default is 1 (the
//	                              HPCC authors' L2_ACK_INTERVAL: every packet's telemetry goes
//	                              back)
//	transports.rocev2.udp_sport   random (random | qpn | per_packet): the UDP source port, the
//	                              entropy ECMP hashes (IBA annex A17 leaves it to the NIC, per
//	                              queue pair): random draws it per queue pair from the seed, so
//	                              replications under other seeds sample other ECMP paths; qpn
//	                              hashes the queue pair number alone (Linux's rdma_get_udp_sport
//	                              hashes the two QPNs when the GRH carries no flow label): the
//	                              same paths under every seed; per_packet gives each data packet
//	                              sent (resends too) a port of its own, from the queue pair's
//	                              random one: the host sprays, and hashing switches spread the
//	                              queue pair over every path (ACKs and CNPs keep the queue
//	                              pair's port). In 0xC000-0xFFFF. RoCE v1 has no UDP header: its
//	                              switches hash the MAC addresses
//	transports.rocev2.irn.rto_low 100us (> 0): IRN's RTO_low: the retransmit timeout while fewer
//	                              than rto_low_packets packets are in flight, too few for a
//	                              later one to reveal a loss by a NAK
//	transports.rocev2.irn.rto_high 320us (> 0): IRN's RTO_high: the retransmit timeout
//	                              otherwise, an estimate of the largest round trip; at least
//	                              rto_low
//	transports.rocev2.irn.rto_low_packets 3 (0..65536): IRN's N: rto_low applies below this many
//	                              packets in flight; 0: never
//	transports.rocev2.irn.reorder_threshold 1 (1..65536): a packet counts as lost once a packet
//	                              this many PSNs beyond it is selectively acknowledged: 1 is
//	                              IRN's rule (any later packet's NAK reveals a loss), which
//	                              under packet spraying (switch.load_balancing: spray or
//	                              adaptive, udp_sport: per_packet) resends every packet another
//	                              overtook; a larger value tolerates that much reordering, as
//	                              TCP's DupThresh does (RFC 6675: 3), and leaves a real loss to
//	                              the later packets' NAKs or the timeout
//	transports.rocev2.irn.bdp_cap auto (> 0): BDP-FC: a flow keeps at most this many bytes of
//	                              packets outstanding, counted in whole packets on the wire;
//	                              auto: the packets that fill the bottleneck of the flow's own
//	                              path for one round trip (a full packet out, an ACK back, on
//	                              the empty fabric), plus ack_interval - 1 for the coalesced ACK
//	transports.rocev2.dcqcn.mode  paper (paper | nvidia): the defaults below: the paper's
//	                              (SIGCOMM'15; rhai from the authors' ns-3) or the ConnectX
//	                              firmware's
//	transports.rocev2.dcqcn.g     paper 0.00390625, nvidia 0.0048828125 ((0,1]): the gain of the
//	                              alpha estimate
//	transports.rocev2.dcqcn.alpha_init paper 1, nvidia 1 ([0,1]): alpha before the first CNP
//	transports.rocev2.dcqcn.alpha_period paper 55us, nvidia 1us (> 0): alpha is updated once per
//	                              period
//	transports.rocev2.dcqcn.rate_timer paper 55us, nvidia 300us (> 0): one rate-increase event
//	                              per period
//	transports.rocev2.dcqcn.byte_counter paper 10MB, nvidia 32767B: one rate-increase event per
//	                              this many bytes sent; 0: timer only
//	transports.rocev2.dcqcn.f     paper 5, nvidia 1 (>= 0): fast-recovery stages before additive
//	                              and hyper increase
//	transports.rocev2.dcqcn.rai   paper 40Mbps, nvidia 5Mbps: the additive increase step
//	transports.rocev2.dcqcn.rhai  paper 200Mbps, nvidia 50Mbps: the hyper increase step
//	transports.rocev2.dcqcn.hyper paper linear, nvidia constant (linear | constant): linear adds
//	                              i x rhai at the i-th hyper stage; constant adds rhai
//	transports.rocev2.dcqcn.min_rate paper 1Mbps, nvidia 1Mbps: the floor of the rate
//	transports.rocev2.dcqcn.decrease_period paper 0, nvidia 4us: the rate is cut at most once
//	                              per period; 0 cuts on every CNP
//	transports.rocev2.dcqcn.cnp_interval paper 50us, nvidia 4us: the notification point's
//	                              minimum gap between two CNPs
//	transports.rocev2.dcqcn.alpha_on_cnp paper true, nvidia false: alpha rises at the CNP itself
//	                              (the paper), else at the end of its alpha period (NVIDIA)
//	transports.rocev2.dcqcn.np    paper window, nvidia immediate-only (window | paper |
//	                              immediate-only): window (paper mode's default): the DCQCN
//	                              authors' ns-3 code, a per-flow timer from the flow's first
//	                              packet ticks every cnp_interval and each tick sends one CNP if
//	                              a packet was marked since the last (the CoNEXT'16 fluid
//	                              model's one cut per marked window). paper: SIGCOMM'15 section
//	                              3 taken literally, a CE mark with no CNP in the last
//	                              cnp_interval is answered at once, then one CNP at the end of
//	                              each cnp_interval window in which a packet was marked (one
//	                              brief burst can get two CNPs). immediate-only (nvidia mode's
//	                              default, as NVIDIA documents MIN_TIME_BETWEEN_CNPS): a mark is
//	                              answered at once if no CNP went out in the last cnp_interval,
//	                              marks in between are forgotten
//	transports.rocev2.dcqcn.cnp_pacing paper flow, nvidia port (flow | port): flow: one pacer
//	                              per flow (the paper); port: one pacer per receiving NIC port
//	                              (ConnectX MIN_TIME_BETWEEN_CNPS is "from the port"). With port
//	                              pacing and np paper or window, flows marked while the port is
//	                              blocked wait, oldest mark first, one CNP per window end (a
//	                              modelling choice: the vendor does not say which flow wins);
//	                              with immediate-only their marks are forgotten
//	transports.rocev2.hpcc.eta    0.95 ((0,1]): the target utilisation eta (SIGCOMM'19 section
//	                              3.3 and its evaluation: 0.95)
//	transports.rocev2.hpcc.max_stage 5 (0..1000): maxStage: additive-increase steps below eta
//	                              before a multiplicative step toward it (SIGCOMM'19: 5)
//	transports.rocev2.hpcc.ai     10Mbps per 25Gbps of the sender's line rate (> 0): the
//	                              additive increase as a rate: W_AI = ai x base_rtt (the
//	                              authors' run.py: 10 Mb/s per 25 Gb/s of line rate, so 40 Mb/s
//	                              at 100 Gb/s); flows sharing a port settle within 10% of their
//	                              fair share only when N x ai is well above the spread of their
//	                              measured U times the line rate: 400Mbps at 100 Gb/s does for 2
//	                              to 10 flows (docs/model.md section 9)
//	transports.rocev2.hpcc.base_rtt the flow's path (> 0): T, the base RTT: W_init = line rate x
//	                              T, R = W/T; by default each flow's own, from its path (a full
//	                              data packet and an ACK, with their INT headers,
//	                              store-and-forward over every hop, plus propagation and switch
//	                              latency)
//	transports.rocev2.timely.alpha 0.875 ((0,1]): the EWMA weight of a new RTT difference in the
//	                              smoothed one (the HPCC authors' ns-3, which updates once per
//	                              round trip as here; the first author's published code snippet
//	                              recommends 0.02 for an update per completion, which lets the
//	                              queue swing past t_high here: docs/model.md)
//	transports.rocev2.timely.beta 0.8 ((0,1]): the multiplicative decrease factor beta (the
//	                              snippet's decreaseFactor and the HPCC authors' ns-3: 0.8)
//	transports.rocev2.timely.t_low 0s (>= 0): T_low: below it the rate only grows by delta (the
//	                              snippet: 0 with per-packet pacing, as this NIC paces, 50us
//	                              with 64 KB segments; the HPCC authors' ns-3: 50us, which at
//	                              100 Gb/s drains the queue at every cut: docs/model.md)
//	transports.rocev2.timely.t_high 500us (> 0): T_high: above it the rate is cut by beta x (1 -
//	                              t_high/RTT) (the HPCC authors' ns-3; the snippet recommends
//	                              1ms); above t_low
//	transports.rocev2.timely.min_rtt 20us (> 0): minRTT: the gradient is the smoothed RTT
//	                              difference over it, and each step is scaled by the time since
//	                              the previous update over it, at most 1 (the HPCC authors' ns-3
//	                              TimelyMinRtt)
//	transports.rocev2.timely.delta 10Mbps per 10Gbps of the sender's line rate (> 0): the
//	                              additive increment delta (the authors' snippet: 10 Mb/s for a
//	                              10 Gb/s line rate; the HPCC authors' run.py scales it with the
//	                              line rate)
//	transports.rocev2.timely.hai_threshold 5 (1..1000): hyperactive increase: after this many
//	                              falling RTTs in a row the gradient rule adds n x delta (the
//	                              authors' snippet: HAI_Thresh 5)
//	transports.rocev2.timely.n    5 (1..1000): the hyperactive increase's multiple of delta (the
//	                              HPCC authors' run.py: hai = 5 x ai)
//	transports.rocev2.timely.min_rate 100Mbps (> 0): the floor of the rate (the HPCC authors'
//	                              ns-3 MinRate)
//	transports.rocev2.timely.rule paper (paper | hpcc_ns3): paper: Algorithm 1 as the first
//	                              author's code snippet gives it, each step scaled by the time
//	                              since the last update over min_rtt (at most 1), hyperactive
//	                              increase after hai_threshold falling RTTs, on the gradient
//	                              rule only; hpcc_ns3: the HPCC authors' ns-3 (rdma-hw.cc
//	                              UpdateRateTimely), full steps once per RTT, delta while fewer
//	                              than hai_threshold increases came in a row and n x delta
//	                              after, below t_low as on a falling RTT, no update on the first
//	                              sample (docs/model.md)
//	transports.rocev2.swift.base_target 25us (> 0): base_target: the fabric delay target of a
//	                              one-hop path with few flows (SIGCOMM'20 section 5.1:
//	                              throughput saturates above about 25us; section 5.2 runs at
//	                              25us; Isekai's fabric_base_delay 25us)
//	transports.rocev2.swift.h     1us (>= 0): h, the target added per hop: topology-based
//	                              scaling adds hops x h, the hops being the switches on the
//	                              flow's route (the paper counts IP hops by TTL; Isekai's
//	                              topo_scaling_per_hop 1us)
//	transports.rocev2.swift.fs_range 100us (>= 0): fs_range: the most flow-based scaling adds to
//	                              the target, max(0, min(alpha/sqrt(fcwnd) + beta, fs_range)),
//	                              fs_range at fs_min_cwnd and 0 at fs_max_cwnd (Isekai's
//	                              max_flow_scaling 100us)
//	transports.rocev2.swift.fs_min_cwnd 0.1 ((0,65536]): fs_min_cwnd, packets: flow-based
//	                              scaling is fs_range at and below it (Isekai's
//	                              min_flow_scaling_window 0.1); below fs_max_cwnd
//	transports.rocev2.swift.fs_max_cwnd 256 ((0,65536]): fs_max_cwnd, packets: flow-based
//	                              scaling is 0 at and above it (Isekai's max_flow_scaling_window
//	                              256, its max_cwnd)
//	transports.rocev2.swift.ai    1 ((0,1000]): ai, the additive increment: ai/cwnd per packet
//	                              acknowledged below the target, ai per packet below one packet
//	                              of window (Isekai's fabric_additive_increment_factor 1.0)
//	transports.rocev2.swift.beta  0.8 ((0,1]): beta: at or above the target the window is cut by
//	                              max(1 - beta (delay - target)/delay, 1 - max_mdf), once per
//	                              RTT (Isekai's fabric_multiplicative_decrease_factor 0.8)
//	transports.rocev2.swift.max_mdf 0.5 ((0,1]): max_mdf: the largest cut, and the cut on a loss
//	                              (a NAK, or a retransmit timeout) (Isekai's
//	                              max_fabric_multiplicative_decrease 0.5); below 1
//	transports.rocev2.swift.min_cwnd 0.001 ((0,65536]): the least window, packets; below one
//	                              packet the flow sends a packet every RTT/cwnd (SIGCOMM'20
//	                              section 3.4: 0.001)
//	transports.rocev2.swift.max_cwnd 256 ((0,65536]): the largest window, packets (Isekai's
//	                              max_fabric_congestion_window 256); at least min_cwnd
//	transports.rocev2.swift.init_cwnd the window that fills the sender's line rate for
//	                              base_target, at most max_cwnd ((0,65536]): the window a flow
//	                              starts with, packets (the paper: its initial value has little
//	                              effect with long-lived flows); between min_cwnd and max_cwnd
//	transports.rocev2.swift.retx_reset_threshold 3 (1..1000): RETX_RESET_THRESHOLD: after this
//	                              many retransmit timeouts in a row the window goes to min_cwnd,
//	                              before it each cuts it by max_mdf (Isekai's retransmit_limit
//	                              3)
//	transports.rocev2.swift.endpoint_target 100us (> 0): the endpoint window's target, against
//	                              the delay in the NICs and hosts (SIGCOMM'20 section 5.4:
//	                              100us); this NIC model answers at once, so its endpoint delay
//	                              is 0 and the endpoint window never binds (docs/model.md)
//	transports.rocev2.dctcp.g     0.0625 ((0,1]): g, the gain of alpha, the moving average of
//	                              the fraction of packets acknowledged with an ECN echo, one
//	                              sample per window of data (RFC 8257 section 4.2: 1/16); an
//	                              echo cuts the window by alpha/2, once per window
//	transports.rocev2.dctcp.init_cwnd 10 (1..65536): the window a flow starts with, in packets
//	                              (RFC 6928's ten segments); slow start and congestion avoidance
//	                              follow (RFC 5681, with byte counting, RFC 3465), a NAK halves
//	                              the flight once per window and a retransmit timeout restarts
//	                              from one packet
//	transports.rocev2.nscc.target_qdelay the flow's unloaded RTT (a full packet out, its ACK
//	                              back, store and forward) (> 0): NSCC's target queueing delay
//	                              (uet-htsim initNsccParams without trimming: one network RTT);
//	                              the network RTT that scales NSCC's gains is the flow's own
//	                              unloaded RTT
//	transports.rocev2.nscc.qa_gate 3 (0..62): quick adapt cuts the window to what was
//	                              acknowledged in its period only if that is below maxwnd /
//	                              2^qa_gate (uet-htsim initNsccParams: 3)
//	transports.rocev1             as rocev2, with the same defaults; cc none, timely or swift
//	                              only (RoCE v1 frames carry no IP header, so no ECN and no INT)
//	transports.iwarp.mtu          1500 (576..9216): the IPv4 MTU (RFC 791's 576 to the largest
//	                              jumbo frame datacenter switches carry); MSS = mtu - 40, - 12
//	                              more with timestamps; one FPDU per segment
//	transports.iwarp.cc           newreno (newreno): slow start (byte counting, L = 2),
//	                              congestion avoidance, fast retransmit and fast recovery
//	transports.iwarp.min_rto      1ms (> 0): the RTO floor (RFC 6298's 1 s, scaled by 1/1000)
//	transports.iwarp.rto_init     min_rto: the RTO before any RTT sample, >= min_rto (RFC 6298:
//	                              1 s, as its floor)
//	transports.iwarp.max_rto      60 x min_rto: the back-off ceiling, >= min_rto and rto_init
//	                              (RFC 6298: at least 60 s)
//	transports.iwarp.retries      15 (1..255): RTOs in a row without progress, then the flow
//	                              fails (Linux tcp_retries2)
//	transports.iwarp.init_cwnd    10 (1..1000): the initial window in segments (RFC 6928)
//	transports.iwarp.nic_delay    1us: each received segment reaches TCP this much later
//	                              (offload processing, pipelined: latency, not a rate cap)
//	transports.iwarp.markers      false: MPA markers: 4 bytes per 512 of TCP sequence space
//	transports.iwarp.timestamps   false: TCP timestamps: 12 bytes per segment, an RTT sample per
//	                              ACK
//	transports.iwarp.sack         true: SACK blocks (RFC 2018) and SACK recovery (RFC 6675);
//	                              false: NewReno (RFC 6582)
//	transports.iwarp.delayed_ack  40us: an ACK every second segment (RFC 5681 4.2), a lone one
//	                              after this (Linux's 40 ms minimum, scaled like min_rto; RFC
//	                              1122 4.2.3.2 allows up to 500 ms); 0: every segment;
//	                              out-of-order, gap-filling and a message's last segment are
//	                              acknowledged at once
//	transports.iwarp.ecn          none (none | classic | dctcp): classic: RFC 3168, halve once
//	                              per window; dctcp: RFC 8257, g = 1/16
//	transports.iwarp.receive_window 4MB: the receiver's window, 2 x mtu to 1GiB (RFC 7323 window
//	                              scale 14); the default is large enough not to limit one flow
//	transports.iwarp.tcp_sport    random (random | index): the TCP source port, the entropy ECMP
//	                              hashes: random draws it per connection from the seed, as a
//	                              host's ephemeral ports differ from boot to boot (RFC 6056), so
//	                              replications sample other ECMP paths; index hashes the flow's
//	                              index: the same paths under every seed. In 49152-65535 (RFC
//	                              6335)
//	transports.iwarp.handshake    false: true: SYN, SYN-ACK, ACK, MPA Request and Reply at each
//	                              flow's start, counted in the FCT and in the ideal FCT; false:
//	                              a flow starts on an established connection, as a RoCE flow on
//	                              a connected queue pair
//	transports.uet.mtu            4096 (256..9000): payload bytes per packet (uet-htsim's MSS,
//	                              4096); each packet adds Ethernet, IPv4, UDP (port 4793), the
//	                              PDS RUD header (12) and the SES standard header (44)
//	transports.uet.entropy        reps (reps | oblivious): each packet's entropy value, its UDP
//	                              source port, which hashing switches spread over the paths:
//	                              reps recycles entropies whose ACKs came back unmarked
//	                              (uet-htsim UecMpReps: an 8-entry ring, the oldest fresh one
//	                              first, else one at random; with trimming, a timeout freezes
//	                              the ring for 10ms); oblivious walks all the entropies in an
//	                              order drawn again after each pass (uet-htsim UecMpOblivious)
//	transports.uet.paths          64 (1..16384): how many entropy values a flow picks from, a
//	                              power of two (uet-htsim main_uec path_entropy_size: 64)
//	transports.uet.ack_bytes      16KiB (> 0): the receiver acknowledges once this many bytes
//	                              have come since its last ACK (uet-htsim
//	                              UecSink::_bytes_unacked_threshold, 16384), and at once for an
//	                              ECN-marked packet, one asking for an ACK (the sender's last,
//	                              or one that fills the window), a duplicate and a flow's first
//	                              and last packets
//	transports.uet.rto            15us + 6 x the drain time of a full switch queue (> 0): a
//	                              packet not acknowledged this long after it was sent is sent
//	                              again, one at a time (uet-htsim startRTO and rtxTimerExpired);
//	                              the default is uet-htsim main_uec's rule, 15us + 6 x queue
//	                              size / line rate, with fabricsim's deepest queue:
//	                              switch.trimming.threshold when set, else buffer_alpha / (1 +
//	                              buffer_alpha) of switch.buffer, at the sender's line rate
//	transports.uet.target_qdelay  0.75 x the network's unloaded RTT with switch trimming, 1 x
//	                              without (> 0): NSCC's target queueing delay (uet-htsim
//	                              initNsccParams); the network's RTT is the longest unloaded
//	                              round trip (a full packet out, its ACK back, store and
//	                              forward) among the UET flows, uet-htsim's
//	                              network_max_unloaded_rtt
//	transports.uet.ack_priority   7 (0..7): the traffic class of the receiver's ACKs and NACKs:
//	                              uet-htsim's switches serve every header-only packet (ACK,
//	                              NACK, trimmed header) in a queue ahead of data
//	                              (CompositeQueue), so by default the trim class's, 7; a class
//	                              of data delays them behind it
//	transports.uet.cc             nscc (nscc | rccc | nscc+rccc | swift): nscc: the sender's
//	                              window from ECN marks and measured delay (NSCC); rccc: the
//	                              receiver's credit (RCCC: each data packet carries the credit
//	                              the sender wants, the receiving NIC grants credit to its flows
//	                              in turn, 4 x the MTU of wire bytes at a time, at 0.99 of its
//	                              line rate, after a first speculative window of 1.5 BDP;
//	                              uet-htsim UecPullPacer); nscc+rccc: a packet goes when both
//	                              allow (uet-htsim's -sender_cc and -receiver_cc); swift:
//	                              Swift's window held to a target delay (Kumar et al.,
//	                              SIGCOMM'20) in place of NSCC's, on each ACK's RTT sample,
//	                              every packet asking for an ACK, see swift. With rccc each data
//	                              packet's PDS header is a RUD_CC_REQ, 4 bytes longer
//	transports.uet.sleek          true: with nscc, the sender counts the PSNs still in flight as
//	                              lost once the receiver holds max(min(1.5 x cwnd, maxwnd), 5
//	                              packets) out of order (SLEEK, uet-htsim UecSrc::runSleek
//	                              without its probes); false: a loss the fabric did not trim is
//	                              found by the retransmit timeout alone (uet-htsim runs SLEEK
//	                              only with -sleek)
//	transports.uet.ecn_to_hosts   true: switches may ECN-mark UET packets on the ports that face
//	                              hosts; false: they leave those unmarked (uet-htsim
//	                              main_uec.cpp 708 turns marking off on the top-of-rack
//	                              switches' links to hosts when receiver-based CC runs), while
//	                              other transports' packets there, and every packet on other
//	                              ports, are marked as switch.ecn says
//	transports.uet.qa_gate        3 (0..62): quick adapt cuts the window to what was
//	                              acknowledged in its period only if that is below maxwnd /
//	                              2^qa_gate (uet-htsim initNsccParams: 3)
//	transports.uet.swift.base_target 25us (> 0): base_target: the fabric delay target of a
//	                              one-hop path with few flows (SIGCOMM'20 section 5.1:
//	                              throughput saturates above about 25us; section 5.2 runs at
//	                              25us; Isekai's fabric_base_delay 25us)
//	transports.uet.swift.h        1us (>= 0): h, the target added per hop: topology-based
//	                              scaling adds hops x h, the hops being the switches on the
//	                              flow's route (the paper counts IP hops by TTL; Isekai's
//	                              topo_scaling_per_hop 1us)
//	transports.uet.swift.fs_range 100us (>= 0): fs_range: the most flow-based scaling adds to
//	                              the target, max(0, min(alpha/sqrt(fcwnd) + beta, fs_range)),
//	                              fs_range at fs_min_cwnd and 0 at fs_max_cwnd (Isekai's
//	                              max_flow_scaling 100us)
//	transports.uet.swift.fs_min_cwnd 0.1 ((0,65536]): fs_min_cwnd, packets: flow-based scaling
//	                              is fs_range at and below it (Isekai's min_flow_scaling_window
//	                              0.1); below fs_max_cwnd
//	transports.uet.swift.fs_max_cwnd 256 ((0,65536]): fs_max_cwnd, packets: flow-based scaling
//	                              is 0 at and above it (Isekai's max_flow_scaling_window 256,
//	                              its max_cwnd)
//	transports.uet.swift.ai       1 ((0,1000]): ai, the additive increment: ai/cwnd per packet
//	                              acknowledged below the target, ai per packet below one packet
//	                              of window (Isekai's fabric_additive_increment_factor 1.0)
//	transports.uet.swift.beta     0.8 ((0,1]): beta: at or above the target the window is cut by
//	                              max(1 - beta (delay - target)/delay, 1 - max_mdf), once per
//	                              RTT (Isekai's fabric_multiplicative_decrease_factor 0.8)
//	transports.uet.swift.max_mdf  0.5 ((0,1]): max_mdf: the largest cut, and the cut on a loss
//	                              (a NAK, or a retransmit timeout) (Isekai's
//	                              max_fabric_multiplicative_decrease 0.5); below 1
//	transports.uet.swift.min_cwnd 0.001 ((0,65536]): the least window, packets; below one packet
//	                              the flow sends a packet every RTT/cwnd (SIGCOMM'20 section
//	                              3.4: 0.001)
//	transports.uet.swift.max_cwnd 256 ((0,65536]): the largest window, packets (Isekai's
//	                              max_fabric_congestion_window 256); at least min_cwnd
//	transports.uet.swift.init_cwnd the window that fills the sender's line rate for base_target,
//	                              at most max_cwnd ((0,65536]): the window a flow starts with,
//	                              packets (the paper: its initial value has little effect with
//	                              long-lived flows); between min_cwnd and max_cwnd
//	transports.uet.swift.retx_reset_threshold 3 (1..1000): RETX_RESET_THRESHOLD: after this many
//	                              retransmit timeouts in a row the window goes to min_cwnd,
//	                              before it each cuts it by max_mdf (Isekai's retransmit_limit
//	                              3)
//	transports.uet.swift.endpoint_target 100us (> 0): the endpoint window's target, against the
//	                              delay in the NICs and hosts (SIGCOMM'20 section 5.4: 100us);
//	                              this NIC model answers at once, so its endpoint delay is 0 and
//	                              the endpoint window never binds (docs/model.md)
//
//go:generate go test -run TestSettingsDoc -update
package scenarios
