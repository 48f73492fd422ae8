package experiment

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/scenarios"
)

// overrides parses --set style overrides and fails the test on a bad one.
func overrides(t testing.TB, sets ...string) []scenarios.Override {
	t.Helper()
	var ovs []scenarios.Override
	for _, s := range sets {
		o, err := scenarios.ParseOverride(s)
		require.NoError(t, err)
		ovs = append(ovs, o)
	}
	return ovs
}

// load parses an inline scenario and fails the test on any problem.
func load(t testing.TB, text string, sets ...string) *scenarios.File {
	t.Helper()
	f, problems, _ := scenarios.Load("test.yaml", []byte(text), overrides(t, sets...))
	require.Empty(t, problems, "scenario problems")
	return f
}

// slow skips t under -short (./test.sh): it runs in the full suite (./test.sh --full), which
// CI runs. why says what makes it slow.
func slow(t *testing.T, why string) {
	t.Helper()
	if testing.Short() {
		t.Skip("slow (" + why + "): in the full suite, ./test.sh --full")
	}
}

// runOne runs variant i of an inline scenario.
func runOne(t *testing.T, text string, i int, sets ...string) *results.Variant {
	t.Helper()
	v, err := Run(load(t, text, sets...).Scenario(i), nil)
	require.NoError(t, err)
	return v
}

// build0 builds variant 0 of an inline scenario without running it.
func build0(t *testing.T, text string, sets ...string) *fabric {
	t.Helper()
	f, err := build(load(t, text, sets...).Scenario(0))
	require.NoError(t, err)
	return f
}

func loadB(b *testing.B, text string) *scenarios.File {
	b.Helper()
	f, problems, _ := scenarios.Load("bench.yaml", []byte(text), nil)
	if len(problems) > 0 {
		b.Fatal(problems)
	}
	return f
}
