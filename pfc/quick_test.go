package pfc

import (
	"math/rand"
	"reflect"
	"testing"
	"testing/quick"

	"github.com/fabricsim/fabricsim/sim"
)

// ingressHistory is a random life of one lossless (port, class): thresholds, and frames that
// arrive and leave (a leave takes one of the frames admitted and not yet left).
type ingressHistory struct {
	Th     Thresholds
	Events []ingressEvent
}

type ingressEvent struct {
	Admit bool
	Size  int64 // for an admit
	Pick  int   // for a release: which of the frames in the switch leaves
}

// Generate implements quick.Generator.
func (ingressHistory) Generate(r *rand.Rand, size int) reflect.Value {
	xoff := int64(r.Intn(20_000))
	h := ingressHistory{Th: Thresholds{Xoff: xoff, Xon: int64(r.Intn(int(xoff) + 1)), Headroom: int64(r.Intn(10_000))}}
	for range 1 + r.Intn(4*size+1) {
		h.Events = append(h.Events, ingressEvent{Admit: r.Intn(3) > 0, Size: 64 + int64(r.Intn(4000)), Pick: r.Int()})
	}
	return reflect.ValueOf(h)
}

// ingressLevels is the reference model of Ingress: it replays the history keeping only the
// list of frames in the switch, and reports after each event whether the frame was admitted
// and the bytes then buffered.
func ingressLevels(h ingressHistory) (admitted []bool, levels []int64) {
	var in []int64
	var level int64
	for _, e := range h.Events {
		ok := false
		switch {
		case e.Admit && level+e.Size <= h.Th.Xoff+h.Th.Headroom:
			in, level, ok = append(in, e.Size), level+e.Size, true
		case !e.Admit && len(in) > 0:
			i := e.Pick % len(in)
			level -= in[i]
			in = append(in[:i], in[i+1:]...)
		}
		admitted, levels = append(admitted, ok), append(levels, level)
	}
	return admitted, levels
}

// pausedAfter is the reference's pause state after event k, recomputed from the whole
// history: the sender is paused when, in the latest run of events that all left the count
// above XON, some event took it above XOFF.
func pausedAfter(h ingressHistory, levels []int64, k int) bool {
	for j := k; j >= 0 && levels[j] > h.Th.Xon; j-- {
		if levels[j] > h.Th.Xoff {
			return true
		}
	}
	return false
}

func TestIngressMatchesReference(t *testing.T) {
	check := func(h ingressHistory) bool {
		admitted, levels := ingressLevels(h)
		in := Ingress{Thresholds: h.Th}
		var frames []int64
		var most int64
		for k, e := range h.Events {
			var act Action
			if e.Admit {
				var ok bool
				ok, act = in.Admit(e.Size, in.Xoff)
				if ok != admitted[k] {
					t.Logf("event %d: admit %d: got %v, reference %v", k, e.Size, ok, admitted[k])
					return false
				}
				if ok {
					frames = append(frames, e.Size)
				}
			} else if len(frames) > 0 {
				i := e.Pick % len(frames)
				act = in.Release(frames[i], in.Xon)
				frames = append(frames[:i], frames[i+1:]...)
			}
			most = max(most, levels[k])
			was, now := k > 0 && pausedAfter(h, levels, k-1), pausedAfter(h, levels, k)
			want := None
			switch {
			case now && !was:
				want = Pause
			case was && !now:
				want = Resume
			}
			if in.Bytes != levels[k] || in.Paused != now || act != want || in.Max != most {
				t.Logf("event %d %+v: bytes %d paused %v action %v max %d; reference %d %v %v %d",
					k, e, in.Bytes, in.Paused, act, in.Max, levels[k], now, want, most)
				return false
			}
		}
		return true
	}
	if err := quick.Check(check, &quick.Config{MaxCount: 2000}); err != nil {
		t.Fatal(err)
	}
}

// egressHistory is a random sequence of PFC frames arriving at one sending port, in time
// order, for two classes, with the port's response time.
type egressHistory struct {
	Response sim.Time
	Frames   []egressFrame
}

type egressFrame struct {
	At     sim.Time
	Class  int
	Quanta uint16
}

// Generate implements quick.Generator. Pauses are short (1 to 100 quanta) and frames up to
// 60 quanta apart, so that frames often arrive during, between and after pauses; half the
// histories have a response time, of up to 60 quanta.
func (egressHistory) Generate(r *rand.Rand, size int) reflect.Value {
	h := egressHistory{}
	if r.Intn(2) == 0 {
		h.Response = sim.Time(r.Intn(int(PauseDuration(60, egressRate))))
	}
	var at sim.Time
	for range 1 + r.Intn(2*size+1) {
		at += sim.Time(r.Intn(int(PauseDuration(60, egressRate))))
		q := uint16(0)
		if r.Intn(4) > 0 {
			q = uint16(1 + r.Intn(100))
		}
		h.Frames = append(h.Frames, egressFrame{At: at, Class: r.Intn(2), Quanta: q})
	}
	return reflect.ValueOf(h)
}

