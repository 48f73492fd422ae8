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
	// Paused reports that a PAUSE is in force upstream: sent, and no resume since.
	Paused bool
	// An Ingress fills a 64-byte cache line, so that in an array of them that starts on a
	// line (a switch port's, one per class) every class's accounting is one line, not two.
	_ [23]byte
}

// Admit accounts a frame of size bytes that arrived. It reports false when the frame does not
// fit in Xoff + Headroom (the caller drops it as a headroom drop), and whether to pause.
func (in *Ingress) Admit(size int64) (ok bool, act Action) {
	if in.Bytes+size > in.Xoff+in.Headroom {
		return false, None
	}
	in.Bytes += size
	in.Max = max(in.Max, in.Bytes)
	if in.Bytes > in.Xoff && !in.Paused {
		in.Paused = true
		return true, Pause
	}
	return true, None
}

// Release accounts a frame of size bytes that left the switch, and says whether to resume.
func (in *Ingress) Release(size int64) Action {
	in.Bytes -= size
	if in.Paused && in.Bytes <= in.Xon {
		in.Paused = false
		return Resume
	}
	return None
}

// LinkDown forgets that the upstream sender is paused: its link went down, and with it the
// sender's pause timers (IEEE 802.3 annex 31B), so no resume is owed. The count stays: the
// frames are still in the switch.
func (in *Ingress) LinkDown() { in.Paused = false }

// LinkUp reports whether the upstream sender, whose link has come back, must be paused: the
// count is still above XOFF. A PAUSE decided while the link was down (for a frame that was
// already inside the switch) was lost with the link, so this decides afresh.
func (in *Ingress) LinkUp() bool {
	in.Paused = in.Bytes > in.Xoff
	return in.Paused
}
