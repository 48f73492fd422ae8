package transports

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// TestUETCCValues: each congestion-control value makes the sender it says (a window of bytes
// or none, a pacing gap, the receiver's credit, the packets' PDS header), and a value a flow
// cannot run with is refused with what is allowed.
func TestUETCCValues(t *testing.T) {
	base := UETConfig{MTU: 4096, AckBytes: 16384, Paths: 64, QAGate: 3, AckPriority: 7}
	for _, tc := range []struct {
		name                 string
		cc                   UETCC
		window, pace, credit bool
	}{
		{"nil is nscc", nil, true, false, false},
		{"nscc", &UETNSCC{}, true, false, false},
		{"rccc", &RCCC{}, false, false, true},
		{"nscc+rccc", &RCCC{Window: &UETNSCC{}}, true, false, true},
		{"swift", swiftDefaults(), true, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base
			cfg.CC = tc.cc
			require.NoError(t, cfg.Validate())
			u := newUETPair(1<<20, cfg, 12*sim.Microsecond)
			require.Equal(t, tc.window, u.s.win != nil)
			require.Equal(t, tc.pace, u.s.pace != nil)
			require.Equal(t, tc.credit, u.s.credit)
			require.Equal(t, tc.credit, u.r.rccc)
			hdr := int64(frames.UETHeaderBytes)
			if tc.credit {
				hdr += topology.PDSRUDCCHeader - topology.PDSRUDHeader // a RUD_CC_REQ's 4 more bytes
			}
			require.Equal(t, hdr, u.s.hdr)
			if tc.window {
				cwnd, maxwnd := u.s.win.window()
				require.Positive(t, cwnd)
				require.Positive(t, maxwnd)
			}
		})
	}
	for _, tc := range []struct {
		cc   UETCC
		want string
	}{
		{&RCCC{Window: &RCCC{}}, "the window is a sender's scheme"},
		{&SwiftParams{}, "Swift"},
	} {
		cfg := base
		cfg.CC = tc.cc
		err := cfg.Validate()
		require.Error(t, err)
		require.Contains(t, err.Error(), tc.want)
	}
}

func swiftDefaults() *SwiftParams { p := DefaultSwiftParams(); return &p }

// TestUETTakesItsPath: SetPath gives a UET flow its base RTT (UETConfig.RTT of the path), the
// network's (Path.NetworkRTT, at least its own), the default RTO (15 us + 6 x the time
// QueueBytes take at the line rate, uet-htsim main_uec.cpp) and NSCC's maxwnd (1.5 BDP of the
// base RTT); without a reverse path the flow fails at its start, saying why.
func TestUETTakesItsPath(t *testing.T) {
	eng := sim.NewEngine()
	reg := NewRegistry(eng, &topology.Pool{})
	rate := 100 * sim.Gbps
	wire := &topology.Wire{Params: topology.LinkParams{Rate: rate}}
	src := &NIC{reg: reg, eng: eng, pool: reg.pool, busy: true, Wire: wire, ID: 0, IP: 0x0a000001, TTL: 64}
	dst := &NIC{reg: reg, eng: eng, pool: reg.pool, busy: true, Wire: wire, ID: 1, IP: 0x0a000002, TTL: 64}
	cfg := UETConfig{MTU: 4096, AckBytes: 16384, Paths: 64, QAGate: 3, AckPriority: 7, QueueBytes: 500_000}
	hop := PathHop{Rate: rate, Delay: sim.Microsecond, Latency: 500 * sim.Nanosecond}
	p := Path{Fwd: []PathHop{hop, hop}, Back: []PathHop{hop, hop}, NetworkRTT: 20 * sim.Microsecond}
	i := reg.Add(&Flow{ID: 1, Src: 0, Dst: 1, Size: 1 << 20, Transport: "uet"})
	s, r := reg.newUET(i, src, dst, false, cfg)
	reg.senders[i], reg.receivers[i] = s, r
	reg.SetPath(i, p)

	full, ack := cfg.WireBytes(4096), frames.UETAckWireBytes()
	// Store and forward over two hops each way: each hop a frame's serialization and 1 us,
	// the switch's 0.5 us on the second.
	rtt := 2*rate.TxTime(full) + 2*sim.Microsecond + 500*sim.Nanosecond + 2*rate.TxTime(ack) + 2*sim.Microsecond + 500*sim.Nanosecond
	require.Equal(t, rtt, s.baseRTT)
	require.Equal(t, 20*sim.Microsecond, s.networkRTT)
	require.Equal(t, 15*sim.Microsecond+6*40*sim.Microsecond, s.rto, "500 KB at 100 Gb/s drain in 40 us")
	s.Handle(0, opStart, nil)
	st, ok := reg.UETOf(i)
	require.True(t, ok)
	require.Equal(t, int64(1.5*float64(int64(float64(rate)*rtt.Seconds()/8))), st.MaxWnd)
	require.Equal(t, st.MaxWnd, st.Cwnd, "NSCC starts at maxwnd")

	p.NetworkRTT = 0
	reg.SetPath(i, p)
	require.Equal(t, rtt, s.networkRTT, "without the network's, the flow's own")

	j := reg.Add(&Flow{ID: 2, Src: 0, Dst: 1, Size: 1 << 20, Transport: "uet"})
	s2, r2 := reg.newUET(j, src, dst, false, cfg)
	reg.senders[j], reg.receivers[j] = s2, r2
	reg.SetPath(j, Path{Fwd: p.Fwd})
	s2.Handle(0, opStart, nil)
	require.Equal(t, Failed, reg.Flows[j].Status)
	require.Contains(t, reg.Flows[j].Reason, "without a base RTT")
}
