package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/fabricsim/fabricsim/experiment"
	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/sweep"
)

// outputs are the files a run writes besides standard output, checked before it simulates
// (checkOutputs) and, for -o, its directory prepared and locked (prepare).
type outputs struct {
	json, jsonFlag string // --json FILE, and "--json" or the variable that gave it
	out, outFlag   string // -o DIR, and "-o" or the variable that gave it
	force          bool
	names          []string // every file the run may write into out (the pcaps among them)
	pcaps          []string // the pcap files it writes there during the run
	unlock         func()
}

// stdStreams are the --json names that mean this process's own standard output or error:
// the document is written to the stream itself, where the table is, rather than by opening
// the name (which, when the stream is a file, starts again at its first byte, or replaces
// it).
var stdStreams = map[string]int{"/dev/stdout": 1, "/dev/fd/1": 1, "/proc/self/fd/1": 1,
	"/dev/stderr": 2, "/dev/fd/2": 2, "/proc/self/fd/2": 2}

// stdStream is 1 or 2 when path is this process's standard output or error (by name, or
// the same file by way of another name or link, e.g. a link to /dev/stdout), else 0.
func stdStream(path string) int {
	if n := stdStreams[filepath.Clean(path)]; n != 0 {
		return n
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	for n, f := range []*os.File{os.Stdout, os.Stderr} {
		if sfi, err := f.Stat(); err == nil && os.SameFile(fi, sfi) {
			return n + 1
		}
	}
	return 0
}

// newOutputs collects the outputs of a run of f's variants (all when variants is empty)
// with the --pcap specs, checks every output file's name (results.CheckFileName) and then
// the paths (checkOutputs), all before the run. A name that cannot be written is refused
// with the field that gives it.
func newOutputs(s runSettings, scenario string, f *scenarios.File, variants, pcaps []string) (*outputs, error) {
	o := &outputs{json: s.json, jsonFlag: flagName(s.jsonSrc, "--json"), out: s.out,
		outFlag: flagName(s.outSrc, "-o"), force: s.force}
	if o.json != "" {
		if stdStream(o.json) == 0 {
			if err := results.CheckFileName(filepath.Base(o.json)); err != nil {
				return nil, usagef("%s %s: %v", o.jsonFlag, o.json, err)
			}
		}
	}
	if o.out != "" {
		var names []string
		for i, v := range f.Variants() {
			if len(variants) > 0 && !slices.Contains(variants, v.Name) {
				continue
			}
			for _, name := range results.RunFileNames([]string{v.Name}) {
				if err := results.CheckFileName(name); err != nil {
					return nil, usagef("%s: variants.%d.name %s (%d bytes) names output files (%s): %v: give the variant a shorter name",
						scenario, i, shorten(v.Name), len(v.Name), shorten(name), err)
				}
			}
			names = append(names, v.Name)
		}
		for k, files := range experiment.CaptureFileNames(names, pcaps) {
			for j, pcap := range files {
				if err := results.CheckFileName(pcap); err != nil {
					return nil, usagef("--pcap %s: the capture file of variant %s: %v", shorten(pcaps[j]), shorten(names[k]), err)
				}
				o.pcaps = append(o.pcaps, pcap)
			}
		}
		var params []string
		if a, ok := f.VariedParameter(); ok {
			params = append(params, a.Path)
		}
		o.names = append(results.RunFileNames(names, params...), o.pcaps...)
	}
	return o, o.check()
}

// flagName is how messages name a setting: the flag, or the environment variable it came from.
func flagName(source, flag string) string {
	if strings.HasPrefix(source, "FABRICSIM_") {
		return source + "="
	}
	return flag + " "
}

// shorten quotes s, cut to 40 bytes (a 5,000-byte name is not repeated whole in a message).
func shorten(s string) string {
	if len(s) > 40 {
		cut := 40
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		return fmt.Sprintf("%q...", s[:cut])
	}
	return fmt.Sprintf("%q", s)
}

// check makes sure, without writing anything, that the results can be written: --json is
// a file in an existing directory that can be written there, or an existing device, fifo
// or socket that can be written; -o is a new or empty directory, or an earlier run's (its
// manifest.json lists its files; they are refused unless --force), whose parent can be
// written. A directory that holds anything else (a sweep's output, or other files: "/",
// a home directory, /etc through a link) is refused, --force or not.
func (o *outputs) check() error {
	if o.json != "" {
		if err := checkJSONPath(o.json); err != nil {
			return usagef("%s%s: %v", o.jsonFlag, o.json, err)
		}
	}
	if o.out == "" {
		return nil
	}
	if _, err := o.earlier(); err != nil {
		return err
	}
	if err := writable(o.out); err != nil {
		return usagef("%s%s: %v", o.outFlag, o.out, err)
	}
	return nil
}

// checkJSONPath checks that the results document can be written to path (see check).
func checkJSONPath(path string) error {
	if stdStream(path) != 0 {
		return nil
	}
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("is a directory; give a file name")
	case err == nil && !fi.Mode().IsRegular():
		// A device, fifo or socket is written through (results.WritePath), not replaced.
		if err := syscall.Access(path, 2 /* W_OK */); err != nil {
			return fmt.Errorf("is a %s that cannot be written: %v", fileKind(fi), err)
		}
		return nil
	case err == nil:
		resolved, err := filepath.EvalSymlinks(path)
		if err != nil {
			return err
		}
		return writable(filepath.Dir(resolved))
	case errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("%s is not a directory", nearestFile(path))
	case !errors.Is(err, os.ErrNotExist):
		return err
	}
	if _, lerr := os.Lstat(path); lerr == nil {
		target, _ := os.Readlink(path)
		return fmt.Errorf("is a symbolic link to %s, which does not exist", target)
	}
	dir := filepath.Dir(path)
	if di, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("the directory %s does not exist: create it first (fabricsim does not create directories for --json)", dir)
	} else if err == nil && !di.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	return writable(dir)
}

