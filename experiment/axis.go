package experiment

import (
	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/scenarios"
)

// paramAxisOf is the numeric parameter f's variants vary (scenarios.File.VariedParameter)
// for the metric-against-parameter plots, or nil when they vary none.
func paramAxisOf(f *scenarios.File) *results.ParamAxis {
	a, ok := f.VariedParameter()
	if !ok {
		return nil
	}
	out := &results.ParamAxis{Path: a.Path, Unit: a.Unit}
	for _, p := range a.Points {
		out.Points = append(out.Points, results.ParamPoint{Variant: p.Variant, Series: p.Series, Value: p.Value, X: p.X})
	}
	return out
}
