package pfc

// Thresholds are the PFC settings of one lossless (ingress port, priority), in bytes of
// frames buffered from that port in that class.
type Thresholds struct {
	// Xoff: when the buffered bytes exceed it, the switch pauses the upstream sender.
	Xoff int64
	// Xon: when they fall to it or below, the switch resumes the sender. Xon < Xoff.
	Xon int64
	// Headroom is the room above Xoff for what is still in flight after the PAUSE; a frame
	// that would take the count above Xoff + Headroom is dropped (a headroom drop).
	Headroom int64
}

// Action is what the ingress accounting asks its switch to do upstream.
type Action uint8

// Actions.
const (
	None   Action = iota
	Pause         // send PAUSE for this class on this port
	Resume        // send PAUSE with zero quanta
)

// Ingress is the PFC accounting of one lossless (ingress port, priority): the bytes of the
// frames that arrived there and are still in the switch, and whether the upstream sender is
// paused. It is a pure state machine: the switch calls Admit when a frame arrives and Release
// when it leaves, and acts on the returned Action.
type Ingress struct {
	Thresholds
	// Bytes buffered from this port in this class.
	Bytes int64
	// Max is the most ever buffered: Max - Xoff is the measured overshoot into headroom.
	Max int64
	// Limit is where the headroom starts while the sender is paused: the XOFF in force when
	// it was paused, or the count then if that was higher.
	Limit int64
	// Paused reports that a PAUSE is in force upstream: sent, and no resume since.
	Paused bool
	// An Ingress fills a 64-byte cache line, so that in an array of them that starts on a
	// line (a switch port's, one per class) every class's accounting is one line, not two.
	_ [15]byte
}

// Admit accounts a frame of size bytes that arrived, against the XOFF threshold xoff in force
// now: Xoff for a static threshold, alpha x the free shared buffer for a dynamic one
// (DynamicXoff). It reports false when the frame does not fit in the headroom, and whether to
// pause. The headroom holds what arrives once the count is above XOFF: it starts at XOFF, or
// at the count, if a dynamic XOFF has fallen below what the port-class already held (those
// bytes were admitted to the shared buffer while the threshold was higher), and stays there
// while the sender is paused (Limit). The caller drops a frame that does not fit as a
// headroom drop.
func (in *Ingress) Admit(size, xoff int64) (ok bool, act Action) {
	limit := max(xoff, in.Bytes)
	if in.Paused {
		limit = in.Limit
	}
	if in.Bytes+size > limit+in.Headroom {
		return false, None
	}
	if in.Bytes+size > xoff && !in.Paused {
		in.Paused, in.Limit = true, limit
		in.Bytes += size
		in.Max = max(in.Max, in.Bytes)
		return true, Pause
	}
	in.Bytes += size
	in.Max = max(in.Max, in.Bytes)
	return true, None
}

// Release accounts a frame of size bytes that left the switch, and says whether to resume:
// at or below xon, the XON threshold in force now (Xon, or DynamicXon).
func (in *Ingress) Release(size, xon int64) Action {
	in.Bytes -= size
	if in.Paused && in.Bytes <= xon {
		in.Paused = false
		return Resume
	}
	return None
}

// InHeadroom is the bytes the port-class holds in its headroom: above Limit while the sender
// is paused.
func (in *Ingress) InHeadroom() int64 {
	if !in.Paused {
		return 0
	}
	return max(in.Bytes-in.Limit, 0)
}

// DynamicXoff is the dynamic XOFF threshold of shared-buffer switches (Broadcom's MMU,
// SONiC's dynamic_th, SAI's SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH in
// opencomputeproject/SAI inc/saibuffer.h: "the threshold is set to the 2^n of available
// buffer of the pool"): alpha x the free shared buffer, none below zero.
func DynamicXoff(alpha float64, free int64) int64 {
	return int64(alpha * float64(max(free, 0)))
}

// DynamicXon is the XON threshold that goes with a dynamic XOFF: xoff less the hysteresis
// offset, never below zero (SAI_BUFFER_PROFILE_ATTR_XON_OFFSET_TH, opencomputeproject/SAI
// inc/saibuffer.h: XON when "total buffer usage <= max(XON_TH, total buffer limit -
// XON_OFFSET_TH)", with XON_TH 0).
func DynamicXon(xoff, offset int64) int64 { return max(xoff-offset, 0) }

// LinkDown forgets that the upstream sender is paused: its link went down, and with it the
// sender's pause timers (IEEE 802.3 annex 31B), so no resume is owed. The count stays: the
// frames are still in the switch.
func (in *Ingress) LinkDown() { in.Paused = false }

// LinkUp reports whether the upstream sender, whose link has come back, must be paused: the
// count is still above xoff, the XOFF in force now. A PAUSE decided while the link was down (for a frame that was
// already inside the switch) was lost with the link, so this decides afresh.
func (in *Ingress) LinkUp(xoff int64) bool {
	in.Paused, in.Limit = in.Bytes > xoff, max(xoff, in.Bytes)
	return in.Paused
}
