package scenarios

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"

	"github.com/fabricsim/fabricsim/internal/infile"
	"github.com/fabricsim/fabricsim/sim"
	"github.com/fabricsim/fabricsim/workload"
)

// pos is the position of path's value in the file, or zero for --set values.
func (r *resolver) pos(path string) Pos {
	n := r.ix.byPath[path]
	if n == nil || n.Line <= 0 {
		return Pos{}
	}
	return Pos{Line: n.Line, Column: n.Column}
}

// host checks that name, at path, is a host of the topology.
func (r *resolver) host(path, field, name string) bool {
	if name == "" {
		r.errf(path, "%s is required: a host name", field)
		return false
	}
	if r.topo == nil {
		return true
	}
	typ, _, ok := r.topo.lookup(name)
	switch {
	case !ok:
		r.errf(path, "unknown host %q (%s)", name, r.topo.hostsHint(name))
		return false
	case typ == "switch":
		r.errf(path, "%q is a switch; traffic runs between hosts", name)
		return false
	case typ != "host": // a node of an unknown type: reported at its type
		return false
	}
	return true
}

// hostPriority is the hosts.priority of the named host: its own hosts block's, else the global.
func (r *resolver) hostPriority(name string) int {
	if r.topo != nil && r.topo.nodes != nil {
		if n := r.topo.nodes[name]; n != nil && n.Hosts != nil {
			return n.Hosts.Priority
		}
	}
	return r.sc.Hosts.Priority
}

// common resolves the fields every traffic kind has.
type common struct {
	size      int64
	start     sim.Time
	transport string
	priority  int
	rate      sim.Rate
}

func (r *resolver) common(path string, size *Size, start *Duration, transport string, priority *int, rate *Rate, defPriority int) common {
	c := r.sending(path, start, transport, priority, rate, defPriority)
	if size == nil {
		r.errf(path+".size", "size is required, e.g. size: 1MB")
	} else if c.size = int64(*size); c.size <= 0 {
		r.errf(path+".size", "size must be > 0, e.g. 1MB")
	} else if c.size > maxFlowSize {
		r.errf(path+".size", "size %d bytes is more than a flow may carry (at most 1TB: a RoCE message of up to 2^32 packets)", c.size)
	}
	return c
}

// sending resolves the fields of every traffic kind but the size: start, transport,
// priority and rate.
func (r *resolver) sending(path string, start *Duration, transport string, priority *int, rate *Rate, defPriority int) common {
	var c common
	if start != nil {
		c.start = sim.Time(*start)
		if c.start >= r.sc.Stop && r.sc.Stop > 0 { // an invalid stop is its own problem
			r.warnf(path+".start", "starts at %v, at or after stop (%v); it will not run", c.start, r.sc.Stop)
		}
	}
	switch {
	case transport != "":
		c.transport = transport
		r.transport(path+".transport", transport)
	case r.variant.transport != "":
		c.transport = r.variant.transport
	default:
		r.errf(path, "no transport: give one here or in the variant")
	}
	c.priority = defPriority
	if priority != nil {
		c.priority = *priority
		r.priority(path+".priority", c.priority)
	}
	if rate != nil {
		c.rate = sim.Rate(*rate)
		if c.rate <= 0 {
			// Internally 0 is line rate; written in the file it reads as "send nothing".
			r.errf(path+".rate", "rate must be > 0: omit rate for line rate, or give a pace such as rate: 8Gbps")
		}
	}
	return c
}

var trafficKinds = []string{"flow", "incast", "permutation", "poisson", "all_to_all", "collective", "chakra"}

// kindNeeds says what an empty traffic item of each kind lacks.
var kindNeeds = map[string]string{
	"flow":        "src, dst and size, e.g. {src: h1, dst: h2, size: 1MB}",
	"incast":      "senders, receiver and size, e.g. {senders: [h1, h2], receiver: h3, size: 1MB}",
	"permutation": "a size, e.g. {hosts: all, size: 1MB}",
	"poisson":     "a load and a workload, e.g. {hosts: all, load: 0.5, workload: websearch, count: 1000}",
	"all_to_all":  "a size, e.g. {hosts: all, size: 100KB}",
	"collective":  "an op and a size, e.g. {op: allreduce, hosts: all, size: 64MB}",
	"chakra":      "traces, one Chakra execution trace per rank, e.g. {traces: \"trace.%d.et\", hosts: all}",
}

