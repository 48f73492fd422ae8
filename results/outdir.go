package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/fabricsim/fabricsim/internal/infile"
)

// File names of a run's output directory besides the results: the manifest, which lists
// the files the run wrote (and is what makes a directory a fabricsim run's), and the lock a
// run holds while it writes there (LockDir).
const (
	FileManifest = "manifest.json"
	FileLock     = ".fabricsim.lock"
)

// maxManifestBytes bounds a run's manifest.json read back: it lists the files of a run,
// some 30 per variant of at most MaxFileName bytes (with quotes and indentation about 250),
// so 64 MiB is over eight thousand variants; larger is no manifest of ours.
const maxManifestBytes = 64 << 20

// manifestWriter is what a run manifest's written_by says.
const manifestWriter = "fabricsim run"

// RunManifest is manifest.json: which program wrote the directory, and the names of the
// files it wrote there (or, while the run is going, the files it may write). --force removes
// these files, and only these.
type RunManifest struct {
	WrittenBy string   `json:"written_by"`
	Version   string   `json:"version"`
	Scenario  string   `json:"scenario"`
	Files     []string `json:"files"`
}

// WriteManifest writes dir's manifest.json listing files (sorted, without duplicates).
func WriteManifest(dir, version, scenario string, files []string) error {
	m := RunManifest{WrittenBy: manifestWriter, Version: version, Scenario: scenario,
		Files: slices.Compact(slices.Sorted(slices.Values(files)))}
	if m.Files == nil {
		m.Files = []string{}
	}
	return WriteFileAtomic(filepath.Join(dir, FileManifest), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(&m)
	})
}

// ReadManifest reads dir's manifest.json: nil and no error when there is none, an error when
// it is not a run manifest (another program's file of that name, or a damaged one) or names
// a file outside dir.
func ReadManifest(dir string) (*RunManifest, error) {
	data, err := infile.Read(filepath.Join(dir, FileManifest), maxManifestBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m RunManifest
	if json.Unmarshal(data, &m) != nil || m.WrittenBy != manifestWriter {
		return nil, fmt.Errorf("%s is not a fabricsim run's manifest", filepath.Join(dir, FileManifest))
	}
	for _, name := range m.Files {
		if CheckFileName(name) != nil || name == FileManifest || name == FileLock {
			return nil, fmt.Errorf("%s lists %q, which is no file a run writes", filepath.Join(dir, FileManifest), name)
		}
	}
	return &m, nil
}

// DirEntries lists the names in dir, sorted, but for the lock file; exists is false (and no
// error) when dir does not exist.
func DirEntries(dir string) (names []string, exists bool, err error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	for _, e := range entries {
		if e.Name() != FileLock {
			names = append(names, e.Name())
		}
	}
	return names, true, nil
}

// RunFileNames lists every file a run of the named variants may write into its output
// directory (WriteDirFiles writes those of them it has something for): the fixed files, the
// plots against each varied parameter path given (ParamFigureNames), a figure per kind (a
// panel per variant), and per variant (by its file slug, VariantSlugs) its table, its fabric
// and the per-variant figures of earlier versions (so that --force clears them).
func RunFileNames(variants []string, params ...string) []string {
	names := []string{FileJSON, FileFlows, FileSizes, FileSummary, FileReport,
		FileRates, FileQueues, FileIngress, FilePauses, FileLinks, FileBuffers, FileQueueDepth, FileEvents, FileJobs, FileDrops}
	figure := func(name string) {
		for _, format := range FigureFormats {
			names = append(names, name+"."+format)
		}
	}
	for _, fig := range []string{"fct-cdf", "slowdown-by-size", "jobs-iterations", "jobs-steps", seedFigure} {
		figure(fig)
	}
	for _, prefix := range variantFigurePrefixes[1:] { // a kind's panels; the fabric is per variant
		figure(panelKind(prefix))
	}
	for _, p := range params {
		for _, fig := range ParamFigureNames(p) {
			figure(fig)
		}
	}
	for _, slug := range VariantSlugs(variants) {
		names = append(names, filePrefixVT+slug+".txt")
		for _, prefix := range variantFigurePrefixes {
			figure(prefix + slug)
		}
		figure(seedFigurePrefix + slug)
	}
	return names
}

// MaxFileName is the longest file name, in bytes, an output may have: NAME_MAX, 255 bytes
// per path component on Linux (limits.h; ext4, xfs and tmpfs alike), less the 16 bytes its
// temporary name adds (".NAME.<up to 10 digits>.tmp", CreateAtomic).
const MaxFileName = 255 - 16

// CheckFileName reports whether name can be an output file's name: at most MaxFileName
// bytes of UTF-8, printable characters only (unicode.IsPrint: no control character, no
// newline) other than '/' and '\', and not "." or "..". The error says which rule it breaks.
func CheckFileName(name string) error {
	switch {
	case name == "" || name == "." || name == "..":
		return fmt.Errorf("%q is no file name", name)
	case len(name) > MaxFileName:
		return fmt.Errorf("the file name would be %d bytes long; at most %d are allowed", len(name), MaxFileName)
	case !utf8.ValidString(name):
		return fmt.Errorf("the file name %q is not valid UTF-8", name)
	}
	for _, r := range name {
		if !unicode.IsPrint(r) || r == '/' || r == '\\' {
			return fmt.Errorf("the file name %q holds %q; allowed are printable characters other than / and \\", name, r)
		}
	}
	return nil
}
