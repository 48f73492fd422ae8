package transports

import (
	"fmt"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// TCPECN is how an iWARP connection uses ECN.
type TCPECN uint8

// ECN modes of an iWARP connection.
const (
	// ECNOff: data is not ECN-capable (Not-ECT): switches never mark it, and only losses
	// (buffer overflow, random loss) slow the sender.
	ECNOff TCPECN = iota
	// ECNClassic is RFC 3168: ECT(0) on new data, the receiver echoes CE with ECE on every ACK
	// until a segment with CWR arrives, and the sender halves cwnd at most once per window.
	ECNClassic
	// ECNDCTCP is RFC 8257: the receiver echoes each segment's CE exactly (ECE follows the CE
	// state, with an immediate ACK when it changes), and the sender keeps alpha, the EWMA of
	// the fraction of marked bytes per window (gain g), and cuts cwnd by alpha/2 once per window.
	ECNDCTCP
)

// IWARPConfig is the configuration of an iWARP connection: RDMAP/DDP/MPA over TCP.
type IWARPConfig struct {
	// MTU is the IPv4 MTU. The MSS is MTU - 40, less 12 with timestamps; each segment carries
	// one FPDU (see frames.Layout).
	MTU int
	// Markers turns on MPA markers (RFC 5044): 4 bytes every 512 bytes of TCP sequence space.
	Markers bool
	// Timestamps puts the RFC 7323 timestamps option on every segment (12 bytes); RTT is then
	// sampled on every ACK that acknowledges new data, else on one segment per round trip.
	Timestamps bool
	// SACK turns on selective acknowledgements (RFC 2018) and SACK-based loss recovery
	// (RFC 6675); without it the sender runs NewReno (RFC 6582).
	SACK bool
	// InitCwnd is the initial window in segments (RFC 6928: 10).
	InitCwnd int
	// MinRTO, InitialRTO and MaxRTO bound the retransmission timeout of RFC 6298: the RTO
	// before any RTT sample is InitialRTO, it never goes below MinRTO, and back-off doubles it
	// up to MaxRTO.
	MinRTO, InitialRTO, MaxRTO sim.Time
	// Retries is how many retransmission timeouts in a row, without progress, the sender
	// takes before the flow fails (Linux tcp_retries2: 15).
	Retries int
	// DelayedAck is the longest the receiver holds an ACK: it acknowledges every second
	// segment at once (RFC 5681 section 4.2), and a lone segment when this time has passed.
	// 0 acknowledges every segment at once.
	DelayedAck sim.Time
	// ReceiveWindow is the receiver's window in bytes (advertised with window scaling).
	ReceiveWindow int64
	// NICDelay is the offload NIC's processing time per received segment: each one reaches
	// TCP this long after its last bit arrived. It adds latency, not a rate limit: segments
	// are processed in a pipeline.
	NICDelay sim.Time
	// Handshake runs the connection set-up at the flow's start: SYN, SYN-ACK, ACK, then the
	// MPA Request and Reply; the first FPDU follows the Reply. Without it the flow starts on
	// an established connection, as a RoCE flow starts on a connected queue pair.
	Handshake bool
	// ECN is the ECN mode; DCTCPGain the alpha gain of ECNDCTCP (0: DCTCPGain).
	ECN       TCPECN
	DCTCPGain float64
	// CC is the congestion control (tcp_cc.go): nil or *NewReno, whose ECE response the ECN
	// mode chooses.
	CC TCPCC
	// SourcePort is how the connection's TCP source port is chosen (0: SourcePortRandom).
	SourcePort SourcePort
}

// MSS is the connection's maximum segment size.
func (c IWARPConfig) MSS() int64 { return frames.TCPMSS(c.MTU, c.Timestamps) }

// DDPPayload is the DDP payload of a full FPDU: application bytes per segment.
func (c IWARPConfig) DDPPayload() int64 { return frames.DDPPayload(c.MSS(), c.Markers) }

// Validate reports the first value of c that a connection cannot run with, as etcd raft's
// Config.validate does for a node; nil when there is none. It checks what the transport needs,
// not what a scenario allows.
func (c *IWARPConfig) Validate() error {
	switch {
	case c.MTU < topology.IPv4Header+topology.TCPHeader || c.DDPPayload() < topology.MPAAlignment:
		return fmt.Errorf("iWARP MTU %d: it leaves no room for an FPDU's DDP payload (MSS %d)", c.MTU, max(c.MSS(), 0))
	case c.InitCwnd < 1:
		return fmt.Errorf("TCP initial window %d: it is at least one segment", c.InitCwnd)
	case c.MinRTO <= 0 || c.InitialRTO <= 0:
		return fmt.Errorf("TCP minimum RTO %v and initial RTO %v: both must be positive", c.MinRTO, c.InitialRTO)
	case c.MaxRTO < max(c.MinRTO, c.InitialRTO):
		return fmt.Errorf("TCP maximum RTO %v: it is below the minimum or initial RTO", c.MaxRTO)
	case c.Retries < 0:
		return fmt.Errorf("TCP retries %d: it must not be negative", c.Retries)
	case c.DelayedAck < 0 || c.NICDelay < 0:
		return fmt.Errorf("delayed ACK %v and NIC delay %v: neither may be negative", c.DelayedAck, c.NICDelay)
	case c.ReceiveWindow < c.MSS():
		return fmt.Errorf("TCP receive window %d bytes: it must hold a segment of %d", c.ReceiveWindow, c.MSS())
	case c.ECN > ECNDCTCP:
		return fmt.Errorf("ECN mode %d: it is off, classic or DCTCP", c.ECN)
	case c.SourcePort > SourcePortQPN:
		return fmt.Errorf("source port rule %d: it is random or index", c.SourcePort)
	case c.DCTCPGain < 0 || c.DCTCPGain > 1:
		return fmt.Errorf("DCTCP gain %v: it is in (0, 1], or 0 for the default", c.DCTCPGain)
	case c.CC != nil:
		return c.CC.checkTCP(c)
	}
	return nil
}

// StartIWARP creates the iWARP connection of flow i from NIC src to NIC dst and schedules its
// start; cross says whether the hosts are in different subnets (iWARP is IP: it is routed).
// When the configuration, the flow or a NIC is one the connection cannot run with, it returns
// why and ends the flow as failed, without setting up endpoints.
func (r *Registry) StartIWARP(i int32, src, dst *NIC, cross bool, cfg IWARPConfig) error {
	f := r.Flows[i]
	if err := r.checkStart(f, src, dst, cfg.Validate()); err != nil {
		return r.refuse(i, err)
	}
	if cfg.DCTCPGain == 0 {
		cfg.DCTCPGain = DCTCPGain
	}
	c := tcpConn{reg: r, flow: f, index: i, src: src, dst: dst, cross: cross, sport: r.tcpSourcePort(cfg.SourcePort, i),
		lay: frames.NewLayout(cfg.MTU, cfg.Timestamps, cfg.Markers, f.Size), cfg: cfg, maxBlocks: topology.TCPMaxSACKs}
	if cfg.Timestamps {
		c.maxBlocks = (topology.TCPOptionsMax - topology.TCPTimestamps - topology.TCPSACKBase) / topology.TCPSACKBlock
	}
	c.dataHash = topology.FlowHash(src.IP, dst.IP, topology.IPProtoTCP, c.sport, topology.TCPPortIWARP)
	c.ackHash = topology.FlowHash(dst.IP, src.IP, topology.IPProtoTCP, topology.TCPPortIWARP, c.sport)
	// Initial sequence numbers from a hash of the 4-tuple, in the spirit of RFC 6528.
	c.isn = topology.FlowHash(src.IP, dst.IP, 0, c.sport, topology.TCPPortIWARP)
	c.irs = topology.FlowHash(dst.IP, src.IP, 0, topology.TCPPortIWARP, c.sport)
	if cfg.Handshake {
		c.base, c.rlen = 1+frames.MPAFrameLen, 1+frames.MPAFrameLen
	}
	// The scoreboard holds every segment the receive window lets be outstanding.
	minSeg := max(c.lay.FullFPDU(), 1)
	s := &IWARPSender{tcpConn: c, sb: newScoreboard(cfg.ReceiveWindow/minSeg + 2), rto: cfg.InitialRTO}
	s.cc = s.newCC(float64(cfg.InitCwnd))
	s.rec = newLossRecovery(s)
	s.timer = newAlarm(src, s, tcpOpTimer)
	if f.Persistent {
		s.stream = &tcpStream{}
	}
	rcv := &IWARPReceiver{tcpConn: c}
	rcv.ackTimer = newAlarm(dst, rcv, tcpOpDelAck)
	r.senders[i] = s
	s.slot().dst = dst.ID
	r.receivers[i] = rcv
	src.at(f.Start, s, tcpOpStart, nil)
	return nil
}

// newCC is the connection's congestion control (tcpCC), its window starting at cwnd
// segments and bounded by what the receive window lets be in flight.
func (s *IWARPSender) newCC(cwnd float64) senderCC {
	minSeg := max(s.lay.FullFPDU(), 1)
	cc := s.cfg.CC
	if cc == nil {
		cc = &NewReno{}
	}
	return cc.newTCPCC(&s.cfg, cwnd, float64(max(s.cfg.ReceiveWindow/minSeg, int64(s.cfg.InitCwnd), 2)))
}

// Handler operations of the iWARP endpoints.
const (
	tcpOpStart  = iota // the flow starts
	tcpOpTimer         // the sender's retransmission timer
	tcpOpRx            // a received segment leaves the NIC's pipeline for TCP
	tcpOpDelAck        // the receiver's delayed-ACK timer
)

// TCPStats is what an iWARP sender reports about its TCP, like Linux's TCP_INFO.
type TCPStats struct {
	Cwnd, Ssthresh  float64  // segments
	SRTT, RTTVar    sim.Time // 0 before the first sample
	RTO             sim.Time
	Alpha           float64 // DCTCP's alpha; 0 for other congestion control
	FastRecoveries  int64   // entries into fast recovery
	Timeouts        int64   // retransmission timeouts (handshake ones included)
	ECNReductions   int64   // window reductions for ECE
	SegmentsSent    int64   // FPDUs sent, retransmissions included
	Retransmissions int64   // FPDUs sent again
	Established     sim.Time
}

// TCPStats returns the TCP state of flow i's sender, if it is an iWARP flow.
func (r *Registry) TCPStats(i int32) (TCPStats, bool) {
	s, ok := r.senders[i].(*IWARPSender)
	if !ok {
		return TCPStats{}, false
	}
	st := s.stats
	st.RTO = s.rto
	if c, ok := s.cc.(*tcpCC); ok {
		st.Cwnd, st.Ssthresh = c.win.cwnd, c.win.ssthresh
		if d, ok := c.alg.(*dctcp); ok {
			st.Alpha = d.alpha
		}
	}
	if s.rtt.valid {
		st.SRTT, st.RTTVar = s.rtt.srtt, s.rtt.rttvar
	}
	return st, true
}

// AckHash is the ECMP hash of flow i's reverse direction, for an iWARP or RoCE flow.
func (r *Registry) AckHash(i int32) (uint32, bool) {
	switch s := r.senders[i].(type) {
	case *IWARPSender:
		return s.ackHash, true
	case *RoCESender:
		return s.ackHash, true
	case *UETSender:
		return s.ackHash, true
	}
	return 0, false
}
