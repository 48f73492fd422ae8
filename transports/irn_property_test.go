package transports_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports"
)

// irnParams are IRN's published timeouts (docs/model.md section 5) with a BDP cap of bdp
// packets (0: none).
func irnParams(bdp int) *transports.IRNParams {
	return &transports.IRNParams{RTOLow: 100 * sim.Microsecond, RTOHigh: 320 * sim.Microsecond, RTOLowPackets: 3, BDPCap: bdp}
}

// TestIRNRepairsAnyHolesOnceIdle is a property test of IRN's selective repeat on one idle
// link: for seeded random drop patterns (data frames on their way to the responder, ACKs
// and NAKs on their way back, and bursts that take a flow's whole tail, as an incast does),
// the flow completes, within one RTO_high and three passes of the message after the last
// frame lost, with at most one timeout per frame lost.
//
// The bound comes from the recovery rules. After the last drop nothing is lost. A hole
// that a later packet reveals is resent at once, so what can still hold the flow back is
// a hole nothing reveals (a tail, or a retransmission lost after its hole was revealed):
// the retransmit timer finds it. The timer runs from the last progress of the cumulative
// acknowledgement, and progress stops at most a pass of the message after the last drop
// (S + RTT: S is n packet times back to back, or under a cap of W packets ceil(n / (W -
// ack_interval + 1)) rounds of W packets and a round trip, since each round's coalesced
// ACKs release all but ack_interval - 1 of its packets); the timeout comes at most RTO_high
// later and marks every outstanding packet the responder has not selectively acknowledged
// lost, so one more pass repairs them all, none lost again: last drop + S + RTT + RTO_high
// + S + RTT, and a third pass for a recovery restarted by a NAK that crossed the timeout.
// For the same reason there is at most one timeout per frame lost: between two timeouts
// with no loss the first one's retransmissions all arrive. When a timeout resent only the
// packet at the cumulative acknowledgement, a lost tail of k packets took k timeouts or
// more (issue 22's stall).
func TestIRNRepairsAnyHolesOnceIdle(t *testing.T) {
	rto := irnParams(0).RTOHigh
	for seed := uint64(1); seed <= 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 22))
		n := 1 + rng.IntN(120)
		bdp := []int{0, 4, 16, 63}[rng.IntN(4)]
		pData := []float64{0.02, 0.1, 0.3}[rng.IntN(3)]
		pCtl := []float64{0, 0, 0.1, 0.3}[rng.IntN(4)]
		budget := 1 + rng.IntN(40) // frames lost at most
		tail := -1                 // from this PSN on, every first transmission is lost
		if rng.IntN(3) == 0 {
			tail = rng.IntN(n)
		}
		name := fmt.Sprintf("seed %d: %d packets, cap %d, loss %g/%g, tail %d", seed, n, bdp, pData, pCtl, tail)
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, defaultLink())
			cfg := defaultConfig()
			cfg.RetryLimit = 7
			cfg.IRN = irnParams(bdp)
			var lost int
			lastDrop := sim.Time(-1)
			drop := func(p float64, forced bool) bool {
				if lost < budget && (forced || rng.Float64() < p) {
					lost++
					lastDrop = h.eng.Now()
					return true
				}
				return false
			}
			// At most two transmissions of a PSN are lost, so the retry limit never ends
			// the flow: what is tested is recovery, not giving up.
			h.at2.drop = func(a arrival, seen int) bool {
				return a.kind == topology.KindData && seen < 2 && drop(pData, tail >= 0 && int(a.psn) >= tail && seen == 0)
			}
			h.at1.drop = func(a arrival, seen int) bool {
				return (a.kind == topology.KindAck || a.kind == topology.KindNak) && seen < 2 && drop(pCtl, false)
			}
			size := int64(n)*mtu - int64(rng.IntN(mtu))
			f := &transports.Flow{Src: h.h1, Dst: h.h2, Size: size}
			h.add(f, cfg)
			h.run()

			m := segment(size, mtu)
			tPkt := tx(dataWire(mtu, true), lineRate)
			rtt := tPkt + tx(ackWire+topology.IRNSACK, lineRate) + 2*linkDly
			pass := sum(m.txs(lineRate)) // S: the message once, back to back
			if bdp > 0 {
				// Under the cap a round sends at most bdp packets and the coalesced ACK
				// that ends it releases at least bdp - (AckInterval - 1) of them.
				rounds := (n + bdp - cfg.AckInterval) / (bdp - cfg.AckInterval + 1)
				pass = sim.Time(rounds) * (sim.Time(bdp)*tPkt + rtt)
			}
			require.Equal(t, transports.Completed, f.Status, f.Reason)
			require.Equal(t, size, f.Delivered)
			bound := lastDrop + rto + 3*(pass+rtt)
			if lastDrop < 0 {
				bound = pass + rtt
			}
			t.Logf("%d frames lost, the last at %v; %d timeouts, %d resent; done at %v, bound %v", lost, lastDrop, f.Timeouts, f.Retransmitted, f.Finish, bound)
			require.LessOrEqual(t, f.Finish, bound, "done within a timeout and three passes of the last loss")
			require.LessOrEqual(t, f.Timeouts, int64(lost), "at most one timeout per frame lost")
		})
	}
}
