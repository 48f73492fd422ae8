// Package sim is the kernel of fabricsim: simulated time in integer picoseconds, a
// deterministic discrete-event loop, and seeded random streams, one per component.
//
// Nothing in this package reads the wall clock or a global random source, so a run is a pure
// function of its inputs and seed.
package sim

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
)

// Time is simulated time, or a duration, in integer picoseconds. An int64 covers about
// 106 days, far beyond any scenario's stop time.
type Time int64

// Units of Time.
const (
	Picosecond  Time = 1
	Nanosecond       = 1000 * Picosecond
	Microsecond      = 1000 * Nanosecond
	Millisecond      = 1000 * Microsecond
	Second           = 1000 * Millisecond
)

// Never is a time later than any event; it marks a timer that is not armed.
const Never Time = math.MaxInt64

// MaxDuration is the longest duration, and the latest time, a scenario may give: 2^60 ps,
// about 13.3 days. Eight such terms still fit in Time's int64 (2^63), so an event due at a
// time of the run plus a few durations (a delay, a timer, a pause) cannot overflow.
const MaxDuration Time = 1 << 60

// Plus is t + d for t, d >= 0, saturating at Never instead of overflowing.
func (t Time) Plus(d Time) Time {
	if d > Never-t {
		return Never
	}
	return t + d
}

// Times is d x n for d, n >= 0, saturating at Never instead of overflowing.
func (d Time) Times(n int64) Time {
	hi, lo := bits.Mul64(uint64(d), uint64(n))
	if hi != 0 || lo > uint64(Never) {
		return Never
	}
	return Time(lo)
}

// Seconds returns t in seconds.
func (t Time) Seconds() float64 { return float64(t) / float64(Second) }

// Microseconds returns t in microseconds, the unit of the results document.
func (t Time) Microseconds() float64 { return float64(t) / float64(Microsecond) }

// String formats t with the largest unit that keeps it at or above 1, e.g. "1.5us".
func (t Time) String() string {
	switch a := t; {
	case a == Never:
		return "never"
	case a < 0:
		return "-" + (-t).String()
	case a >= Second:
		return trim(t.Seconds()) + "s"
	case a >= Millisecond:
		return trim(float64(t)/float64(Millisecond)) + "ms"
	case a >= Microsecond:
		return trim(t.Microseconds()) + "us"
	case a >= Nanosecond:
		return trim(float64(t)/float64(Nanosecond)) + "ns"
	default:
		return fmt.Sprintf("%dps", int64(t))
	}
}

// trim formats v in the fewest digits that read back as the same float64: a time such as
// 1.048576ms keeps all its digits.
func trim(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Rate is a data rate in bits per second.
type Rate int64

// Units of Rate.
const (
	BitPerSecond Rate = 1
	Kbps              = 1000 * BitPerSecond
	Mbps              = 1000 * Kbps
	Gbps              = 1000 * Mbps
	Tbps              = 1000 * Gbps
)

// Gbps returns r in gigabits per second.
func (r Rate) Gbps() float64 { return float64(r) / float64(Gbps) }

// String formats r with the largest unit that keeps it at or above 1, e.g. "100Gbps".
func (r Rate) String() string {
	switch {
	case r >= Tbps:
		return trim(float64(r)/float64(Tbps)) + "Tbps"
	case r >= Gbps:
		return trim(float64(r)/float64(Gbps)) + "Gbps"
	case r >= Mbps:
		return trim(float64(r)/float64(Mbps)) + "Mbps"
	case r >= Kbps:
		return trim(float64(r)/float64(Kbps)) + "Kbps"
	default:
		return fmt.Sprintf("%dbps", int64(r))
	}
}

// TxTime is the time to serialize n bytes at rate r, rounded up to the next picosecond so
// that a link is never faster than its rate. It is exact for rates that divide 8e12 bit·ps/s
// (every common Ethernet speed), unlike a truncated per-byte time (htsim's _ps_per_byte).
// A time beyond Time's range (a whole large flow at a slow rate: 1.2 MB at 1 b/s) is Never,
// not a wrapped negative. Precondition: r > 0, n >= 0.
func (r Rate) TxTime(n int64) Time {
	// n*8*1e12 overflows int64 beyond about 1.15 MB, so multiply in 128 bits: n*8 fits 64
	// (n < 2^63), and the product of it and 1e12 fits 128.
	hi, lo := bits.Mul64(uint64(n), 8*uint64(Second))
	if hi >= uint64(r) {
		return Never // the quotient needs more than 64 bits
	}
	q, rem := bits.Div64(hi, lo, uint64(r))
	if rem != 0 {
		q++
	}
	if q > uint64(Never) {
		return Never
	}
	return Time(q)
}

// BytesIn is how many whole bytes rate r carries in duration d, at most math.MaxInt64.
// Precondition: r, d >= 0.
func (r Rate) BytesIn(d Time) int64 {
	hi, lo := bits.Mul64(uint64(r), uint64(d))
	if hi >= 8*uint64(Second) {
		return math.MaxInt64 // the quotient needs more than 64 bits
	}
	q, _ := bits.Div64(hi, lo, 8*uint64(Second))
	return int64(min(q, math.MaxInt64))
}
