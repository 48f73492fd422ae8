package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// plainEvery is how often progress is printed as a plain line when stderr is not a terminal.
const plainEvery = 5 * time.Second

// progress shows how far the variants have got, on stderr, unless -q is given: a bar on a
// terminal, else a plain line every few seconds (for logs and batch jobs). A variant's
// progress is the larger of the share of its flows that have ended and the share of its
// simulated time gone, so finite flows that end long before stop and endless ones both move.
type progress struct {
	mu        sync.Mutex
	bar       *progressbar.ProgressBar
	plain     io.Writer // nil unless stderr is not a terminal and -q is not given
	start     time.Time
	lastPlain time.Time
	done      []float64
}

func newProgress(stderr io.Writer, variants int, quiet bool) *progress {
	p := &progress{done: make([]float64, variants), start: time.Now()}
	p.lastPlain = p.start
	if quiet {
		return p
	}
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		p.plain = stderr
		return p
	}
	p.bar = progressbar.NewOptions(1000, progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetDescription("simulating"), progressbar.OptionClearOnFinish(),
		progressbar.OptionShowElapsedTimeOnFinish())
	return p
}

// report is an experiment.Progress.
func (p *progress) report(variant int, done float64) {
	if p.bar == nil && p.plain == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if variant < len(p.done) {
		p.done[variant] = done
	}
	sum := 0.0
	for _, d := range p.done {
		sum += d
	}
	share := sum / float64(max(len(p.done), 1))
	if p.bar != nil {
		_ = p.bar.Set(int(1000 * share))
		return
	}
	if now := time.Now(); now.Sub(p.lastPlain) >= plainEvery {
		p.lastPlain = now
		fmt.Fprintf(p.plain, "fabricsim: %.0f%% done after %s\n", 100*share, now.Sub(p.start).Round(time.Second))
	}
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