// nearestFile is the first ancestor of path that exists (and is, when the caller asks, a
// file in the way of a directory).
func nearestFile(path string) string {
	for p := filepath.Dir(path); p != filepath.Dir(p); p = filepath.Dir(p) {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return path
}

// fileKind names a file's type for a message.
func fileKind(fi os.FileInfo) string {
	switch m := fi.Mode(); {
	case m&os.ModeCharDevice != 0:
		return "character device"
	case m&os.ModeDevice != 0:
		return "block device"
	case m&os.ModeNamedPipe != 0:
		return "fifo"
	case m&os.ModeSocket != 0:
		return "socket"
	}
	return "special file"
}

// earlier inspects the -o directory: nil when it does not exist, is empty, or is an earlier
// run's with none of its files left (or with --force); that run's manifest when it is one;
// a usage error saying what is there otherwise.
func (o *outputs) earlier() (*results.RunManifest, error) {
	label := o.outFlag + o.out
	if fi, err := os.Stat(o.out); err == nil && !fi.IsDir() {
		return nil, usagef("%s: is a file, not a directory", label)
	} else if errors.Is(err, syscall.ENOTDIR) {
		return nil, usagef("%s: %s is not a directory", label, nearestFile(o.out))
	}
	names, exists, err := results.DirEntries(o.out)
	if err != nil {
		return nil, usagef("%s: %v", label, err)
	}
	if !exists || len(names) == 0 {
		return nil, nil
	}
	if slices.Contains(names, sweep.FileJSON) || slices.Contains(names, sweep.DirPoints) {
		return nil, usagef("%s: holds a fabricsim sweep's output (%s, %s/): run -o writes a run's results; give another directory",
			label, sweep.FileJSON, sweep.DirPoints)
	}
	m, err := results.ReadManifest(o.out)
	if err != nil {
		return nil, usagef("%s: %v: give a new or empty directory", label, err)
	}
	if m == nil {
		return nil, usagef("%s: is not empty (it holds %s) and is not a fabricsim run's output directory (it has no %s): give a new or empty directory; --force removes only the files a run's %s lists",
			label, listFiles(quoteAll(names)), results.FileManifest, results.FileManifest)
	}
	left := presentFiles(o.out, names, m.Files)
	if len(left) > 0 && !o.force {
		return nil, usagef("%s: holds an earlier run's results (%s): give another directory, or --force to remove them first",
			label, listFiles(left))
	}
	return m, nil
}

// presentFiles are the names among files that are in names (the directory's entries), and
// any temporary file of one of them (".NAME.*.tmp", a write cut short).
func presentFiles(dir string, names, files []string) []string {
	var out []string
	for _, n := range names {
		for _, f := range files {
			if n == f || (strings.HasPrefix(n, "."+f+".") && strings.HasSuffix(n, ".tmp")) {
				out = append(out, n)
				break
			}
		}
	}
	return out
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = shorten(n)
	}
	return out
}

