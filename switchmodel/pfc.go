package switchmodel

import (
	"github.com/fabricsim/fabricsim/pfc"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// PFCConfig configures priority flow control (IEEE 802.1Qbb) on a switch.
type PFCConfig struct {
	// Lossless marks the classes under PFC; the others are lossy.
	Lossless [NumPriorities]bool
	// Ports holds each port's thresholds (XOFF, XON, headroom), by port index.
	Ports []pfc.Thresholds
	// Response is, by port index, how long the switch takes to stop sending on that port
	// after a PAUSE arrives there.
	Response []sim.Time
	// Quanta is the pause time of each PAUSE the switch sends (refreshed while the condition
	// lasts, see pfc.RefreshInterval); at least pfc.MinQuanta of MaxFrameWire; 0 is the most.
	Quanta uint16
	// MaxFrameWire is the largest frame the switch forwards, in bytes on the wire: a refresh
	// may wait behind one (0: it waits behind none).
	MaxFrameWire int64
	// Dynamic makes XOFF dynamic, as shared-buffer switches compute it: a port-class pauses
	// its sender when its count goes above Alpha x the free shared buffer (pfc.DynamicXoff),
	// the shared buffer being Shared bytes less every frame in the switch; it resumes at or
	// below that threshold less XonOffset (pfc.DynamicXon). The thresholds' Xoff and Xon are
	// then unused by the datapath; the headroom stays per port-class.
	Dynamic   bool
	Alpha     float64
	Shared    int64
	XonOffset int64
	// Watchdog, when positive: an egress queue paused that long without a break is flushed
	// (its frames are dropped as watchdog drops), as switch PFC watchdogs break pause storms.
	Watchdog sim.Time
}

// losslessPort is what the switch's datapath asks of priority flow control, port by port,
// as htsim's lossless input and output queues split it: on the port a lossless frame came
// in by, admit it (XOFF/headroom accounting, pausing the upstream sender) and release it
// when it leaves the switch (resuming the sender at XON); on a port a PAUSE arrived at,
// apply it; on an egress port, whether a class may start a frame, and whether the watchdog
// is discarding a class. *Port implements it in this file, with the PAUSE sending, refresh
// and watchdog behind it. The datapath calls these methods on *Port directly, never through
// an interface value, so the per-frame path has no dynamic call.
type losslessPort interface {
	admit(now sim.Time, c uint8, size int64) bool
	release(now sim.Time, c int, size int64)
	receivePause(now sim.Time, p *topology.Packet)
	paused(now sim.Time, c int) bool
	discarding(c uint8) bool
}

var _ losslessPort = (*Port)(nil)

// portPFC is a port's priority flow control state, both sides: the accounting of the frames
// that came in on the port, and the pause state of its sending side.
type portPFC struct {
	// Ingress is the accounting of frames that came in on this port, by class.
	Ingress [NumPriorities]pfc.Ingress
	// Pause is the pause state of this port's sending side.
	Pause pfc.Egress
	// control holds the PAUSE frames waiting to go out, ahead of all data.
	control topology.Queue
	// PausesSent and ResumesSent count the PFC frames this port sent upstream, by class.
	PausesSent, ResumesSent [NumPriorities]int64
	watchOn                 [NumPriorities]bool // a watchdog check is pending for the class
	response                sim.Time
	refreshLead             sim.Time // the longest a PAUSE may wait to go out (pfc.RefreshLead)
	// refreshAt is when the refresh timer of each class runs out, 0 when it is stopped: a
	// timer event that finds another time here was superseded.
	refreshAt [NumPriorities]sim.Time
}

// configurePFC gives the port its thresholds and response time from c.
func (pt *Port) configurePFC(c *PFCConfig) {
	if i := pt.Index; i < len(c.Ports) {
		for k := range pt.Ingress {
			pt.Ingress[k].Thresholds = c.Ports[i]
		}
	}
	if i := pt.Index; i < len(c.Response) {
		pt.response = c.Response[i]
	}
}

// admit accounts a lossless frame of class c and size bytes that came in on this port. It
// reports false when the frame does not fit in XOFF + headroom (a headroom drop); when the
// frame takes the count above XOFF, the port pauses its upstream sender.
func (pt *Port) admit(now sim.Time, c uint8, size int64) bool {
	in := &pt.Ingress[c]
	before := in.InHeadroom()
	ok, act := in.Admit(size, pt.xoff(c))
	pt.sw.headroomUsed += in.InHeadroom() - before
	if act == pfc.Pause {
		pt.sendPause(now, int(c), pt.sw.cfg.PFC.Quanta)
	}
	return ok
}

// release accounts a lossless frame of class c and size bytes that came in on this port and
// has left the switch; at XON the port resumes its upstream sender.
func (pt *Port) release(now sim.Time, c int, size int64) {
	in := &pt.Ingress[c]
	before := in.InHeadroom()
	act := in.Release(size, pt.xon(c))
	pt.sw.headroomUsed += in.InHeadroom() - before
	if act == pfc.Resume {
		pt.sendPause(now, c, 0)
	}
}

// xoff is the XOFF threshold in force now for class c of this port: static, or dynamic.
func (pt *Port) xoff(c uint8) int64 {
	if p := &pt.sw.cfg.PFC; p.Dynamic {
		return pfc.DynamicXoff(p.Alpha, pt.sw.sharedFree())
	}
	return pt.Ingress[c].Xoff
}

// xon is the XON threshold in force now for class c of this port: static, or dynamic.
func (pt *Port) xon(c int) int64 {
	if p := &pt.sw.cfg.PFC; p.Dynamic {
		return pfc.DynamicXon(pfc.DynamicXoff(p.Alpha, pt.sw.sharedFree()), p.XonOffset)
	}
	return pt.Ingress[c].Xon
}

// sharedFree is the free shared buffer a dynamic XOFF divides: the shared buffer less the
// frames held in it, those in the port-classes' headroom not counted (the headroom is a
// buffer of its own, SAI_BUFFER_PROFILE_ATTR_XOFF_TH in opencomputeproject/SAI
// inc/saibuffer.h; the HPCC authors' switch-mmu.cc counts shared and headroom bytes apart).
func (sw *Switch) sharedFree() int64 {
	return sw.cfg.PFC.Shared - (sw.BufferUsed - sw.headroomUsed)
}

// paused reports whether class c may not start a frame on this port at now.
func (pt *Port) paused(now sim.Time, c int) bool {
	return now < pt.pausedUntil && pt.Pause.Paused(now, c)
}

// discarding reports whether the watchdog drops what arrives for class c on this port.
func (pt *Port) discarding(c uint8) bool { return pt.storm&(1<<c) != 0 }

// wakeAtPauseEnd arranges a kick when the earliest pause of a non-empty class ends.
func (pt *Port) wakeAtPauseEnd(now sim.Time) {
	t := sim.Never
	for c := range pt.Queues {
		if pt.Queues[c].Len > 0 && pt.Pause.Paused(now, c) {
			t = min(t, pt.Pause.Until(now, c))
		}
	}
	if t < pt.wakeAt {
		pt.wakeAt = t
		pt.sw.eng.AtLane(pt.sw.lane, t, pt, portOp(evWake, 0), nil)
	}
}

// sendPause queues a PFC frame for class c on this port, to the upstream sender; quanta 0
// resumes it. Each PAUSE (re)starts the class's refresh timer, and a resume stops it, as a
// switch keeps one refresh timer per priority: while the class stays paused, the PAUSE goes
// out again one refresh interval after the last one, so the sender never resumes by expiry,
// and a PAUSE that follows a resume is refreshed from its own time, not the earlier one's.
func (pt *Port) sendPause(now sim.Time, c int, quanta uint16) {
	pt.refreshAt[c] = 0
	if quanta > 0 {
		pt.refreshAt[c] = now + pfc.RefreshInterval(quanta, pt.Wire.Params.Rate, pt.refreshLead)
		pt.sw.eng.AtLane(pt.sw.lane, pt.refreshAt[c], pt, portOp(evRefresh, c), nil)
	}
	pt.InjectPause(now, c, quanta)
}

// refresh is the refresh timer of class c: the PAUSE goes out again if the class is still
// above XON. A timer restarted or stopped since it was set is ignored.
func (pt *Port) refresh(now sim.Time, c int) {
	if now != pt.refreshAt[c] {
		return
	}
	pt.refreshAt[c] = 0
	if pt.Ingress[c].Paused {
		pt.sendPause(now, c, pt.sw.cfg.PFC.Quanta)
	}
}

// InjectPause queues one PFC frame for class c on this port, outside the PFC accounting (a
// fault: nothing refreshes or resumes it); quanta 0 resumes the class.
func (pt *Port) InjectPause(now sim.Time, c int, quanta uint16) {
	p := pt.sw.pool.Get(topology.KindPause)
	pfc.FillFrame(p, c, quanta)
	p.Src, p.Dst = pt.sw.ID, pt.Wire.To
	p.SentAt = now
	pt.control.Push(now, p)
	pt.ctrl++
	if quanta == 0 {
		pt.ResumesSent[c]++
	} else {
		pt.PausesSent[c]++
	}
	pt.kick(now)
}

// linkChanged resets the port's PFC state when its link goes down, both ways, as a MAC
// resets its MAC Control sublayer on loss of link (IEEE 802.3 annex 31B): the pauses the
// port received end, so its queues no longer wait for them; the upstream sender, whose own
// pause timers were reset, is no longer paused, so no resume is owed and no refresh is
// sent. When the link comes back, each lossless class still above XOFF pauses the sender
// again.
func (pt *Port) linkChanged(now sim.Time, up bool) {
	if !up {
		pt.Pause.Clear(now)
		pt.pausedUntil = pt.Pause.End()
	}
	for c := range pt.Ingress {
		if !pt.sw.lossless[c] {
			continue
		}
		in := &pt.Ingress[c]
		before := in.InHeadroom()
		pause := false
		if up {
			pause = in.LinkUp(pt.xoff(uint8(c)))
		} else {
			in.LinkDown()
			pt.refreshAt[c] = 0
		}
		pt.sw.headroomUsed += in.InHeadroom() - before
		if pause {
			pt.sendPause(now, c, pt.sw.cfg.PFC.Quanta)
		}
	}
	pt.kick(now)
}

// ControlCount is the number of PFC frames of kind k waiting to go out (for audits).
func (pt *Port) ControlCount(k topology.Kind) int64 { return pt.control.Count(k) }

// receivePause applies a PFC frame that arrived on this port to its sending side. Classes
// without PFC ignore it: IEEE 802.1Qbb enables PFC per priority.
func (pt *Port) receivePause(now sim.Time, p *topology.Packet) {
	pf := p.Pause()
	for c := 0; c < NumPriorities; c++ {
		if pf.Enable&(1<<c) == 0 || !pt.sw.lossless[c] {
			continue
		}
		pt.Pause.Receive(now, c, pf.Quanta[c], pt.Wire.Params.Rate, pt.response)
		if pf.Quanta[c] > 0 && pt.sw.cfg.PFC.Watchdog > 0 && !pt.watchOn[c] {
			pt.watchOn[c] = true
			pt.sw.eng.AtLane(pt.sw.lane, now+pt.response+pt.sw.cfg.PFC.Watchdog, pt, portOp(evWatch, c), nil)
		}
	}
	pt.pausedUntil = pt.Pause.End()
	pt.kick(now) // a resume may free a class; a pause is honoured at the next frame boundary
}

// watchdog flushes queue c if it has been paused, without a break, for the watchdog time:
// its frames are dropped (watchdog drops), which frees the buffer they held upstream's pause
// depends on, and so breaks a pause storm or deadlock. If the class is paused but for less
// time, the check comes back when it would be due.
func (pt *Port) watchdog(now sim.Time, c int) {
	pt.watchOn[c] = false
	since := pt.Pause.PausedSince(now, c)
	if since == sim.Never {
		pt.storm &^= 1 << c // the pause is over: the class is restored
		return
	}
	if due := since + pt.sw.cfg.PFC.Watchdog; now < due {
		pt.watchOn[c] = true
		pt.sw.eng.AtLane(pt.sw.lane, due, pt, portOp(evWatch, c), nil)
		return
	}
	// A pause storm: drop what the queue holds, and (in enqueue) what arrives for it, until
	// the pause ends, as switch PFC watchdogs do in their drop mode. The check comes back at
	// the end of the pause to restore the class.
	pt.storm |= 1 << c
	pt.flush(now, c)
	pt.watchOn[c] = true
	pt.sw.eng.AtLane(pt.sw.lane, max(pt.Pause.Until(now, c), now+1), pt, portOp(evWatch, c), nil)
}

// flush drops every frame of queue c as a watchdog drop, releasing its buffer and ingress
// accounting (which may resume the upstream senders).
func (pt *Port) flush(now sim.Time, c int) {
	sw := pt.sw
	pt.backlog &^= 1 << c
	for pt.Queues[c].Len > 0 {
		p := pt.Queues[c].Pop(now)
		pt.queued--
		size := int64(p.Frame)
		sw.BufferUsed -= size
		if sw.lossless[c] {
			sw.Ports[p.InPort].release(now, c, size)
		}
		sw.drop(p, DropWatchdog, pt)
	}
}

// classes is the number of lossless classes.
func (c *PFCConfig) classes() int {
	n := 0
	for _, l := range c.Lossless {
		if l {
			n++
		}
	}
	return n
}
