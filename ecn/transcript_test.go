package ecn

import (
	"fmt"
	"testing"

	"github.com/fabricsim/fabricsim/internal/transcript"
	"github.com/fabricsim/fabricsim/sim"
)

// TestReactionPointTranscripts runs testdata/rp_*.txt: DCQCN reaction-point steps, each
// followed by the rates and alpha.
//
//	rp params=paper|nvidia gbps=40 [bytecounter=…] [f=…]   a new flow at line rate
//	cnp t=…        a congestion notification; prints when a deferred cut is due
//	cut t=…        a deferred cut falls due
//	timer t=…      a rate-increase timer event; prints whether the timer goes on
//	sent bytes=…   bytes sent, for the byte counter
//	alpha t=…      alpha at t
func TestReactionPointTranscripts(t *testing.T) {
	for _, name := range []string{"rp_paper.txt", "rp_nvidia.txt"} {
		t.Run(name, func(t *testing.T) {
			var rp *ReactionPoint
			rates := func() string {
				return fmt.Sprintf("rc=%s rt=%s cuts=%d", gbps(rp.Rate()), gbps(rp.Target()), rp.Cuts)
			}
			transcript.Run(t, "testdata/"+name, func(c *transcript.Command) string {
				switch c.Name {
				case "rp":
					p := PaperParams()
					if c.String("params") == "nvidia" {
						p = NVIDIAParams()
					}
					if c.Has("bytecounter") {
						p.ByteCounter = c.Int("bytecounter")
					}
					if c.Has("f") {
						p.F = int(c.Int("f"))
					}
					rp = NewReactionPoint(p, sim.Rate(c.Int("gbps"))*sim.Gbps)
					return rates()
				case "cnp":
					at := rp.CNP(c.Time("t"))
					if at == 0 {
						return "cut now " + rates()
					}
					return fmt.Sprintf("cut at %v %s", at, rates())
				case "cut":
					rp.Cut(c.Time("t"))
					return rates()
				case "timer":
					return fmt.Sprintf("keep=%v %s", rp.RateTimer(c.Time("t")), rates())
				case "sent":
					rp.Sent(c.Int("bytes"))
					return rates()
				case "alpha":
					return fmt.Sprintf("alpha=%.6f", rp.Alpha(c.Time("t")))
				}
				t.Fatalf("%s: unknown command %s", c.Pos, c.Name)
				return ""
			})
		})
	}
}

// gbps prints a rate in Gb/s to the kb/s.
func gbps(r sim.Rate) string { return fmt.Sprintf("%.6fG", float64(r)/1e9) }
