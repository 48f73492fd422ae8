package experiment

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/pfc"
	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
)

// pauseFault is one flow into h2, which sends one PAUSE of %d quanta on class 3 at 10 us,
// and a resume at %s (when not "never").
const pauseFault = `
version: 1
name: pause-fault
stop: 2ms
topology:
  preset: star
  params: {hosts: 2, link: {rate: 100Gbps, delay: 1us}}
switch: {pfc: {enabled: true, priorities: [3]}}
traffic:
  - flow: {src: h1, dst: h2, size: 1MB, transport: rocev2}
faults:
  - {at: 10us, pause: {node: h2, priority: 3, quanta: %d}}
%s
`

func TestPauseFaultPausesTheSwitchPortForItsQuanta(t *testing.T) {
	c := 100 * sim.Gbps
	resp := pfc.ResponseTime(c)
	// The PAUSE leaves h2 at 10 us, arrives after its 84 bytes and the 1 us cable, and takes
	// hold one response time later; it lasts 65535 x 512 bit times (335.5392 us at 100G).
	v := runOne(t, fmt.Sprintf(pauseFault, pfc.MaxQuanta, ""), 0)
	p := pfcPort(v, "sw", "h2")
	require.NotNil(t, p, "the switch's port to h2 was paused")
	require.InDelta(t, 335.5392, p.PausedUS, 1e-6)
	nic := pfcPort(v, "h2", "sw")
	require.NotNil(t, nic)
	require.EqualValues(t, 1, nic.PausesSent, "the NIC's one PAUSE is counted")
	require.EqualValues(t, 1, v.PFC.PauseFrames)
	f := v.PerFlow[0]
	require.Equal(t, "completed", f.Status)
	start := 10*sim.Microsecond + c.TxTime(pfc.FrameWireBytes) + sim.Microsecond + resp
	require.Greater(t, *f.FCTUS, (start + pfc.PauseDuration(pfc.MaxQuanta, c)).Microseconds(),
		"the last frames waited out the pause")

	// A resume at 100 us ends the pause when it arrives (a resume takes effect at once).
	v = runOne(t, fmt.Sprintf(pauseFault, pfc.MaxQuanta, "  - {at: 100us, pause: {node: h2, quanta: 0}}"), 0)
	p = pfcPort(v, "sw", "h2")
	end := 100*sim.Microsecond + c.TxTime(pfc.FrameWireBytes) + sim.Microsecond
	require.InDelta(t, (end - start).Microseconds(), p.PausedUS, 1e-6)
	require.EqualValues(t, 1, pfcPort(v, "h2", "sw").ResumesSent)
}

func TestPauseFaultOnALossyClassIsIgnored(t *testing.T) {
	// IEEE 802.1Qbb enables PFC per priority: a switch ignores PFC frames for class 3 when
	// only class 4 is lossless, and validation says so.
	text := fmt.Sprintf(pauseFault, pfc.MaxQuanta, "")
	o, err := scenarios.ParseOverride("switch.pfc.priorities=[4]")
	require.NoError(t, err)
	f, problems, warnings := scenarios.Load("test.yaml", []byte(text), []scenarios.Override{o})
	require.Empty(t, problems)
	require.Contains(t, fmt.Sprint(warnings), "class 3 is not lossless")
	require.Contains(t, fmt.Sprint(warnings), "switches ignore PFC frames for it")
	v, err := Run(f.Scenario(0), nil)
	require.NoError(t, err)
	require.Nil(t, pfcPort(v, "sw", "h2"), "never paused")
}

// stormFabric: a and b behind sw1, x and v behind sw2, one 100 Gb/s link between the
// switches. x's NIC storms PAUSE on class 3 from 50 us to 3 ms. a writes to x, b to the
// victim v, whose own path never meets x.
const stormFabric = `
version: 1
name: storm
stop: 10ms
topology:
  nodes:
    - {name: sw1, type: switch}
    - {name: sw2, type: switch}
    - {name: a, type: host, subnet: 10.0.0.0/24}
    - {name: b, type: host, subnet: 10.0.0.0/24}
    - {name: x, type: host, subnet: 10.0.0.0/24}
    - {name: v, type: host, subnet: 10.0.0.0/24}
  links:
    - {between: [sw1, sw2], rate: 100Gbps, delay: 1us}
    - {between: [a, sw1], rate: 100Gbps, delay: 1us}
    - {between: [b, sw1], rate: 100Gbps, delay: 1us}
    - {between: [x, sw2], rate: 100Gbps, delay: 1us}
    - {between: [v, sw2], rate: 100Gbps, delay: 1us}
switch:
  buffer: 2MB
  pfc: {enabled: true, priorities: [3], watchdog: %s}
traffic:
  - flow: {src: a, dst: x, size: 20MB, transport: rocev2}
  - flow: {src: b, dst: v, size: 4MB, transport: rocev2}
faults:
  - {at: 50us, until: 3ms, pfc_storm: {node: x}}
`

func TestPFCStormSpreadsAndTheWatchdogBreaksIt(t *testing.T) {
	c := 100 * sim.Gbps
	at, until := 50*sim.Microsecond, 3*sim.Millisecond
	// The storm's PAUSEs go out every half pause time (167.7696 us at 100G); the last one
	// before until holds sw2's port to x for a whole pause more. Each takes hold one frame
	// time, one cable delay and one response time after it leaves x.
	pause := pfc.PauseDuration(pfc.MaxQuanta, c)
	refresh := pause / 2
	last := at + (until-at-1)/refresh*refresh
	wantPaused := last + pause - at

	v := runOne(t, fmt.Sprintf(stormFabric, "0"), 0)
	require.Zero(t, v.Drops.Total, "lossless: nothing dropped, %+v", v.Drops.ByReason)
	p := pfcPort(v, "sw2", "x")
	require.NotNil(t, p)
	require.InDelta(t, wantPaused.Microseconds(), p.PausedUS, 1e-6, "sw2's port to x is paused for the whole storm")
	require.EqualValues(t, (until-at-1)/refresh+1, pfcPort(v, "x", "sw2").PausesSent)
	// Congestion spreads: a's frames for x fill sw2's ingress from sw1, which pauses sw1's
	// port to sw2, and the victim b -> v, which never goes near x, stops with them.
	spread := pfcPort(v, "sw1", "sw2")
	require.NotNil(t, spread, "sw2 paused sw1")
	require.Greater(t, spread.PausedUS, 0.5*(until-at).Microseconds())
	victim := v.PerFlow[1]
	require.Equal(t, "completed", victim.Status)
	alone := c.TxTime(messageWire(4_000_000))
	require.Greater(t, *victim.FinishUS, (last + pause).Microseconds(), "the victim waits for the storm to end (alone it needs %v)", alone)

	// With a 200 us watchdog, sw2 drops what is queued for x once its port has been paused
	// that long, and what arrives for it while the storm lasts: sw1 is resumed and the
	// victim finishes long before the storm ends.
	w := runOne(t, fmt.Sprintf(stormFabric, "200us"), 0)
	require.Positive(t, w.Drops.ByReason.Watchdog)
	require.Equal(t, w.Drops.Total, w.Drops.ByReason.Watchdog)
	wv := w.PerFlow[1]
	require.Equal(t, "completed", wv.Status)
	require.Less(t, *wv.FinishUS, until.Microseconds(), "the victim recovers during the storm")
	t.Logf("victim finish: %.1f us without the watchdog, %.1f us with it (alone: %v); watchdog drops %d",
		*victim.FinishUS, *wv.FinishUS, alone, w.Drops.ByReason.Watchdog)
}
