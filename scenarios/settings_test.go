package scenarios

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/ecn"
)

// TestSettingsDeclarations: every declared block reads (blockOf panics on a bad tag), the
// defaults the tags give are the ones documented elsewhere, and the enumerations that map to
// a model's values map to the right ones.
func TestSettingsDeclarations(t *testing.T) {
	for _, r := range settingsRoots {
		require.NotPanics(t, func() { blockOf(r.typ) }, r.path)
	}
	require.Equal(t, ecn.PaperParams(), defaultsOf[RoCEConfig]().DCQCN)
	d := blockOf(blockOf(reflectRoCE).byKey["dcqcn"].sub.target)
	np := d.byKey["np"]
	require.Equal(t, ecn.NPWindow, np.enum[0].value.Interface())
	require.Equal(t, ecn.NPPaper, np.enum[1].value.Interface())
	require.Equal(t, ecn.NPImmediateOnly, np.enum[2].value.Interface())
	require.Equal(t, []string{"mode", "g", "alpha_init", "alpha_period", "rate_timer", "byte_counter", "f", "rai", "rhai",
		"hyper", "min_rate", "decrease_period", "cnp_interval", "alpha_on_cnp", "np", "cnp_pacing"}, d.keys)
}

// TestSettingsMessages pins the messages the generic checks build from the declarations.
func TestSettingsMessages(t *testing.T) {
	for _, c := range []struct{ set, path, msg string }{
		{"switch.pfc.quanta=0", "switch.pfc.quanta", "quanta is 1..65535 (pause quanta of 512 bit times), got 0"},
		{"switch.pfc.deadlock_detection=500ns", "switch.pfc.deadlock_detection", "deadlock_detection is 0 (off) or at least 1us (a look every that long at every queue), got 500ns"},
		{"switch.pfc.xoff=0", "switch.pfc.xoff", "xoff must be auto, dynamic or a size > 0"},
		{"switch.buffer_alpha=.inf", "switch.buffer_alpha", "buffer_alpha must be a number > 0 (a queue may hold alpha x the free buffer), e.g. buffer_alpha: 1"},
		{"hosts.cnp_priority=9", "hosts.cnp_priority", "cnp_priority is 0..7, got 9"},
		{"hosts.jitter=2us", "hosts.jitter", "jitter is 0..1us (a random extra delay per frame, kept below one minimum frame time), got 2us"},
		{"transports.rocev2.mtu=1500", "transports.rocev2.mtu", "mtu is one of 256, 512, 1024, 2048, 4096 (the InfiniBand path MTUs), got 1500"},
		{"transports.rocev2.dcqcn.g=2", "transports.rocev2.dcqcn.g", "g is a number in (0,1] (the alpha gain), got 2"},
		{"transports.rocev2.irn.rto_high=10us", "transports.rocev2.irn.rto_high", "rto_high (10us) must not be below rto_low (100us)"},
		{"transports.rocev1.irn.bdp_cap=0", "transports.rocev1.irn.bdp_cap", "bdp_cap must be auto or a size > 0"},
		{"transports.rocev2.timely={t_low: 50us, t_high: 50us}", "transports.rocev2.timely.t_high", "t_high (50us) must be above t_low (50us)"},
		{"transports.rocev2.timely.t_low=-1us", "transports.rocev2.timely.t_low", `duration "-1us" is negative`},
		{"transports.rocev2.timely.alpha=0", "transports.rocev2.timely.alpha", "alpha is a number in (0,1] (the EWMA weight of a new RTT difference), got 0"},
		{"transports.rocev2.timely.n=0", "transports.rocev2.timely.n", "n is 1..1000 (the multiple of delta), got 0"},
		{"transports.rocev2.swift={fs_min_cwnd: 300}", "transports.rocev2.swift.fs_max_cwnd", "fs_max_cwnd (256) must be above fs_min_cwnd (300)"},
		{"transports.rocev2.swift={min_cwnd: 2, max_cwnd: 1}", "transports.rocev2.swift.max_cwnd", "max_cwnd (1) must not be below min_cwnd (2)"},
		{"transports.rocev2.swift.init_cwnd=300", "transports.rocev2.swift.init_cwnd", "init_cwnd (300) must be between min_cwnd (0.001) and max_cwnd (256)"},
		{"transports.rocev2.swift.max_mdf=1", "transports.rocev2.swift.max_mdf", "max_mdf must be below 1: a cut by all of the window leaves none; got 1"},
		{"transports.rocev2.swift.max_mdf=1.5", "transports.rocev2.swift.max_mdf", "max_mdf is a number in (0,1), the largest fraction one decrease takes; got 1.5"},
		{"transports.rocev2.swift.base_target=0", "transports.rocev2.swift.base_target", "base_target must be > 0, e.g. base_target: 25us"},
		{"transports.rocev2.swift.retx_reset_threshold=0", "transports.rocev2.swift.retx_reset_threshold", "retx_reset_threshold is 1..1000 (retransmit timeouts in a row), got 0"},
		{"transports.rocev2.swift.bta=0.5", "transports.rocev2.swift.bta", `unknown field "bta" in transports.rocev2.swift (did you mean "beta"?)`},
		{"transports.rocev2.timely.delta=0bps", "transports.rocev2.timely.delta", "delta must be > 0, e.g. delta: 100Mbps"},
		{"transports.rocev2.dcqcn.f=-1", "transports.rocev2.dcqcn.f", "f must be >= 0 (fast-recovery stages), got -1"},
		{"transports.rocev2.dcqcn.alpha_period=0", "transports.rocev2.dcqcn.alpha_period", "alpha_period must be > 0, e.g. alpha_period: 55us"},
		{"transports.rocev2.dcqcn.hyper=cubic", "transports.rocev2.dcqcn.hyper", `unknown hyper increase "cubic" (allowed: linear, constant)`},
		{"transports.rocev2.dcqcn.mode=nvidai", "transports.rocev2.dcqcn.mode", `unknown DCQCN mode "nvidai" (did you mean "nvidia"?) (allowed: paper, nvidia)`},
		{"transports.rocev2.dcqcn.gg=1", "transports.rocev2.dcqcn.gg", `unknown field "gg" in transports.rocev2.dcqcn (did you mean "g"?)`},
		{"transports.iwarp.retries=0", "transports.iwarp.retries", "retries is 1..255 (timeouts in a row before TCP gives up), got 0"},
		{"transports.iwarp.mtu=100", "transports.iwarp.mtu", "mtu is an IPv4 MTU from 576 to 9216 bytes, e.g. 1500 or 9000; got 100"},
		{"hosts=5", "hosts", `want a mapping (fields: priority, ttl, cnp_priority, jitter, pxn, plane_spread), got "5"`},
		{"switch.pfc.priorities=[3, x]", "switch.pfc.priorities.1", `want a whole number, got "x"`},
	} {
		_, errs, _ := loadYAML(t, starScenario, c.set)
		p := requireProblem(t, errs, c.path, c.msg)
		require.Equal(t, c.msg, p.Msg[:min(len(p.Msg), len(c.msg))], c.set)
	}
	// A key given twice in a settings block, at the second key's position.
	_, errs, _ := loadYAML(t, starScenario+"switch:\n  buffer: 1MB\n  buffer: 2MB\n")
	p := requireProblem(t, errs, "switch.buffer", `field "buffer" is given twice (first at line 12)`)
	require.Equal(t, 13, p.Line)
	// DCQCN: nvidia's defaults, then a field of its own.
	f, errs, _ := loadYAML(t, starScenario, "transports.rocev2.dcqcn={g: 0.5, mode: nvidia}")
	require.Empty(t, errs)
	want := ecn.NVIDIAParams()
	want.G = 0.5
	require.Equal(t, want, f.Scenario(0).Transports.RoCEv2.DCQCN)
}

// The declarations the tests name.
var (
	reflectRoCE = reflect.TypeFor[RoCEConfig]()
)
