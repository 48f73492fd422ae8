package pfc

import (
	"fmt"
	"testing"

	"github.com/fabricsim/fabricsim/internal/transcript"
	"github.com/fabricsim/fabricsim/sim"
)

// TestEgressTranscripts runs testdata/egress.txt: PAUSE, refresh and resume sequences at
// one sending port, and its state after each.
//
//	port gbps=100 response=0     a new port
//	pause t=… class=3 quanta=…   a PFC frame arrives (quanta 0 resumes); prints until
//	state t=… class=3            paused, since, until and the paused time so far
func TestEgressTranscripts(t *testing.T) {
	var e Egress
	var rate sim.Rate
	var response sim.Time
	transcript.Run(t, "testdata/egress.txt", func(c *transcript.Command) string {
		switch c.Name {
		case "port":
			e, rate, response = Egress{}, sim.Rate(c.Int("gbps"))*sim.Gbps, c.Time("response")
			return "ok"
		case "pause":
			until := e.Receive(c.Time("t"), int(c.Int("class")), uint16(c.Int("quanta")), rate, response)
			return fmt.Sprintf("until=%v frames=%d resumes=%d", until, e.Frames, e.Resumes)
		case "state":
			now, class := c.Time("t"), int(c.Int("class"))
			return fmt.Sprintf("paused=%v since=%v until=%v paused-time=%v",
				e.Paused(now, class), e.PausedSince(now, class), e.Until(now, class), e.PausedTime(class, now))
		}
		t.Fatalf("%s: unknown command %s", c.Pos, c.Name)
		return ""
	})
}

// TestIngressTranscripts runs testdata/ingress.txt: XOFF/XON accounting of one lossless
// (port, class).
//
//	ingress xoff=… xon=… headroom=…   new accounting
//	admit size=…                      a frame arrives
//	release size=…                    a frame leaves
func TestIngressTranscripts(t *testing.T) {
	var in Ingress
	state := func() string { return fmt.Sprintf("bytes=%d max=%d paused=%v", in.Bytes, in.Max, in.Paused) }
	actions := map[Action]string{None: "none", Pause: "PAUSE", Resume: "RESUME"}
	transcript.Run(t, "testdata/ingress.txt", func(c *transcript.Command) string {
		switch c.Name {
		case "ingress":
			in = Ingress{Thresholds: Thresholds{Xoff: c.Int("xoff"), Xon: c.Int("xon"), Headroom: c.Int("headroom")}}
			return state()
		case "admit":
			ok, act := in.Admit(c.Int("size"), in.Xoff)
			if !ok {
				return "dropped " + state()
			}
			return actions[act] + " " + state()
		case "release":
			return actions[in.Release(c.Int("size"), in.Xon)] + " " + state()
		}
		t.Fatalf("%s: unknown command %s", c.Pos, c.Name)
		return ""
	})
}
