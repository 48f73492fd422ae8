package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/fabricsim/fabricsim/results"
)

// exitAborted ends the process on a second signal; tests of the handler in-process replace it.
var exitAborted = os.Exit

// testHookWriting, when set, runs as a command starts writing its outputs: the signal tests
// send their signals there, at a moment no timing could hit reliably.
var testHookWriting func()

// signals handles SIGINT and SIGTERM alike (Slurm, Kubernetes and timeout(1) send SIGTERM)
// for a command that simulates and then writes its outputs (run, sweep). The first signal
// stops the simulation (Stop is closed) and the results so far are written whole; one that
// comes while they are written lets the writing finish. Either way the command exits 130.
// A second signal aborts at once: the temporary files are removed and the output
// directory's lock released (results.AbortWriting), and the process exits 130.
type signals struct {
	stderr io.Writer
	name   string // "fabricsim" or "fabricsim sweep", the start of every line it prints
	ch     chan os.Signal
	stop   chan struct{}
	quit   chan struct{}
	done   sync.WaitGroup

	mu      sync.Mutex
	got     int
	writing bool
}

// watchSignals starts handling SIGINT and SIGTERM; Close stops it.
func watchSignals(stderr io.Writer, name string) *signals {
	s := &signals{stderr: stderr, name: name, ch: make(chan os.Signal, 2),
		stop: make(chan struct{}), quit: make(chan struct{})}
	signal.Notify(s.ch, os.Interrupt, syscall.SIGTERM)
	s.done.Add(1)
	go s.loop()
	return s
}

// Stop is closed by the first signal.
func (s *signals) Stop() <-chan struct{} { return s.stop }

// Signalled reports whether a signal came.
func (s *signals) Signalled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.got > 0
}

// Writing says that the outputs are being written to where: after a signal, that is said on
// stderr, with how to abort.
func (s *signals) Writing(where string) {
	s.mu.Lock()
	s.writing = true
	if s.got > 0 && where != "" {
		fmt.Fprintf(s.stderr, "%s: writing the results so far to %s; a second Ctrl-C or SIGTERM aborts and removes the unfinished files\n", s.name, where)
	}
	s.mu.Unlock()
	if testHookWriting != nil {
		testHookWriting()
	}
}

// Close stops handling signals: the default actions apply again.
func (s *signals) Close() {
	signal.Stop(s.ch)
	close(s.quit)
	s.done.Wait()
}

func (s *signals) loop() {
	defer s.done.Done()
	for {
		select {
		case <-s.quit:
			return
		case sig := <-s.ch:
			s.handle(sig)
		}
	}
}

func (s *signals) handle(sig os.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got++
	name := signalName(sig)
	switch {
	case s.got > 1:
		results.AbortWriting()
		fmt.Fprintf(s.stderr, "%s: %s again: aborted; the unfinished files and the lock are removed, the files already written are kept\n", s.name, name)
		exitAborted(exitInterrupted)
	case s.writing:
		close(s.stop)
		fmt.Fprintf(s.stderr, "%s: %s while writing the results: finishing them whole; a second Ctrl-C or SIGTERM aborts\n", s.name, name)
	default:
		close(s.stop)
		fmt.Fprintf(s.stderr, "%s: %s: stopping the simulation; the results so far will be written; a second Ctrl-C or SIGTERM aborts\n", s.name, name)
	}
}

// signalName names sig as users know it.
func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}
