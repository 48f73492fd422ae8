package scenarios

import (
	"reflect"

	"go.yaml.in/yaml/v4"

	"github.com/fabricsim/fabricsim/ecn"
	"github.com/fabricsim/fabricsim/sim"
)

// Transports holds the settings of each transport: the transports block.
type Transports struct {
	RoCEv2 RoCEConfig  `yaml:"rocev2"`
	RoCEv1 RoCEConfig  `yaml:"rocev1" doc:"as rocev2, with the same defaults; cc none, timely or swift only (RoCE v1 frames carry no IP header, so no ECN and no INT)"`
	IWARP  IWARPConfig `yaml:"iwarp"`
	UET    UETConfig   `yaml:"uet"`
}

// UETConfig configures the Ultra Ethernet transport's reliable unordered delivery with NSCC
// (transports.UETConfig): transports.uet. The defaults are uet-htsim's (ultraethernet/uet-htsim,
// htsim/sim/uec.cpp and datacenter/main_uec.cpp; docs/model.md section 13).
type UETConfig struct {
	MTU          int      `yaml:"mtu" default:"4096" min:"256" max:"9000" means:"payload bytes per packet" model:"MTU" doc:"payload bytes per packet (uet-htsim's MSS, 4096); each packet adds Ethernet, IPv4, UDP (port 4793), the PDS RUD header (12) and the SES standard header (44)"`
	Entropy      string   `yaml:"entropy" default:"reps" oneof:"reps,oblivious" what:"entropy scheme" doc:"each packet's entropy value, its UDP source port, which hashing switches spread over the paths: reps recycles entropies whose ACKs came back unmarked (uet-htsim UecMpReps: an 8-entry ring, the oldest fresh one first, else one at random; with trimming, a timeout freezes the ring for 10ms); oblivious walks all the entropies in an order drawn again after each pass (uet-htsim UecMpOblivious)"`
	Paths        int      `yaml:"paths" default:"64" min:"1" max:"16384" means:"entropy values" model:"Paths" doc:"how many entropy values a flow picks from, a power of two (uet-htsim main_uec path_entropy_size: 64)"`
	AckBytes     int64    `yaml:"ack_bytes" default:"16KiB" gt:"0" model:"AckBytes" doc:"the receiver acknowledges once this many bytes have come since its last ACK (uet-htsim UecSink::_bytes_unacked_threshold, 16384), and at once for an ECN-marked packet, one asking for an ACK (the sender's last, or one that fills the window), a duplicate and a flow's first and last packets"`
	RTO          sim.Time `yaml:"rto" derived:"15us + 6 x the drain time of a full switch queue" gt:"0" eg:"100us" model:"RTO" doc:"a packet not acknowledged this long after it was sent is sent again, one at a time (uet-htsim startRTO and rtxTimerExpired); the default is uet-htsim main_uec's rule, 15us + 6 x queue size / line rate, with fabricsim's deepest queue: switch.trimming.threshold when set, else buffer_alpha / (1 + buffer_alpha) of switch.buffer, at the sender's line rate"`
	TargetQDelay sim.Time `yaml:"target_qdelay" derived:"0.75 x the network's unloaded RTT with switch trimming, 1 x without" gt:"0" eg:"6us" model:"TargetQDelay" doc:"NSCC's target queueing delay (uet-htsim initNsccParams); the network's RTT is the longest unloaded round trip (a full packet out, its ACK back, store and forward) among the UET flows, uet-htsim's network_max_unloaded_rtt"`
	AckPriority  int      `yaml:"ack_priority" default:"7" min:"0" max:"7" model:"AckPriority" doc:"the traffic class of the receiver's ACKs and NACKs: uet-htsim's switches serve every header-only packet (ACK, NACK, trimmed header) in a queue ahead of data (CompositeQueue), so by default the trim class's, 7; a class of data delays them behind it"`
	CC           string   `yaml:"cc" default:"nscc" oneof:"nscc,rccc,nscc+rccc,swift" what:"congestion control" doc:"nscc: the sender's window from ECN marks and measured delay (NSCC); rccc: the receiver's credit (RCCC: each data packet carries the credit the sender wants, the receiving NIC grants credit to its flows in turn, 4 x the MTU of wire bytes at a time, at 0.99 of its line rate, after a first speculative window of 1.5 BDP; uet-htsim UecPullPacer); nscc+rccc: a packet goes when both allow (uet-htsim's -sender_cc and -receiver_cc); swift: Swift's window held to a target delay (Kumar et al., SIGCOMM'20) in place of NSCC's, on each ACK's RTT sample, every packet asking for an ACK, see swift. With rccc each data packet's PDS header is a RUD_CC_REQ, 4 bytes longer"`
	SLEEK        bool     `yaml:"sleek" default:"true" model:"SLEEK" doc:"with nscc, the sender counts the PSNs still in flight as lost once the receiver holds max(min(1.5 x cwnd, maxwnd), 5 packets) out of order (SLEEK, uet-htsim UecSrc::runSleek without its probes); false: a loss the fabric did not trim is found by the retransmit timeout alone (uet-htsim runs SLEEK only with -sleek)"`
	ECNToHosts   bool     `yaml:"ecn_to_hosts" default:"true" doc:"switches may ECN-mark UET packets on the ports that face hosts; false: they leave those unmarked (uet-htsim main_uec.cpp 708 turns marking off on the top-of-rack switches' links to hosts when receiver-based CC runs), while other transports' packets there, and every packet on other ports, are marked as switch.ecn says"`
	QAGate       int      `yaml:"qa_gate" default:"3" min:"0" max:"62" means:"a power of two" model:"QAGate" doc:"quick adapt cuts the window to what was acknowledged in its period only if that is below maxwnd / 2^qa_gate (uet-htsim initNsccParams: 3)"`
	// Swift holds Swift's parameters, when CC is swift (as transports.rocev2.swift's).
	Swift SwiftConfig `yaml:"swift"`
}

