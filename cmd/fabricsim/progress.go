package main

import (
	"io"
	"os"
	"sync"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress shows how far the variants have got in simulated time, on stderr, only when
// stderr is a terminal and -q is not given.
type progress struct {
	mu   sync.Mutex
	bar  *progressbar.ProgressBar
	done []float64
}

func newProgress(stderr io.Writer, variants int, quiet bool) *progress {
	p := &progress{done: make([]float64, variants)}
	f, ok := stderr.(*os.File)
	if quiet || !ok || !term.IsTerminal(int(f.Fd())) {
		return p
	}
	p.bar = progressbar.NewOptions(1000, progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetDescription("simulating"), progressbar.OptionClearOnFinish(),
		progressbar.OptionShowElapsedTimeOnFinish())
	return p
}

// report is an experiment.Progress.
func (p *progress) report(variant int, done float64) {
	if p.bar == nil {
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
	_ = p.bar.Set(int(1000 * sum / float64(len(p.done))))
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
