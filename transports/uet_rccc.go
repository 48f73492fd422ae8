package transports

import (
	"errors"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// RCCC, the Ultra Ethernet transport's receiver-credit congestion control, as uet-htsim
// models it (ultraethernet/uet-htsim 40ccb05, htsim/sim/uec.cpp; cited below by function).
// The sender starts with a speculative credit of maxwnd (1.5 BDP of its base RTT: initRccc,
// startConnection) and spends a packet's wire bytes from it for each packet it sends (in
// uet-htsim a packet's size, payload and its 64-byte header, is what its links carry, so
// credit there is wire bytes too; charged the payload and UET headers alone, a grant at 0.99
// of the line rate let 0.99 x 4,222 / 4,156 = 100.6% of it through); it sends
// while its credit is above zero (can_send_RCCC). Every data packet carries the sender's
// credit target, the credit it wants in all, in 256-byte units (computePullTarget). The
// receiver's NIC has one pull pacer for all the flows it receives (datacenter/main_uec.cpp:
// a UecPullPacer per destination, at 0.99 of the line rate): it serves the flows that want
// credit in turn, granting each at most 4 x the MTU of credit (UecSink::_mtus_per_pull: 4 x
// 4096 bytes, "as per default in UEC spec"; in wire bytes here, so 3.9 full packets) up to
// its target, and waits the time the granted
// bytes take at 0.99 of the line rate before the next grant (UecPullPacer::doNextEvent), so
// the senders together cannot send faster than the receiver's link takes. A flow whose target
// is met moves to the idle list, which gets grants only when no flow wants credit, up to
// maxwnd of credit ahead (slow pulls). The first ACK, NACK or credit ends speculation: what is
// left of the speculative credit is withdrawn (stopSpeculating). When its retransmit timer
// expires, a sender without credit sends a credit request carrying its target, at most once
// per network RTT (rtxTimerExpired, sendRTS), in case the receiver does not know it waits.
//
// SLEEK's out-of-order loss detection runs only with NSCC, as in uet-htsim; under RCCC alone
// a loss is found by a trim's NACK or the retransmit timer.
//
// Where this differs from uet-htsim: its request for credit (an RTS) takes a PSN and is
// acknowledged like data; here it is a PDS control packet, CREDIT_REQ, as the UE
// specification names one (Wireshark's packet-uet.c, PDS_CTL_TYPE_CREDIT_REQ), with no PSN.
// A flow whose receiver has every PSN leaves the pacer's lists (uet-htsim keeps granting it
// slow credit up to maxwnd).

// rcccQuantum is the unit of credit on the wire, bytes (uecpacket.h UEC_PULL_QUANTUM).
const rcccQuantum = 256

// rcccPullPackets is how many MTUs of credit one grant carries at most
// (UecSink::_mtus_per_pull); credit counts wire bytes, so a little less than as many packets.
const rcccPullPackets = 4

// rcccPullRate is the pacer's rate as a fraction of the receiver's line rate
// (main_uec.cpp: UecPullPacer(linkspeed, 0.99, ...)).
const rcccPullRate = 0.99

// rcccIdleGap is the quanta the pacer waits after a grant of nothing (doNextEvent: 1024
// bytes' worth).
const rcccIdleGap = 1024 / rcccQuantum

// RCCC is cc rccc: the receiver's credit, granted by the receiving NIC's pull pacer, which
// stays at the receiver; the sender's hook is its credit (UETConfig.credit), spent as it
// sends. With Window set the sender also runs that scheme's window, and a packet goes when
// both allow (cc nscc+rccc: &UETNSCC{}, uet-htsim's -sender_cc with -receiver_cc); without,
// the sender has no window of its own (noCC).
type RCCC struct {
	Window UETCC
}

func (c *RCCC) checkUET(cfg *UETConfig) error {
	switch c.Window.(type) {
	case nil:
		return nil
	case *RCCC:
		return errors.New("UET cc rccc with rccc as its window: the window is a sender's scheme (nscc or swift)")
	}
	return c.Window.checkUET(cfg)
}

func (c *RCCC) newUETCC(cfg *UETConfig, line sim.Rate, hdr int64) senderCC {
	if c.Window == nil {
		return noCC{}
	}
	return c.Window.newUETCC(cfg, line, hdr)
}

// credit reports whether c's flows run RCCC: the receiver grants credit, each data packet's
// PDS header is a RUD_CC_REQ carrying the credit target.
func (c *UETConfig) credit() bool {
	_, ok := c.CC.(*RCCC)
	return ok
}

// quantaCeil is bytes in credit units, rounded up (quantize_ceil), for either sign.
func quantaCeil(bytes int64) int64 {
	q := bytes / rcccQuantum
	if bytes%rcccQuantum > 0 {
		q++
	}
	return q
}

// rcccSender is a UET sender's credit state.
type rcccSender struct {
	credit      int64 // wire bytes it may still send; at most maxwnd
	frame       int64 // a data packet's wire bytes beyond what the window counts (Ethernet, IPv4, UDP, FCS, preamble, gap)
	pull        int64 // the cumulative credit granted so far, in quanta
	maxwnd      int64 // the configured maxwnd: 1.5 BDP of the base RTT
	speculating bool
	lastRequest sim.Time // when it last asked for credit; -1: never
}

// pullTarget is the cumulative credit, in quanta, the sender asks for now
// (computePullTarget): the wire bytes it has to send, new and again, capped at the window plus
// a packet under a sender window and at maxwnd, less the credit it has; at least a packet while speculating with
// data left; shared among the flows its NIC is sending. A sender holding more credit than it
// needs asks for nothing more: the target is never below what was granted (uet-htsim starts
// both counts at INIT_PULL, 10^8, so that such a target stays above zero and below the
// granted count, where the receiver ignores it).
func (s *UETSender) pullTarget() int64 {
	want := s.backlog() + int64(s.npkts-min(s.highest, s.npkts))*s.rc.frame + s.rtxBytes + int64(s.rtxN)*s.rc.frame
	full := int64(s.mtu) + s.hdr + s.rc.frame
	if s.win != nil {
		cwnd, _ := s.win.window()
		want = min(want, cwnd+cwnd/(int64(s.mtu)+s.hdr)*s.rc.frame+full)
	}
	want = min(want, s.rc.maxwnd) - s.rc.credit
	if s.rc.speculating && want < full && s.backlog() > 0 {
		want = full
	}
	if n := int64(len(s.nic.active[s.priority])); n > 1 {
		want /= n
	}
	return max(quantaCeil(want+s.rc.pull*rcccQuantum), s.rc.pull)
}

// backlog is the bytes of the packets not yet sent once, as the window counts them.
func (s *UETSender) backlog() int64 {
	if s.highest >= s.npkts {
		return 0
	}
	left := s.npkts - s.highest
	return s.flow.Size - s.newBytes + int64(left)*s.hdr
}

// stopSpeculating withdraws what is left of the speculative credit, once.
func (s *UETSender) stopSpeculating() {
	if s.rc.speculating {
		s.rc.speculating = false
		s.rc.credit = min(s.rc.credit, 0)
	}
}

// onCredit takes a CREDIT control packet (processPull, handlePull).
func (s *UETSender) onCredit(now sim.Time, p *topology.Packet) {
	s.stopSpeculating()
	if got := int64(p.UET().Credit); got > s.rc.pull {
		s.rc.credit = min(s.rc.credit+(got-s.rc.pull)*rcccQuantum, s.rc.maxwnd)
		s.rc.pull = got
	}
	if s.hasData() {
		s.nic.activate(now, s)
	}
}

// askForCredit, on a timeout, sends a CREDIT_REQ with the credit target when the sender has
// something to send, no credit, and has not asked within the network's RTT (sendRTS).
func (s *UETSender) askForCredit(now sim.Time) {
	if !s.credit || s.over || s.rc.credit > 0 || s.backlog()+s.rtxBytes == 0 {
		return
	}
	if s.rc.lastRequest >= 0 && now-s.rc.lastRequest < s.networkRTT {
		return
	}
	s.rc.lastRequest = now
	p := s.src.pool.Get(topology.KindCredit)
	s.frame(p, false)
	frames.UETStack(p)
	p.UET().CreditRequest, p.UET().Credit = true, uint32(s.pullTarget())
	p.PSN = s.highest
	p.Priority, p.DSCP = s.cfg.AckPriority, s.cfg.AckPriority<<3
	p.SentAt = now
	p.Seal()
	s.nic.sendControl(now, p)
}

// rcccReceiver is a UET receiver's side of RCCC (UecSink's pull state), in quanta.
type rcccReceiver struct {
	pacer   *pullPacer
	target  int64 // the highest credit target heard (_highest_pull_target)
	granted int64 // the cumulative credit granted (_latest_pull)
	maxwnd  int64 // the sender's configured maxwnd, bytes
	active  bool  // on the pacer's active list (_in_pull)
	idle    bool  // on its idle list (_in_slow_pull)
}

// heard takes a credit target from a data packet, a trimmed header or a credit request
// (handlePullTarget): a higher one puts the flow on the pacer's active list.
func (r *UETReceiver) heard(now sim.Time, target uint32) {
	if !r.rccc {
		return
	}
	if r.rc.pacer == nil {
		r.rc.pacer = r.nic.pullPacer()
	}
	if t := int64(target); t > r.rc.target {
		r.rc.target = t
		r.wantCredit(now)
	}
}

// asked takes a credit target from a sender that is waiting to send (a trimmed packet to
// resend, a credit request): the flow goes on the active list even if the target is not new.
func (r *UETReceiver) asked(now sim.Time, target uint32) {
	r.heard(now, target)
	if r.rc.pacer != nil {
		r.wantCredit(now)
	}
}

// wantCredit puts the flow on the pacer's active list unless it is there.
func (r *UETReceiver) wantCredit(now sim.Time) {
	if !r.rc.active && r.flow.receiverOpen() {
		r.rc.active = true
		r.rc.pacer.request(now, r)
	}
}

// grant makes the CREDIT packet of one grant: up to 4 x the MTU of credit, not beyond the
// target, or extra quanta on a slow pull (UecSink::pull). It returns the packet and the
// quanta granted.
func (r *UETReceiver) grant(now sim.Time, extra int64) (*topology.Packet, int64) {
	if extra == 0 {
		prev := r.rc.granted
		r.rc.granted += rcccPullPackets * int64(r.mtu) / rcccQuantum
		if r.rc.granted > r.rc.target {
			r.rc.granted = max(r.rc.target, prev)
		}
		extra = r.rc.granted - prev
	} else {
		r.rc.granted += extra
	}
	p := r.dst.pool.Get(topology.KindCredit)
	r.frame(p, true)
	frames.UETStack(p)
	p.UET().Credit = uint32(r.rc.granted)
	r.control(p, now)
	p.Seal()
	return p, extra
}

// pullPacer is a receiving NIC's pull pacer (UecPullPacer): it grants credit to the flows
// that ask, in turn, at rcccPullRate of the line rate.
type pullPacer struct {
	nic        *NIC
	perQuantum float64 // picoseconds one quantum takes at the pacer's rate
	active     ring[*UETReceiver]
	idle       ring[*UETReceiver]
	running    bool
}

// pullPacer is the NIC's pull pacer, made on first use.
func (n *NIC) pullPacer() *pullPacer {
	if n.pulls == nil {
		bits := float64(8 * rcccQuantum)
		n.pulls = &pullPacer{nic: n, perQuantum: bits / float64(n.Wire.Params.Rate) * float64(sim.Second) / rcccPullRate}
	}
	return n.pulls
}

func (pp *pullPacer) request(now sim.Time, r *UETReceiver) {
	pp.active.push(r)
	if !pp.running {
		pp.running = true
		pp.nic.at(now, pp, 0, nil)
	}
}

// Handle implements sim.Handler: the next grant (doNextEvent).
func (pp *pullPacer) Handle(now sim.Time, _ int, _ any) {
	var p *topology.Packet
	var extra int64
	for p == nil {
		switch {
		case pp.active.n > 0:
			r := pp.active.pop()
			if !r.flow.receiverOpen() {
				r.rc.active = false
				continue
			}
			p, extra = r.grant(now, 0)
			if r.rc.target > r.rc.granted {
				pp.active.push(r)
			} else { // its target met: on to the idle list
				r.rc.active = false
				if !r.rc.idle {
					r.rc.idle = true
					pp.idle.push(r)
				}
			}
		case pp.idle.n > 0:
			r := pp.idle.pop()
			if !r.flow.receiverOpen() || r.rc.active {
				r.rc.idle = false
				continue
			}
			p, extra = r.grant(now, rcccPullPackets*int64(r.mtu)/rcccQuantum)
			if r.rc.granted-r.rc.target < r.rc.maxwnd/rcccQuantum {
				pp.idle.push(r) // up to maxwnd of speculative credit ahead
			} else {
				r.rc.idle = false
			}
		default:
			pp.running = false
			return
		}
	}
	pp.nic.sendControl(now, p)
	if extra == 0 {
		extra = rcccIdleGap
	}
	pp.nic.at(now+sim.Time(float64(extra)*pp.perQuantum), pp, 0, nil)
}

// ring is a FIFO queue on a growing circular buffer: pushing and popping allocate nothing
// once it has grown to its largest.
type ring[T any] struct {
	buf     []T
	head, n int
}

func (q *ring[T]) push(v T) {
	if q.n == len(q.buf) {
		grown := make([]T, max(2*len(q.buf), 8))
		for k := range q.n {
			grown[k] = q.buf[(q.head+k)%len(q.buf)]
		}
		q.buf, q.head = grown, 0
	}
	q.buf[(q.head+q.n)%len(q.buf)] = v
	q.n++
}

func (q *ring[T]) pop() T {
	v := q.buf[q.head]
	var zero T
	q.buf[q.head] = zero
	q.head = (q.head + 1) % len(q.buf)
	q.n--
	return v
}