// RoCEConfig configures a RoCE (v1 or v2) reliable-connection endpoint.
type RoCEConfig struct {
	MTU               int      `yaml:"mtu" default:"1024" model:"MTU" oneof:"256,512,1024,2048,4096" means:"the InfiniBand path MTUs" doc:"the path MTU"`
	CC                string   `yaml:"cc" default:"none" oneof:"none,dcqcn,hpcc,timely,swift,dctcp,nscc" what:"congestion control" doc:"congestion control (dcqcn, hpcc, dctcp, nscc: RoCE v2 only; timely: RTT-based, Mittal et al., SIGCOMM'15, see timely; swift: a window held to a target delay, Kumar et al., SIGCOMM'20, see swift; dctcp: TCP's DCTCP, RFC 8257, over a window of packets, on the ECN echo each ACK carries in its BTH BECN bit, see dctcp; nscc: the Ultra Ethernet transport's NSCC, a window of bytes from the same ECN echo and each ACK's RTT sample, see nscc)"`
	Recovery          string   `yaml:"recovery" default:"go-back-n" oneof:"go-back-n,go-back-0,irn" what:"recovery" doc:"go-back-0 sends the whole message again, as old NICs did; irn resends only what was lost, with packets in flight capped at the path's BDP (Mittal et al., SIGCOMM'18; see irn)"`
	RetransmitTimeout sim.Time `yaml:"retransmit_timeout" default:"1.048576ms" model:"RetransmitTimeout" gt:"0" eg:"1ms" doc:"4.096us x 2^8: the InfiniBand local ACK timeout (4.096us x 2^timeout) with QP timeout attribute 8"`
	RetryLimit        int      `yaml:"retry_limit" default:"7" model:"RetryLimit" min:"0" max:"7" means:"the InfiniBand retry count has 3 bits" doc:"retransmissions of one packet before the flow fails (IB retry_cnt has 3 bits)"`
	AckInterval       int      `yaml:"ack_interval" default:"16" model:"AckInterval" min:"1" max:"65536" means:"packets per ACK" doc:"packets per coalesced ACK; a message's last packet is always ACKed; with cc hpcc the default is 1 (the HPCC authors' L2_ACK_INTERVAL: every packet's telemetry goes back)"`
	UDPSport          string   `yaml:"udp_sport" default:"random" oneof:"random,qpn,per_packet" what:"UDP source port rule" doc:"the UDP source port, the entropy ECMP hashes (IBA annex A17 leaves it to the NIC, per queue pair): random draws it per queue pair from the seed, so replications under other seeds sample other ECMP paths; qpn hashes the queue pair number alone (Linux's rdma_get_udp_sport hashes the two QPNs when the GRH carries no flow label): the same paths under every seed; per_packet gives each data packet sent (resends too) a port of its own, from the queue pair's random one: the host sprays, and hashing switches spread the queue pair over every path (ACKs and CNPs keep the queue pair's port). In 0xC000-0xFFFF. RoCE v1 has no UDP header: its switches hash the MAC addresses"`
	// IRN holds IRN's timeouts and BDP cap, when Recovery is irn.
	IRN IRNConfig `yaml:"irn"`
	// DCQCN holds the DCQCN reaction and notification points, when CC is dcqcn.
	DCQCN ecn.Params `yaml:"dcqcn"`
	// DCQCNMode is paper or nvidia: the defaults DCQCN starts from (dcqcn.mode).
	DCQCNMode string
	// HPCC holds HPCC's parameters, when CC is hpcc.
	HPCC HPCCConfig `yaml:"hpcc"`
	// TIMELY holds TIMELY's parameters, when CC is timely.
	TIMELY TIMELYConfig `yaml:"timely"`
	// Swift holds Swift's parameters, when CC is swift.
	Swift SwiftConfig `yaml:"swift"`
	// DCTCP holds DCTCP's parameters, when CC is dctcp.
	DCTCP DCTCPConfig `yaml:"dctcp"`
	// NSCC holds NSCC's parameters, when CC is nscc.
	NSCC NSCCConfig `yaml:"nscc"`
}