func (r *resolver) traffic(raw []rawTraffic) {
	if len(raw) == 0 {
		r.errf("traffic", "traffic is required: a list of items, each one of flow, incast, permutation, poisson, all_to_all, collective or chakra")
		return
	}
	for i, it := range raw {
		path := fmt.Sprintf("traffic.%d", i)
		var kinds []string
		for _, k := range trafficKinds {
			if r.ix.has(path + "." + k) {
				kinds = append(kinds, k)
			}
		}
		switch {
		case len(kinds) == 0:
			// A non-empty mapping has unknown keys and anything else the wrong type: the
			// decoder has reported those.
			if n := r.ix.byPath[path]; n != nil && (isNull(n) || n.Kind == yaml.MappingNode && len(n.Content) == 0) {
				r.errf(path, "a traffic item is one of %s, e.g. - flow: {src: h1, dst: h2, size: 1MB}", listOf(trafficKinds))
			}
			continue
		case len(kinds) > 1:
			r.errf(path+"."+kinds[1], "a traffic item has one kind; this one has %s and %s", kinds[0], kinds[1])
			continue
		}
		item := Traffic{Kind: kinds[0], Pos: r.pos(path)}
		kp := path + "." + kinds[0]
		item.Label = r.itemLabel(kp+".label", it.label(), kinds[0], i)
		switch {
		case it.Flow != nil:
			item.Flow = r.flow(kp, it.Flow)
		case it.Incast != nil:
			item.Incast = r.incast(kp, it.Incast)
		case it.Permutation != nil:
			item.Permutation = r.permutation(kp, it.Permutation)
		case it.Poisson != nil:
			item.Poisson = r.poisson(kp, it.Poisson)
		case it.AllToAll != nil:
			item.AllToAll = r.allToAll(kp, it.AllToAll)
		case it.Collective != nil:
			item.Collective = r.collective(kp, i, it.Collective)
			item.Label = item.Collective.Label // the job's name is its flows' group
		case it.Chakra != nil:
			item.Collective = r.chakra(kp, i, it.Chakra)
			item.Label = item.Collective.Label
		default:
			r.errf(kp, "%s is empty; it needs %s", kinds[0], kindNeeds[kinds[0]])
		}
		r.sc.Traffic = append(r.sc.Traffic, item)
	}
}

// maxLabel bounds a traffic item's label: it heads table rows and plot legends.
const maxLabel = 64

// itemLabel resolves a traffic item's label at path: the one given, checked (1 to maxLabel
// bytes of printable UTF-8, no space at either end), else the item's kind and index.
func (r *resolver) itemLabel(path string, given *string, kind string, index int) string {
	if given == nil {
		return fmt.Sprintf("%s %d", kind, index)
	}
	l := *given
	bad := ""
	switch {
	case l == "":
		bad = "is empty"
	case len(l) > maxLabel:
		bad = fmt.Sprintf("is %d bytes long", len(l))
	case !utf8.ValidString(l):
		bad = "is not valid UTF-8"
	case strings.TrimSpace(l) != l:
		bad = "starts or ends with a space"
	default:
		for _, c := range l {
			if !unicode.IsPrint(c) {
				bad = fmt.Sprintf("holds the unprintable character %U", c)
				break
			}
		}
	}
	if bad != "" {
		r.errf(path, "label %q %s: a label is 1 to %d bytes of printable text naming the item's flows, e.g. label: background (omit it for %q)",
			l, bad, maxLabel, fmt.Sprintf("%s %d", kind, index))
		return fmt.Sprintf("%s %d", kind, index)
	}
	return l
}

