package results

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
)

// FileJobs is the per-job, per-iteration CSV WriteDir writes when a variant has collectives.
const FileJobs = "jobs.csv"

// Job is one collective of a variant (docs/results.md, "jobs"): per iteration its time from
// its first message's release to its last message's arrival, and over the iterations that
// completed their mean; algorithm bandwidth = SizeBytes / time and bus bandwidth = algbw x
// nccl-tests' factor for the op (BusFactor); IdealUS an iteration alone on the empty fabric,
// the critical path through the algorithm's dependency graph (collective.Plan.CriticalPath).
type Job struct {
	Label     string `json:"label"`
	Op        string `json:"op"`
	Algorithm string `json:"algorithm"`
	Ranks     int    `json:"ranks"`
	// Servers and Rails count the servers and rails the job's ranks are on when they are
	// GPUs (rail preset, or explicit servers); absent otherwise.
	Servers   int   `json:"servers,omitempty"`
	Rails     int   `json:"rails,omitempty"`
	SizeBytes int64 `json:"size_bytes"`
	Channels  int   `json:"channels"`
	// QueuePairs is the number of queue pairs the job kept open (one per channel and pair
	// of ranks that exchange data): its flows in per_flow.
	QueuePairs int `json:"queue_pairs"`
	// ChunkBytes is the piece a pipelined algorithm (tree, broadcast) sends at a time;
	// absent for the others.
	ChunkBytes int64 `json:"chunk_bytes,omitempty"`
	// MessageBytesMin and MessageBytesMax are the smallest and largest message one queue
	// pair carries in the first iteration (a message split over the channels counted per
	// channel): a ring allreduce's S / (ranks x channels), what sets whether a step is
	// latency or bandwidth bound.
	MessageBytesMin int64 `json:"message_bytes_min"`
	MessageBytesMax int64 `json:"message_bytes_max"`
	Iterations      int   `json:"iterations"`
	// Completed is how many iterations ended by the end of the run.
	Completed    int      `json:"completed_iterations"`
	CompletionUS *float64 `json:"completion_us"`
	AlgbwGbps    *float64 `json:"algbw_gbps"`
	BusbwGbps    *float64 `json:"busbw_gbps"`
	BusFactor    float64  `json:"bus_factor"`
	IdealUS      float64  `json:"ideal_us"`
	// BottleneckGbps, PayloadShare and StepLatencyUS are what IdealUS stands on: the
	// slowest link between two ranks that exchange data, the payload's share of a full
	// packet's wire bytes, and the longest such pair's one-packet latency less its first
	// serialization.
	BottleneckGbps float64 `json:"bottleneck_gbps"`
	PayloadShare   float64 `json:"payload_share"`
	StepLatencyUS  float64 `json:"step_latency_us"`
	Steps          int     `json:"steps"`
	// IdealStepEndUS is, per step of the ideal, when its last message arrives.
	IdealStepEndUS []float64      `json:"ideal_step_end_us"`
	PerIteration   []JobIteration `json:"per_iteration"`
	// Traces, JobUS and JobIdealUS are a chakra job's (docs/results.md): the trace files read,
	// the time from its start to its last collective's last arrival (absent until then), and
	// that alone on the empty fabric (each collective its ideal, after its ranks' waits).
	Traces     []string `json:"traces,omitempty"`
	JobUS      *float64 `json:"job_us,omitempty"`
	JobIdealUS *float64 `json:"job_ideal_us,omitempty"`
	// RankSteps are, for the first iteration of a job of at most MaxTimelineRanks ranks and
	// MaxTimelineCells rank-steps, when each rank's messages of each step ran (the per-rank
	// step timeline), and RankHosts each rank's host; both nil otherwise, and not in the
	// results document (docs/results.md).
	RankSteps []RankStep `json:"-"`
	RankHosts []string   `json:"-"`
}

// RankStep is when the messages one rank received in one step of an iteration ran: from the
// first one's release to the last one's arrival, from the iteration's start (Arrived false:
// one had not arrived by the end of the run, EndUS is then the run's end).
type RankStep struct {
	Rank, Step     int
	StartUS, EndUS float64
	Arrived        bool
}

