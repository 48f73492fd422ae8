package scenarios

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUETBlock: transport uet is accepted in flows and variants, its block defaults to
// uet-htsim's values, and each bad value is refused at its line with what is allowed.
func TestUETBlock(t *testing.T) {
	uet := strings.Replace(twoHosts, "transport: rocev2", "transport: uet", 1)
	f, errs, _ := Load("f.yaml", []byte(uet), nil)
	require.Empty(t, errs)
	c := f.Scenario(0).Transports.UET
	require.Equal(t, UETConfig{MTU: 4096, Entropy: "reps", Paths: 64, AckBytes: 16384, AckPriority: 7, QAGate: 3, CC: "nscc", ECNToHosts: true, SLEEK: true,
		Swift: f.Scenario(0).Transports.RoCEv2.Swift}, c, "transports.uet.swift has transports.rocev2.swift's defaults")
	require.Equal(t, "uet", f.Scenario(0).Traffic[0].Transport())
	v := twoHosts + "variants:\n  - {name: u, transport: uet}\n"
	_, errs, _ = Load("f.yaml", []byte(v), nil)
	require.Empty(t, errs)

	for _, c := range []struct{ block, want string }{
		{"{paths: 48}", "f.yaml:8:16: transports.uet.paths: paths is a power of two from 1 to 16384"},
		{"{entropy: random}", `f.yaml:8:18: transports.uet.entropy: unknown entropy scheme "random" (allowed: reps, oblivious)`},
		{"{mtu: 100}", "f.yaml:8:14: transports.uet.mtu: mtu is 256..9000 (payload bytes per packet), got 100"},
		{"{ack_priority: 8}", "f.yaml:8:23: transports.uet.ack_priority: ack_priority is 0..7, got 8"},
		{"{rto: 0s}", "f.yaml:8:14: transports.uet.rto: rto must be > 0, e.g. rto: 100us"},
		{"{ecn_to_hosts: 1}", "f.yaml:8:23: transports.uet.ecn_to_hosts:"},
		{"{cc: dctcp}", `f.yaml:8:13: transports.uet.cc: unknown congestion control "dctcp" (allowed: nscc, rccc, nscc+rccc, swift)`},
		{"{cc: swift, swift: {beta: 2}}", "f.yaml:8:34: transports.uet.swift.beta: beta is a number in (0,1]"},
	} {
		_, errs, _ := Load("f.yaml", []byte(uet+"transports:\n  uet: "+c.block+"\n"), nil)
		require.Len(t, errs, 1, c.block)
		require.True(t, strings.HasPrefix(errs[0].Error(), c.want), "got %s\nwant %s", errs[0].Error(), c.want)
	}
}
