package transports

import (
	"errors"
	"fmt"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// DCTCPParams are cc dctcp's on a RoCE queue pair: DCTCP (RFC 8257) run by the requester over
// a window of packets, on the ECN echo the responder returns in each ACK's BTH BECN bit.
type DCTCPParams struct {
	// G is the gain of alpha's moving average (RFC 8257 section 4.2: 1/16).
	G float64
	// InitCwnd is the window a flow starts with, in packets (RFC 6928's ten segments).
	InitCwnd int
}

func (p *DCTCPParams) check(version int) error {
	if version == 1 {
		return errors.New("DCTCP over RoCE v1: it needs ECN marks, and RoCE v1 frames carry no IP header")
	}
	return p.validate()
}

func (*DCTCPParams) echoesECN() {}

func (p *DCTCPParams) newCC(_ *NIC, _ *RoCEConfig, _ sim.Rate, _ sim.Time, npkts uint32) senderCC {
	return newRoceDCTCP(*p, npkts)
}

func (p *DCTCPParams) validate() error {
	switch {
	case p.G <= 0 || p.G > 1:
		return fmt.Errorf("DCTCP gain g %v: it is in (0, 1]", p.G)
	case p.InitCwnd < 1:
		return fmt.Errorf("DCTCP initial window %d: it is at least one packet", p.InitCwnd)
	}
	return nil
}

// roceDCTCP is cc dctcp on the requester: the TCP sender's DCTCP (dctcp.go, over NewReno's
// window growth) fed by RoCE's ACKs, with a packet as TCP's segment. The requester supplies
// what TCP's sender gives it: the packets each ACK newly acknowledges, its ECN echo, a NAK
// as a loss (one window reduction per window of data, RFC 5681's fast recovery without its
// retransmissions, which go-back-N or IRN does), a retransmit timeout; it obeys the window.
// An ECN echo reduces the window once per window of data (RFC 8257 section 3.3), and, as
// RFC 3168 section 6.1.2 treats it "just as a congestion loss", the window does not grow
// again until that window of data is acknowledged (Linux's CWR state: tcp_may_raise_cwnd).
type roceDCTCP struct {
	win congestionWindow
	cc  dctcp
	// una and nxt are the requester's cumulative acknowledgement and one past the highest
	// PSN sent; recoverAt and cwrEnd end the windows in which a loss, and an ECN echo, have
	// already reduced the window; timeouts counts retransmit timeouts in a row.
	una, nxt          uint32
	recoverAt, cwrEnd uint32
	timeouts          int
}

// newRoceDCTCP returns the DCTCP sender of a flow of npkts packets: the window starts at
// InitCwnd with ssthresh "arbitrarily high" (RFC 5681 section 3.1) and never passes the
// flow's packets.
func newRoceDCTCP(p DCTCPParams, npkts uint32) *roceDCTCP {
	c := &roceDCTCP{win: congestionWindow{cwnd: float64(p.InitCwnd), ssthresh: float64(1 << 40), max: float64(max(npkts, 2))}}
	c.cc = dctcp{newReno: newReno{w: &c.win}, g: p.G, alpha: 1}
	return c
}

func (c *roceDCTCP) start() string          { return "" }
func (c *roceDCTCP) rate() (sim.Rate, bool) { return 0, false }

// windowOpen lets a new packet go while it fits cwnd, and notes when cwnd held the requester
// back (congestionWindow.limited: NewReno grows only a window in use).
func (c *roceDCTCP) windowOpen(flight int64) bool { return c.win.open(flight) }

// sent records the most packets in flight and the highest PSN sent, and asks for an ACK at
// once (the BTH AckReq bit) from each packet in the window's second half. The responder
// coalesces ACKs (ack_interval) and has no delayed-ACK timer: a window below its interval
// would otherwise wait for the retransmit timeout. A cut takes at most half the window
// (alpha <= 1; a loss halves the flight), so after one the packets still in flight that ask
// for ACKs bring the flight below the new window: the flow never stalls for lack of an ACK.
func (c *roceDCTCP) sent(p *topology.Packet, flight int64) {
	c.nxt = max(c.nxt, p.PSN+1)
	c.win.maxOut = max(c.win.maxOut, int64(c.nxt-c.una))
	if 2*float64(flight) >= c.win.cwnd {
		p.IB().AckReq = true
	}
}

// acked takes an ACK or NAK as the TCP sender takes an ACK (tcp_sender.go onAck): alpha
// counts the packets newly acknowledged and the echoed ones; a NAK is a loss, a first one
// per window halving the window; past the window of data a loss or an echo reduced, the
// window grows, and an echo cuts it by alpha/2.
func (c *roceDCTCP) signal(s ccSignal) ccAck {
	switch s.event {
	case ccTimedOut:
		c.timedOut()
		return 0
	case ccNotified:
		return 0
	}
	una, sndNxt := uint32(s.una), uint32(s.next)
	var delivered int64
	if una > c.una {
		delivered, c.una, c.timeouts = int64(una-c.una), una, 0
	}
	c.nxt = max(c.nxt, sndNxt)
	ece := s.ece
	c.cc.acked(delivered, ece, int64(una), int64(c.nxt))
	if w := &c.win; int64(una) >= w.useEnd {
		w.prevLimited, w.prevMaxOut = w.limited, w.maxOut
		w.limited, w.maxOut, w.useEnd = false, int64(c.nxt-una), int64(c.nxt)
	}
	switch {
	case s.event == ccLost && una >= c.recoverAt:
		c.cc.lossDetected(int64(c.nxt - una))
		c.recoverAt, c.cwrEnd = c.nxt, c.nxt // this reduction answers congestion for the window
	case una >= c.recoverAt && una >= c.cwrEnd:
		c.cc.increase(delivered)
		if ece {
			c.cc.congestionExperienced()
			c.cwrEnd = c.nxt
		}
	}
	return ccWindow
}

// timedOut is a retransmit timeout: the window restarts from one packet, ssthresh halves the
// flight on the first of a series (RFC 5681 section 3.1).
func (c *roceDCTCP) timedOut() {
	c.timeouts++
	c.cc.rtoExpired(int64(c.nxt-c.una), c.timeouts == 1)
	c.recoverAt = c.nxt
}

// dctcpEcho is DCTCP's receiver (RFC 8257 section 3.2) on a data packet's arrival, ce its
// CE mark: when the mark differs from the previous packet's, the packets acknowledged so far
// get an ACK at once that echoes the previous state, so that the requester counts exactly
// the marked packets whatever the ACK coalescing.
func (r *RoCEReceiver) dctcpEcho(now sim.Time, ce bool) {
	if ce != r.ce && r.sinceAck > 0 && r.ePSN > 0 {
		r.ack(now, topology.SyndromeACK, r.ePSN-1)
	}
	r.ce = ce
}

// DCTCPOf is flow i's DCTCP window (packets) and alpha, and false for a flow without cc
// dctcp.
func (r *Registry) DCTCPOf(i int32) (cwnd, alpha float64, ok bool) {
	if s, ok := r.senders[i].(*RoCESender); ok {
		if c, ok := s.cc.(*roceDCTCP); ok {
			return c.win.cwnd, c.cc.alpha, true
		}
	}
	return 0, 0, false
}
