package sweep

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/fabricsim/fabricsim/internal/infile"
	"github.com/fabricsim/fabricsim/results"
)

// Manifest is sweep.json: the sweep's plan (its parameters and every point, whether this
// directory holds it or not), then a row per point and variant of the points it holds, and
// the seeds' summary. Every field is computed from the plan and the point documents, never
// from the wall clock, so the same sweep gives the same bytes however it was run or split.
type Manifest struct {
	Scenario string `json:"scenario"`
	Version  string `json:"version"`
	// Sweep identifies the sweep (Plan.ID): shards of one sweep share it.
	Sweep string `json:"sweep"`
	// Shard is the slice this directory ran; omitted for a whole sweep (or a merged one).
	Shard      *ShardInfo  `json:"shard,omitempty"`
	Overrides  []string    `json:"overrides"`
	Parameters []Parameter `json:"parameters"`
	Points     []PointInfo `json:"points"`
	Rows       []Row       `json:"rows"`
	Summary    []Summary   `json:"summary"`
}

// ShardInfo is --shard I/N.
type ShardInfo struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// Parameter is one swept field path and its values, in order.
type Parameter struct {
	Path   string   `json:"path"`
	Values []string `json:"values"`
}

// PointInfo is one point of the plan: its name, its document's path in the directory, its
// value of each parameter and its resolved scenario's SHA-256.
type PointInfo struct {
	Name           string            `json:"name"`
	File           string            `json:"file"`
	Parameters     map[string]string `json:"parameters"`
	ScenarioSHA256 string            `json:"scenario_sha256"`
}

// Row is one variant of one point: the comparison table's metrics (results.TableMetrics;
// null when the variant has no value, e.g. an FCT when no flow completed).
type Row struct {
	Point      string              `json:"point"`
	Parameters map[string]string   `json:"parameters"`
	Variant    string              `json:"variant"`
	Transport  string              `json:"transport"`
	Seed       uint64              `json:"seed"`
	Metrics    map[string]*float64 `json:"metrics"`
}

// Summary is one variant at one combination of the parameters other than seed, over the
// seeds swept (one when seed is not swept): each metric's mean and 95% confidence interval
// (results.EstimateOf, Student's t), as a replicated run's summary.
type Summary struct {
	Variant    string                      `json:"variant"`
	Transport  string                      `json:"transport"`
	Parameters map[string]string           `json:"parameters"`
	Seeds      []uint64                    `json:"seeds"`
	Metrics    map[string]results.Estimate `json:"metrics"`
}

// manifest is the plan as sweep.json states it, without rows.
func (p *Plan) manifest() *Manifest {
	m := &Manifest{Scenario: p.Scenario, Version: p.Version, Sweep: p.ID, Overrides: p.Sets,
		Parameters: []Parameter{}, Points: []PointInfo{}}
	if m.Overrides == nil {
		m.Overrides = []string{}
	}
	for _, a := range p.Axes {
		m.Parameters = append(m.Parameters, Parameter{a.Path, a.Values})
	}
	for _, pt := range p.Points {
		info := PointInfo{Name: pt.Name, File: DirPoints + "/" + pt.Name + ".json", Parameters: map[string]string{},
			ScenarioSHA256: pt.Hash}
		for i, a := range p.Axes {
			info.Parameters[a.Path] = pt.Values[i]
		}
		m.Points = append(m.Points, info)
	}
	return m
}