// The bounds of the per-rank step timeline (Job.RankSteps): a figure of more ranks than
// rows a page shows says nothing a reader can find, and the 1,024-rank benchmark should
// keep no per-message record.
const (
	MaxTimelineRanks = 64
	MaxTimelineCells = MaxTimelineRanks * 128
)

// JobIteration is one iteration of a job. CompletionUS, AlgbwGbps and BusbwGbps are nil
// until it ended. The slowest step is the message, of all the iteration's, that took
// longest from its release to its arrival: its step, its receiving rank (index and host)
// and that time.
type JobIteration struct {
	Iteration     int      `json:"iteration"`
	StartUS       *float64 `json:"start_us"`
	CompletionUS  *float64 `json:"completion_us"`
	AlgbwGbps     *float64 `json:"algbw_gbps"`
	BusbwGbps     *float64 `json:"busbw_gbps"`
	SlowestStep   int      `json:"slowest_step"`
	SlowestRank   int      `json:"slowest_rank"`
	SlowestHost   string   `json:"slowest_host"`
	SlowestStepUS *float64 `json:"slowest_step_us"`
	// StepEndUS is, per step, its last message's arrival from the iteration's start, for
	// the steps whose messages all arrived, from step 0 up to the first that did not.
	StepEndUS []float64 `json:"step_end_us"`
	// Arrived counts the messages that arrived, of Messages.
	Arrived  int `json:"arrived_messages"`
	Messages int `json:"messages"`
	// StepSlowestUS and StepSlowestRank are, per step (as far as StepEndUS goes, and one
	// step further when some of its messages arrived), its slowest message's time from its
	// release to its arrival and that message's receiving rank; MessageTimes is the
	// histogram of every arrived message's time (docs/results.md).
	StepSlowestUS   []float64  `json:"step_slowest_us"`
	StepSlowestRank []int      `json:"step_slowest_rank"`
	MessageTimes    *Histogram `json:"message_time_histogram"`
	// Reason says why an iteration that had not ended by the end of the run stopped: its
	// first message never released and what that message waited for.
	Reason string `json:"reason,omitempty"`
	// Op, Algorithm, SizeBytes, IdealUS, Node and WaitUS describe a chakra job's iteration,
	// one of its collectives: what it is, its ideal alone on the empty fabric, its trace node
	// (rank 0's id and name), and the time from the end of the one before (the job's start
	// for the first) to its first release.
	Op        string   `json:"op,omitempty"`
	Algorithm string   `json:"algorithm,omitempty"`
	SizeBytes int64    `json:"size_bytes,omitempty"`
	IdealUS   *float64 `json:"ideal_us,omitempty"`
	Node      string   `json:"node,omitempty"`
	WaitUS    *float64 `json:"wait_us,omitempty"`
}

// Bandwidths are the algorithm and bus bandwidths, in Gb/s, of size bytes per rank moved in
// us microseconds with bus factor factor (nccl-tests doc/PERFORMANCE.md: algbw = S / t,
// busbw = algbw x factor).
func Bandwidths(size int64, us, factor float64) (algbw, busbw float64) {
	algbw = float64(size) * 8 / (us * 1e3)
	return algbw, algbw * factor
}

// hasJobs reports whether a variant of d ran a collective.
func hasJobs(d *Document) bool {
	for i := range d.Variants {
		if len(d.Variants[i].Jobs) > 0 {
			return true
		}
	}
	return false
}

// jobsHeader is the collectives table's header (jobsTable) for a run of one seed.
var jobsHeader = []string{"variant", "job", "op", "algorithm", "ranks", "size_bytes", "message_bytes", "iterations", "time_us", "ideal_us", "algbw_gbps", "busbw_gbps", "slowest"}

// messageBytes is a job's messages' size for a table: the one size, or the smallest and the
// largest ("131072-262144").
func messageBytes(j *Job) string {
	if j.MessageBytesMin == j.MessageBytesMax {
		return integer(j.MessageBytesMax)
	}
	return integer(j.MessageBytesMin) + "-" + integer(j.MessageBytesMax)
}

