// Package transcript reads and checks data-driven test transcripts, in the manner of etcd
// raft's and CockroachDB's datadriven tests: a file of commands, each followed by the
// output it must produce.
//
// A command is one line, a name and key=value arguments, then a line "----", then the
// expected output up to a blank line. Lines starting with # between commands are comments.
//
//	pause t=1us class=3 quanta=1000
//	----
//	until=6.12us
//
// Run with TRANSCRIPT_REWRITE=1 in the environment to write the outputs produced into the
// file instead of checking them (then read the diff).
package transcript

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/fabricsim/fabricsim/sim"
)

// Command is one command of a transcript.
type Command struct {
	// Pos is file:line, for messages.
	Pos string
	// Name is the first word of the line.
	Name string
	// Args are the key=value words after it.
	Args map[string]string
	t    testing.TB
}

// Run runs each command of the transcript at path through do and checks its output.
func Run(t *testing.T, path string, do func(c *Command) string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var out []string // the file with the outputs produced, for a rewrite
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			out = append(out, lines[i])
			continue
		}
		c := &Command{Pos: fmt.Sprintf("%s:%d", path, i+1), Args: map[string]string{}, t: t}
		words := strings.Fields(line)
		c.Name = words[0]
		for _, w := range words[1:] {
			k, v, ok := strings.Cut(w, "=")
			if !ok {
				t.Fatalf("%s: argument %q is not key=value", c.Pos, w)
			}
			c.Args[k] = v
		}
		if i+1 >= len(lines) || strings.TrimSpace(lines[i+1]) != "----" {
			t.Fatalf("%s: the command is not followed by ----", c.Pos)
		}
		i += 2
		var want []string
		for ; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
			want = append(want, lines[i])
		}
		got := strings.TrimRight(do(c), "\n")
		out = append(out, line, "----", got)
		if i < len(lines) {
			out = append(out, "")
		}
		if w := strings.Join(want, "\n"); got != w && os.Getenv("TRANSCRIPT_REWRITE") == "" {
			t.Errorf("%s: %s\ngot:\n%s\nwant:\n%s", c.Pos, line, got, w)
		}
	}
	if os.Getenv("TRANSCRIPT_REWRITE") != "" {
		if err := os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func (c *Command) arg(key string) string {
	v, ok := c.Args[key]
	if !ok {
		c.t.Fatalf("%s: %s needs %s=", c.Pos, c.Name, key)
	}
	return v
}

// Has reports whether the command has argument key.
func (c *Command) Has(key string) bool { _, ok := c.Args[key]; return ok }

// Int is the integer argument key.
func (c *Command) Int(key string) int64 {
	n, err := strconv.ParseInt(c.arg(key), 10, 64)
	if err != nil {
		c.t.Fatalf("%s: %s=%s: %v", c.Pos, key, c.Args[key], err)
	}
	return n
}

// Float is the number argument key.
func (c *Command) Float(key string) float64 {
	x, err := strconv.ParseFloat(c.arg(key), 64)
	if err != nil {
		c.t.Fatalf("%s: %s=%s: %v", c.Pos, key, c.Args[key], err)
	}
	return x
}

// String is the argument key as it is.
func (c *Command) String(key string) string { return c.arg(key) }

// Time is the time argument key: a number and a unit, ps, ns, us, ms or s (0 may go bare).
func (c *Command) Time(key string) sim.Time {
	v := c.arg(key)
	for _, u := range []struct {
		suffix string
		unit   sim.Time
	}{{"ps", 1}, {"ns", sim.Nanosecond}, {"us", sim.Microsecond}, {"ms", sim.Millisecond}, {"s", sim.Second}} {
		if num, ok := strings.CutSuffix(v, u.suffix); ok {
			x, err := strconv.ParseFloat(num, 64)
			if err != nil {
				c.t.Fatalf("%s: %s=%s: %v", c.Pos, key, v, err)
			}
			return sim.Time(x*float64(u.unit) + 0.5)
		}
	}
	if v == "0" {
		return 0
	}
	c.t.Fatalf("%s: %s=%s: a time needs a unit", c.Pos, key, v)
	return 0
}
