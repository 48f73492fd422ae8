package experiment

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestImportRules keeps the layering of the simulator: the PFC and ECN machines know no
// switch, the switch and the NIC know nothing of each other, the event engine is the
// standard library's alone, and nothing below this package reaches up to the experiment or
// its results, nor to the sweep that runs it. Dependencies are transitive (go list's Deps), so a rule cannot be bypassed
// through a third package. The scenario schema sizes frames through transports/frames, the
// leaf the endpoints build their header stacks with, never through the endpoints.
func TestImportRules(t *testing.T) {
	const mod = "github.com/fabricsim/fabricsim/"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, mod+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		deps[strings.TrimPrefix(f[0], mod)] = f[1:]
	}
	forbid := func(pkg string, bad func(dep string) bool, why string) {
		t.Helper()
		ds, ok := deps[pkg]
		if !ok {
			t.Errorf("package %s is gone: update the import rules", pkg)
			return
		}
		for _, d := range ds {
			if bad(d) {
				t.Errorf("%s depends on %s: %s", pkg, d, why)
			}
		}
	}
	is := func(names ...string) func(string) bool {
		return func(d string) bool {
			for _, n := range names {
				if d == mod+n {
					return true
				}
			}
			return false
		}
	}
	for _, p := range []string{"pfc", "ecn"} {
		forbid(p, is("switchmodel"), "the PFC and ECN state machines are driven by the switch, not the other way round")
	}
	forbid("switchmodel", is("transports"), "the switch and the NIC meet only on the wire")
	forbid("transports", is("switchmodel"), "the switch and the NIC meet only on the wire")
	forbid("scenarios", is("transports"), "a scenario sizes frames with transports/frames, not with the endpoints")
	forbid("transports/frames", func(d string) bool { return strings.HasPrefix(d, mod) && d != mod+"topology" && d != mod+"sim" },
		"the frame sizes rest on the packet (topology) alone")
	for _, p := range []string{"sim", "collective"} {
		forbid(p, func(d string) bool { return strings.Contains(strings.SplitN(d, "/", 2)[0], ".") },
			"the event engine and the collectives' graphs use the standard library only")
	}
	forbid("chakra", func(d string) bool {
		return strings.HasPrefix(d, mod) || strings.Contains(strings.SplitN(d, "/", 2)[0], ".") && !strings.HasPrefix(d, "google.golang.org/protobuf/")
	}, "the trace decoder uses the standard library and protobuf's wire format only")
	for _, p := range []string{"sim", "topology", "header", "pfc", "ecn", "switchmodel", "transports", "transports/frames", "scenarios", "collective", "chakra"} {
		forbid(p, is("results", "experiment", "sweep"), "the model does not know how it is run or reported")
	}
	forbid("jobs", is("experiment", "sweep", "transports", "switchmodel"),
		"the collectives' runtime knows the fabric only through jobs.Fabric: it starts flows, it does not build or run them")
	for _, p := range []string{"experiment", "results", "jobs"} {
		forbid(p, is("sweep"), "a sweep runs experiments, not the other way round")
	}
	forbid("sweep", func(d string) bool { return strings.HasPrefix(d, "github.com/spf13/") },
		"the command line (cobra, viper) stays in cmd/fabricsim")
}

// TestArchitectureListsEveryPackage: docs/architecture.md's table has a row for every package
// of the module (go list ./...), and no row for a package that is gone.
func TestArchitectureListsEveryPackage(t *testing.T) {
	const mod = "github.com/fabricsim/fabricsim/"
	out, err := exec.Command("go", "list", mod+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z/]+)` \\|").FindAllStringSubmatch(string(doc), -1) {
		rows[m[1]] = true
	}
	for _, p := range strings.Fields(string(out)) {
		p = strings.TrimPrefix(p, mod)
		if !rows[p] {
			t.Errorf("docs/architecture.md has no row for package %s", p)
		}
		delete(rows, p)
	}
	for p := range rows {
		t.Errorf("docs/architecture.md has a row for %s, which is no package", p)
	}
}
