package scenarios

import (
	"embed"
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"
)

//go:embed library/*.yaml
var library embed.FS

// BundledInfo names one bundled scenario and summarizes it in one line.
type BundledInfo struct {
	Name    string // the scenario's file name without .yaml, e.g. "tradeoff"
	Summary string // the first line of its description
}

// Bundled lists the bundled scenarios, sorted by name.
func Bundled() []BundledInfo {
	entries, err := library.ReadDir("library")
	if err != nil {
		return nil
	}
	var infos []BundledInfo
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".yaml")
		if !ok || e.IsDir() {
			continue
		}
		data, _ := BundledYAML(name)
		infos = append(infos, BundledInfo{Name: name, Summary: summary(data)})
	}
	slices.SortFunc(infos, func(a, b BundledInfo) int { return strings.Compare(a.Name, b.Name) })
	return infos
}

// BundledYAML returns the YAML text of the bundled scenario with that name.
func BundledYAML(name string) ([]byte, bool) {
	if name == "" || strings.ContainsAny(name, `/\`) || name != path.Clean(name) {
		return nil, false
	}
	data, err := library.ReadFile("library/" + name + ".yaml")
	if err != nil {
		return nil, false
	}
	return data, true
}

// summary returns the first non-empty line of a scenario's description.
func summary(data []byte) string {
	var head struct {
		Description string `yaml:"description"`
	}
	_ = yaml.Load(data, &head) // a bundled file is valid (a test loads every one)
	for _, line := range strings.Split(head.Description, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return ""
}
