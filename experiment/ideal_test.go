package experiment

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/transports"
	"github.com/fabricsim/fabricsim/transports/frames"
)

// bruteIdealFCT is the store-and-forward recurrence without the steady-state shortcut.
func bruteIdealFCT(f *fabric, fl *transports.Flow, mtu int) sim.Time {
	hops, _, err := f.routes.Path(fl.Src, fl.Dst, f.reg.Hash(0), 64)
	if err != nil {
		panic(err)
	}
	npkts := (fl.Size + int64(mtu) - 1) / int64(mtu)
	leave := make([]sim.Time, len(hops))
	var paced, arrive sim.Time
	for k := int64(0); k < npkts; k++ {
		payload := min(int64(mtu), fl.Size-k*int64(mtu))
		wire := frames.RoCEWireBytes(2, payload, k == 0)
		start := max(paced, leave[0])
		t := start
		for i, h := range hops {
			l := f.nw.Links[f.nw.Nodes[h.Node].Ports[h.Port].Link]
			if i > 0 {
				t = max(arrive+f.switchLatency(h.Node), leave[i])
			}
			leave[i] = t + l.Params.Rate.TxTime(wire)
			arrive = leave[i] + l.Params.Delay
		}
		if fl.Rate > 0 {
			paced = start + fl.Rate.TxTime(wire)
		}
	}
	return arrive
}

const dumbbell = `
version: 1
name: ideal
stop: 100ms
topology:
  preset: dumbbell
  params:
    left: 1
    right: 1
    host_link: {rate: %s, delay: 700ns}
    bottleneck: {rate: %s, delay: 3us}
switch: {latency: %s}
traffic:
  - flow: {src: l1, dst: r1, size: %s, transport: rocev2%s}
`

func TestIdealFCTShortcutMatchesRecurrenceAndAloneRun(t *testing.T) {
	cases := []struct{ host, bottleneck, latency, size, rate string }{
		{"100Gbps", "40Gbps", "0", "3MB", ""}, // no rate: line rate
		{"40Gbps", "100Gbps", "500ns", "1000001B", ""},
		{"100Gbps", "100Gbps", "0", "1KiB", ""},
		{"100Gbps", "100Gbps", "0", "1500B", ""},
		{"25Gbps", "400Gbps", "300ns", "2MB", "10Gbps"},
		{"100Gbps", "56Gbps", "0", "777777B", "60Gbps"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s-%s-%s-%s-%s", c.host, c.bottleneck, c.latency, c.size, c.rate), func(t *testing.T) {
			rate := ""
			if c.rate != "" {
				rate = ", rate: " + c.rate
			}
			text := fmt.Sprintf(dumbbell, c.host, c.bottleneck, c.latency, c.size, rate)
			f := build0(t, text)
			fl := f.reg.Flows[0]
			require.Equal(t, bruteIdealFCT(f, fl, 1024), f.ideal[0])
			// Alone on the fabric the simulated flow takes exactly the ideal time: the
			// engine and the arithmetic agree to the picosecond.
			v := runOne(t, text, 0)
			require.Equal(t, "completed", v.PerFlow[0].Status)
			require.InDelta(t, f.ideal[0].Microseconds(), *v.PerFlow[0].FCTUS, 1e-6)
		})
	}
}