// Write writes dir's sweep.csv and sweep.json from m's plan and the documents in
// dir/points: for shard (nil: the whole sweep) its points, each of which must be there. A
// whole sweep also gets its plots (plots/, PNG and SVG) and report.html.
func Write(dir string, m *Manifest, shard *ShardInfo) error {
	out := *m
	out.Shard = shard
	out.Rows, out.Summary = []Row{}, []Summary{}
	// One document at a time: a sweep of many large points never holds them all.
	header, table := csvHeader(out.Parameters), [][]string{}
	var jobKeys []string // the collectives' metrics (results.JobMetricKey), in order met
	metrics := results.TableMetrics()
	for k, pt := range m.Points {
		if shard != nil && k%shard.Count != shard.Index {
			continue
		}
		d, err := readPoint(dir, pt)
		if err != nil {
			return err
		}
		for i := range d.Variants {
			v := &d.Variants[i]
			r := Row{Point: pt.Name, Parameters: pt.Parameters, Variant: v.Name, Transport: v.Transport,
				Seed: v.Seed, Metrics: map[string]*float64{}}
			for _, mt := range metrics {
				if x, ok := mt.Value(v); ok {
					r.Metrics[mt.Name] = &x
				} else {
					r.Metrics[mt.Name] = nil
				}
			}
			keys, values := results.JobMetricValues(v)
			for _, k := range keys {
				if !slices.Contains(jobKeys, k) {
					jobKeys = append(jobKeys, k)
				}
				r.Metrics[k] = nil
				if x, ok := values[k]; ok {
					r.Metrics[k] = &x
				}
			}
			out.Rows = append(out.Rows, r)
			table = append(table, csvRow(out.Parameters, pt, v))
		}
	}
	// The collectives' columns, known once every row is read: a cell per job metric of the
	// sweep (a variant without that job, or an iteration that never ended, leaves it empty).
	header = append(header, jobKeys...)
	for i := range table {
		for _, k := range jobKeys {
			cell := ""
			if x := out.Rows[i].Metrics[k]; x != nil {
				cell = strconv.FormatFloat(*x, 'f', -1, 64)
			}
			table[i] = append(table[i], cell)
		}
	}
	out.Summary = summarize(out.Parameters, out.Rows, jobKeys)
	if err := results.WriteFileAtomic(filepath.Join(dir, FileCSV), func(w io.Writer) error {
		cw := csv.NewWriter(w)
		if err := cw.Write(header); err != nil {
			return err
		}
		return cw.WriteAll(table) // flushes
	}); err != nil {
		return err
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, FileJSON), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(&out)
	}); err != nil {
		return err
	}
	if shard != nil {
		return nil
	}
	figs, flat, err := figures(&out, jobKeys)
	if err != nil {
		return err
	}
	if err := results.MkdirIn(dir, DirPlots); err != nil {
		return inputf("-o %s: %v", dir, err)
	}
	for _, f := range figs {
		for _, format := range results.FigureFormats {
			if err := results.WriteFileAtomic(filepath.Join(dir, DirPlots, f.Name+"."+format), func(w io.Writer) error {
				return f.Render(w, format)
			}); err != nil {
				return err
			}
		}
	}
	return results.WriteFileAtomic(filepath.Join(dir, FileHTML), func(w io.Writer) error { return writeReport(w, &out, jobKeys, figs, flat) })
}

// readPoint reads a point's document from dir, checking that it is the point's.
func readPoint(dir string, pt PointInfo) (*results.Document, error) {
	d, err := results.ReadJSONFile(filepath.Join(dir, pt.File))
	if errors.Is(err, os.ErrNotExist) {
		return nil, inputf("%s: point %s has no results (%s is missing)", dir, pt.Name, pt.File)
	}
	if infile.IsRefused(err) {
		return nil, inputf("%v", err)
	}
	if err != nil {
		return nil, inputf("%s: %s: %v", dir, pt.File, err)
	}
	if hashOf(d.ResolvedScenario) != pt.ScenarioSHA256 {
		return nil, inputf("%s: %s holds the results of another scenario than point %s's (its resolved scenario differs)", dir, pt.File, pt.Name)
	}
	return d, nil
}

// seedParam is the parameter that sweeps the seed: it is the CSV's seed column, and the
// summary's replication.
const seedParam = "seed"

// csvHeader is sweep.csv's header: the point's name, each parameter but seed (by its path),
// the variant, its transport and seed, then the comparison table's CSV columns
// (results.TableCSVHeader: units in the names, full precision, empty for a statistic of
// nothing), then the p50 and p99 slowdown of each flow-size bin of all flows.
func csvHeader(params []Parameter) []string {
	header := []string{"point"}
	for _, p := range params {
		if p.Path != seedParam {
			header = append(header, p.Path)
		}
	}
	header = append(header, "variant", "transport", "seed")
	header = append(header, results.TableCSVHeader()[2:]...)
	for _, b := range defaultBins() {
		header = append(header, "slowdown_p50_"+b.Range(), "slowdown_p99_"+b.Range())
	}
	return header
}

// defaultBins are the slowdown_by_size bins of a point's run (the default edges): sweep.csv
// gives each one's p50 and p99 slowdown, named by its range ("slowdown_p99_0B-10KB").
func defaultBins() []results.SizeBin {
	var bins []results.SizeBin
	lo := int64(0)
	for _, e := range results.DefaultSizeEdges {
		hi := e
		bins = append(bins, results.SizeBin{LoBytes: lo, HiBytes: &hi})
		lo = e
	}
	return append(bins, results.SizeBin{LoBytes: lo})
}