// NSCCConfig declares transports.rocev2.nscc, whose values go to transports.NSCCParams (the
// Ultra Ethernet transport's NSCC run by a RoCE requester; docs/model.md).
type NSCCConfig struct {
	TargetQDelay sim.Time `yaml:"target_qdelay" derived:"the flow's unloaded RTT (a full packet out, its ACK back, store and forward)" gt:"0" eg:"6us" model:"TargetQDelay" doc:"NSCC's target queueing delay (uet-htsim initNsccParams without trimming: one network RTT); the network RTT that scales NSCC's gains is the flow's own unloaded RTT"`
	QAGate       int      `yaml:"qa_gate" default:"3" min:"0" max:"62" means:"a power of two" model:"QAGate" doc:"quick adapt cuts the window to what was acknowledged in its period only if that is below maxwnd / 2^qa_gate (uet-htsim initNsccParams: 3)"`
}

// DCTCPConfig declares transports.rocev2.dctcp, whose values go to transports.DCTCPParams
// (DCTCP, RFC 8257, run by the requester over a window of packets as iWARP's TCP runs it
// over segments; docs/model.md).
type DCTCPConfig struct {
	G        float64 `yaml:"g" default:"0.0625" gt:"0" max:"1" means:"the alpha gain" model:"G" doc:"g, the gain of alpha, the moving average of the fraction of packets acknowledged with an ECN echo, one sample per window of data (RFC 8257 section 4.2: 1/16); an echo cuts the window by alpha/2, once per window"`
	InitCwnd int     `yaml:"init_cwnd" default:"10" min:"1" max:"65536" means:"packets" model:"InitCwnd" doc:"the window a flow starts with, in packets (RFC 6928's ten segments); slow start and congestion avoidance follow (RFC 5681, with byte counting, RFC 3465), a NAK halves the flight once per window and a retransmit timeout restarts from one packet"`
}

// SwiftConfig declares transports.rocev2.swift, whose values go to transports.SwiftParams
// (Swift, Kumar et al., SIGCOMM 2020, Algorithm 1 and section 3.5's target; the paper gives
// base_target, endpoint_target and min_cwnd, the other defaults are those of Google's Swift
// in its Falcon simulator Isekai, Swift::DefaultConfiguration; docs/model.md section 11).
type SwiftConfig struct {
	BaseTarget         sim.Time `yaml:"base_target" default:"25us" gt:"0" eg:"25us" model:"BaseTarget" doc:"base_target: the fabric delay target of a one-hop path with few flows (SIGCOMM'20 section 5.1: throughput saturates above about 25us; section 5.2 runs at 25us; Isekai's fabric_base_delay 25us)"`
	H                  sim.Time `yaml:"h" default:"1us" min:"0" eg:"1us" model:"H" doc:"h, the target added per hop: topology-based scaling adds hops x h, the hops being the switches on the flow's route (the paper counts IP hops by TTL; Isekai's topo_scaling_per_hop 1us)"`
	FSRange            sim.Time `yaml:"fs_range" default:"100us" min:"0" eg:"100us" model:"FSRange" doc:"fs_range: the most flow-based scaling adds to the target, max(0, min(alpha/sqrt(fcwnd) + beta, fs_range)), fs_range at fs_min_cwnd and 0 at fs_max_cwnd (Isekai's max_flow_scaling 100us)"`
	FSMinCwnd          float64  `yaml:"fs_min_cwnd" default:"0.1" gt:"0" max:"65536" means:"packets" model:"FSMinCwnd" doc:"fs_min_cwnd, packets: flow-based scaling is fs_range at and below it (Isekai's min_flow_scaling_window 0.1); below fs_max_cwnd"`
	FSMaxCwnd          float64  `yaml:"fs_max_cwnd" default:"256" gt:"0" max:"65536" means:"packets" model:"FSMaxCwnd" doc:"fs_max_cwnd, packets: flow-based scaling is 0 at and above it (Isekai's max_flow_scaling_window 256, its max_cwnd)"`
	AI                 float64  `yaml:"ai" default:"1" gt:"0" max:"1000" means:"packets per RTT" model:"AI" doc:"ai, the additive increment: ai/cwnd per packet acknowledged below the target, ai per packet below one packet of window (Isekai's fabric_additive_increment_factor 1.0)"`
	Beta               float64  `yaml:"beta" default:"0.8" gt:"0" max:"1" means:"the multiplicative decrease constant" model:"Beta" doc:"beta: at or above the target the window is cut by max(1 - beta (delay - target)/delay, 1 - max_mdf), once per RTT (Isekai's fabric_multiplicative_decrease_factor 0.8)"`
	MaxMDF             float64  `yaml:"max_mdf" default:"0.5" gt:"0" max:"1" rule:"a number in (0,1), the largest fraction one decrease takes" model:"MaxMDF" doc:"max_mdf: the largest cut, and the cut on a loss (a NAK, or a retransmit timeout) (Isekai's max_fabric_multiplicative_decrease 0.5); below 1"`
	MinCwnd            float64  `yaml:"min_cwnd" default:"0.001" gt:"0" max:"65536" means:"packets" model:"MinCwnd" doc:"the least window, packets; below one packet the flow sends a packet every RTT/cwnd (SIGCOMM'20 section 3.4: 0.001)"`
	MaxCwnd            float64  `yaml:"max_cwnd" default:"256" gt:"0" max:"65536" means:"packets" model:"MaxCwnd" doc:"the largest window, packets (Isekai's max_fabric_congestion_window 256); at least min_cwnd"`
	InitCwnd           float64  `yaml:"init_cwnd" derived:"the window that fills the sender's line rate for base_target, at most max_cwnd" gt:"0" max:"65536" means:"packets" model:"InitCwnd" doc:"the window a flow starts with, packets (the paper: its initial value has little effect with long-lived flows); between min_cwnd and max_cwnd"`
	RetxResetThreshold int      `yaml:"retx_reset_threshold" default:"3" min:"1" max:"1000" means:"retransmit timeouts in a row" model:"RetxResetThreshold" doc:"RETX_RESET_THRESHOLD: after this many retransmit timeouts in a row the window goes to min_cwnd, before it each cuts it by max_mdf (Isekai's retransmit_limit 3)"`
	EndpointTarget     sim.Time `yaml:"endpoint_target" default:"100us" gt:"0" eg:"100us" model:"EndpointTarget" doc:"the endpoint window's target, against the delay in the NICs and hosts (SIGCOMM'20 section 5.4: 100us); this NIC model answers at once, so its endpoint delay is 0 and the endpoint window never binds (docs/model.md)"`
}

