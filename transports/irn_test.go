package transports

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/internal/transcript"
	"github.com/fabricsim/fabricsim/sim"
)

// TestPSNSetGrowsAndSlides: the set keeps what was added across growth and a sliding base,
// and drops what falls below the base.
func TestPSNSetGrowsAndSlides(t *testing.T) {
	var s psnSet
	require.False(t, s.has(0))
	in := []uint32{3, 5, 64, 127, 128, 1000, 5000}
	for _, q := range in {
		s.add(q)
	}
	s.add(5) // twice is once
	require.Equal(t, len(in), s.n)
	for _, q := range in {
		require.True(t, s.has(q), q)
	}
	require.False(t, s.has(4))
	require.False(t, s.has(4999))
	s.advance(128)
	require.False(t, s.has(127))
	require.True(t, s.has(128))
	require.Equal(t, 3, s.n)
	s.add(100) // below the base: ignored
	require.False(t, s.has(100))
	s.advance(1 << 20)
	require.Zero(t, s.n)
	s.add(1<<20 + 7)
	require.True(t, s.has(1<<20+7))
}

// TestIRNRequesterTranscripts runs testdata/irn_requester.txt: an IRN requester's
// selective-repeat state stepped by what it sends, the ACKs and NAKs it takes and its
// timeouts, as RoCESender drives it (emit, onAckIRN, timeout), with no engine.
//
//	irn n=… cap=…        a new requester of an n-packet message, BDP cap in packets (0: none)
//	send [max=…]         it sends what it may, at most max packets: the PSNs, r for a resend
//	ack psn=…            an ACK of every PSN up to psn
//	nak cum=… sack=…     a NAK: every PSN below cum acknowledged, sack held by the responder
//	timeout              the retransmit timer expires
//
// Each prints the state: una, the next new PSN, recovery and its recovery sequence, the
// PSNs recovery will resend, and the timeout that would run now.
func TestIRNRequesterTranscripts(t *testing.T) {
	var (
		ir          irnSender
		una, sndNxt uint32
		n           uint32
	)
	state := func() string {
		rec := "off"
		if ir.recovery {
			rec = fmt.Sprintf("on(seq=%d)", ir.recoverSeq)
		}
		var lost []string
		if ir.recovery {
			for q := max(ir.retxNext, una); q < ir.lostBelow; q++ {
				if !ir.sacked.has(q) {
					lost = append(lost, fmt.Sprint(q))
				}
			}
		}
		return fmt.Sprintf("una=%d nxt=%d recovery=%s lost=[%s] rto=%v", una, sndNxt, rec, strings.Join(lost, " "), ir.rto(sndNxt-una))
	}
	// ackTo is onAckIRN's cumulative acknowledgement.
	ackTo := func(acked uint32) {
		if acked > una {
			una = acked
			ir.acked(una)
		}
	}
	transcript.Run(t, "testdata/irn_requester.txt", func(c *transcript.Command) string {
		switch c.Name {
		case "irn":
			n = uint32(c.Int("n"))
			ir = irnSender{p: IRNParams{RTOLow: 100 * sim.Microsecond, RTOHigh: 320 * sim.Microsecond, RTOLowPackets: 3, BDPCap: int(c.Int("cap"))}}
			una, sndNxt = 0, 0
			return state()
		case "send":
			limit := int64(math.MaxInt64)
			if c.Has("max") {
				limit = c.Int("max")
			}
			var sent []string
			for ; limit > 0; limit-- {
				// emit and hasData: a lost packet first, else a new one within the cap.
				if q, ok := ir.nextLost(una); ok {
					ir.retxNext = q + 1
					sent = append(sent, fmt.Sprintf("%dr", q))
				} else if sndNxt < n && ir.mayAdmit(sndNxt-una) {
					sent = append(sent, fmt.Sprint(sndNxt))
					sndNxt++
				} else {
					break
				}
			}
			return fmt.Sprintf("sent [%s]\n%s", strings.Join(sent, " "), state())
		case "ack":
			ackTo(uint32(c.Int("psn")) + 1)
			return state()
		case "nak":
			ackTo(uint32(c.Int("cum")))
			ir.nak(una, sndNxt, uint32(c.Int("sack")))
			return state()
		case "timeout":
			ir.timedOut(una, sndNxt)
			return state()
		}
		t.Fatalf("%s: unknown command %s", c.Pos, c.Name)
		return ""
	})
}

// TestIRNTimeoutsAndCap: RTO_low below N packets in flight, RTO_high from N; BDP-FC admits
// below the cap; no cap admits anything.
func TestIRNTimeoutsAndCap(t *testing.T) {
	ir := irnSender{p: IRNParams{RTOLow: 100 * sim.Microsecond, RTOHigh: 320 * sim.Microsecond, RTOLowPackets: 3, BDPCap: 4}}
	require.Equal(t, 100*sim.Microsecond, ir.rto(2))
	require.Equal(t, 320*sim.Microsecond, ir.rto(3))
	require.True(t, ir.mayAdmit(3))
	require.False(t, ir.mayAdmit(4))
	uncapped := irnSender{}
	require.True(t, uncapped.mayAdmit(1<<30))
}
