package main

import (
	"embed"
	"sort"
	"strings"
)

// benchPresets are the scenarios bench knows by name besides the bundled ones: runs too long
// for the bundled library (whose every scenario the tests replay), kept so that the figures
// of docs/performance.md can be rerun.
//
//go:embed benchpresets/*.yaml
var benchPresets embed.FS

// benchPresetNames lists the presets' names.
func benchPresetNames() []string {
	entries, _ := benchPresets.ReadDir("benchpresets")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(names)
	return names
}

// readBenchScenario is readScenario that also knows the bench presets: a file or a bundled
// scenario of the name wins.
func readBenchScenario(arg string) (string, []byte, error) {
	name, data, err := readScenario(arg)
	if err == nil {
		return name, data, nil
	}
	if preset, ferr := benchPresets.ReadFile("benchpresets/" + arg + ".yaml"); ferr == nil && !strings.ContainsAny(arg, "/.") {
		return arg + ".yaml", preset, nil
	}
	return "", nil, err
}