// TIMELYConfig declares transports.rocev2.timely, whose values go to transports.TIMELYParams
// (TIMELY, Mittal et al., SIGCOMM 2015, Algorithm 1 as its first author's published code
// snippet gives it; the defaults are the HPCC authors' ns-3's but for t_low, the snippet's
// value for per-packet pacing; docs/model.md).
type TIMELYConfig struct {
	Alpha        float64  `yaml:"alpha" default:"0.875" gt:"0" max:"1" model:"Alpha" means:"the EWMA weight of a new RTT difference" doc:"the EWMA weight of a new RTT difference in the smoothed one (the HPCC authors' ns-3, which updates once per round trip as here; the first author's published code snippet recommends 0.02 for an update per completion, which lets the queue swing past t_high here: docs/model.md)"`
	Beta         float64  `yaml:"beta" default:"0.8" gt:"0" max:"1" model:"Beta" means:"the decrease factor" doc:"the multiplicative decrease factor beta (the snippet's decreaseFactor and the HPCC authors' ns-3: 0.8)"`
	TLow         sim.Time `yaml:"t_low" default:"0s" min:"0" eg:"50us" model:"TLow" doc:"T_low: below it the rate only grows by delta (the snippet: 0 with per-packet pacing, as this NIC paces, 50us with 64 KB segments; the HPCC authors' ns-3: 50us, which at 100 Gb/s drains the queue at every cut: docs/model.md)"`
	THigh        sim.Time `yaml:"t_high" default:"500us" gt:"0" eg:"500us" model:"THigh" doc:"T_high: above it the rate is cut by beta x (1 - t_high/RTT) (the HPCC authors' ns-3; the snippet recommends 1ms); above t_low"`
	MinRTT       sim.Time `yaml:"min_rtt" default:"20us" gt:"0" eg:"20us" model:"MinRTT" doc:"minRTT: the gradient is the smoothed RTT difference over it, and each step is scaled by the time since the previous update over it, at most 1 (the HPCC authors' ns-3 TimelyMinRtt)"`
	Delta        sim.Rate `yaml:"delta" derived:"10Mbps per 10Gbps of the sender's line rate" gt:"0" eg:"100Mbps" model:"Delta" doc:"the additive increment delta (the authors' snippet: 10 Mb/s for a 10 Gb/s line rate; the HPCC authors' run.py scales it with the line rate)"`
	HAIThreshold int      `yaml:"hai_threshold" default:"5" min:"1" max:"1000" means:"falling RTTs in a row" model:"HAIThreshold" doc:"hyperactive increase: after this many falling RTTs in a row the gradient rule adds n x delta (the authors' snippet: HAI_Thresh 5)"`
	N            int      `yaml:"n" default:"5" min:"1" max:"1000" means:"the multiple of delta" model:"N" doc:"the hyperactive increase's multiple of delta (the HPCC authors' run.py: hai = 5 x ai)"`
	MinRate      sim.Rate `yaml:"min_rate" default:"100Mbps" gt:"0" eg:"100Mbps" model:"MinRate" doc:"the floor of the rate (the HPCC authors' ns-3 MinRate)"`
	Rule         string   `yaml:"rule" default:"paper" oneof:"paper,hpcc_ns3" what:"TIMELY rule" doc:"paper: Algorithm 1 as the first author's code snippet gives it, each step scaled by the time since the last update over min_rtt (at most 1), hyperactive increase after hai_threshold falling RTTs, on the gradient rule only; hpcc_ns3: the HPCC authors' ns-3 (rdma-hw.cc UpdateRateTimely), full steps once per RTT, delta while fewer than hai_threshold increases came in a row and n x delta after, below t_low as on a falling RTT, no update on the first sample (docs/model.md)"`
}

