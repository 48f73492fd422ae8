package scenarios

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const variedBase = `
version: 1
name: varied
topology:
  preset: star
  params: {hosts: 2, link: {rate: 100Gbps, delay: 1us}}
traffic:
  - flow: {src: h1, dst: h2, size: 1MB}
variants:
`

func variedFile(t *testing.T, variants string) *File {
	t.Helper()
	f, errs, _ := Load("varied.yaml", []byte(variedBase+variants), nil)
	require.Empty(t, errs)
	return f
}

func TestVariedParameter(t *testing.T) {
	t.Run("sizes, one series per transport and per other setting", func(t *testing.T) {
		f := variedFile(t, `
  - {name: a1, transport: rocev2, set: {switch.buffer: 1MB}}
  - {name: a2, transport: rocev2, set: {switch.buffer: 2MiB}}
  - {name: b1, transport: iwarp, set: {switch.buffer: 1MB, switch.pfc.enabled: false}}
  - {name: b2, transport: iwarp, set: {switch.buffer: 4MB, switch.pfc.enabled: false}}
  - {name: b3, transport: iwarp, set: {switch.buffer: 4MB, switch.pfc.enabled: false}}
  - {name: lone, transport: rocev1, set: {switch.buffer: 8MB}}
  - {name: none, transport: rocev2}
`)
		a, ok := f.VariedParameter()
		require.True(t, ok)
		require.Equal(t, "switch.buffer", a.Path)
		require.Equal(t, "bytes", a.Unit)
		require.Equal(t, []AxisPoint{
			{Variant: "a1", Series: "rocev2", Value: "1MB", X: 1e6},
			{Variant: "a2", Series: "rocev2", Value: "2MiB", X: 2 << 20},
			{Variant: "b1", Series: "iwarp, enabled=false", Value: "1MB", X: 1e6},
			{Variant: "b2", Series: "iwarp, enabled=false", Value: "4MB", X: 4e6},
		}, a.Points, "b3 repeats b2's value; lone's series has one value; none sets nothing")
	})
	t.Run("durations in us, plain numbers", func(t *testing.T) {
		f := variedFile(t, `
  - {name: a, transport: rocev2, set: {transports.rocev2.retransmit_timeout: 1ms}}
  - {name: b, transport: rocev2, set: {transports.rocev2.retransmit_timeout: 500us}}
`)
		a, ok := f.VariedParameter()
		require.True(t, ok)
		require.Equal(t, "us", a.Unit)
		require.Equal(t, []float64{1000, 500}, []float64{a.Points[0].X, a.Points[1].X})
		xs, unit, ok := ParseQuantities([]string{"0", "0.01", "1e-3"})
		require.True(t, ok)
		require.Equal(t, "", unit)
		require.Equal(t, []float64{0, 0.01, 0.001}, xs)
		_, _, ok = ParseQuantities([]string{"1MB", "1ms"})
		require.False(t, ok, "a size and a duration are no one kind")
	})
	t.Run("no numeric parameter", func(t *testing.T) {
		f := variedFile(t, `
  - {name: a, transport: rocev2, set: {switch.pfc.enabled: true}}
  - {name: b, transport: rocev2, set: {switch.pfc.enabled: false}}
`)
		_, ok := f.VariedParameter()
		require.False(t, ok, "true and false are not numbers")
		_, ok = variedFile(t, "  - {name: a, transport: rocev2}\n").VariedParameter()
		require.False(t, ok)
	})
}

// TestLossyLinkVariesTheLoss: the bundled lossy-link's axis is its loss, in five series
// (RoCE v2, with the 67 ms timeout, with IRN, RoCE v1, iWARP): every one of its 18 variants.
func TestLossyLinkVariesTheLoss(t *testing.T) {
	data, ok := BundledYAML("lossy-link")
	require.True(t, ok)
	f, errs, _ := Load("lossy-link", data, nil)
	require.Empty(t, errs)
	a, ok := f.VariedParameter()
	require.True(t, ok)
	require.Equal(t, "faults.0.loss", a.Path)
	require.Len(t, a.Points, len(f.Variants()))
	series := map[string]int{}
	for _, p := range a.Points {
		series[p.Series]++
	}
	require.Equal(t, map[string]int{"rocev2": 4, "rocev2, retransmit_timeout=67.108864ms": 4, "rocev1": 4, "iwarp": 4,
		"rocev2, recovery=irn": 2}, series)
}
