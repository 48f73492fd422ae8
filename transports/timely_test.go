package transports

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/internal/transcript"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
)

// TestTIMELYTranscripts runs testdata/timely.txt: TIMELY's rate computation stepped by RTT
// samples, and the requester's timing of one packet per round trip, with no engine.
//
//	timely line=… [alpha=… tlow=… thigh=…]
//	                               a new flow at line rate (line in Gb/s), started at 0, with
//	                               the default parameters, or these alpha, T_low and T_high
//	sample at=… rtt=…              an RTT sample taken at at: prints the branch Algorithm 1
//	                               took, the normalised gradient, the falling RTTs in a row,
//	                               and the rate in Mb/s
//	send psn=… at=…                the requester sends a 1250-byte (wire) packet: whether it
//	                               is timed (and so asks for an ACK at once)
//	ack una=… at=…                 an ACK moving the cumulative acknowledgement to una: the
//	                               sample it gives, if any
func TestTIMELYTranscripts(t *testing.T) {
	var c *timelyCC
	branch := func(before TIMELYStats) string {
		s := c.t.Stats
		switch {
		case s.Low > before.Low:
			return "low"
		case s.High > before.High:
			return "high"
		case s.HAI > before.HAI:
			return "hai"
		case s.Up > before.Up:
			return "up"
		}
		return "down"
	}
	sample := func(before TIMELYStats) string {
		return fmt.Sprintf("%s gradient=%.4f neg=%d rate=%.3fMb/s", branch(before), c.t.Gradient(), c.t.negCount, c.t.rate/1e6)
	}
	transcript.Run(t, "testdata/timely.txt", func(cmd *transcript.Command) string {
		switch cmd.Name {
		case "timely":
			p := DefaultTIMELYParams()
			if cmd.Has("alpha") {
				p.Alpha, p.TLow, p.THigh = cmd.Float("alpha"), cmd.Time("tlow"), cmd.Time("thigh")
			}
			c = newTIMELYCC(p, sim.Rate(cmd.Int("line"))*sim.Gbps, 0)
			return fmt.Sprintf("rate=%.3fMb/s delta=%v", c.t.rate/1e6, c.t.P.Delta)
		case "sample":
			before := c.t.Stats
			c.t.Sample(cmd.Time("at"), cmd.Time("rtt"))
			return sample(before)
		case "send":
			p := &topology.Packet{PSN: uint32(cmd.Int("psn")), SentAt: cmd.Time("at"), Frame: 1250 - topology.WireOverhead}
			c.sent(p, 0)
			if p.IB().AckReq {
				return fmt.Sprintf("timed psn=%d ackreq", p.PSN)
			}
			if c.timed {
				return fmt.Sprintf("timing psn=%d", c.timedPSN)
			}
			return "timing none"
		case "ack":
			before := c.t.Stats
			c.signal(roceSignal(cmd.Time("at"), &topology.Packet{}, uint32(cmd.Int("una")), 0))
			if c.t.Stats.Samples == before.Samples {
				return "no sample"
			}
			return fmt.Sprintf("rtt=%v ", c.t.prevRTT) + sample(before)
		}
		t.Fatalf("%s: unknown command %s", cmd.Pos, cmd.Name)
		return ""
	})
}

// TestTIMELYParamsValidate: each bad parameter is refused with its name.
func TestTIMELYParamsValidate(t *testing.T) {
	for _, c := range []struct {
		set  func(p *TIMELYParams)
		want string
	}{
		{func(p *TIMELYParams) { p.Alpha = 0 }, "alpha"},
		{func(p *TIMELYParams) { p.Beta = 1.5 }, "beta"},
		{func(p *TIMELYParams) { p.THigh = p.TLow }, "t_high"},
		{func(p *TIMELYParams) { p.MinRTT = 0 }, "min_rtt"},
		{func(p *TIMELYParams) { p.MinRate = 0 }, "min_rate"},
		{func(p *TIMELYParams) { p.N = 0 }, "n 0"},
	} {
		p := DefaultTIMELYParams()
		c.set(&p)
		require.ErrorContains(t, p.validate(), c.want)
	}
	p := DefaultTIMELYParams()
	require.NoError(t, p.validate())
}

// TestTIMELYHPCCNS3Rule steps rule hpcc_ns3 by hand (rdma-hw.cc UpdateRateTimely) at 100 Gb/s
// with delta 100 Mb/s, N 5, T_low 50 us, T_high 500 us: the first sample changes nothing; a
// sample of 1 ms cuts the rate by 1 - 0.8 x (1 - 500/1000) = 0.6, to 60 Gb/s; then samples
// below T_low, 1 ns apart (no scaling by the time between updates), add 100 Mb/s five times
// and 500 Mb/s from the sixth increase on; a cut resets the count, and the floor is MinRate.
func TestTIMELYHPCCNS3Rule(t *testing.T) {
	p := DefaultTIMELYParams()
	p.TLow, p.Delta, p.Rule = 50*sim.Microsecond, 100*sim.Mbps, TIMELYHPCCNS3
	tm := NewTIMELY(p, 100*sim.Gbps, 0)
	at := sim.Time(0)
	step := func(rtt sim.Time) sim.Rate { at += sim.Nanosecond; tm.Sample(at, rtt); return tm.Rate() }
	require.Equal(t, 100*sim.Gbps, step(sim.Millisecond), "the first RTT only sets lastRtt")
	require.Equal(t, 60*sim.Gbps, step(sim.Millisecond))
	want := 60 * sim.Gbps
	for k := range 8 {
		want += 100 * sim.Mbps
		if k >= 5 {
			want += 400 * sim.Mbps
		}
		require.Equal(t, want, step(10*sim.Microsecond), "increase %d", k+1)
	}
	require.EqualValues(t, 3, tm.Stats.HAI)
	want = sim.Rate(float64(want) * 0.6)
	require.Equal(t, want, step(sim.Millisecond))
	require.Equal(t, want+100*sim.Mbps, step(10*sim.Microsecond), "the cut reset the count")
	tm.rate = 200e6
	require.Equal(t, p.MinRate, step(100*sim.Second), "max(MinRate, rate x c)")
}