// HPCCConfig declares transports.rocev2.hpcc, whose values go to transports.HPCCParams
// (HPCC, Li et al., SIGCOMM 2019, Algorithm 1; docs/model.md).
type HPCCConfig struct {
	Eta      float64  `yaml:"eta" default:"0.95" gt:"0" max:"1" model:"Eta" means:"the target utilisation" doc:"the target utilisation eta (SIGCOMM'19 section 3.3 and its evaluation: 0.95)"`
	MaxStage int      `yaml:"max_stage" default:"5" min:"0" max:"1000" model:"MaxStage" means:"additive steps before a multiplicative one" doc:"maxStage: additive-increase steps below eta before a multiplicative step toward it (SIGCOMM'19: 5)"`
	AI       sim.Rate `yaml:"ai" derived:"10Mbps per 25Gbps of the sender's line rate" gt:"0" eg:"40Mbps" model:"AI" doc:"the additive increase as a rate: W_AI = ai x base_rtt (the authors' run.py: 10 Mb/s per 25 Gb/s of line rate, so 40 Mb/s at 100 Gb/s); flows sharing a port settle within 10% of their fair share only when N x ai is well above the spread of their measured U times the line rate: 400Mbps at 100 Gb/s does for 2 to 10 flows (docs/model.md section 9)"`
	BaseRTT  sim.Time `yaml:"base_rtt" derived:"the flow's path" gt:"0" eg:"5us" model:"BaseRTT" doc:"T, the base RTT: W_init = line rate x T, R = W/T; by default each flow's own, from its path (a full data packet and an ACK, with their INT headers, store-and-forward over every hop, plus propagation and switch latency)"`
}

// IRNConfig configures IRN's loss recovery (transports.IRNParams): transports.rocev2.irn.
// The defaults are the IRN paper's (Mittal et al., "Revisiting Network Support for RDMA",
// SIGCOMM 2018, section 4: 40 Gb/s links, RTO_high 320 us, RTO_low 100 us, N = 3).
type IRNConfig struct {
	RTOLow           sim.Time   `yaml:"rto_low" default:"100us" gt:"0" eg:"100us" model:"RTOLow" doc:"IRN's RTO_low: the retransmit timeout while fewer than rto_low_packets packets are in flight, too few for a later one to reveal a loss by a NAK"`
	RTOHigh          sim.Time   `yaml:"rto_high" default:"320us" gt:"0" eg:"320us" model:"RTOHigh" doc:"IRN's RTO_high: the retransmit timeout otherwise, an estimate of the largest round trip; at least rto_low"`
	RTOLowPackets    int        `yaml:"rto_low_packets" default:"3" min:"0" max:"65536" means:"packets in flight" model:"RTOLowPackets" doc:"IRN's N: rto_low applies below this many packets in flight; 0: never"`
	ReorderThreshold int        `yaml:"reorder_threshold" default:"1" min:"1" max:"65536" means:"packets" model:"ReorderThreshold" doc:"a packet counts as lost once a packet this many PSNs beyond it is selectively acknowledged: 1 is IRN's rule (any later packet's NAK reveals a loss), which under packet spraying (switch.load_balancing: spray or adaptive, udp_sport: per_packet) resends every packet another overtook; a larger value tolerates that much reordering, as TCP's DupThresh does (RFC 6675: 3), and leaves a real loss to the later packets' NAKs or the timeout"`
	BDPCap           SizeOrAuto `yaml:"bdp_cap" default:"auto" gt:"0" doc:"BDP-FC: a flow keeps at most this many bytes of packets outstanding, counted in whole packets on the wire; auto: the packets that fill the bottleneck of the flow's own path for one round trip (a full packet out, an ACK back, on the empty fabric), plus ack_interval - 1 for the coalesced ACK"`
}