// binCells are v's p50 and p99 slowdown of each default bin, at full precision, empty for
// a bin with no completed flow or one the run did not have.
func binCells(v *results.Variant) []string {
	var cells []string
	for _, want := range defaultBins() {
		p50, p99 := "", ""
		for _, b := range v.OverallSizeBins() {
			if b.Range() == want.Range() {
				if b.P50 != nil {
					p50 = strconv.FormatFloat(*b.P50, 'f', -1, 64)
				}
				if b.P99 != nil {
					p99 = strconv.FormatFloat(*b.P99, 'f', -1, 64)
				}
			}
		}
		cells = append(cells, p50, p99)
	}
	return cells
}

// csvRow is variant v of point pt as a row of sweep.csv.
func csvRow(params []Parameter, pt PointInfo, v *results.Variant) []string {
	row := []string{pt.Name}
	for _, p := range params {
		if p.Path != seedParam {
			row = append(row, pt.Parameters[p.Path])
		}
	}
	table := results.TableCSVRow(v)
	row = append(row, table[0], table[1], strconv.FormatUint(v.Seed, 10))
	row = append(row, table[2:]...)
	return append(row, binCells(v)...)
}

// summarize groups the rows by variant and the parameters other than seed, in the order
// they first appear, and estimates each metric over the group's seeds.
func summarize(params []Parameter, rows []Row, jobKeys []string) []Summary {
	var out []Summary
	var keys []string
	var groups [][]Row
	for _, r := range rows {
		key := r.Variant
		for _, p := range params {
			if p.Path != seedParam {
				key += "\x00" + r.Parameters[p.Path]
			}
		}
		i := slices.Index(keys, key)
		if i < 0 {
			i = len(keys)
			keys = append(keys, key)
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], r)
	}
	for _, g := range groups {
		s := Summary{Variant: g[0].Variant, Transport: g[0].Transport, Parameters: map[string]string{},
			Metrics: map[string]results.Estimate{}}
		for _, p := range params {
			if p.Path != seedParam {
				s.Parameters[p.Path] = g[0].Parameters[p.Path]
			}
		}
		for _, r := range g {
			s.Seeds = append(s.Seeds, r.Seed)
		}
		for _, name := range metricNames(jobKeys) {
			var xs []float64
			for _, r := range g {
				if x := r.Metrics[name]; x != nil {
					xs = append(xs, *x)
				}
			}
			if len(xs) > 0 {
				s.Metrics[name] = results.EstimateOf(xs)
			}
		}
		out = append(out, s)
	}
	return out
}

// metricNames are the names of a sweep's metrics: the comparison table's
// (results.TableMetrics), then its collectives' (jobKeys).
func metricNames(jobKeys []string) []string {
	var names []string
	for _, mt := range results.TableMetrics() {
		names = append(names, mt.Name)
	}
	return append(names, jobKeys...)
}

// maxManifestBytes bounds sweep.json read back: it holds the plan and a row per point and
// variant, about 2 KB each (the table's metrics at full precision, the point's parameters),
// and the seeds' summary: 1 GiB is some half a million rows, more than a sweep runs in a
// week; larger is no sweep.json of ours and is refused before it is read.
const maxManifestBytes = 1 << 30

// ReadManifest reads dir's sweep.json: a regular file (internal/infile) whose points each
// have their file in points/.
func ReadManifest(dir string) (*Manifest, error) {
	data, err := infile.Read(filepath.Join(dir, FileJSON), maxManifestBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, inputf("%s: no %s: not the output of fabricsim sweep, or its run has not finished", dir, FileJSON)
	}
	if infile.IsRefused(err) {
		return nil, inputf("%v", err)
	}
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, inputf("%s: %s: %v", dir, FileJSON, err)
	}
	if m.Sweep == "" || len(m.Points) == 0 {
		return nil, inputf("%s: %s names no sweep or no point", dir, FileJSON)
	}
	for k, pt := range m.Points {
		// Merge reads and writes a point's file by these names: a name with a '/' or a file
		// outside points/ ("../../etc/cron.d/x") would reach outside the directories.
		if err := results.CheckFileName(pt.Name + ".json"); err != nil || pt.File != DirPoints+"/"+pt.Name+".json" {
			return nil, inputf("%s: %s: points.%d is named %q with file %q; a point's file is %s/NAME.json, NAME a file name",
				dir, FileJSON, k, pt.Name, pt.File, DirPoints)
		}
	}
	return &m, nil
}

// describe is a sweep's identity in words, for errors: scenario and parameters.
func (m *Manifest) describe() string {
	s := fmt.Sprintf("scenario %s, %d points over", m.Scenario, len(m.Points))
	for _, p := range m.Parameters {
		s += fmt.Sprintf(" %s (%d)", p.Path, len(p.Values))
	}
	if len(m.Overrides) > 0 {
		s += fmt.Sprintf(", --set %v", m.Overrides)
	}
	return s
}
