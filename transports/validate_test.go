package transports_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/ecn"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/topology"
	"github.com/fabricsim/fabricsim/transports"
)

// TestRoCEConfigValidate: every value a queue pair cannot run with is refused, with an error
// that names it; the defaults of the tests pass.
func TestRoCEConfigValidate(t *testing.T) {
	good := defaultConfig()
	require.NoError(t, good.Validate())
	dcqcn := ecn.PaperParams()
	good.CC = (*transports.DCQCNParams)(&dcqcn)
	require.NoError(t, good.Validate())
	bad := map[string]func(c *transports.RoCEConfig){
		"version":      func(c *transports.RoCEConfig) { c.Version = 3 },
		"MTU":          func(c *transports.RoCEConfig) { c.MTU = 0 },
		"retransmit":   func(c *transports.RoCEConfig) { c.RetransmitTimeout = 0 },
		"retry":        func(c *transports.RoCEConfig) { c.RetryLimit = -1 },
		"ACK interval": func(c *transports.RoCEConfig) { c.AckInterval = 0 },
		"CNP priority": func(c *transports.RoCEConfig) { c.CNPPriority = topology.NumPriorities },
		"gain": func(c *transports.RoCEConfig) {
			p := *c.CC.(*transports.DCQCNParams)
			p.G = 2
			c.CC = (*transports.DCQCNParams)(&p)
		},
		"rate timer": func(c *transports.RoCEConfig) {
			p := *c.CC.(*transports.DCQCNParams)
			p.RateTimer = 0
			c.CC = (*transports.DCQCNParams)(&p)
		},
		"minimum rate": func(c *transports.RoCEConfig) {
			p := *c.CC.(*transports.DCQCNParams)
			p.MinRate = 0
			c.CC = (*transports.DCQCNParams)(&p)
		},
		"negative interval": func(c *transports.RoCEConfig) {
			p := *c.CC.(*transports.DCQCNParams)
			p.CNPInterval = -1
			c.CC = (*transports.DCQCNParams)(&p)
		},
	}
	for name, spoil := range bad {
		c := good
		spoil(&c)
		require.Error(t, c.Validate(), name)
	}
}

// TestHPCCConfigValidate: HPCC runs on RoCE v2 alone (one congestion control per queue pair
// is RoCEConfig.CC's type), and only with
// parameters Algorithm 1 can use.
func TestHPCCConfigValidate(t *testing.T) {
	good := defaultConfig()
	good.CC = &transports.HPCCParams{Eta: 0.95, MaxStage: 5}
	require.NoError(t, good.Validate())
	bad := map[string]func(c *transports.RoCEConfig){
		"RoCE v1":  func(c *transports.RoCEConfig) { c.Version = 1 },
		"eta":      func(c *transports.RoCEConfig) { c.CC = &transports.HPCCParams{Eta: 1.2, MaxStage: 5} },
		"stage":    func(c *transports.RoCEConfig) { c.CC = &transports.HPCCParams{Eta: 0.95, MaxStage: -1} },
		"ai":       func(c *transports.RoCEConfig) { c.CC = &transports.HPCCParams{Eta: 0.95, AI: -1} },
		"base RTT": func(c *transports.RoCEConfig) { c.CC = &transports.HPCCParams{Eta: 0.95, BaseRTT: -sim.Microsecond} },
	}
	for name, spoil := range bad {
		c := good
		spoil(&c)
		require.Error(t, c.Validate(), name)
	}
}