// dcqcnSettings declares transports.rocev2.dcqcn, whose values go to ecn.Params, field by
// field name. mode picks the set of defaults the other fields start from (ecn.PaperParams or
// ecn.NVIDIAParams); every field may then be set on its own.
type dcqcnSettings struct {
	Mode           string     `yaml:"mode" default:"paper" oneof:"paper,nvidia" what:"DCQCN mode" doc:"the defaults below: the paper's (SIGCOMM'15; rhai from the authors' ns-3) or the ConnectX firmware's"`
	G              float64    `yaml:"g" gt:"0" max:"1" means:"the alpha gain" doc:"the gain of the alpha estimate"`
	AlphaInit      float64    `yaml:"alpha_init" unit:"probability" doc:"alpha before the first CNP"`
	AlphaPeriod    sim.Time   `yaml:"alpha_period" gt:"0" eg:"55us" doc:"alpha is updated once per period"`
	RateTimer      sim.Time   `yaml:"rate_timer" gt:"0" eg:"55us" doc:"one rate-increase event per period"`
	ByteCounter    int64      `yaml:"byte_counter" doc:"one rate-increase event per this many bytes sent; 0: timer only"`
	F              int        `yaml:"f" min:"0" means:"fast-recovery stages" doc:"fast-recovery stages before additive and hyper increase"`
	RAI            sim.Rate   `yaml:"rai" doc:"the additive increase step"`
	RHAI           sim.Rate   `yaml:"rhai" doc:"the hyper increase step"`
	HyperLinear    bool       `yaml:"hyper" oneof:"linear=true,constant=false" what:"hyper increase" doc:"linear adds i x rhai at the i-th hyper stage; constant adds rhai"`
	MinRate        sim.Rate   `yaml:"min_rate" doc:"the floor of the rate"`
	DecreasePeriod sim.Time   `yaml:"decrease_period" doc:"the rate is cut at most once per period; 0 cuts on every CNP"`
	CNPInterval    sim.Time   `yaml:"cnp_interval" doc:"the notification point's minimum gap between two CNPs"`
	AlphaOnCNP     bool       `yaml:"alpha_on_cnp" doc:"alpha rises at the CNP itself (the paper), else at the end of its alpha period (NVIDIA)"`
	NP             ecn.NPRule `yaml:"np" oneof:"window=2,paper=0,immediate-only=1" what:"notification point rule" doc:"window (paper mode's default): the DCQCN authors' ns-3 code, a per-flow timer from the flow's first packet ticks every cnp_interval and each tick sends one CNP if a packet was marked since the last (the CoNEXT'16 fluid model's one cut per marked window). paper: SIGCOMM'15 section 3 taken literally, a CE mark with no CNP in the last cnp_interval is answered at once, then one CNP at the end of each cnp_interval window in which a packet was marked (one brief burst can get two CNPs). immediate-only (nvidia mode's default, as NVIDIA documents MIN_TIME_BETWEEN_CNPS): a mark is answered at once if no CNP went out in the last cnp_interval, marks in between are forgotten"`
	PortPacing     bool       `yaml:"cnp_pacing" oneof:"flow=false,port=true" what:"CNP pacing" doc:"flow: one pacer per flow (the paper); port: one pacer per receiving NIC port (ConnectX MIN_TIME_BETWEEN_CNPS is \"from the port\"). With port pacing and np paper or window, flows marked while the port is blocked wait, oldest mark first, one CNP per window end (a modelling choice: the vendor does not say which flow wins); with immediate-only their marks are forgotten"`
}

// dcqcnModes are the sets of defaults dcqcn.mode picks, in the order of its oneof.
var dcqcnModes = []struct {
	name   string
	params func() ecn.Params
}{{"paper", ecn.PaperParams}, {"nvidia", ecn.NVIDIAParams}}

