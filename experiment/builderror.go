package experiment

import (
	"fmt"
	"strings"

	"github.com/fabricsim/fabricsim/scenarios"
)

// BuildError is a problem found while building the fabric of a checked scenario, placed in
// the file as the loader places its problems: the item it comes from (a static route, a
// fault, a node), or the topology for the fabric as a whole, with its line and column.
type BuildError struct {
	File    string        // the scenario file, as the caller named it
	Pos     scenarios.Pos // zero when the item came from --set or a preset
	Path    string        // the field path, e.g. "topology.routes.0"
	Variant string        // the variant being built; "" for a file without variants
	Err     error
}

// Error is "file:line:col: path: what (variant NAME)", as scenarios.Problem writes a problem.
func (e *BuildError) Error() string {
	p := scenarios.Problem{File: e.File, Line: e.Pos.Line, Column: e.Pos.Column, Path: e.Path, Msg: e.Err.Error()}
	if e.Variant != "" && e.Variant != "default" {
		return fmt.Sprintf("%v (variant %q)", p, e.Variant)
	}
	return p.Error()
}

func (e *BuildError) Unwrap() error { return e.Err }

// placed makes err a BuildError at path and pos of sc's file, unless it already is one.
func placed(sc *scenarios.Scenario, path string, pos scenarios.Pos, err error) error {
	if err == nil {
		return nil
	}
	if be, ok := err.(*BuildError); ok {
		return be
	}
	return &BuildError{File: sc.File, Pos: pos, Path: path, Variant: sc.Variant, Err: err}
}

// routeOf places an error of computing the routes: at the static route it names (the
// topology package's "static route at A via B: ..."), else at the topology.
func routeOf(sc *scenarios.Scenario, err error) error {
	for i, r := range sc.Topology.Routes {
		if strings.HasPrefix(err.Error(), fmt.Sprintf("static route at %s via %s:", r.At, r.Via)) {
			return placed(sc, fmt.Sprintf("topology.routes.%d", i), r.Pos, err)
		}
	}
	return placed(sc, "topology", sc.Topology.Pos, err)
}