// TestIWARPConfigValidate: the same for an iWARP connection. The smallest MTU that carries an
// FPDU is IPv4 20 + TCP 20 + the FPDU overhead (ULPDU length 2, tagged DDP header 14, CRC 4)
// + 4 payload bytes (one MPA alignment unit): 64.
func TestIWARPConfigValidate(t *testing.T) {
	good := iwarpConfig()
	require.NoError(t, good.Validate())
	smallest := topology.IPv4Header + topology.TCPHeader + topology.MPAFPDUOverhead + topology.MPAAlignment
	require.Equal(t, 64, smallest)
	c := good
	c.MTU = smallest
	require.NoError(t, c.Validate())
	require.EqualValues(t, 4, c.DDPPayload())
	bad := map[string]func(c *transports.IWARPConfig){
		"MTU":            func(c *transports.IWARPConfig) { c.MTU = smallest - 1 },
		"MTU timestamps": func(c *transports.IWARPConfig) { c.MTU, c.Timestamps = smallest, true },
		"zero MTU":       func(c *transports.IWARPConfig) { c.MTU = 0 },
		"init cwnd":      func(c *transports.IWARPConfig) { c.InitCwnd = 0 },
		"min RTO":        func(c *transports.IWARPConfig) { c.MinRTO = 0 },
		"max RTO":        func(c *transports.IWARPConfig) { c.MaxRTO = c.MinRTO / 2 },
		"retries":        func(c *transports.IWARPConfig) { c.Retries = -1 },
		"delayed ACK":    func(c *transports.IWARPConfig) { c.DelayedAck = -1 },
		"window":         func(c *transports.IWARPConfig) { c.ReceiveWindow = c.MSS() - 1 },
		"ECN":            func(c *transports.IWARPConfig) { c.ECN = transports.ECNDCTCP + 1 },
		"gain":           func(c *transports.IWARPConfig) { c.DCTCPGain = 1.5 },
	}
	for name, spoil := range bad {
		c := good
		spoil(&c)
		require.Error(t, c.Validate(), name)
	}
}

// TestInvalidStartIsRefused: a flow whose configuration, flow or NIC is impossible does not
// start: the constructor returns the error, the flow ends failed with it as the reason, Done
// runs, and nothing is sent; a valid flow next to it completes.
func TestInvalidStartIsRefused(t *testing.T) {
	h := newTCPHarness(t, defaultLink())
	cfg := defaultConfig()
	cfg.MTU = 0
	bad := &transports.Flow{ID: 1, Src: h.h1, Dst: h.h2, Size: 4 * mtu, Transport: "rocev2"}
	i := h.reg.Add(bad)
	err := h.reg.StartRoCE(i, h.nic1, h.nic2, false, cfg)
	require.ErrorContains(t, err, "MTU 0")
	require.Equal(t, transports.Failed, bad.Status)
	require.Equal(t, "not started: "+err.Error(), bad.Reason)
	require.Len(t, h.doneAt, 1)
	h.reg.MarkUnroutable(i, "too late") // an ended flow stays as it ended
	require.Equal(t, transports.Failed, bad.Status)
	require.Len(t, h.doneAt, 1)

	high := &transports.Flow{ID: 2, Src: h.h1, Dst: h.h2, Size: mtu, Priority: topology.NumPriorities, Transport: "iwarp"}
	j := h.reg.Add(high)
	require.ErrorContains(t, h.reg.StartIWARP(j, h.nic1, h.nic2, false, iwarpConfig()), "priority 8")
	require.Equal(t, transports.Failed, high.Status)
	require.Zero(t, h.reg.Hash(j))

	good := &transports.Flow{Src: h.h1, Dst: h.h2, Size: 4 * mtu, Start: sim.Microsecond}
	h.addIWARP(good, iwarpConfig())
	h.run()
	require.Equal(t, transports.Completed, good.Status)
	require.Zero(t, h.reg.Open())
	require.EqualValues(t, h.w12.Packets(), h.pool.Taken[topology.KindData], "only the good flow's segments")
}

// TestNICValidate: a NIC on a node that is no host, with a TTL of 0, or without a link, runs
// no flow.
func TestNICValidate(t *testing.T) {
	h := newHarness(t, defaultLink())
	cfg := defaultConfig()
	start := func(src *transports.NIC) error {
		i := h.reg.Add(&transports.Flow{Src: h.h1, Dst: h.h2, Size: mtu, Transport: "rocev2"})
		return h.reg.StartRoCE(i, src, h.nic2, false, cfg)
	}
	require.ErrorContains(t, start(transports.NewNIC(h.reg, h.nw, 99, 64)), "not a host")
	require.ErrorContains(t, start(transports.NewNIC(h.reg, h.nw, h.h1, 0)), "TTL of 0")
	require.ErrorContains(t, start(transports.NewNIC(h.reg, h.nw, h.h1, 64)), "no link")
	require.ErrorContains(t, start(nil), "no NIC")
	require.NoError(t, start(h.nic1))
}