// jobRows are the collectives table's rows: per variant and job, its size, its messages', the mean
// iteration time, its ideal, the bandwidths and the slowest step of the slowest iteration.
func jobRows(d *Document) [][]string {
	var rows [][]string
	for i := range d.Variants {
		v := &d.Variants[i]
		for _, j := range v.Jobs {
			slowest := "-"
			var worst *JobIteration
			for k := range j.PerIteration {
				it := &j.PerIteration[k]
				if it.CompletionUS != nil && (worst == nil || *it.CompletionUS > *worst.CompletionUS) {
					worst = it
				}
			}
			if worst != nil {
				slowest = fmt.Sprintf("iter %d step %d at %s", worst.Iteration, worst.SlowestStep, worst.SlowestHost)
			}
			rows = append(rows, []string{variantCell(d, v), j.Label, j.Op, j.Algorithm, strconv.Itoa(j.Ranks),
				integer(j.SizeBytes), messageBytes(&j), fmt.Sprintf("%d/%d", j.Completed, j.Iterations), optFixed(j.CompletionUS),
				fixed(j.IdealUS), optFixed(j.AlgbwGbps), optFixed(j.BusbwGbps), slowest})
		}
	}
	return rows
}

// jobsCSVHeader is jobs.csv's header: one row per variant, job and iteration.
var jobsCSVHeader = []string{"variant", "seed", "job", "op", "algorithm", "ranks", "size_bytes", "channels", "iteration",
	"start_us", "completion_us", "ideal_us", "algbw_gbps", "busbw_gbps", "slowest_step", "slowest_rank", "slowest_host",
	"slowest_step_us", "arrived_messages", "messages"}

// writeJobsCSV writes jobs.csv: every variant's jobs, a row per iteration, numbers at full
// precision, empty cells for what an unfinished iteration lacks.
func writeJobsCSV(w io.Writer, d *Document) error {
	var rows [][]string
	for i := range d.Variants {
		v := &d.Variants[i]
		for _, j := range v.Jobs {
			for _, it := range j.PerIteration {
				op, alg, size, ideal := j.Op, j.Algorithm, j.SizeBytes, j.IdealUS
				if it.Op != "" { // a chakra job: each iteration its own collective
					op, alg, size, ideal = it.Op, it.Algorithm, it.SizeBytes, *it.IdealUS
				}
				rows = append(rows, []string{v.Name, strconv.FormatUint(v.Seed, 10), j.Label, op, alg,
					strconv.Itoa(j.Ranks), integer(size), strconv.Itoa(j.Channels), strconv.Itoa(it.Iteration),
					optExact(it.StartUS), optExact(it.CompletionUS), exact(ideal), optExact(it.AlgbwGbps),
					optExact(it.BusbwGbps), strconv.Itoa(it.SlowestStep), strconv.Itoa(it.SlowestRank), it.SlowestHost,
					optExact(it.SlowestStepUS), strconv.Itoa(it.Arrived), strconv.Itoa(it.Messages)})
			}
		}
	}
	return writeCSV(w, jobsCSVHeader, rows)
}

// jobStepsFigure is each job's timeline in its first iteration: when each step's last
// message arrived, against the ideal's, one line per variant and job.
func jobStepsFigure(d *Document) (*Figure, string, error) {
	if !hasJobs(d) {
		return nil, "no collective in the scenario", nil
	}
	f := newFigure("jobs-steps", "", d.Scenario+": collective steps, first iteration", "step (index)", "time since the iteration began (us)")
	f.Caption = "When each step of each collective's first iteration had all its messages arrived, from the iteration's start, one line per variant and job; the dashed line of the same colour is the ideal's (the critical path of the dependency graph alone on the empty fabric). Where a line rises above its ideal, the steps there waited: for a collision, a pause, a cut rate."
	line := 0
	ids := identities(d)
	for i := range d.Variants {
		v := &d.Variants[i]
		for jobIndex, j := range v.Jobs {
			if len(j.PerIteration) == 0 || len(j.PerIteration[0].StepEndUS) == 0 {
				continue
			}
			var pts, ideal plotter.XYs
			for k, t := range j.PerIteration[0].StepEndUS {
				pts = append(pts, plotter.XY{X: float64(k), Y: t})
			}
			for k, t := range j.IdealStepEndUS {
				ideal = append(ideal, plotter.XY{X: float64(k), Y: t})
			}
			if err := f.addJobLines(ids(v.Name), jobIndex, v.Name+": "+j.Label, pts, ideal); err != nil {
				return nil, "", err
			}
			line++
		}
	}
	if line == 0 {
		return nil, "no collective step completed in any variant", nil
	}
	f.plot.Y.Min = 0
	countAxis(&f.plot.X)
	return f, "", nil
}

