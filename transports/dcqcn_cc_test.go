package transports

import (
	"fmt"
	"testing"

	"github.com/fabricsim/fabricsim/ecn"
	"github.com/fabricsim/fabricsim/internal/transcript"
	"github.com/fabricsim/fabricsim/sim"
)

// TestDCQCNCCTranscripts runs testdata/dcqcn_cc.txt: cc dcqcn on the requester, the
// reaction point (ecn.ReactionPoint, whose own transcripts are in ecn/testdata) with the two
// timers the adapter runs on an engine: the rate-increase timer, restarted by each CNP, and
// the deferred cut at the end of the decrease period, one event per deadline.
//
//	dcqcn params=paper|nvidia gbps=…  a new flow at line rate, started at 0
//	cnp at=…                          runs the engine to at, then a CNP arrives
//	run to=…                          runs the engine to to
//
// Each prints the rate, the cuts so far, when a deferred cut is due (never: none) and when
// the rate-increase timer expires, and the events the engine has run.
func TestDCQCNCCTranscripts(t *testing.T) {
	var (
		eng *sim.Engine
		c   *dcqcnCC
	)
	state := func() string {
		r, _ := c.rate()
		return fmt.Sprintf("rate=%.3fG cuts=%d cut-at=%v timer=%v events=%d", float64(r)/1e9, c.rp.Cuts, c.cutAt, c.timer.deadline, eng.Executed())
	}
	transcript.Run(t, "testdata/dcqcn_cc.txt", func(cmd *transcript.Command) string {
		switch cmd.Name {
		case "dcqcn":
			p := ecn.PaperParams()
			if cmd.String("params") == "nvidia" {
				p = ecn.NVIDIAParams()
			}
			eng = sim.NewEngine()
			c = newDCQCNCC(&NIC{eng: eng}, p, sim.Rate(cmd.Int("gbps"))*sim.Gbps, 0)
			return state()
		case "cnp":
			eng.Run(cmd.Time("at"))
			c.cnp(cmd.Time("at"))
			return state()
		case "run":
			eng.Run(cmd.Time("to"))
			return state()
		}
		t.Fatalf("%s: unknown command %s", cmd.Pos, cmd.Name)
		return ""
	})
}
