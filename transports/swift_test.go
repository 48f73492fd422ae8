package transports

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/internal/transcript"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// TestSwiftTranscripts runs testdata/swift.txt: Swift's windows stepped by delay samples,
// timeouts and NAKs, its target delay, and the requester's sampling of each ACK, with no
// engine. Full packets are RoCE v2 with a 1024-byte MTU: 1106 bytes on the wire.
//
//	swift line=… [hops=… init=… fsrange=…]
//	                              a new flow (line in Gb/s) with the default parameters, or
//	                              these hops, init_cwnd (packets) and fs_range: prints the
//	                              window, the target, flow scaling's alpha and beta
//	target cwnd=…                 the fabric target at a fabric window of cwnd packets
//	ack at=… rtt=… n=… [endpoint=…]
//	                              a delay sample acknowledging n packets: what the fabric
//	                              window did, both windows, the target and the pacing delay
//	timeout at=…                  a retransmit timeout
//	send psn=… at=…               the requester sends a packet: whether it is a resend
//	ackpsn psn=… una=… at=…       an ACK of psn moving the cumulative acknowledgement to una
//	nak at=…                      a sequence NAK
//	window inflight=…             whether a new packet may go with inflight outstanding
//	rate                          the pacing rate
func TestSwiftTranscripts(t *testing.T) {
	var c *swiftCC
	windows := func() string {
		s := c.s
		return fmt.Sprintf("fcwnd=%.6f ecwnd=%.6f target=%v pacing=%v", s.FabricCwnd(), s.EndpointCwnd(), s.Target(), s.PacingDelay())
	}
	branch := func(before SwiftStats) string {
		st := c.s.Stats
		switch {
		case st.Decreases > before.Decreases:
			return "decrease"
		case st.Increases > before.Increases:
			return "increase"
		case st.Held > before.Held:
			return "held"
		}
		return "same"
	}
	flags := func(a ccAck) string {
		return fmt.Sprintf("window=%t unpace=%t", a&ccWindow != 0, a&ccUnpace != 0)
	}
	transcript.Run(t, "testdata/swift.txt", func(cmd *transcript.Command) string {
		switch cmd.Name {
		case "swift":
			p := DefaultSwiftParams()
			if cmd.Has("init") {
				p.InitCwnd = cmd.Float("init")
			}
			if cmd.Has("fsrange") {
				p.FSRange = cmd.Time("fsrange")
			}
			cfg := RoCEConfig{Version: 2, MTU: 1024, CC: &p}
			c = p.newCC(nil, &cfg, sim.Rate(cmd.Int("line"))*sim.Gbps, 0, 1<<20).(*swiftCC)
			if cmd.Has("hops") {
				c.s.Hops = int(cmd.Int("hops"))
			}
			return fmt.Sprintf("alpha=%.6fus beta=%.6fus ring=%d ", c.s.alpha/1e6, c.s.betaFS/1e6, len(c.times.at)) + windows()
		case "target":
			return fmt.Sprintf("target=%v", c.s.TargetAt(cmd.Float("cwnd")))
		case "ack":
			before := c.s.Stats
			var e sim.Time
			if cmd.Has("endpoint") {
				e = cmd.Time("endpoint")
			}
			c.s.Ack(cmd.Time("at"), cmd.Time("rtt"), e, cmd.Float("n"))
			return branch(before) + " " + windows()
		case "timeout":
			c.timedOut(cmd.Time("at"))
			return fmt.Sprintf("retransmits=%d ", c.s.retransmits) + windows()
		case "send":
			p := &topology.Packet{PSN: uint32(cmd.Int("psn")), SentAt: cmd.Time("at")}
			resend := p.PSN < c.times.newFrom
			c.sent(p, 0)
			return fmt.Sprintf("resend=%t ackreq=%t", resend, p.IB().AckReq)
		case "ackpsn":
			before := c.s.Stats
			a := c.signal(roceSignal(cmd.Time("at"), &topology.Packet{Kind: topology.KindAck, PSN: uint32(cmd.Int("psn"))}, uint32(cmd.Int("una")), 0))
			if c.s.Stats.Samples == before.Samples {
				return "no sample " + flags(a)
			}
			return fmt.Sprintf("rtt=%v %s %s ", c.s.rtt, branch(before), flags(a)) + windows()
		case "nak":
			nak := &topology.Packet{Kind: topology.KindNak}
			nak.IB().Syndrome = topology.SyndromeNAKSequence
			a := c.signal(roceSignal(cmd.Time("at"), nak, c.una, 0))
			return flags(a) + " " + windows()
		case "window":
			return fmt.Sprintf("open=%t", c.windowOpen(cmd.Int("inflight")+1))
		case "rate":
			r, ok := c.rate()
			return fmt.Sprintf("paced=%t rate=%dbps", ok, int64(r))
		}
		t.Fatalf("%s: unknown command %s", cmd.Pos, cmd.Name)
		return ""
	})
}

// TestSwiftParamsValidate: each bad parameter is refused with its name.
func TestSwiftParamsValidate(t *testing.T) {
	for _, c := range []struct {
		set  func(p *SwiftParams)
		want string
	}{
		{func(p *SwiftParams) { p.BaseTarget = 0 }, "base_target"},
		{func(p *SwiftParams) { p.H = -1 }, "h -1ps"},
		{func(p *SwiftParams) { p.FSMinCwnd = p.FSMaxCwnd }, "fs_min_cwnd"},
		{func(p *SwiftParams) { p.MaxMDF = 1 }, "max_mdf"},
		{func(p *SwiftParams) { p.MaxCwnd = p.MinCwnd / 2 }, "max_cwnd"},
		{func(p *SwiftParams) { p.InitCwnd = 1000 }, "init_cwnd"},
		{func(p *SwiftParams) { p.RetxResetThreshold = 0 }, "retx_reset_threshold"},
	} {
		p := DefaultSwiftParams()
		c.set(&p)
		require.ErrorContains(t, p.validate(), c.want)
	}
	p := DefaultSwiftParams()
	require.NoError(t, p.validate())
}

// TestSwiftAllocatesNothingPerPacket: a packet sent, its ACK taken, the window and the pacing
// rate asked, allocate nothing once the flow has started.
func TestSwiftAllocatesNothingPerPacket(t *testing.T) {
	p := DefaultSwiftParams()
	cfg := RoCEConfig{Version: 2, MTU: 1024, CC: &p}
	c := p.newCC(nil, &cfg, 100*sim.Gbps, 0, 1<<30).(*swiftCC)
	var psn uint32
	now := sim.Time(0)
	pkt, ack := &topology.Packet{}, &topology.Packet{Kind: topology.KindAck}
	allocs := testing.AllocsPerRun(1000, func() {
		now += sim.Microsecond
		*pkt = topology.Packet{PSN: psn, SentAt: now}
		c.sent(pkt, 1)
		ack.PSN = psn
		psn++
		c.signal(roceSignal(now+30*sim.Microsecond, ack, psn, psn))
		c.windowOpen(2)
		c.rate()
	})
	require.Zero(t, allocs)
	require.Positive(t, c.s.Stats.Samples)
}
