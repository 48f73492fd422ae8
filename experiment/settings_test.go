package experiment

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/switchmodel"
)

func TestSettingsReachModels(t *testing.T) {
	require.NoError(t, settingsReachModels())
	var cfg switchmodel.Config
	require.NoError(t, copySettings(&cfg, scenarios.SwitchConfig{Buffer: 4_000_000, BufferAlpha: 0.5, Latency: sim.Microsecond}))
	require.Equal(t, switchmodel.Config{BufferBytes: 4_000_000, Alpha: 0.5, Latency: sim.Microsecond}, cfg)

	// A declaration naming a field the model lacks, or one of another kind, is an error.
	type bad struct {
		X int `model:"Nowhere"`
	}
	require.ErrorContains(t, copySettings(&cfg, bad{}), "Nowhere")
	type wrongKind struct {
		X bool `model:"BufferBytes"`
	}
	require.Error(t, copySettings(&cfg, wrongKind{}))
}

// TestCCsReachModels: a cc value without a registration, or a registration whose block names
// a field its model lacks, is an error naming it; RoCE's none needs no entry.
func TestCCsReachModels(t *testing.T) {
	type block struct {
		CC   string `oneof:"none,a,b"`
		Gain int    `model:"Nowhere"`
	}
	type model struct{ G int }
	ok := func(*block) (*model, any) { return &model{}, nil }
	require.NoError(t, ccsReachModels("x.cc", "xCCs", map[string]func(*block) (*model, any){"a": ok, "b": ok}))
	require.ErrorContains(t, ccsReachModels("x.cc", "xCCs", map[string]func(*block) (*model, any){"a": ok}),
		"x.cc b has no entry in xCCs")
	bad := func(b *block) (*model, any) { return &model{}, b }
	require.ErrorContains(t, ccsReachModels("x.cc", "xCCs", map[string]func(*block) (*model, any){"a": ok, "b": bad}),
		"Nowhere")
}
