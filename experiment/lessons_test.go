package experiment

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/results"
)

// golden reads a bundled scenario's golden results document, which TestGoldenResults holds
// equal, byte for byte, to what this build produces: a lesson test reads the run from there
// instead of running it again.
func golden(t *testing.T, name string) *results.Document {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "golden", name+".json"))
	require.NoError(t, err)
	var d results.Document
	require.NoError(t, json.Unmarshal(data, &d))
	return &d
}

func variantNamed(t *testing.T, d *results.Document, name string) *results.Variant {
	t.Helper()
	for i := range d.Variants {
		if d.Variants[i].Name == name {
			return &d.Variants[i]
		}
	}
	require.FailNow(t, "no variant "+name)
	return nil
}

// TestWebsearchLeafSpineLesson: about 2,000 flows; the PFC variants drop nothing; lossy RoCE
// v2 retransmits; every variant reports the small flows' p99 slowdown; and what the
// description says to look for holds: PFC without congestion control has the worst
// small-flow tail of the lossless variants, DCQCN cuts it, DCTCP without PFC cuts it most.
func TestWebsearchLeafSpineLesson(t *testing.T) {
	d := golden(t, "websearch-leafspine")
	require.Len(t, d.Variants, 5)
	small := func(v *results.Variant) float64 {
		b := v.SlowdownBySize[0]
		require.EqualValues(t, 0, b.LoBytes)
		require.EqualValues(t, 10_000, *b.HiBytes)
		require.NotNil(t, b.P99, "%s: small flows' p99 slowdown", v.Name)
		return *b.P99
	}
	for i := range d.Variants {
		v := &d.Variants[i]
		require.InDelta(t, 2000, v.Flows.Total, 100, "%s: about 2,000 flows", v.Name)
		if strings.Contains(v.Name, "PFC") {
			require.Zero(t, v.Drops.Total, "%s: lossless", v.Name)
		}
		t.Logf("%-22s small-flow p99 slowdown %7.2f, drops %d, retransmitted %d", v.Name, small(v), v.Drops.Total, v.RetransmittedPackets)
	}
	lossy := variantNamed(t, d, "RoCEv2 lossy")
	require.Positive(t, lossy.Drops.Total)
	require.Positive(t, lossy.RetransmittedPackets)
	pfcOnly, dcqcn, dctcp := variantNamed(t, d, "RoCEv2 + PFC"), variantNamed(t, d, "RoCEv2 + PFC + DCQCN"), variantNamed(t, d, "iWARP lossy + DCTCP")
	require.Greater(t, small(pfcOnly), 5*small(dcqcn), "DCQCN shortens the small flows' tail under PFC")
	require.Less(t, small(dctcp), small(dcqcn), "DCTCP keeps queues shortest")
	require.Zero(t, dctcp.Drops.Total, "DCTCP's marks keep the lossy fabric from dropping")
}
