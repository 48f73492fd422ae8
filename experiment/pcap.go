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

// CheckCaptures reports whether every --pcap spec names a link of every variant.
func CheckCaptures(file *scenarios.File, specs []string) error {
	for i := range file.Variants() {
		nw, err := buildNetwork(&file.Scenario(i).Topology)
		if err != nil {
			return err
		}
		for _, s := range specs {
			if _, err := captureLink(nw, s); err != nil {
				return err
			}
		}
	}
	return nil
}

// CaptureFileName is the name of the pcap file of the link spec names in a run of variant:
// the variant's Slug, '-', the spec with ':' written "-port" and '/' written '-', ".pcap";
// "RoCEv2 lossy" and sw:3 give "rocev2-lossy-sw-port3.pcap".
func CaptureFileName(variant, spec string) string {
	return fmt.Sprintf("%s-%s.pcap", results.Slug(variant), strings.NewReplacer(":", "-port", "/", "-").Replace(spec))
}

// capture taps the links the specs name; each gets a pcap file in dir named after the
// variant and the spec. The returned function closes the files.
func (f *fabric) capture(specs []string, dir string) (closeAll func() error, err error) {
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
		name := CaptureFileName(f.sc.Variant, s)
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