// IWARPConfig configures an iWARP endpoint: RDMAP/DDP/MPA over TCP (transports.IWARPConfig).
type IWARPConfig struct {
	MTU           int      `yaml:"mtu" default:"1500" min:"576" max:"9216" rule:"an IPv4 MTU from 576 to 9216 bytes, e.g. 1500 or 9000" model:"MTU" doc:"the IPv4 MTU (RFC 791's 576 to the largest jumbo frame datacenter switches carry); MSS = mtu - 40, - 12 more with timestamps; one FPDU per segment"`
	CC            string   `yaml:"cc" default:"newreno" oneof:"newreno" what:"congestion control" doc:"slow start (byte counting, L = 2), congestion avoidance, fast retransmit and fast recovery"`
	MinRTO        sim.Time `yaml:"min_rto" default:"1ms" gt:"0" eg:"1ms" model:"MinRTO" doc:"the RTO floor (RFC 6298's 1 s, scaled by 1/1000)"`
	RTOInit       sim.Time `yaml:"rto_init" derived:"min_rto" model:"InitialRTO" doc:"the RTO before any RTT sample, >= min_rto (RFC 6298: 1 s, as its floor)"`
	MaxRTO        sim.Time `yaml:"max_rto" derived:"60 x min_rto" model:"MaxRTO" doc:"the back-off ceiling, >= min_rto and rto_init (RFC 6298: at least 60 s)"`
	Retries       int      `yaml:"retries" default:"15" min:"1" max:"255" means:"timeouts in a row before TCP gives up" model:"Retries" doc:"RTOs in a row without progress, then the flow fails (Linux tcp_retries2)"`
	InitCwnd      int      `yaml:"init_cwnd" default:"10" min:"1" max:"1000" means:"segments; RFC 6928 says 10" model:"InitCwnd" doc:"the initial window in segments (RFC 6928)"`
	NICDelay      sim.Time `yaml:"nic_delay" default:"1us" model:"NICDelay" doc:"each received segment reaches TCP this much later (offload processing, pipelined: latency, not a rate cap)"`
	Markers       bool     `yaml:"markers" default:"false" model:"Markers" doc:"MPA markers: 4 bytes per 512 of TCP sequence space"`
	Timestamps    bool     `yaml:"timestamps" default:"false" model:"Timestamps" doc:"TCP timestamps: 12 bytes per segment, an RTT sample per ACK"`
	SACK          bool     `yaml:"sack" default:"true" model:"SACK" doc:"SACK blocks (RFC 2018) and SACK recovery (RFC 6675); false: NewReno (RFC 6582)"`
	DelayedAck    sim.Time `yaml:"delayed_ack" default:"40us" model:"DelayedAck" doc:"an ACK every second segment (RFC 5681 4.2), a lone one after this (Linux's 40 ms minimum, scaled like min_rto; RFC 1122 4.2.3.2 allows up to 500 ms); 0: every segment; out-of-order, gap-filling and a message's last segment are acknowledged at once"`
	ECN           string   `yaml:"ecn" default:"none" oneof:"none,classic,dctcp" what:"ECN mode" doc:"classic: RFC 3168, halve once per window; dctcp: RFC 8257, g = 1/16"`
	ReceiveWindow int64    `yaml:"receive_window" default:"4MB" model:"ReceiveWindow" doc:"the receiver's window, 2 x mtu to 1GiB (RFC 7323 window scale 14); the default is large enough not to limit one flow"`
	TCPSport      string   `yaml:"tcp_sport" default:"random" oneof:"random,index" what:"TCP source port rule" doc:"the TCP source port, the entropy ECMP hashes: random draws it per connection from the seed, as a host's ephemeral ports differ from boot to boot (RFC 6056), so replications sample other ECMP paths; index hashes the flow's index: the same paths under every seed. In 49152-65535 (RFC 6335)"`
	Handshake     bool     `yaml:"handshake" default:"false" model:"Handshake" doc:"true: SYN, SYN-ACK, ACK, MPA Request and Reply at each flow's start, counted in the FCT and in the ideal FCT; false: a flow starts on an established connection, as a RoCE flow on a connected queue pair"`
}

// maxRcvWindow is RFC 7323's largest window: window scale 14.
const maxRcvWindow = 1 << 30

var _ = hooksFor(nil, nil, transportsAfter)
var _ = hooksFor(roceInit, roceBefore, roceAfter)
var _ = hooksFor(nil, nil, irnAfter)
var _ = hooksFor(nil, nil, timelyAfter)
var _ = hooksFor(nil, nil, swiftAfter)
var _ = hooksFor(iwarpInit, nil, iwarpAfter)
var _ = hooksFor(nil, nil, uetAfter)

// uetAfter checks that paths is a power of two (oblivious spraying walks index XOR a mask).
func uetAfter(r *resolver, path string, c *UETConfig, _ map[string]bool) {
	if c.Paths > 0 && c.Paths&(c.Paths-1) != 0 {
		r.errf(path+".paths", "paths is a power of two from 1 to 16384 (the entropies are index XOR a random mask); got %d", c.Paths)
	}
}

// transportsAfter rejects DCQCN, HPCC, DCTCP, NSCC and per-packet source ports over RoCE v1.
func transportsAfter(r *resolver, _ string, t *Transports, given map[string]bool) {
	if given["rocev1"] && t.RoCEv1.CC == "dcqcn" {
		r.errf("transports.rocev1.cc", "RoCE v1 frames carry no IP header, so no ECN field: DCQCN cannot run over them; use cc: none")
	}
	if given["rocev1"] && t.RoCEv1.CC == "dctcp" {
		r.errf("transports.rocev1.cc", "RoCE v1 frames carry no IP header, so no ECN field: DCTCP cannot run over them; use cc: none, timely or swift")
	}
	if given["rocev1"] && t.RoCEv1.CC == "nscc" {
		r.errf("transports.rocev1.cc", "RoCE v1 frames carry no IP header, so no ECN field: NSCC cannot run over them; use cc: none, timely or swift")
	}
	if given["rocev1"] && t.RoCEv1.CC == "hpcc" {
		r.errf("transports.rocev1.cc", "HPCC's in-band telemetry rides in RoCE v2 (IP/UDP) packets only: it cannot run over RoCE v1; use cc: none")
	}
	if given["rocev1"] && t.RoCEv1.UDPSport == "per_packet" {
		r.errf("transports.rocev1.udp_sport", "RoCE v1 frames have no UDP header, so no source port to spray by: per_packet needs rocev2 (switch.load_balancing: spray sprays any transport)")
	}
}

