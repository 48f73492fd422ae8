package scenarios

import (
	"flag"
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
