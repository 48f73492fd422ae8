// Package workload holds flow-size distributions: the bundled ones measured in production
// datacenters (web search, Hadoop, storage, RPC; see data/README.md for their sources) and a
// user's own, read from a file of (size in bytes, cumulative percent) pairs, and draws flow
// sizes from them by inverse CDF with linear interpolation between the points, as the HPCC
// simulator's traffic generator does.
package workload

import (
	"bufio"
	"bytes"
	"embed"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

//go:embed data/*.txt
var bundled embed.FS

// Names are the bundled workloads, as a scenario names them.
var Names = []string{"websearch", "hadoop", "alistorage", "googlerpc"}

// Point is one point of a cumulative distribution: P(size <= Size) = Cum.
type Point struct {
	Size float64 // bytes
	Cum  float64 // in [0, 1]
}

// CDF is a flow-size distribution given by points, sizes and probabilities both
// non-decreasing, the last at probability 1; between two points it is linear.
type CDF struct {
	Name   string
	Points []Point
}

// Bundled returns the bundled workload called name.
func Bundled(name string) (*CDF, error) {
	data, err := bundled.ReadFile("data/" + name + ".txt")
	if err != nil {
		return nil, fmt.Errorf("unknown workload %q (bundled: %s)", name, strings.Join(Names, ", "))
	}
	return Parse(name, data)
}

// Parse reads a distribution from data: one "size_bytes cumulative_percent" pair a line,
// blank lines and lines starting with # ignored. Sizes are non-negative and non-decreasing,
// percents non-decreasing from 0 to 100, the last exactly 100; only a first point may have
// size 0. An error names file:line and what is allowed. It never quotes a line that is not
// two numbers: a path to some other file (a password file, /proc/self/environ) must not have
// its content printed, so the form of every line is checked first, and only a file of number
// pairs has its numbers named in the errors of the rules above.
func Parse(file string, data []byte) (*CDF, error) {
	type numbered struct {
		line      int
		size, pct float64
	}
	var pts []numbered
	sc := bufio.NewScanner(bytes.NewReader(data))
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Fields(text)
		if len(fields) != 2 {
			return nil, fmt.Errorf("%s:%d: want two numbers, a size in bytes and a cumulative percent (e.g. 10000 35), found %d fields", file, line, len(fields))
		}
		size, err1 := strconv.ParseFloat(fields[0], 64)
		pct, err2 := strconv.ParseFloat(fields[1], 64)
		switch {
		case err1 != nil || math.IsNaN(size) || math.IsInf(size, 0):
			return nil, fmt.Errorf("%s:%d: want two numbers, a size in bytes and a cumulative percent (e.g. 10000 35); the first field is no finite number", file, line)
		case err2 != nil || math.IsNaN(pct):
			return nil, fmt.Errorf("%s:%d: want two numbers, a size in bytes and a cumulative percent (e.g. 10000 35); the second field is no number", file, line)
		}
		pts = append(pts, numbered{line, size, pct})
	}
	if err := sc.Err(); err != nil {
		// The scanner's errors (a line over its 64 KiB buffer) carry no content.
		return nil, fmt.Errorf("%s:%d: %v: want lines of two numbers, a size in bytes and a cumulative percent", file, line+1, err)
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("%s:%d: no points: want lines of a size in bytes and a cumulative percent", file, line)
	}
	c := &CDF{Name: file}
	for _, p := range pts {
		size, pct := p.size, p.pct
		if pct < 0 || pct > 100 {
			return nil, fmt.Errorf("%s:%d: cumulative percent %v is outside 0..100", file, p.line, pct)
		}
		if size < 0 || (size == 0 && len(c.Points) > 0) {
			return nil, fmt.Errorf("%s:%d: size %v: sizes are positive (only a first point may be 0)", file, p.line, size)
		}
		if n := len(c.Points); n > 0 {
			prev := c.Points[n-1]
			if size < prev.Size {
				return nil, fmt.Errorf("%s:%d: size %v is below the previous line's %v: sizes must not decrease", file, p.line, size, prev.Size)
			}
			if pct/100 < prev.Cum {
				return nil, fmt.Errorf("%s:%d: cumulative percent %v is below the previous line's %v: a CDF must not decrease", file, p.line, pct, prev.Cum*100)
			}
		}
		c.Points = append(c.Points, Point{Size: size, Cum: pct / 100})
	}
	if last := c.Points[len(c.Points)-1]; last.Cum != 1 {
		return nil, fmt.Errorf("%s:%d: the last cumulative percent is %v: a CDF ends at 100", file, line, last.Cum*100)
	}
	return c, nil
}

// Size is the flow size at quantile u in [0, 1): the inverse of the CDF, linear between
// points, at least 1 byte (a drawn 0 becomes 1, as the HPCC generator does).
func (c *CDF) Size(u float64) int64 {
	p := c.Points
	i := sort.Search(len(p), func(i int) bool { return p[i].Cum > u })
	var x float64
	switch {
	case i == 0:
		x = p[0].Size
	case i == len(p):
		x = p[len(p)-1].Size
	default:
		a, b := p[i-1], p[i]
		x = a.Size + (u-a.Cum)/(b.Cum-a.Cum)*(b.Size-a.Size)
	}
	return max(int64(x), 1)
}

// Mean is the distribution's mean size in bytes: the integral of the piecewise-linear CDF,
// sum over segments of the midpoint size times the segment's probability (plus the mass at
// the first point).
func (c *CDF) Mean() float64 {
	p := c.Points
	m := p[0].Size * p[0].Cum
	for i := 1; i < len(p); i++ {
		m += (p[i].Size + p[i-1].Size) / 2 * (p[i].Cum - p[i-1].Cum)
	}
	return m
}

// At is P(size <= x).
func (c *CDF) At(x float64) float64 {
	p := c.Points
	i := sort.Search(len(p), func(i int) bool { return p[i].Size > x })
	switch {
	case i == 0:
		return 0
	case i == len(p):
		return 1
	}
	a, b := p[i-1], p[i]
	return a.Cum + (x-a.Size)/(b.Size-a.Size)*(b.Cum-a.Cum)
}
