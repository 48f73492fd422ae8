package results

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// ShortFlowBytes is the size up to which Reading calls a flow short.
const ShortFlowBytes = 100_000

// Reading is what a reader should take from d's comparison, in at most five lines computed
// from its numbers: which variant completed all its flows first and which last, which
// variants could not route flows, what losses cost the lossy variants and what the lossless
// ones paid in pauses, how short flows fared, and where to read why: `fabricsim explain`
// with scenario, the file or bundled name the run was given ("" leaves that line out). It
// says nothing about a document with fewer than two variants.
func Reading(d *Document, scenario string) []string {
	if len(d.Variants) < 2 || len(d.Replication) > 0 {
		return nil
	}
	var lines []string
	if l := readFinish(d); l != "" {
		lines = append(lines, l)
	}
	if l := readUnroutable(d); l != "" {
		lines = append(lines, l)
	}
	if l := readLoss(d); l != "" {
		lines = append(lines, l)
	}
	if l := readShort(d); l != "" {
		lines = append(lines, l)
	}
	if len(lines) > 4 {
		lines = lines[:4]
	}
	if scenario != "" {
		lines = append(lines, fmt.Sprintf("Why, in words: fabricsim explain %s", scenario))
	}
	return lines
}

// readFinish compares the variants that completed every flow by when their last flow
// finished (not by their longest FCT: flows that start late, as a collective's steps, a
// Poisson arrival or a start: field make them differ).
func readFinish(d *Document) string {
	type done struct {
		name string
		end  float64
	}
	var all []done
	for i := range d.Variants {
		v := &d.Variants[i]
		if v.Flows.Total == 0 || v.Flows.Completed != v.Flows.Total || len(v.PerFlow) == 0 {
			continue
		}
		end := 0.0
		for j := range v.PerFlow {
			if f := v.PerFlow[j].FinishUS; f != nil {
				end = max(end, *f)
			}
		}
		all = append(all, done{v.Name, end})
	}
	if len(all) < 2 {
		return ""
	}
	slices.SortStableFunc(all, func(a, b done) int { return cmpFloat(a.end, b.end) })
	first, last := all[0], all[len(all)-1]
	return fmt.Sprintf("All flows done first with %s (the last at %s us); last with %s (at %s us, %.1fx as late).",
		first.name, fixed(first.end), last.name, fixed(last.end), last.end/first.end)
}

// readUnroutable names the variants with flows their transport could not route.
func readUnroutable(d *Document) string {
	var parts []string
	for i := range d.Variants {
		v := &d.Variants[i]
		if v.Flows.Unroutable > 0 {
			parts = append(parts, fmt.Sprintf("%s could not route %d of its %d flows", v.Name, v.Flows.Unroutable, v.Flows.Total))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + " (the note above says why)."
}

// readLoss sets the lossy variants' drops and retransmissions against the pauses the
// lossless ones paid.
func readLoss(d *Document) string {
	var lossy, paused []string
	for i := range d.Variants {
		v := &d.Variants[i]
		switch {
		case v.Drops.Total > 0:
			s := fmt.Sprintf("%s dropped %d packets and resent %d", v.Name, v.Drops.Total, v.RetransmittedPackets)
			if v.Timeouts > 0 {
				s += fmt.Sprintf(" (%s)", plural(v.Timeouts, "timeout"))
			}
			lossy = append(lossy, s)
		case v.PFC.PauseFrames > 0:
			paused = append(paused, fmt.Sprintf("%s %s us", v.Name, fixed(v.PFC.PausedTimeUS)))
		}
	}
	var out []string
	if len(lossy) > 0 {
		out = append(out, strings.Join(lossy, "; "))
	}
	if len(paused) > 0 {
		out = append(out, "lossless, paused in all: "+strings.Join(paused, ", "))
	}
	if len(out) == 0 {
		return ""
	}
	// A sentence may start with a variant's name, kept as written ("eBPF lossy"); only
	// our own words take a capital.
	return capitalize(strings.Join(out, "; "), len(lossy) == 0) + "."
}

// readShort compares the variants' p99 FCT of short flows (at most ShortFlowBytes), among
// the variants that completed every flow: where some flows could not run, the short ones
// met less traffic, and the comparison would flatter that variant.
func readShort(d *Document) string {
	type tail struct {
		name string
		p99  float64
		n    int
	}
	var all []tail
	for i := range d.Variants {
		v := &d.Variants[i]
		if v.Flows.Completed != v.Flows.Total {
			continue
		}
		var fcts []float64
		for j := range v.PerFlow {
			if f := &v.PerFlow[j]; f.SizeBytes <= ShortFlowBytes && f.FCTUS != nil {
				fcts = append(fcts, *f.FCTUS)
			}
		}
		if len(fcts) > 0 {
			slices.Sort(fcts)
			all = append(all, tail{v.Name, *quantile(0.99, fcts), len(fcts)})
		}
	}
	if len(all) < 2 {
		return ""
	}
	slices.SortStableFunc(all, func(a, b tail) int { return cmpFloat(a.p99, b.p99) })
	best, worst := all[0], all[len(all)-1]
	return fmt.Sprintf("Short flows (up to %d KB): p99 FCT %s us with %s, %s us with %s.",
		ShortFlowBytes/1000, fixed(best.p99), best.name, fixed(worst.p99), worst.name)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b || (math.IsNaN(b) && !math.IsNaN(a)):
		return -1
	case a > b:
		return 1
	}
	return 0
}

func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func capitalize(s string, ours bool) string {
	if s == "" || !ours {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