func listFiles(names []string) string {
	if len(names) > 3 {
		return strings.Join(names[:3], ", ") + fmt.Sprintf(" and %d more", len(names)-3)
	}
	return strings.Join(names, ", ")
}

// prepare creates the -o directory, takes its lock (held until release), checks it again
// under the lock, removes with --force the earlier run's files its manifest lists (and
// only those), and writes a manifest that lists every file this run may write, so that an
// interrupted or failed run's files are --force's to remove too.
func (o *outputs) prepare(version, scenario string) error {
	if o.out == "" {
		return nil
	}
	label := o.outFlag + o.out
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return usagef("%s: %v", label, err)
	}
	unlock, err := results.LockDir(o.out)
	if reason, ok := results.LockRefusal(err); ok {
		return usagef("%s: %s", label, reason)
	}
	if err != nil {
		return err
	}
	o.unlock = unlock
	m, err := o.earlier()
	if err != nil {
		return err
	}
	if m != nil {
		names, _, err := results.DirEntries(o.out)
		if err != nil {
			return err
		}
		for _, name := range presentFiles(o.out, names, m.Files) {
			if err := os.Remove(filepath.Join(o.out, name)); err != nil {
				return fmt.Errorf("%s: clearing the earlier run: %w", label, err)
			}
		}
	}
	return results.WriteManifest(o.out, version, scenario, o.names)
}

// release lets go of the -o directory's lock.
// where names where the outputs go, for the line said when a signal came: the -o
// directory and the --json file, or "" when there are none (the table alone).
func (o *outputs) where() string {
	switch {
	case o.out != "" && o.json != "":
		return o.out + " and " + o.json
	case o.out != "":
		return o.out
	}
	return o.json
}

func (o *outputs) release() {
	if o.unlock != nil {
		o.unlock()
		o.unlock = nil
	}
}

// write writes doc to --json and into -o, after the table is printed: a file that fails
// stops the writing and is named, with the files written before it, which are kept (and
// listed in the manifest).
func (o *outputs) write(doc *results.Document, stdout, stderr io.Writer) error {
	if o.json != "" {
		if err := writeJSONFile(o.json, doc, stdout, stderr); err != nil {
			return err
		}
	}
	if o.out == "" {
		return nil
	}
	written, err := results.WriteDirFiles(o.out, doc)
	if err != nil {
		kept := "none"
		if len(written) > 0 {
			kept = strings.Join(written, ", ")
		}
		return fmt.Errorf("%s%s: %w\nthe files written before it are kept: %s", o.outFlag, o.out, err, kept)
	}
	return results.WriteManifest(o.out, doc.Version, doc.Scenario, append(written, o.pcaps...))
}

// writeJSONFile writes the results document to path (results.WritePath), or to this
// process's standard output or error when path names one (stdStreams).
func writeJSONFile(path string, doc *results.Document, stdout, stderr io.Writer) error {
	switch stdStream(path) {
	case 1:
		return results.WriteJSON(stdout, doc)
	case 2:
		return results.WriteJSON(stderr, doc)
	}
	return results.WritePath(path, func(w io.Writer) error { return results.WriteJSON(w, doc) })
}
