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