const egressRate = 100 * sim.Gbps

// egressIntervals is the reference model of Egress for class c: each PAUSE with non-zero
// quanta received at r holds the class from r + response for its quanta, unless a later
// frame of the class ends it first (a PAUSE when its own pause begins, a zero-quanta frame
// at once). The class is paused exactly when one of these intervals covers the time.
func egressIntervals(h egressHistory, c int) [][2]sim.Time {
	var out [][2]sim.Time
	for i, f := range h.Frames {
		if f.Class != c || f.Quanta == 0 {
			continue
		}
		s := f.At + h.Response
		u := s + PauseDuration(f.Quanta, egressRate)
		for _, g := range h.Frames[i+1:] {
			if g.Class != c {
				continue
			}
			cut := g.At
			if g.Quanta > 0 {
				cut += h.Response
			}
			u = min(u, cut)
		}
		if u > s {
			out = append(out, [2]sim.Time{s, u})
		}
	}
	return out
}

func covered(iv [][2]sim.Time, t sim.Time) bool {
	for _, v := range iv {
		if v[0] <= t && t < v[1] {
			return true
		}
	}
	return false
}

// measure is the length of the union of the intervals up to end; they start in order.
func measure(iv [][2]sim.Time, end sim.Time) sim.Time {
	var total, reach sim.Time
	for _, v := range iv {
		s, u := max(v[0], reach), min(v[1], end)
		if u > s {
			total += u - s
		}
		reach = max(reach, v[1])
	}
	return total
}

// TestEgressMatchesReference checks Paused, after each frame and at every interval edge of
// the reference, and PausedTime at the end, late refreshes included (a PAUSE whose own
// pause begins after the one in force has ended: the class is free in between).
func TestEgressMatchesReference(t *testing.T) {
	check := func(h egressHistory) bool {
		var e Egress
		var probes []sim.Time
		for c := range 2 {
			for _, v := range egressIntervals(h, c) {
				probes = append(probes, v[0]-1, v[0], v[1]-1, v[1])
			}
		}
		for i, f := range h.Frames {
			e.Receive(f.At, f.Class, f.Quanta, egressRate, h.Response)
			next := sim.Never
			if i+1 < len(h.Frames) {
				next = h.Frames[i+1].At
			}
			// Between this frame and the next, the state is what the frames so far make it.
			past := egressHistory{Response: h.Response, Frames: h.Frames[:i+1]}
			for c := range 2 {
				iv := egressIntervals(past, c)
				for _, t0 := range append([]sim.Time{f.At}, probes...) {
					if t0 < f.At || t0 >= next {
						continue
					}
					if got, want := e.Paused(t0, c), covered(iv, t0); got != want {
						t.Logf("after frame %d %+v, at %v class %d: paused %v, reference %v (%v)", i, f, t0, c, got, want, iv)
						return false
					}
				}
			}
		}
		for c := range 2 {
			if got, want := e.PausedTime(c, sim.Never), measure(egressIntervals(h, c), sim.Never); got != want {
				t.Logf("class %d: paused time %v, reference %v", c, got, want)
				return false
			}
		}
		return true
	}
	if err := quick.Check(check, &quick.Config{MaxCount: 3000}); err != nil {
		t.Fatal(err)
	}
}

// TestEgressLateRefresh: a PAUSE that arrives while a pause is in force, so close to its
// end that its own pause begins (a response time later) only after it, leaves the first to
// run to its end and the class free until the second begins; a resume then ends both.
func TestEgressLateRefresh(t *testing.T) {
	var e Egress
	r := egressRate
	resp := PauseDuration(60, r)
	e.Receive(0, 3, 100, r, resp)       // paused [resp, resp+100q)
	end := resp + PauseDuration(100, r) // the first pause's end
	at := end - PauseDuration(10, r)    // 10 quanta before it, a refresh of 100 quanta
	e.Receive(at, 3, 100, r, resp)      // its pause begins 50 quanta after the first's end
	if !e.Paused(at, 3) || !e.Paused(end-1, 3) || e.Until(at, 3) != end {
		t.Fatal("the first pause runs to its end")
	}
	if e.Paused(end, 3) || e.Paused(at+resp-1, 3) {
		t.Fatal("the class is free between the two pauses")
	}
	if !e.Paused(at+resp, 3) || e.PausedSince(at+resp, 3) != at+resp {
		t.Fatal("the refresh's own pause is in force from its start")
	}
	e.Receive(at+1, 3, 0, r, resp) // a resume before the first pause ends
	if e.Paused(at+resp, 3) {
		t.Fatal("the resume cancels the pause still to begin")
	}
	if got, want := e.PausedTime(3, sim.Never), at+1-resp; got != want {
		t.Fatalf("paused time %v, want the first pause up to the resume, %v", got, want)
	}
}