// addJobLines draws job number job of the variant with identity id: its measured line in
// the variant's colour, with the variant's marker for its first job and the next ones for
// the others, and, when there is one, its ideal dashed in the same colour and marker.
func (f *Figure) addJobLines(id identity, job int, label string, pts, ideal plotter.XYs) error {
	id.marker = markers[(id.place+job)%len(markers)]
	if _, err := f.addVariantLine(id, label, pts); err != nil {
		return err
	}
	if len(ideal) == 0 {
		return nil
	}
	id.dashes = plotutil.Dashes(1)
	_, err := f.addVariantLine(id, label+" ideal", ideal)
	return err
}

// minIterationsLine is the fewest iterations a job needs for a line through them.
const minIterationsLine = 3

// jobsFigure is each job's iteration time per iteration, one line per variant and job, with
// each job's ideal as a dashed line of the same colour.
func jobsFigure(d *Document) (*Figure, string, error) {
	if !hasJobs(d) {
		return nil, "no collective in the scenario", nil
	}
	most := 0
	for i := range d.Variants {
		for _, j := range d.Variants[i].Jobs {
			most = max(most, len(j.PerIteration))
		}
	}
	if most < minIterationsLine {
		return nil, fmt.Sprintf("at most %d iterations per job: a line through so few says less than the jobs table, which gives each", most), nil
	}
	f := newFigure("jobs-iterations", "", d.Scenario+": collective iteration time", "iteration (index)", "time (us)")
	f.Caption = "Each collective's iteration time, from its first message's release to its last message's arrival, per iteration, one line per variant and job; the dashed line of the same colour is the job's ideal: the critical path of its dependency graph alone on the empty fabric, with headers and each path's latency."
	line := 0
	ids := identities(d)
	for i := range d.Variants {
		v := &d.Variants[i]
		for jobIndex, j := range v.Jobs {
			var pts, ideal plotter.XYs
			for _, it := range j.PerIteration {
				if it.CompletionUS != nil {
					pts = append(pts, plotter.XY{X: float64(it.Iteration), Y: *it.CompletionUS})
				}
				y := j.IdealUS
				if it.IdealUS != nil { // a chakra job's collectives differ
					y = *it.IdealUS
				}
				ideal = append(ideal, plotter.XY{X: float64(it.Iteration), Y: y})
			}
			if len(pts) == 0 {
				continue
			}
			if err := f.addJobLines(ids(v.Name), jobIndex, v.Name+": "+j.Label, pts, ideal); err != nil {
				return nil, "", err
			}
			line++
		}
	}
	if line == 0 {
		return nil, "no collective iteration completed in any variant", nil
	}
	f.plot.Y.Min = 0
	countAxis(&f.plot.X)
	return f, "", nil
}

// countAxis labels an axis of counts (steps, iterations) at whole numbers only, every one
// when there are at most maxCountTicks of them, with half a unit of room either side: never
// a tick at 0.25 of an iteration.
func countAxis(ax *plot.Axis) {
	lo, hi := math.Floor(ax.Min), math.Ceil(ax.Max)
	step := math.Max(1, math.Ceil((hi-lo+1)/maxCountTicks))
	var ticks []plot.Tick
	for x := lo; x <= hi; x += step {
		ticks = append(ticks, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'f', 0, 64)})
	}
	ax.Tick.Marker = plot.ConstantTicks(ticks)
	ax.Min, ax.Max = lo-0.5, hi+0.5
}

// maxCountTicks is the most whole-number ticks countAxis labels.
const maxCountTicks = 12
