package scenarios

import (
	"flag"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var updateDoc = flag.Bool("update", false, "rewrite the settings table of doc.go from the declarations")

// docSection is the start of the settings table in doc.go; the table runs to the next blank
// comment line.
const docSection = "// # Settings\n//\n"

// TestSettingsDoc keeps doc.go's settings table what the declarations render: a key, default,
// limit or doc line changed in one place and not the other fails here. go generate (or
// go test -run TestSettingsDoc -update) rewrites it.
func TestSettingsDoc(t *testing.T) {
	data, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	text := string(data)
	start := strings.Index(text, docSection)
	require.GreaterOrEqual(t, start, 0, "doc.go has no %q section", strings.TrimSpace(docSection))
	body := start + len(docSection)
	// The intro paragraph, then a blank comment line, then the table up to the next one.
	tableStart := body + strings.Index(text[body:], "\n//\n") + len("\n//\n")
	tableEnd := tableStart + strings.Index(text[tableStart:], "//\n")
	want := settingsDoc()
	if *updateDoc {
		require.NoError(t, os.WriteFile("doc.go", []byte(text[:tableStart]+want+text[tableEnd:]), 0o644))
		return
	}
	require.Equal(t, want, text[tableStart:tableEnd], "doc.go's settings table is not what the declarations say; run go generate ./scenarios")
}

// TestPackageDocIsAttached: the package comment (doc.go, continued in doc_rules.go) reaches
// go doc: each file's comment touches its package clause, so go/doc takes both, in file
// order, and the settings table and the rules are what `go doc ./scenarios` prints. A blank
// line between the comment and the clause had left the package with no documentation.
func TestPackageDocIsAttached(t *testing.T) {
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range []string{"doc.go", "doc_rules.go"} {
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments|parser.PackageClauseOnly)
		require.NoError(t, err)
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/fabricsim/fabricsim/scenarios")
	require.NoError(t, err)
	for _, want := range []string{"Package scenarios reads", "# Settings", "transports.uet.qa_gate", "# Rules checked", "# Library"} {
		require.Contains(t, p.Doc, want)
	}
	require.Less(t, strings.Index(p.Doc, "# Settings"), strings.Index(p.Doc, "# Other defaults"), "doc.go's part first")
}