// roceAfter makes an HPCC responder acknowledge every packet unless ack_interval is given.
func roceAfter(_ *resolver, _ string, c *RoCEConfig, given map[string]bool) {
	if c.CC == "hpcc" && !given["ack_interval"] {
		c.AckInterval = 1
	}
}

func roceInit(c *RoCEConfig) { c.DCQCN, c.DCQCNMode = ecn.PaperParams(), "paper" }

// roceBefore applies dcqcn.mode first: it picks the defaults the other dcqcn fields start
// from. A bad mode is reported by the dcqcn block and leaves the paper's.
func roceBefore(r *resolver, n *yaml.Node, _ string, c *RoCEConfig) {
	m := mapValue(mapValue(n, "dcqcn"), "mode")
	if m == nil || m.Kind != yaml.ScalarNode || isNull(m) {
		return
	}
	c.DCQCNMode, c.DCQCN = m.Value, ecn.PaperParams()
	for _, mode := range dcqcnModes {
		if mode.name == m.Value {
			c.DCQCN = mode.params()
		}
	}
}

// irnAfter checks RTO_high against RTO_low.
func irnAfter(r *resolver, path string, c *IRNConfig, _ map[string]bool) {
	if c.RTOHigh < c.RTOLow {
		r.errf(path+".rto_high", "rto_high (%v) must not be below rto_low (%v)", c.RTOHigh, c.RTOLow)
	}
}

// timelyAfter checks t_high against t_low.
func timelyAfter(r *resolver, path string, c *TIMELYConfig, _ map[string]bool) {
	if c.THigh <= c.TLow {
		r.errf(path+".t_high", "t_high (%v) must be above t_low (%v)", c.THigh, c.TLow)
	}
}

// swiftAfter checks max_mdf below 1, fs_min_cwnd against fs_max_cwnd, max_cwnd against
// min_cwnd, and a given init_cwnd against both.
func swiftAfter(r *resolver, path string, c *SwiftConfig, given map[string]bool) {
	if c.MaxMDF == 1 {
		r.errf(path+".max_mdf", "max_mdf must be below 1: a cut by all of the window leaves none; got 1")
	}
	if c.FSMinCwnd >= c.FSMaxCwnd {
		r.errf(path+".fs_max_cwnd", "fs_max_cwnd (%v) must be above fs_min_cwnd (%v)", c.FSMaxCwnd, c.FSMinCwnd)
	}
	if c.MaxCwnd < c.MinCwnd {
		r.errf(path+".max_cwnd", "max_cwnd (%v) must not be below min_cwnd (%v)", c.MaxCwnd, c.MinCwnd)
	}
	if given["init_cwnd"] && (c.InitCwnd < c.MinCwnd || c.InitCwnd > c.MaxCwnd) {
		r.errf(path+".init_cwnd", "init_cwnd (%v) must be between min_cwnd (%v) and max_cwnd (%v)", c.InitCwnd, c.MinCwnd, c.MaxCwnd)
	}
}

func iwarpInit(c *IWARPConfig) { c.RTOInit, c.MaxRTO = c.MinRTO, 60*c.MinRTO }

// iwarpAfter fills in rto_init and max_rto from min_rto unless given, and checks the three,
// and the receive window against the MTU.
func iwarpAfter(r *resolver, path string, c *IWARPConfig, given map[string]bool) {
	if !given["rto_init"] {
		c.RTOInit = c.MinRTO
	} else if c.RTOInit < c.MinRTO {
		r.errf(path+".rto_init", "rto_init (%v) must not be below min_rto (%v)", c.RTOInit, c.MinRTO)
	}
	if !given["max_rto"] {
		c.MaxRTO = max(60*c.MinRTO, c.RTOInit)
	} else if c.MaxRTO < max(c.MinRTO, c.RTOInit) {
		r.errf(path+".max_rto", "max_rto (%v) must not be below min_rto or rto_init (%v)", c.MaxRTO, max(c.MinRTO, c.RTOInit))
	}
	if given["receive_window"] && (c.ReceiveWindow < 2*int64(c.MTU) || c.ReceiveWindow > maxRcvWindow) {
		r.errf(path+".receive_window", "receive_window is from 2 x mtu (%d bytes) to 1GiB (RFC 7323 window scale 14); got %d bytes", 2*c.MTU, c.ReceiveWindow)
	}
}

func init() {
	shadows[reflect.TypeFor[ecn.Params]()] = reflect.TypeFor[dcqcnSettings]()
	for _, t := range []reflect.Type{reflect.TypeFor[SwitchConfig](), reflect.TypeFor[HostConfig](), reflect.TypeFor[Transports]()} {
		blockOf(t)
	}
}
