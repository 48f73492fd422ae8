package experiment

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fabricsim/fabricsim/results"
	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/topology"
)

// captureLink finds the link a --pcap spec names: "NODE:PORT" (ports from 1) or "A-B".
func captureLink(nw *topology.Network, spec string) (int, error) {
	if node, port, ok := strings.Cut(spec, ":"); ok {
		id, found := nw.Lookup(node)
		if !found {
			return 0, fmt.Errorf("--pcap %s: no node %q", spec, node)
		}
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > len(nw.Nodes[id].Ports) {
			return 0, fmt.Errorf("--pcap %s: %s has ports 1..%d", spec, node, len(nw.Nodes[id].Ports))
		}
		return nw.Nodes[id].Ports[n-1].Link, nil
	}
	a, b, ok := strings.Cut(spec, "-")
	if !ok {
		return 0, fmt.Errorf("--pcap %s: want NODE:PORT or A-B (the two ends of a link)", spec)
	}
	ia, okA := nw.Lookup(a)
	ib, okB := nw.Lookup(b)
	if !okA || !okB {
		return 0, fmt.Errorf("--pcap %s: no node %q", spec, map[bool]string{true: b, false: a}[okA])
	}
	li, found := nw.LinkBetween(ia, ib)
	if !found {
		return 0, fmt.Errorf("--pcap %s: no link between %s and %s", spec, a, b)
	}
	return li, nil
}

// CheckCaptures reports whether every --pcap spec names a link of every variant, and
// refuses two specs that name one link ("h1-sw" and "h1:1"): a link is tapped once, so all
// but one of its capture files would stay empty.
func CheckCaptures(file *scenarios.File, specs []string) error {
	for i := range file.Variants() {
		nw, err := buildNetwork(&file.Scenario(i).Topology)
		if err != nil {
			return err
		}
		first := make(map[int]string, len(specs))
		for _, s := range specs {
			li, err := captureLink(nw, s)
			if err != nil {
				return err
			}
			if earlier, dup := first[li]; dup {
				return fmt.Errorf("--pcap %s and --pcap %s name the same link (%s): capture it once", earlier, s, linkName(nw, li))
			}
			first[li] = s
		}
	}
	return nil
}

// linkName names link li by its two ends, "h1:1-sw:3" (ports from 1).
func linkName(nw *topology.Network, li int) string {
	end := func(e topology.End) string {
		return fmt.Sprintf("%s:%d", nw.Nodes[e.Node].Name, e.Port+1)
	}
	l := &nw.Links[li]
	return end(l.A) + "-" + end(l.B)
}

// CaptureFileName is the name of the pcap file of the link spec names in a run of a variant
// whose file stem is stem (results.VariantSlugs): the stem, '-', the spec with ':' written
// "-port" and '/' written '-', ".pcap"; "rocev2-lossy" and sw:3 give
// "rocev2-lossy-sw-port3.pcap".
func CaptureFileName(stem, spec string) string {
	return fmt.Sprintf("%s-%s.pcap", stem, strings.NewReplacer(":", "-port", "/", "-").Replace(spec))
}

// CaptureFileNames lists, variant by variant, the pcap files a run of variants (the names of
// those it runs, in file order) writes for specs: variants whose names reduce to one slug get
// the stems "-2", "-3", ... as their tables and plots do (results.VariantSlugs).
func CaptureFileNames(variants, specs []string) [][]string {
	out := make([][]string, len(variants))
	for k, stem := range results.VariantSlugs(variants) {
		for _, s := range specs {
			out[k] = append(out[k], CaptureFileName(stem, s))
		}
	}
	return out
}

// capture taps the links the specs name; each gets a pcap file in dir named after the
// variant's file stem (its Slug when stem is empty) and the spec. The returned function closes the files.
func (f *fabric) capture(specs []string, dir, stem string) (closeAll func() error, err error) {
	var files []*results.AtomicFile
	var writers []*results.PcapWriter
	closeAll = func() error {
		var first error
		for i, w := range writers {
			if err := w.Close(); err != nil && first == nil {
				first = err
			}
			if first != nil {
				files[i].Abort()
				continue
			}
			first = files[i].Commit() // the capture appears whole, or not at all
		}
		return first
	}
	for _, s := range specs {
		li, err := captureLink(f.nw, s)
		if err != nil {
			return closeAll, err
		}
		stem := stem
		if stem == "" {
			stem = results.Slug(f.sc.Variant)
		}
		name := CaptureFileName(stem, s)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return closeAll, err
		}
		out, err := results.CreateAtomic(filepath.Join(dir, name))
		if err != nil {
			return closeAll, err
		}
		w := results.NewPcapWriter(out, f.routes)
		files, writers = append(files, out), append(writers, w)
		f.wires[li][0].SetTap(w)
		f.wires[li][1].SetTap(w)
	}
	return closeAll, nil
}
