// Command fabricsim simulates lossless Ethernet datacenter fabrics at packet level and
// compares transports and PFC/ECN setups side by side. See README.md and docs/.
//
// Exit status: 0 success; 2 the scenario, a flag or a setting is invalid, the run is too
// large (the scenario package's limits), or an output cannot be written (found before
// simulating: a --json directory that does not exist, an -o directory that is not new,
// empty or an earlier run's, one another run holds the lock of, an output name too long);
// 1 a write that fails after the run (the table is printed first); 3 a bound (--max-events, --max-wall) ended the run; 130 a signal did (the results so far are written in both cases); 1 anything else.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// usageError is a problem with the user's input: a flag, a file that is not there, a
// scenario that does not validate. It exits with status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// isUsage reports whether err is a usageError.
func isUsage(err error) bool {
	var ue *usageError
	return errors.As(err, &ue)
}

// run executes the command line and returns the exit status.
func run(args []string, stdout, stderr io.Writer) (status int) {
	defer func() {
		// A run never panics on user input; if it does anyway, that is our bug: say so
		// plainly instead of dumping goroutines at the user.
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "fabricsim: internal error: %v\nplease report this with the scenario file\n", r)
			status = 1
		}
	}()
	stdinRead.Lock()
	stdinRead.done, stdinRead.data, stdinRead.err = false, nil, nil // a new command reads it anew
	stdinRead.Unlock()
	root := newRootCommand(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		fmt.Fprintln(stderr, ee.msg)
		return ee.status
	}
	var ue *usageError
	if errors.As(err, &ue) {
		if ue.msg != "" {
			fmt.Fprintln(stderr, ue.msg)
		}
		return 2
	}
	if isFlagError(err) {
		fmt.Fprintf(stderr, "fabricsim: %v\nrun 'fabricsim --help' for usage\n", err)
		return 2
	}
	fmt.Fprintf(stderr, "fabricsim: %v\n", err)
	return 1
}
