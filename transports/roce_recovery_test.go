package transports

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/fabricsim/fabricsim/internal/transcript"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// TestRoCERecoveryTranscripts runs testdata/irn_requester.txt and testdata/gbn_requester.txt:
// a RoCE requester's loss recovery (roceRecovery) stepped by what it sends, the ACKs and
// NAKs it takes and its timeouts, as RoCESender drives it (hasData and emit, onAck,
// timeout), with no engine and no congestion control.
//
//	irn n=… cap=… [ack_interval=…] [reorder=…]
//	                                a new IRN requester of an n-packet message, BDP cap in
//	                                packets (0: none), the responder's ACK interval (1), the
//	                                reorder threshold (1: IRN's rule)
//	gbn n=… | gb0 n=…               a new go-back-N or go-back-0 requester
//	send [max=…]                    it sends what it may, at most max packets: the PSNs, r
//	                                for a resend, ! for one that asks for an ACK (AckReq)
//	ack psn=…                       an ACK of every PSN up to psn
//	nak cum=… [sack=…|trimmed=…]    a sequence NAK: every PSN below cum acknowledged, the
//	                                responder expects cum (and IRN's: holds sack, or a
//	                                switch trimmed that PSN)
//	timeout                         the retransmit timer expires
//
// IRN's commands print its state: una, the next new PSN, recovery and its recovery sequence,
// the PSNs recovery will resend, and the timeout that would run now. Go-back-N's print una,
// the next PSN, one past the highest sent and the timeout; after an ACK, NAK or timeout, the
// requester's actions (ackActions: progress, restart and stop the timer, send, send if it
// has data).
func TestRoCERecoveryTranscripts(t *testing.T) {
	const rtoLow, rtoHigh, local = 100 * sim.Microsecond, 320 * sim.Microsecond, 1048576 * sim.Nanosecond
	var (
		rec roceRecovery
		q   roceSeq
		irn bool
	)
	state := func() string {
		if !irn {
			return fmt.Sprintf("una=%d nxt=%d max=%d rto=%v", q.una, q.sndNxt, q.maxSent, rec.rto(&q))
		}
		ir := rec.(*irnSender)
		rc := "off"
		if ir.recovery {
			rc = fmt.Sprintf("on(seq=%d)", ir.recoverSeq)
		}
		var lost []string
		if ir.recovery {
			for p := max(ir.retxNext, q.una); p < ir.lostBelow; p++ {
				if !ir.sacked.has(p) && !ir.trimResent.has(p) {
					lost = append(lost, fmt.Sprint(p))
				}
			}
		}
		trims := ""
		if pending := ir.trimmed[ir.trimHead:]; len(pending) > 0 {
			trims = fmt.Sprintf(" trimmed=%v", pending)
		}
		return fmt.Sprintf("una=%d nxt=%d recovery=%s lost=[%s]%s rto=%v", q.una, q.sndNxt, rc, strings.Join(lost, " "), trims, rec.rto(&q))
	}
	actions := func(a ackActions) string {
		if irn {
			return ""
		}
		var w []string
		for _, n := range []struct {
			bit  ackActions
			name string
		}{{ackProgress, "progress"}, {ackRestart, "restart"}, {ackStop, "stop"}, {ackSend, "send"}, {ackSendIfData, "send-if-data"}} {
			if a&n.bit != 0 {
				w = append(w, n.name)
			}
		}
		return fmt.Sprintf("actions [%s]\n", strings.Join(w, " "))
	}
	run := func(c *transcript.Command) string {
		switch c.Name {
		case "irn", "gbn", "gb0":
			irn = c.Name == "irn"
			cfg := RoCEConfig{RetransmitTimeout: local, AckInterval: 1, GoBack0: c.Name == "gb0"}
			if irn {
				cfg.IRN = &IRNParams{RTOLow: rtoLow, RTOHigh: rtoHigh, RTOLowPackets: 3, BDPCap: int(c.Int("cap"))}
				if c.Has("ack_interval") {
					cfg.AckInterval = int(c.Int("ack_interval"))
				}
				if c.Has("reorder") {
					cfg.IRN.ReorderThreshold = int(c.Int("reorder"))
				}
			}
			rec, q = newRoCERecovery(&cfg), roceSeq{total: uint32(c.Int("n"))}
			return state()
		case "send":
			limit := int64(math.MaxInt64)
			if c.Has("max") {
				limit = c.Int("max")
			}
			var sent []string
			for ; limit > 0; limit-- {
				// hasData and emit, without a congestion control's window.
				psn, kind := rec.next(&q)
				if kind == sendNone {
					break
				}
				w := fmt.Sprint(psn)
				if psn < q.maxSent {
					w += "r"
				}
				if rec.sending(&q, psn, kind) {
					w += "!"
				}
				if psn == q.sndNxt {
					q.sndNxt++
				}
				q.maxSent = max(q.maxSent, psn+1)
				sent = append(sent, w)
			}
			return fmt.Sprintf("sent [%s]\n%s", strings.Join(sent, " "), state())
		case "ack":
			p := &topology.Packet{PSN: uint32(c.Int("psn"))}
			p.IB().Syndrome = topology.SyndromeACK
			return actions(rec.onAck(&q, p)) + state()
		case "nak":
			p := &topology.Packet{PSN: uint32(c.Int("cum"))}
			ib := p.IB()
			ib.Syndrome = topology.SyndromeNAKSequence
			if c.Has("sack") {
				ib.HasSACK, ib.SACKPSN = true, uint32(c.Int("sack"))
			}
			if c.Has("trimmed") {
				ib.HasSACK, ib.SACKPSN, p.Trimmed = true, uint32(c.Int("trimmed")), true
			}
			return actions(rec.onAck(&q, p)) + state()
		case "timeout":
			rec.timedOut(&q)
			return state()
		}
		t.Fatalf("%s: unknown command %s", c.Pos, c.Name)
		return ""
	}
	for _, f := range []string{"testdata/irn_requester.txt", "testdata/gbn_requester.txt"} {
		t.Run(f, func(t *testing.T) { transcript.Run(t, f, run) })
	}
}