func (r *resolver) flow(path string, f *rawFlow) *Flow {
	okSrc := r.host(path+".src", "src", f.Src)
	okDst := r.host(path+".dst", "dst", f.Dst)
	if okSrc && okDst && f.Src == f.Dst {
		r.errf(path+".dst", "dst is src (%s); a flow runs between two different hosts", f.Src)
	}
	c := r.common(path, f.Size, f.Start, f.Transport, f.Priority, f.Rate, r.hostPriority(f.Src))
	return &Flow{Src: f.Src, Dst: f.Dst, Size: c.size, Start: c.start, Transport: c.transport,
		Priority: c.priority, Rate: c.rate, Pos: r.pos(path)}
}

func (r *resolver) incast(path string, in *rawIncast) *Incast {
	if len(in.Senders) == 0 {
		r.errf(path+".senders", "senders is required: a list of hosts, e.g. senders: [h1, h2, h3]")
	}
	seen := map[string]int{}
	for i, s := range in.Senders {
		sp := fmt.Sprintf("%s.senders.%d", path, i)
		if j, dup := seen[s]; dup {
			r.errf(sp, "sender %q is listed twice (also senders.%d)", s, j)
			continue
		}
		seen[s] = i
		if r.host(sp, "a sender", s) && s == in.Receiver {
			r.errf(sp, "sender %q is the receiver", s)
		}
	}
	r.host(path+".receiver", "receiver", in.Receiver)
	c := r.common(path, in.Size, in.Start, in.Transport, in.Priority, in.Rate, r.sc.Hosts.Priority)
	out := &Incast{Senders: in.Senders, Receiver: in.Receiver, Size: c.size, Start: c.start,
		Transport: c.transport, Priority: c.priority, Rate: c.rate, Count: 1, Pos: r.pos(path)}
	if rp := in.Repeat; rp != nil {
		switch {
		case rp.Every == nil || *rp.Every <= 0:
			r.errf(path+".repeat.every", "repeat.every is required: the time from one burst's start to the next, e.g. every: 100us")
		case rp.Count == nil || *rp.Count < 1 || *rp.Count > maxRepeat:
			r.errf(path+".repeat.count", "repeat.count is the number of bursts in all, 1 to %d", maxRepeat)
		default:
			out.Every, out.Count = sim.Time(*rp.Every), *rp.Count
		}
	}
	return out
}

// maxRepeat bounds an incast's bursts, and maxGenerated the flows one traffic item may
// generate: both keep a typo from asking for more memory than a run can have.
const (
	maxRepeat       = 100_000
	maxGenerated    = 1_000_000
	maxWorkloadFile = 10 << 20 // a CDF of a few thousand points is a few tens of KB
)

// hostSet resolves a hosts (or dst) list of path: nil for all hosts of the topology (with at
// least 2 of them), else the listed ones, checked, none twice.
func (r *resolver) hostSet(path string, hl *hostList, kind string) []string {
	if hl == nil || hl.All {
		if r.topo != nil && r.topo.hostCount() < 2 {
			r.errf(path, "%s needs at least 2 hosts; the topology has %d", kind, r.topo.hostCount())
		}
		return nil
	}
	if hl.Placement != "" {
		return r.place(path, hl, kind)
	}
	if len(hl.Names) < 2 {
		r.errf(path, "%s needs at least 2 hosts (or hosts: all)", kind)
	}
	field := path[strings.LastIndex(path, ".")+1:]
	seen := map[string]int{}
	for i, h := range hl.Names {
		hp := fmt.Sprintf("%s.%d", path, i)
		if j, dup := seen[h]; dup {
			r.errf(hp, "host %q is listed twice (also %s.%d)", h, field, j)
			continue
		}
		seen[h] = i
		r.host(hp, "a host", h)
	}
	return hl.Names
}

