package scenarios

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/topology"
)

func TestQuantaTooShortToRefreshAreRefused(t *testing.T) {
	// A RoCE v2 frame of the default MTU 1024 is 1122 bytes on the wire (a WRITE First: 82
	// bytes of headers and 16 of RETH, 20 of preamble and gap); with four PFC frames between
	// refreshes the pause must last 1122 + 336 bytes = 11664 bit times: 23 quanta.
	frame := int64(1024 + topology.EthernetHeader + topology.IPv4Header + topology.UDPHeader + topology.BTHHeader +
		topology.RETHHeader + topology.ICRC + topology.FCS + topology.PreambleSFD + topology.InterFrameGap)
	least := int((8*(frame+4*84) + 511) / 512)
	require.Equal(t, 23, least)
	file := func(quanta int, prios string) string {
		return fmt.Sprintf(`version: 1
name: q
topology: {preset: star, params: {hosts: 3, link: {rate: 100Gbps, delay: 1us}}}
switch:
  pfc: {enabled: true, priorities: %s, quanta: %d}
traffic:
  - flow: {src: h1, dst: h2, size: 1MB, transport: rocev2}
`, prios, quanta)
	}
	for _, q := range []int{1, 5, least - 1} {
		_, problems, _ := Load("f.yaml", []byte(file(q, "[3]")), nil)
		require.Len(t, problems, 1)
		want := fmt.Sprintf("f.yaml:5:49: switch.pfc.quanta: quanta %d (%d bit times) is too short a pause to refresh before it runs out: a refresh may wait behind a %d-byte frame already on the wire and refreshes come no closer than 4 PFC frames (336 B) apart, so the pause must last at least %d bytes' time (%d bit times, at every link rate): quanta %d..65535 (512 bit times each)",
			q, 512*q, frame, frame+336, 8*(frame+336), least)
		require.Equal(t, want, problems[0].Error())
	}
	_, problems, _ := Load("f.yaml", []byte(file(least, "[3]")), nil)
	require.Empty(t, problems, "the shortest pause a refresh can keep")
	// Two lossless classes: a refresh may also wait behind the other class's PFC frame.
	_, problems, _ = Load("f.yaml", []byte(file(least, "[3, 4]")), nil)
	require.Len(t, problems, 1)
	require.Contains(t, problems[0].Error(), fmt.Sprintf("quanta %d..65535", (8*(frame+84+4*84)+511)/512))
	// Without PFC the quanta are not used.
	_, problems, _ = Load("f.yaml", []byte(file(1, "[3]")), []Override{{Path: "switch.pfc.enabled", Value: "false"}})
	require.Empty(t, problems)
}

func TestDynamicXoffFields(t *testing.T) {
	file := func(pfc string) string {
		return `version: 1
name: d
topology: {preset: star, params: {hosts: 3, link: {rate: 100Gbps, delay: 1us}}}
switch:
  pfc: {enabled: true, ` + pfc + `}
traffic:
  - flow: {src: h1, dst: h2, size: 1MB, transport: rocev2}
`
	}
	f, problems, _ := Load("f.yaml", []byte(file("xoff: dynamic, alpha: 0.5, xon_offset: 4608B")), nil)
	require.Empty(t, problems)
	p := f.Scenario(0).Switch.PFC
	require.True(t, p.Xoff.Dynamic)
	require.Equal(t, 0.5, p.Alpha)
	require.Equal(t, SizeOrAuto{Bytes: 4608}, p.XonOffset)
	f, problems, _ = Load("f.yaml", []byte(file("xoff: dynamic")), nil)
	require.Empty(t, problems)
	p = f.Scenario(0).Switch.PFC
	require.Equal(t, 1.0, p.Alpha, "SONiC's default_dynamic_th 0")
	require.True(t, p.XonOffset.Auto)
	require.Equal(t, "dynamic", p.Xoff.String())
	for _, c := range []struct{ pfc, want string }{
		{"xoff: dynamic, xon: 10KB", "f.yaml:5:44: switch.pfc.xon: with xoff: dynamic, XON follows XOFF: set xon_offset"},
		{"xoff: 100KB, xon_offset: 5KB", "f.yaml:5:49: switch.pfc.xon_offset: xon_offset goes with xoff: dynamic"},
		{"alpha: 2", "f.yaml:5:31: switch.pfc.alpha: alpha goes with xoff: dynamic"},
		{"xoff: dynamic, alpha: 0", "switch.pfc.alpha: alpha must be a number > 0"},
		{"xoff: dinamic", "want auto, dynamic or a size"},
	} {
		_, problems, _ := Load("f.yaml", []byte(file(c.pfc)), nil)
		require.Len(t, problems, 1, c.pfc)
		require.Contains(t, problems[0].Error(), c.want, c.pfc)
	}
}
