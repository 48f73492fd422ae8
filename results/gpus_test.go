package results

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFlowsSayServerAndRailOfGPUs: a flow between GPUs carries its ends' server and rail in
// per_flow and flows.csv; a flow between plain hosts has neither key nor column.
func TestFlowsSayServerAndRailOfGPUs(t *testing.T) {
	plain := Variant{PerFlow: []Flow{{ID: 1, Src: "h1", Dst: "h2", Status: "completed"}}}
	gpus := Variant{PerFlow: []Flow{{ID: 1, Src: "s1g1", Dst: "s2g3", Status: "completed", SrcServer: 1, SrcRail: 1, DstServer: 2, DstRail: 3}}}

	b, err := json.Marshal(plain.PerFlow[0])
	require.NoError(t, err)
	require.NotContains(t, string(b), "src_server")
	b, err = json.Marshal(gpus.PerFlow[0])
	require.NoError(t, err)
	require.Contains(t, string(b), `"src_server":1,"src_rail":1,"dst_server":2,"dst_rail":3`)

	rows := func(v *Variant) [][]string {
		var buf bytes.Buffer
		require.NoError(t, WriteFlowsCSV(&buf, v))
		recs, err := csv.NewReader(&buf).ReadAll()
		require.NoError(t, err)
		return recs
	}
	require.Equal(t, flowsHeader, rows(&plain)[0])
	r := rows(&gpus)
	require.Equal(t, append(append([]string(nil), flowsHeader...), "src_server", "src_rail", "dst_server", "dst_rail"), r[0])
	require.Equal(t, []string{"1", "1", "2", "3"}, r[1][len(flowsHeader):])

	var all bytes.Buffer
	require.NoError(t, writeAllFlowsCSV(&all, &Document{Variants: []Variant{plain, gpus}}))
	recs, err := csv.NewReader(&all).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs[0], 2+len(flowsHeader)+4)
	require.Equal(t, []string{"", "", "", ""}, recs[1][2+len(flowsHeader):], "a plain host's flow: empty GPU cells")
}