func (r *resolver) poisson(path string, pr *rawPoisson) *Poisson {
	c := r.sending(path, pr.Start, pr.Transport, pr.Priority, pr.Rate, r.sc.Hosts.Priority)
	p := &Poisson{Hosts: r.hostSet(path+".hosts", pr.Hosts, "poisson traffic"), Start: c.start, Stop: r.sc.Stop,
		Transport: c.transport, Priority: c.priority, Rate: c.rate, Pos: r.pos(path)}
	if pr.Dst != nil {
		p.Dst = r.hostSet(path+".dst", pr.Dst, "poisson.dst")
	}
	switch {
	case pr.Load == nil:
		r.errf(path+".load", "load is required: the share of each sender's link rate offered, in (0, 1], e.g. load: 0.5")
	case !(*pr.Load > 0 && *pr.Load <= 1):
		r.errf(path+".load", "load is the share of each sender's link rate offered, in (0, 1]; got %v", *pr.Load)
	default:
		p.Load = *pr.Load
	}
	p.Workload, p.WorkloadFile = r.workload(path+".workload", pr.Workload)
	switch {
	case pr.Count != nil && pr.Stop != nil:
		r.errf(path+".stop", "give stop or count, not both: stop ends the arrivals at a time, count after that many flows")
	case pr.Count != nil:
		if *pr.Count < 1 || *pr.Count > maxGenerated {
			r.errf(path+".count", "count is the number of flows in all, 1 to %d; got %d", maxGenerated, *pr.Count)
		}
		p.Count = *pr.Count
	case pr.Stop != nil:
		p.Stop = sim.Time(*pr.Stop)
		if p.Stop <= p.Start {
			r.errf(path+".stop", "stop %v must be after start (%v)", p.Stop, p.Start)
		}
	}
	return p
}

// workload resolves a workload name: a bundled one, or a CDF file (relative to the
// scenario's directory), checked line by line.
func (r *resolver) workload(path, name string) (*workload.CDF, string) {
	if name == "" {
		r.errf(path, "workload is required: one of %s, or a file of size and cumulative percent per line", listOf(workload.Names))
		return nil, ""
	}
	if slices.Contains(workload.Names, name) {
		c, err := workload.Bundled(name)
		if err != nil {
			r.errf(path, "%v", err)
		}
		return c, ""
	}
	file := name
	if !filepath.IsAbs(file) {
		file = filepath.Join(filepath.Dir(r.l.file), file)
	}
	// Only a regular file, refused at once otherwise: a fifo's open would block (infile.Read).
	data, err := infile.Read(file, maxWorkloadFile)
	if err != nil {
		r.errf(path, "workload %q is not bundled (%s) and cannot be read as a file: %v", name, listOf(workload.Names), err)
		return nil, ""
	}
	c, err := workload.Parse(file, data)
	if err != nil {
		r.errf(path, "workload %v", err)
		return nil, ""
	}
	return c, file
}

func (r *resolver) allToAll(path string, a *rawAllToAll) *AllToAll {
	c := r.common(path, a.Size, a.Start, a.Transport, a.Priority, a.Rate, r.sc.Hosts.Priority)
	out := &AllToAll{Hosts: r.hostSet(path+".hosts", a.Hosts, "all_to_all"), Size: c.size, Start: c.start,
		Transport: c.transport, Priority: c.priority, Rate: c.rate, Pos: r.pos(path)}
	n := len(out.Hosts)
	if out.Hosts == nil && r.topo != nil {
		n = r.topo.hostCount()
	}
	if n*(n-1) > maxGenerated {
		r.errf(path+".hosts", "all_to_all over %d hosts is %d flows; at most %d", n, n*(n-1), maxGenerated)
	}
	return out
}

func (r *resolver) permutation(path string, pm *rawPermutation) *Permutation {
	p := &Permutation{Hosts: r.hostSet(path+".hosts", pm.Hosts, "a permutation"), Pos: r.pos(path)}
	c := r.common(path, pm.Size, pm.Start, pm.Transport, pm.Priority, pm.Rate, r.sc.Hosts.Priority)
	p.Size, p.Start, p.Transport, p.Priority, p.Rate = c.size, c.start, c.transport, c.priority, c.rate
	return p
}
