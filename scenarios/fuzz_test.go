package scenarios

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzLoad feeds arbitrary bytes (and an arbitrary --set flag) to Load: it must never panic,
// and it returns either a file or at least one error, each naming the file or --set.
func FuzzLoad(f *testing.F) {
	for _, p := range []string{"testdata/contract.yaml", "testdata/contract-bad.yaml", "library/tradeoff.yaml"} {
		data, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(data, "switch.buffer=1MB")
	}
	f.Add([]byte(starScenario), "topology.params.hosts=3")
	f.Add([]byte(explicitScenario), "variants.0.set={switch.pfc.priorities: [3, 4]}")
	f.Add([]byte("a: {b"), "")
	f.Add([]byte("version: &v 1\nname: *v\n"), "x=*y")
	f.Add([]byte("- [[[[[[[[[[]]]]]]]]]]"), "a.0.b=[1,2]")
	f.Fuzz(func(t *testing.T, data []byte, set string) {
		var sets []Override
		if o, err := ParseOverride(set); err == nil {
			sets = append(sets, o)
		}
		file, errs, warns := Load("fuzz.yaml", data, sets)
		if len(errs) == 0 {
			require.NotNil(t, file)
			for i := range file.Variants() {
				require.NotNil(t, file.Scenario(i))
				_ = NodeNames(file.Scenario(i).Topology)
			}
		} else {
			require.Nil(t, file)
		}
		for _, p := range append(errs, warns...) {
			require.Contains(t, []string{"fuzz.yaml", OverrideFile}, p.File)
			require.NotEmpty(t, p.Msg)
			_ = p.Error()
		}
	})
}
