package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/fabricsim/fabricsim/internal/infile"
	"github.com/fabricsim/fabricsim/scenarios"
)

// maxShown is how many problems of a scenario are printed; the rest are counted.
const maxShown = 100

// slowEvery is how long a step before the simulation (reading, checking, building) may run
// before a plain line says it is still running, and how often the line repeats.
var slowEvery = 5 * time.Second

// readFile reads a scenario file of at most scenarios.MaxFileBytes; a larger one is refused
// by its size, without reading it, and a path that is no regular file (a fifo, a device, a
// directory) at once, without an open that could block (infile.Read).
func readFile(path string) ([]byte, error) {
	data, err := infile.Read(path, scenarios.MaxFileBytes)
	var big *infile.TooLargeError
	if errors.As(err, &big) {
		return nil, usagef("%s: %s", path, scenarios.FileTooLarge(big.Size))
	}
	return data, err
}

// stdin is where a scenario given as "-" is read from; tests replace it.
var stdin io.Reader = os.Stdin

// stdinName is what messages call a scenario read from the standard input.
const stdinName = "stdin"

// stdinRead holds the standard input once read: a command may read its scenario twice (a
// sweep checks its block after loading), and a pipe gives its bytes once.
var stdinRead struct {
	sync.Mutex
	done bool
	data []byte
	err  error
}

// readStdin reads a scenario from the standard input, whole and bounded as a file is: more
// than scenarios.MaxFileBytes is refused once the bound is passed, without reading the rest.
func readStdin() ([]byte, error) {
	stdinRead.Lock()
	defer stdinRead.Unlock()
	if !stdinRead.done {
		stdinRead.done = true
		data, err := io.ReadAll(io.LimitReader(stdin, scenarios.MaxFileBytes+1))
		switch {
		case err != nil:
			stdinRead.err = usagef("%s: %v", stdinName, err)
		case int64(len(data)) > scenarios.MaxFileBytes:
			stdinRead.err = usagef("%s: more than %d bytes on the standard input; a scenario file is at most that: describe large traffic with a generator (permutation, all_to_all, poisson, incast with repeat) instead of flow by flow",
				stdinName, scenarios.MaxFileBytes)
		default:
			stdinRead.data = data
		}
	}
	return stdinRead.data, stdinRead.err
}

// problemList formats a scenario's problems one per line, at most maxShown of them, then
// "and N more", then the count.
func problemList(name string, problems scenarios.Problems) string {
	var b strings.Builder
	for i, p := range problems {
		if i == maxShown {
			fmt.Fprintf(&b, "... and %d more problem(s) not shown\n", len(problems)-maxShown)
			break
		}
		fmt.Fprintln(&b, p.Error())
	}
	fmt.Fprintf(&b, "%s: %d problem(s)", name, len(problems))
	return b.String()
}

// slowNotice prints a plain line to w every slowEvery while a step runs, so that a long load
// or build is seen to be alive; the returned function ends it. Quiet prints nothing.
func slowNotice(w io.Writer, what string, quiet bool) (done func()) {
	if quiet {
		return func() {}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		tick := time.NewTicker(slowEvery)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case now := <-tick.C:
				fmt.Fprintf(w, "fabricsim: %s: still running after %s\n", what, now.Sub(start).Round(time.Second))
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(stop); wg.Wait() }) }
}

// unknownCommand is the error of `fabricsim WORD` when WORD is no command.
func unknownCommand(root *cobra.Command, word string) error {
	var names []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	hint := ""
	if root.SuggestionsMinimumDistance <= 0 {
		root.SuggestionsMinimumDistance = 2
	}
	if s := root.SuggestionsFor(word); len(s) > 0 {
		hint = fmt.Sprintf(" (did you mean %q?)", s[0])
	}
	return usagef("fabricsim: unknown command %q%s; the commands are %s (a scenario file runs with: fabricsim run FILE)",
		word, hint, strings.Join(names, ", "))
}
